#if canImport(Glibc)
import Glibc
#endif

/// Scratch files for a build that cannot hold its input: numbered partitions appended to in one
/// pass and read back whole, one at a time, by the workers. They live in a hidden folder
/// (`.threadfold-spill`) inside the staging folder, so whatever removes the staging folder (a
/// failed build, SIGINT or SIGTERM, the next build after a SIGKILL) removes them too; a
/// successful build removes them before it publishes.
///
/// A check writes no site, so its spill has a temporary folder of its own (`temporary`), which
/// the same three paths remove: `remove()` or the spill's release, SIGINT and SIGTERM, and the
/// next temporary spill after a SIGKILL.
///
/// Appends come from one thread; reads may come from many once writing is finished.
package final class Spill: @unchecked Sendable {
    package static let folderName = ".threadfold-spill"

    private let parent: Folder
    private let folder: Folder
    private let bufferBytes: Int
    private var buffers: [[UInt8]]
    /// Bytes appended to each partition.
    package private(set) var sizes: [Int64]
    private var removed = false
    /// For a temporary spill: the folder made for it (in the temporary folder), removed with it.
    private let own: (parent: Folder, name: String)?

    /// A spill of `count` partitions in `parent` (the staging folder, or a temporary spill's own
    /// folder, `own`); each partition buffers `bufferBytes` before it is written.
    init(in parent: Folder, count: Int, bufferBytes: Int, own: (parent: Folder, name: String)? = nil) throws(SiteError) {
        self.parent = parent
        self.own = own
        try? parent.removeTree(Self.folderName)
        folder = try parent.folder(Self.folderName, create: true)
        self.bufferBytes = bufferBytes
        buffers = Array(repeating: [], count: count)
        sizes = Array(repeating: 0, count: count)
    }

    /// Names of temporary spills' folders: the prefix, then the process id and a random tag.
    static let temporaryPrefix = "threadfold-spill-"

    /// A spill of `count` partitions in a new folder of its own, `threadfold-spill-<pid>-<tag>`
    /// in `directory` (readable by this user alone), for work that has no staging folder. The
    /// folder goes with the spill: `remove()`, the spill's release, SIGINT or SIGTERM (with the
    /// staging folders). Folders that killed processes left there are removed first.
    package static func temporary(in directory: String, count: Int, bufferBytes: Int) throws(SiteError) -> Spill {
        let parent = try Folder.open(directory)
        SiteWriter.removeAbandoned(in: parent, prefixes: [temporaryPrefix])
        var name = ""
        while true {
            name = temporaryPrefix + "\(getpid())-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
            if mkdirat(parent.fd, name, 0o700) == 0 { break }
            let code = errno
            if code == EEXIST { continue }
            throw SiteError(path: parent.path(name), message: "cannot create a temporary folder: \(SystemError.describe(code)); expected a folder you can write in (TMPDIR names another)", errno: code)
        }
        // A signal removes the folder as it removes staging folders, from before anything is
        // written in it; the folder, held by the spill, is its key.
        let folder: Folder
        do { folder = try parent.folder(name) } catch {
            try? parent.removeTree(name)
            throw error
        }
        SiteWriter.Staging.active.withLock { $0[ObjectIdentifier(folder)] = (parent, name) }
        do {
            return try Spill(in: folder, count: count, bufferBytes: bufferBytes, own: (parent, name))
        } catch {
            try? parent.removeTree(name)
            _ = SiteWriter.Staging.active.withLock { $0.removeValue(forKey: ObjectIdentifier(folder)) }
            throw error
        }
    }

    deinit { if own != nil { remove() } }

    package var count: Int { buffers.count }

    /// Appends the pieces of one record to partition `p`.
    package func append(_ p: Int, _ head: [UInt8], _ key: [UInt8], _ line: UnsafeBufferPointer<UInt8>,
                        _ tail: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)) throws(SiteError) {
        if buffers[p].capacity == 0 { buffers[p].reserveCapacity(bufferBytes) }
        buffers[p].append(contentsOf: head)
        buffers[p].append(contentsOf: key)
        buffers[p].append(contentsOf: line)
        if !tail.isEmpty { buffers[p].append(contentsOf: tail) }
        sizes[p] += Int64(head.count + key.count + line.count + tail.count)
        if buffers[p].count >= bufferBytes { try flush(p) }
    }

    /// Writes what every partition still buffers and closes the files; after this the
    /// partitions can be read.
    package func finishWriting() throws(SiteError) {
        for p in buffers.indices { try finishWriting(p) }
    }

    /// Writes what partition `p` still buffers, so it can be read.
    package func finishWriting(_ p: Int) throws(SiteError) {
        try flush(p)
        buffers[p] = []
    }

    /// The whole of partition `p` (empty when nothing was appended to it).
    package func read(_ p: Int) throws(SiteError) -> [UInt8] {
        guard sizes[p] > 0 else { return [] }
        let name = Self.name(p)
        guard let bytes = folder.read(name, limit: Int(sizes[p]))?.bytes, bytes.count == sizes[p] else {
            throw SiteError(path: folder.path(name), message: "cannot be read back: \(SystemError.last)")
        }
        return bytes
    }

    /// Removes partition `p`'s file once it has been read, so the disk holds less as work goes on.
    package func discard(_ p: Int) {
        _ = try? folder.removeEntry(Self.name(p))
    }

    /// Removes the spill folder and everything in it (a temporary spill: its own folder too).
    package func remove() {
        guard !removed else { return }
        removed = true
        guard let own else {
            try? parent.removeTree(Self.folderName)
            return
        }
        try? own.parent.removeTree(own.name)
        _ = SiteWriter.Staging.active.withLock { $0.removeValue(forKey: ObjectIdentifier(parent)) }
    }

    /// Appends what partition `p` buffers to its file, opened for each flush (a dump may have
    /// more partitions than a process may hold files open) and never through a link.
    private func flush(_ p: Int) throws(SiteError) {
        guard !buffers[p].isEmpty else { return }
        let fd = openat(folder.fd, Self.name(p), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_APPEND, 0o600)
        guard fd >= 0 else {
            let code = errno
            throw SiteError(path: folder.path(Self.name(p)), message: "cannot be written: \(SystemError.describe(code))", errno: code)
        }
        defer { close(fd) }
        var offset = 0
        while offset < buffers[p].count {
            let written = buffers[p].withUnsafeBytes { buffer in write(fd, buffer.baseAddress! + offset, buffer.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                let code = errno
                throw SiteError(path: folder.path(Self.name(p)), message: "cannot be written: \(SystemError.describe(code))", errno: code)
            }
            offset += written
        }
        buffers[p].removeAll(keepingCapacity: true)
    }

    private static func name(_ p: Int) -> String { "p\(p)" }
}

extension SiteWriter.Staging {
    /// A spill of `count` partitions inside this staging folder.
    package func spill(count: Int, bufferBytes: Int) throws(SiteError) -> Spill {
        try Spill(in: folder, count: count, bufferBytes: bufferBytes)
    }
}
