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
/// Everything is written into a staging folder beside the target, then swapped into place in
/// one step (`renameat2(RENAME_EXCHANGE)` where the kernel has it, two renames otherwise). A
/// failed or interrupted build leaves the previous folder as it was.
///
/// Archive builds keep the swapped-out site as a spare (`.<name>.spare`, double buffering): an
/// incremental build recycles it as its staging folder, so a thread that changed in neither of
/// the last two builds costs no file operation at all. Files in a recycled folder are only ever
/// unlinked and created anew, never written in place, because they may be hard links shared
/// with the live site. A spare that a build was interrupted in is marked dirty and discarded.
/// Builds of one output take a lock (`.<name>.lock`), so two cannot share a staging folder.
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

    /// Where the previous site is kept between builds.
    public var spare: URL { output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).spare") }
    static let dirtyName = ".threadfold-dirty"

    /// Checks the target and opens a staging folder beside it. Write pages into it as they are
    /// rendered, then `commit()` to swap it into place, or `abandon()` to leave the old output.
    ///
    /// - Parameters:
    ///   - keepSpare: after the swap, keep the old output as the spare instead of deleting it.
    ///   - reuse: called with the spare folder, once the lock is held; returning true recycles
    ///     the spare as the staging folder (`Staging.recycled`), false starts from an empty one.
    public func begin(keepSpare: Bool = false, reuse: (URL) -> Bool = { _ in false }) throws(SiteError) -> Staging {
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
        let lock = open(parent.appendingPathComponent(".\(name).lock").path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard lock >= 0, flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            if lock >= 0 { close(lock) }
            throw SiteError(path: output.path, message: "another Threadfold build is writing this folder; expected one build at a time")
        }
        removeAbandoned(in: parent, name: name)
        let tag = "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

        // A clean spare that the caller can use becomes the staging folder.
        let spare = self.spare
        var spareIsDirectory: ObjCBool = false
        let hasSpare = fm.fileExists(atPath: spare.path, isDirectory: &spareIsDirectory) && spareIsDirectory.boolValue
            && (try? fm.attributesOfItem(atPath: spare.path)[.type] as? FileAttributeType) == .typeDirectory
        if hasSpare && exists && !fm.fileExists(atPath: spare.appendingPathComponent(Self.dirtyName).path)
            && fm.fileExists(atPath: spare.appendingPathComponent(Self.markerName).path) && reuse(spare) {
            let session = Staging(writer: self, folder: spare, exists: exists, tag: tag, recycled: true, keepSpare: keepSpare, lock: lock)
            do {
                try Self.write([], to: spare.appendingPathComponent(Self.dirtyName))
            } catch {
                session.abandon()
                throw error
            }
            return session
        }
        if hasSpare || fm.fileExists(atPath: spare.path) {
            // Not usable (dirty, or the caller wants a fresh start): it goes now.
            try? fm.removeItem(at: spare)
        }
        let staging = parent.appendingPathComponent(".\(name).staging-\(tag)")
        do {
            try fm.createDirectory(at: staging, withIntermediateDirectories: false)
        } catch {
            close(lock)
            throw SiteError(path: staging.path, message: "cannot create the staging folder: \(error.localizedDescription)")
        }
        let session = Staging(writer: self, folder: staging, exists: exists, tag: tag, recycled: false, keepSpare: keepSpare, lock: lock)
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
        /// The folder is the recycled spare: it holds the site from two builds ago.
        public let recycled: Bool
        let keepSpare: Bool
        private let lock: Int32
        private let state = Mutex<(folders: Set<String>, finished: Bool)>(([""], false))

        init(writer: SiteWriter, folder: URL, exists: Bool, tag: String, recycled: Bool, keepSpare: Bool, lock: Int32) {
            self.writer = writer
            self.folder = folder
            self.exists = exists
            self.tag = tag
            self.recycled = recycled
            self.keepSpare = keepSpare
            self.lock = lock
        }

        /// Writes one file at a safe relative path (no `..`, no absolute or hidden parts). In a
        /// recycled folder, a file that already holds these bytes is left alone (false).
        @discardableResult
        public func write(_ path: String, _ bytes: [UInt8]) throws(SiteError) -> Bool {
            let url = try prepare(path, replacing: false)
            if recycled {
                if SiteWriter.holds(url.path, bytes) { return false }
                unlink(url.path)
            }
            try SiteWriter.write(bytes, to: url)
            return true
        }

        /// Puts the file at `source` (in the previous output) at `path` as a hard link, so an
        /// unchanged page costs no rendering and no copy; copies when a link is impossible.
        public func link(_ path: String, from source: URL) throws(SiteError) {
            let url = try prepare(path, replacing: true)
            if Glibc.link(source.path, url.path) == 0 { return }
            guard let data = FileManager.default.contents(atPath: source.path) else {
                throw SiteError(path: source.path, message: "cannot be read to reuse it: \(String(cString: strerror(errno)))")
            }
            try SiteWriter.write([UInt8](data), to: url)
        }

        /// Removes a file of a recycled folder, and its folders when they become empty.
        public func remove(_ path: String) {
            guard SiteWriter.isSafeRelativePath(path) else { return }
            unlink(folder.appendingPathComponent(path).path)
            var parts = path.split(separator: "/").dropLast()
            while !parts.isEmpty {
                let directory = parts.joined(separator: "/")
                guard rmdir(folder.appendingPathComponent(directory).path) == 0 else { break }
                _ = state.withLock { $0.folders.remove(directory) }
                parts = parts.dropLast()
            }
        }

        /// Writes Threadfold's own bookkeeping (`.threadfold-…`), which is hidden from readers.
        public func writeMetadata(_ name: String, _ bytes: [UInt8]) throws(SiteError) {
            guard name.hasPrefix(SiteWriter.markerName + "-"), !name.contains("/") else {
                throw SiteError(path: name, message: "is not a Threadfold metadata name")
            }
            let url = folder.appendingPathComponent(name)
            if recycled { unlink(url.path) }
            try SiteWriter.write(bytes, to: url)
        }

        private func prepare(_ path: String, replacing: Bool) throws(SiteError) -> URL {
            guard SiteWriter.isSafeRelativePath(path) else {
                throw SiteError(path: path, message: "is not a safe relative path inside the output")
            }
            let url = folder.appendingPathComponent(path)
            // A recycled folder's file may be a hard link into the live site: replace, never overwrite.
            if recycled && replacing { unlink(url.path) }
            let directory = String(path.split(separator: "/").dropLast().joined(separator: "/"))
            let known = state.withLock { $0.folders.contains(directory) }
            if !known {
                if mkdir(url.deletingLastPathComponent().path, 0o755) != 0 && errno != EEXIST {
                    do {
                        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                    } catch {
                        throw SiteError(path: url.deletingLastPathComponent().path, message: "cannot create this folder: \(error.localizedDescription)")
                    }
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
            defer { close(lock) }
            if recycled { unlink(folder.appendingPathComponent(SiteWriter.dirtyName).path) }
            do {
                try writer.swap(staging: folder, exists: exists, tag: tag, keepSpare: keepSpare)
            } catch {
                if !recycled { try? FileManager.default.removeItem(at: folder) }
                throw error
            }
        }

        /// Removes the staging folder; the old output stays as it was. A recycled spare stays,
        /// marked dirty, and is discarded by the next build.
        public func abandon() {
            guard state.withLock({ state in
                defer { state.finished = true }
                return !state.finished
            }) else { return }
            defer { close(lock) }
            if !recycled { try? FileManager.default.removeItem(at: folder) }
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

    fileprivate func swap(staging: URL, exists: Bool, tag: String, keepSpare: Bool) throws(SiteError) {
        let parent = output.deletingLastPathComponent()
        let name = output.lastPathComponent
        if !exists {
            guard rename(staging.path, output.path) == 0 else {
                throw SiteError(path: output.path, message: "could not be put in place: \(String(cString: strerror(errno)))")
            }
            return
        }
        if Self.exchange(staging.path, output.path) {
            // The staging path now holds the old output.
            keepOld(at: staging, keepSpare: keepSpare)
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
        keepOld(at: old, keepSpare: keepSpare)
    }

    /// The old output becomes the spare, or is deleted.
    private func keepOld(at old: URL, keepSpare: Bool) {
        guard keepSpare else {
            try? FileManager.default.removeItem(at: old)
            return
        }
        if old.path != spare.path {
            try? FileManager.default.removeItem(at: spare)
            if rename(old.path, spare.path) != 0 { try? FileManager.default.removeItem(at: old) }
        }
    }

    /// Whether `path` is a regular file (not a link) holding exactly `bytes`.
    static func holds(_ path: String, _ bytes: [UInt8]) -> Bool {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == bytes.count else { return false }
        // One byte more than expected, so a file that grew since the fstat does not compare equal.
        return FileIO.read(fd, count: bytes.count + 1) == bytes
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
