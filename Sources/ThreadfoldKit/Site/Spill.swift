#if canImport(Glibc)
import Glibc
#endif

/// Scratch files for a build that cannot hold its input: numbered partitions appended to in one
/// pass and read back whole, one at a time, by the workers. They live in a hidden folder
/// (`.threadfold-spill`) inside the staging folder, so whatever removes the staging folder (a
/// failed build, SIGINT or SIGTERM, the next build after a SIGKILL) removes them too; a
/// successful build removes them before it publishes.
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

    /// A spill of `count` partitions in `parent` (the staging folder); each partition buffers
    /// `bufferBytes` before it is written.
    init(in parent: Folder, count: Int, bufferBytes: Int) throws(SiteError) {
        self.parent = parent
        try? parent.removeTree(Self.folderName)
        folder = try parent.folder(Self.folderName, create: true)
        self.bufferBytes = bufferBytes
        buffers = Array(repeating: [], count: count)
        sizes = Array(repeating: 0, count: count)
    }

    package var count: Int { buffers.count }

    /// Appends the pieces of one record to partition `p`.
    package func append(_ p: Int, _ head: [UInt8], _ key: [UInt8], _ line: UnsafeBufferPointer<UInt8>) throws(SiteError) {
        if buffers[p].capacity == 0 { buffers[p].reserveCapacity(bufferBytes) }
        buffers[p].append(contentsOf: head)
        buffers[p].append(contentsOf: key)
        buffers[p].append(contentsOf: line)
        sizes[p] += Int64(head.count + key.count + line.count)
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

    /// Removes the spill folder and everything in it.
    package func remove() {
        guard !removed else { return }
        removed = true
        try? parent.removeTree(Self.folderName)
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
