// Site stage: rendered pages in, files on disk out. The only stage that writes.
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Publishes a set of files as one folder, atomically.
///
/// Everything is written into a fresh staging folder beside the target, then swapped into
/// place in one step (`renameat2(RENAME_EXCHANGE)` where the kernel has it, two renames
/// otherwise). A failed or interrupted build leaves the previous folder as it was. Because the
/// staging folder is new, a symlink planted in the old output is never followed.
public struct SiteWriter {
    /// Marks a folder as Threadfold's output, which a later build may replace whole.
    public static let markerName = ".threadfold"
    static let markerText = "This folder is written by Threadfold and replaced whole on every build.\n"

    public let output: URL

    public init(output: URL) { self.output = output.standardizedFileURL }

    /// Writes `files` (relative path to bytes) as the new contents of `output`.
    public func publish(_ files: [(path: String, bytes: [UInt8])]) throws(SiteError) {
        let staging = try begin()
        do {
            for file in files { try staging.write(file.path, file.bytes) }
            try staging.commit()
        } catch {
            staging.abandon()
            throw error
        }
    }

    /// Checks the target and opens a staging folder beside it. Write pages into it as they are
    /// rendered, then `commit()` to swap it into place, or `abandon()` to leave the old output.
    public func begin() throws(SiteError) -> Staging {
        let fm = FileManager.default
        let parent = output.deletingLastPathComponent()
        let name = output.lastPathComponent
        var isDirectory: ObjCBool = false
        let exists = fm.fileExists(atPath: output.path, isDirectory: &isDirectory)
        if let attributes = try? fm.attributesOfItem(atPath: output.path), attributes[.type] as? FileAttributeType == .typeSymbolicLink {
            throw SiteError(path: output.path, message: "is a symbolic link; expected a folder Threadfold owns (or none)")
        }
        if exists {
            guard isDirectory.boolValue else {
                throw SiteError(path: output.path, message: "is a file; expected a folder Threadfold owns (or none)")
            }
            let contents = (try? fm.contentsOfDirectory(atPath: output.path)) ?? []
            if !contents.isEmpty && !contents.contains(Self.markerName) {
                throw SiteError(path: output.path, message: "holds files Threadfold did not write; expected an empty folder, a new one, or an earlier Threadfold output")
            }
        }
        do {
            try fm.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw SiteError(path: parent.path, message: "cannot create this folder: \(error.localizedDescription)")
        }
        removeAbandoned(in: parent, name: name)
        let tag = "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let staging = parent.appendingPathComponent(".\(name).staging-\(tag)")
        do {
            try fm.createDirectory(at: staging, withIntermediateDirectories: false)
        } catch {
            throw SiteError(path: staging.path, message: "cannot create the staging folder: \(error.localizedDescription)")
        }
        let session = Staging(writer: self, folder: staging, exists: exists, tag: tag)
        do {
            try Self.write(Array(Self.markerText.utf8), to: staging.appendingPathComponent(Self.markerName))
        } catch {
            session.abandon()
            throw error
        }
        return session
    }

    /// An open staging folder. Writes may come from many threads at once.
    public final class Staging: @unchecked Sendable {
        let writer: SiteWriter
        public let folder: URL
        let exists: Bool
        let tag: String
        private let state = Mutex<(folders: Set<String>, finished: Bool)>(([""], false))

        init(writer: SiteWriter, folder: URL, exists: Bool, tag: String) {
            self.writer = writer
            self.folder = folder
            self.exists = exists
            self.tag = tag
        }

        /// Writes one file at a safe relative path (no `..`, no absolute or hidden parts).
        public func write(_ path: String, _ bytes: [UInt8]) throws(SiteError) {
            let url = try prepare(path)
            try SiteWriter.write(bytes, to: url)
        }

        /// Puts the file at `source` (in the previous output) at `path` as a hard link, so an
        /// unchanged page costs no rendering and no copy; copies when a link is impossible.
        public func link(_ path: String, from source: URL) throws(SiteError) {
            let url = try prepare(path)
            if Glibc.link(source.path, url.path) == 0 { return }
            guard let data = FileManager.default.contents(atPath: source.path) else {
                throw SiteError(path: source.path, message: "cannot be read to reuse it: \(String(cString: strerror(errno)))")
            }
            try SiteWriter.write([UInt8](data), to: url)
        }

