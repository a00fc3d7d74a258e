import Glibc
import Synchronization

/// What a build changed in its staging folder, so that making the site durable flushes what
/// this build wrote and nothing else.
///
/// `syncfs(2)` flushes every dirty page of the file system, including files other programs
/// wrote: after a CI cache restore, the restored site and spare are still being written back,
/// and an incremental build that rendered one thread would wait for all of them. A build that
/// wrote few files instead calls `fsync(2)` on each file it wrote and on each folder whose
/// entries it changed (created, linked, removed). Files it kept from the restore stay as the
/// restore left them, neither more nor less durable than before the build. A build that wrote
/// more than `fileLimit` files or changed more than `folderLimit` folders, or whose staging
/// folder another program wrote in (Pagefind), calls `syncfs` as before: one call is cheaper
/// than thousands, and the build's own pages are then most of what is dirty.
final class WriteJournal: @unchecked Sendable {
    static let fileLimit = 4_096
    /// Each recorded folder holds its descriptor open until the build ends.
    static let folderLimit = 256

    private struct State {
        var files: [(folder: Folder, name: String)] = []
        var folders: [String: Folder] = [:]
        var overflowed = false
    }

    private let state = Mutex(State())

    init() {}

    /// `name` in `folder` was created or appended to.
    func wrote(_ name: String, in folder: Folder) {
        state.withLock { state in
            guard !state.overflowed else { return }
            state.files.append((folder, name))
            Self.note(folder, &state)
            if state.files.count > Self.fileLimit { Self.overflow(&state) }
        }
    }

    /// An entry of `folder` was created, linked or removed.
    func changed(_ folder: Folder) {
        state.withLock { state in
            guard !state.overflowed else { return }
            Self.note(folder, &state)
        }
    }

    /// Something other than `Folder` wrote in the staging folder: only `syncfs` covers it.
    func overflow() { state.withLock { Self.overflow(&$0) } }

    private static func note(_ folder: Folder, _ state: inout State) {
        state.folders[folder.display] = folder
        if state.folders.count > folderLimit { overflow(&state) }
    }

    private static func overflow(_ state: inout State) {
        state.overflowed = true
        state.files = []
        state.folders = [:]
    }

    /// What `sync` would flush: the files and folders recorded, by their paths as displayed, or
    /// nil when it would flush the whole file system.
    var recorded: (files: Set<String>, folders: Set<String>)? {
        state.withLock { state in
            state.overflowed ? nil : (Set(state.files.map { $0.folder.path($0.name) }), Set(state.folders.keys))
        }
    }

    /// Makes what was recorded durable, then `root` itself: each file and folder's `fsync`, or
    /// one `syncfs` of `root`'s file system when the journal overflowed.
    func sync(_ root: Folder) {
        let (files, folders, overflowed) = state.withLock { ($0.files, Array($0.folders.values), $0.overflowed) }
        if overflowed {
            Self.syncFileSystem(root.fd)
            return
        }
        // A batch at a time: each file's write-back is started first, so the disk takes the
        // batch's pages together, and then each `fsync` waits for what is left of its own.
        var start = 0
        while start < files.count {
            let batch = files[start..<min(start + Self.batch, files.count)]
            let fds = batch.map { openat($0.folder.fd, $0.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
            for fd in fds where fd >= 0 { Self.startWriteBack(fd) }
            for fd in fds where fd >= 0 {
                _ = fsync(fd)
                close(fd)
            }
            start += Self.batch
        }
        // The root last, once, though its entries changed too.
        for folder in folders where folder !== root { folder.sync() }
        root.sync()
    }

    /// Files whose write-back is started together, each held open meanwhile.
    static let batch = 128

    /// `sync_file_range(2)` with `SYNC_FILE_RANGE_WRITE`: starts writing the file's dirty pages
    /// and returns without waiting. Looked up at run time; nothing where it is missing (the
    /// `fsync` after it does the whole work then).
    static func startWriteBack(_ fd: Int32) {
        typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
        guard let symbol = syncFileRange else { return }
        _ = unsafeBitCast(symbol, to: SyncFileRange.self)(fd, 0, 0, 2)  // SYNC_FILE_RANGE_WRITE
    }

    private nonisolated(unsafe) static let syncFileRange = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range")

    /// `syncfs(2)`: every dirty page of the file system reaches the disk in one call, rather than
    /// one fsync per file. Looked up at run time; `sync(2)` where it is missing.
    static func syncFileSystem(_ fd: Int32) {
        typealias Syncfs = @convention(c) (Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") {
            _ = unsafeBitCast(symbol, to: Syncfs.self)(fd)
        } else {
            Glibc.sync()
        }
    }
}