        /// Writes Threadfold's own bookkeeping (`.threadfold-…`), which is hidden from readers.
        public func writeMetadata(_ name: String, _ bytes: [UInt8]) throws(SiteError) {
            guard name.hasPrefix(SiteWriter.markerName + "-"), !name.contains("/") else {
                throw SiteError(path: name, message: "is not a Threadfold metadata name")
            }
            try SiteWriter.write(bytes, to: folder.appendingPathComponent(name))
        }

        private func prepare(_ path: String) throws(SiteError) -> URL {
            guard SiteWriter.isSafeRelativePath(path) else {
                throw SiteError(path: path, message: "is not a safe relative path inside the output")
            }
            let url = folder.appendingPathComponent(path)
            let directory = String(path.split(separator: "/").dropLast().joined(separator: "/"))
            let known = state.withLock { $0.folders.contains(directory) }
            if !known {
                do {
                    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                } catch {
                    throw SiteError(path: url.deletingLastPathComponent().path, message: "cannot create this folder: \(error.localizedDescription)")
                }
                _ = state.withLock { $0.folders.insert(directory) }
            }
            return url
        }

        /// Swaps the staging folder into place of the output.
        public func commit() throws(SiteError) {
            guard state.withLock({ state in
                defer { state.finished = true }
                return !state.finished
            }) else { return }
            do {
                try writer.swap(staging: folder, exists: exists, tag: tag)
            } catch {
                try? FileManager.default.removeItem(at: folder)
                throw error
            }
        }

        /// Removes the staging folder; the old output stays as it was.
        public func abandon() {
            guard state.withLock({ state in
                defer { state.finished = true }
                return !state.finished
            }) else { return }
            try? FileManager.default.removeItem(at: folder)
        }

        deinit { abandon() }
    }

    /// Removes staging folders that interrupted builds left beside the output: those named for
    /// a process that no longer runs.
    func removeAbandoned(in parent: URL, name: String) {
        guard let siblings = try? FileManager.default.contentsOfDirectory(atPath: parent.path) else { return }
        for sibling in siblings {
            var rest: Substring
            if sibling.hasPrefix(".\(name).staging-") { rest = sibling.dropFirst(name.count + 10) }
            else if sibling.hasPrefix(".\(name).old-") { rest = sibling.dropFirst(name.count + 6) }
            else { continue }
            guard let dash = rest.firstIndex(of: "-"), let pid = Int32(rest[..<dash]) else { continue }
            rest = rest[dash...]
            if pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(at: parent.appendingPathComponent(sibling))
            }
        }
    }

    fileprivate func swap(staging: URL, exists: Bool, tag: String) throws(SiteError) {
        let parent = output.deletingLastPathComponent()
        let name = output.lastPathComponent
        if !exists {
            guard rename(staging.path, output.path) == 0 else {
                throw SiteError(path: output.path, message: "could not be put in place: \(String(cString: strerror(errno)))")
            }
            return
        }
        if Self.exchange(staging.path, output.path) {
            try? FileManager.default.removeItem(at: staging) // now holds the old output
            return
        }
        let old = parent.appendingPathComponent(".\(name).old-\(tag)")
        guard rename(output.path, old.path) == 0 else {
            throw SiteError(path: output.path, message: "could not be moved aside: \(String(cString: strerror(errno)))")
        }
        guard rename(staging.path, output.path) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = rename(old.path, output.path)
            throw SiteError(path: output.path, message: "could not be put in place: \(reason)")
        }
        try? FileManager.default.removeItem(at: old)
    }

    /// Writes a new file (never through an existing link: the folder is fresh and O_EXCL refuses one).
    fileprivate static func write(_ bytes: [UInt8], to url: URL) throws(SiteError) {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw SiteError(path: url.path, message: "cannot be created: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw SiteError(path: url.path, message: "cannot be written: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    /// Atomically exchanges two paths with Linux's renameat2(RENAME_EXCHANGE), looked up at run
    /// time so the binary still runs where libc lacks it.
    static func exchange(_ a: String, _ b: String) -> Bool {
        typealias Renameat2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return false }
        let renameat2 = unsafeBitCast(symbol, to: Renameat2.self)
        let atFDCWD: Int32 = -100
        let renameExchange: UInt32 = 1 << 1
        return renameat2(atFDCWD, a, atFDCWD, b, renameExchange) == 0
    }

    /// A path of plain name components: no `..`, no absolute path, no empty or hidden parts.
    static func isSafeRelativePath(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/") else { return false }
        return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && part != "." && part != ".." && !part.hasPrefix(".") && !part.contains("\0")
        }
    }
}

public struct SiteError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String
    public var description: String { "\(path): error: \(message)" }
}
