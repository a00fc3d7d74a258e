#if canImport(Glibc)
    import Glibc
#endif

/// What identifies a file's bytes without reading them: inode, size, modification time and
/// status change time (nanoseconds), and the hash of its content when the writer knew it.
///
/// A file Threadfold wrote is trusted again while the four numbers still match. The status change
/// time is the one no user can set back (`touch -d` restores a modification time, not it), so a
/// file edited in place is never taken for the one recorded. Threadfold's own hard links move it
/// too, as does a cache restore that makes every file anew, so a stamp that no longer matches is
/// not the end: a file whose size still matches is read and its content hash compared with
/// `hash` (`Folder.verify`), which is what a stamp equal in every number would have promised.
/// Equality compares the four numbers, not `hash`.
package struct FileStamp: Sendable, Hashable {
    package var inode: UInt64
    package var size: Int64
    package var mtime: Int64
    package var ctime: Int64
    /// `StableHash.wide` of the file's bytes; 0 when not known (such a file is trusted by its
    /// numbers alone).
    package var hash: UInt64

    init(_ info: stat) {
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        mtime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        ctime = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
        hash = 0
    }

    /// Matches no file: for a file whose stamp was not taken.
    static let unknown = FileStamp(inode: 0, size: -1, mtime: 0, ctime: 0)

    init(inode: UInt64, size: Int64, mtime: Int64, ctime: Int64, hash: UInt64 = 0) {
        self.inode = inode
        self.size = size
        self.mtime = mtime
        self.ctime = ctime
        self.hash = hash
    }

    /// This stamp with the content hash `hash`.
    func hashed(_ hash: UInt64) -> FileStamp {
        var stamp = self
        stamp.hash = hash
        return stamp
    }

    package static func == (a: FileStamp, b: FileStamp) -> Bool {
        a.inode == b.inode && a.size == b.size && a.mtime == b.mtime && a.ctime == b.ctime
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(inode)
        hasher.combine(size)
        hasher.combine(mtime)
        hasher.combine(ctime)
    }

    /// The content hash a stamp records: of the bytes a file was written with.
    static func contentHash(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { StableHash.wide($0, seed: 0x7468_7265_6164_666F) }
    }
}

/// Whether an entry is the running user's own: owned by the effective user and writable by
/// nobody else (no group or other write bit). Threadfold's bookkeeping beside and inside a site
/// (the spare, the kept spill, staging folders, markers, manifests) and every file it reuses
/// from them must be: in a shared folder such as /tmp another user can plant an entry at any
/// name, and one that is not ours is never read, renamed or linked into a site.
func isOwn(_ info: stat) -> Bool {
    info.st_uid == effectiveUser && info.st_mode & 0o022 == 0
}

/// The effective user, asked once: an incremental build checks the owner of every file it
/// recycles. Threadfold never changes its user.
private let effectiveUser = geteuid()

/// A folder opened by descriptor. Every path beneath it is resolved one component at a time,
/// each opened with `O_NOFOLLOW | O_DIRECTORY` relative to the one before, and files are made,
/// read, linked and removed with the `*at` calls on the last folder's descriptor. So a
/// symbolic link in any component is never followed: it is an error, or (where the caller asks)
/// the link itself is removed and replaced, its target untouched. Only the folder's own path,
/// which the user chose, is opened the ordinary way.
final class Folder: @unchecked Sendable {
    let fd: Int32
    /// How the folder is named in messages.
    let display: String
    /// Where this folder's changes are recorded for a durable build (`WriteJournal`); the
    /// folders opened beneath it share it.
    let journal: WriteJournal?

    private init(fd: Int32, display: String, journal: WriteJournal? = nil) {
        self.fd = fd
        self.display = display
        self.journal = journal
    }

    deinit { close(fd) }

    /// Opens a folder the user named (links in its path are the user's own and are followed).
    static func open(_ path: String) throws(ThreadfoldError) -> Folder {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw ThreadfoldError.output(path: path, message: "cannot be opened as a folder: \(SystemError.last)") }
        return Folder(fd: fd, display: path)
    }

    func path(_ name: String) -> String { display.hasSuffix("/") ? display + name : display + "/" + name }

    enum Kind: Equatable { case file, folder, link, other }

    /// An entry of a folder, as `fstatat` saw it without following a link.
    struct Entry {
        var kind: Kind
        var stamp: FileStamp
        /// The running user's own, writable by nobody else (`isOwn`).
        var own: Bool
        /// The owner's user id, for messages.
        var owner: UInt32
    }

    /// The entry `name` (never following a link), or nil when there is none.
    func entry(_ name: String) -> Entry? {
        var info = stat()
        guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        let kind: Kind
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .file
        case S_IFDIR: kind = .folder
        case S_IFLNK: kind = .link
        default: kind = .other
        }
        return Entry(kind: kind, stamp: FileStamp(info), own: isOwn(info), owner: info.st_uid)
    }

    /// Whether this folder itself, as opened, is the running user's own (`isOwn`).
    var isOwnFolder: Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && isOwn(info)
    }

    /// The sub-folder `name`. With `create`, a missing one is made; with `replace`, whatever
    /// else stands there (a link, a file) is removed first, never followed. Messages name it
    /// `display` when given (a staging folder by the output it becomes). It records its changes
    /// in `journal` when given, in this folder's otherwise; with `journaled` false, nowhere
    /// (scratch that is removed before a build ends).
    func folder(
        _ name: String, create: Bool = false, replace: Bool = false, display: String? = nil,
        journal: WriteJournal? = nil, journaled: Bool = true
    ) throws(ThreadfoldError) -> Folder {
        var child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if child < 0 && (errno == ENOTDIR || errno == ELOOP) && replace {
            if try removeEntry(name) {
                child = -1
                errno = ENOENT
            }
        }
        if child < 0 && errno == ENOENT && create {
            if mkdirat(fd, name, 0o755) != 0 && errno != EEXIST {
                throw ThreadfoldError.output(path: path(name), message: "cannot create this folder: \(SystemError.last)", errno: errno)
            }
            self.journal?.changed(self)
            child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
        guard child >= 0 else {
            let code = errno
            let isLink = (code == ELOOP || code == ENOTDIR) && entry(name)?.kind == .link
            let what =
                isLink
                ? "is a symbolic link; expected a folder (links are never followed)"
                : code == ENOTDIR
                    ? "is not a folder; expected a folder"
                    : "cannot be opened as a folder: \(SystemError.describe(code))"
            throw ThreadfoldError.output(path: path(name), message: what, errno: code)
        }
        return Folder(fd: child, display: display ?? path(name), journal: journaled ? journal ?? self.journal : nil)
    }

    /// The folder at `components` beneath this one.
    func folder(at components: [Substring], create: Bool = false, replace: Bool = false) throws(ThreadfoldError) -> Folder {
        var current = self
        for component in components { current = try current.folder(String(component), create: create, replace: replace) }
        return current
    }

    /// Creates the file `name`, which must not exist (`O_EXCL`: nothing is written through a
    /// link or into another file), with `mode` less the umask, and returns its stamp with the
    /// hash of `bytes`; without `stamped`, `FileStamp.unknown`, for a file no manifest will
    /// vouch for (neither `fstat` nor the hash is then paid for).
    @discardableResult
    func create(_ name: String, _ bytes: [UInt8], mode: mode_t = publishedMode, stamped: Bool = true) throws(ThreadfoldError) -> FileStamp {
        let stamp = try create(name, mode: mode, stamped: stamped) { (write) throws(ThreadfoldError) in try write(bytes) }
        return stamped ? stamp.hashed(FileStamp.contentHash(bytes)) : stamp
    }

    /// Creates the file `name` (never through a link) and writes what `body` hands its
    /// `write`, piece by piece, so a large file need not be held whole; returns its stamp, or
    /// `FileStamp.unknown` without `stamped`.
    @discardableResult
    func create(
        _ name: String, mode: mode_t = publishedMode, stamped: Bool = true,
        writing body: (_ write: ([UInt8]) throws(ThreadfoldError) -> Void) throws(ThreadfoldError) -> Void
    ) throws(ThreadfoldError) -> FileStamp {
        let file = openat(fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard file >= 0 else {
            let code = errno
            throw ThreadfoldError.output(path: path(name), message: "cannot be created: \(SystemError.describe(code))", errno: code)
        }
        defer { close(file) }
        journal?.wrote(name, in: self)
        try body { (bytes) throws(ThreadfoldError) in try write(bytes, to: file, name) }
        guard stamped else { return .unknown }
        var info = stat()
        guard fstat(file, &info) == 0 else { throw ThreadfoldError.output(path: path(name), message: "cannot be examined: \(SystemError.last)") }
        return FileStamp(info)
    }

    /// Appends `bytes` to the file `name` (never through a link), made private to this user
    /// when it is new. Nothing to append opens nothing.
    func append(_ name: String, _ bytes: [UInt8]) throws(ThreadfoldError) {
        guard !bytes.isEmpty else { return }
        let file = openat(fd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_APPEND, 0o600)
        guard file >= 0 else {
            let code = errno
            throw ThreadfoldError.output(path: path(name), message: "cannot be written: \(SystemError.describe(code))", errno: code)
        }
        defer { close(file) }
        journal?.wrote(name, in: self)
        try write(bytes, to: file, name)
    }

    /// Writes all of `bytes` to `file` (the file `name` here), however many calls it takes.
    private func write(_ bytes: [UInt8], to file: Int32, _ name: String) throws(ThreadfoldError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in Glibc.write(file, buffer.baseAddress! + offset, buffer.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                let code = errno
                throw ThreadfoldError.output(path: path(name), message: "cannot be written: \(SystemError.describe(code))", errno: code)
            }
            offset += written
        }
    }

    /// The bytes of the regular file `name` (never through a link), with its stamp; nil when it
    /// is missing, not a regular file, larger than `limit` or unreadable, or, with `own`, not the
    /// running user's own (`isOwn`, checked on the file opened).
    func read(_ name: String, limit: Int = 1 << 30, own: Bool = false) -> (bytes: [UInt8], stamp: FileStamp)? {
        withRegularFile(name, own: own) { file, info in
            guard info.st_size <= limit,
                // One byte more than the size, so a file that grew since the fstat is noticed.
                let bytes = FileIO.read(file, count: Int(info.st_size) + 1), bytes.count == Int(info.st_size)
            else { return nil }
            return (bytes, FileStamp(info))
        }
    }

    /// The first bytes of the regular file `name` (never through a link; the running user's
    /// own with `own`), `blockBytes` more at a time until `enough` says the bytes so far suffice
    /// or the file ends; nil when it cannot be opened or read, or `limit` bytes did not suffice.
    func readHead(_ name: String, blockBytes: Int, own: Bool, limit: Int, until enough: ([UInt8]) -> Bool) -> [UInt8]? {
        guard blockBytes > 0 else { return nil }
        return withRegularFile(name, own: own) { file, _ in
            var bytes: [UInt8] = []
            while true {
                guard bytes.count < limit, let block = FileIO.read(file, count: blockBytes, at: bytes.count) else { return nil }
                bytes += block
                if block.count < blockBytes || enough(bytes) { return bytes }
            }
        }
    }

    /// `body` with the regular file `name` open (never through a link) and its status; nil when
    /// it is missing or not a regular file, or, with `own`, not the running user's own (`isOwn`,
    /// checked on the file opened).
    private func withRegularFile<T>(_ name: String, own: Bool, _ body: (Int32, stat) -> T?) -> T? {
        let file = openat(fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, !own || isOwn(info) else { return nil }
        return body(file, info)
    }

    /// `count` bytes of the file `name` (never through a link) from byte `offset`, fewer at its
    /// end; nil when it cannot be opened or read.
    func read(_ name: String, count: Int, at offset: Int) -> [UInt8]? {
        let file = openat(fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        return FileIO.read(file, count: count, at: offset)
    }

    /// Hands `body` the file `name` (never through a link) in blocks of `blockBytes`, the last
    /// one shorter, so no more than a block is held; false when it cannot be opened or read.
    func readBlocks(_ name: String, blockBytes: Int, _ body: ([UInt8]) -> Void) -> Bool {
        let file = openat(fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard file >= 0 else { return false }
        defer { close(file) }
        var offset = 0
        while true {
            guard let block = FileIO.read(file, count: blockBytes, at: offset) else { return false }
            body(block)
            offset += block.count
            if block.count < blockBytes { return true }
        }
    }

    /// How many names the entry `name` has (`st_nlink`, not following a link); 0 when there is none.
    func linkCount(_ name: String) -> Int {
        var info = stat()
        return fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? Int(info.st_nlink) : 0
    }

    /// Opens the file `name` for writing (never through a link) and hands `body` its descriptor
    /// and size. When it cannot be opened, the error is `opening` with the system's reason.
    func withFileForWriting<T>(
        _ name: String, opening: String, _ body: (_ fd: Int32, _ size: Int64) throws(ThreadfoldError) -> T
    ) throws(ThreadfoldError) -> T {
        let file = openat(fd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        var info = stat()
        guard file >= 0, fstat(file, &info) == 0 else {
            let code = errno
            if file >= 0 { close(file) }
            throw ThreadfoldError.output(path: path(name), message: "\(opening): \(SystemError.describe(code))", errno: code)
        }
        defer { close(file) }
        return try body(file, Int64(info.st_size))
    }

    /// The stamp of the regular file `name` when it is the one `expected` records, hashed as
    /// `expected` is; nil otherwise. It must be the running user's own (`isOwn`). Its stamp must
    /// equal `expected`, or, when the numbers moved (a hard link made or removed, a restore from
    /// a cache, an edit with its modification time set back), its size must and its bytes must
    /// hash to `expected.hash`.
    func verify(_ name: String, expected: FileStamp) -> FileStamp? {
        guard let found = entry(name), found.kind == .file, found.own else { return nil }
        if found.stamp == expected { return found.stamp.hashed(expected.hash) }
        guard expected.hash != 0, found.stamp.size == expected.size,
            let copy = read(name, limit: Int(expected.size), own: true),
            FileStamp.contentHash(copy.bytes) == expected.hash
        else { return nil }
        return copy.stamp.hashed(expected.hash)
    }

    /// Puts the regular file `sourceName` of `source` here as `name`: a hard link when it is the
    /// running user's own, a copy otherwise (a file another user can write never becomes a file
    /// of the site). With `expected`, only the file that stamp records qualifies (`verify`).
    /// Returns the stamp of what stands here, or nil when the source does not qualify. An entry
    /// here that is already the same file is left as it is; a file of another file system is
    /// copied.
    func link(_ sourceName: String, as name: String, from source: Folder, expected: FileStamp?) throws(ThreadfoldError) -> FileStamp? {
        let found: FileStamp
        var own = true
        if let expected {
            guard let verified = source.verify(sourceName, expected: expected) else { return nil }
            found = verified
        } else {
            guard let entry = source.entry(sourceName), entry.kind == .file else { return nil }
            found = entry.stamp
            own = entry.own
        }
        if let here = entry(name), here.kind == .file, here.stamp == found { return found }
        try removeEntry(name)
        if own {
            if linkat(source.fd, sourceName, fd, name, 0) == 0 {
                journal?.changed(self)
                // The source could have been swapped for another file between the check and the
                // link: what was linked must be the file that was checked.
                if let linked = entry(name), linked.kind == .file, linked.stamp.inode == found.inode { return linked.stamp.hashed(found.hash) }
                _ = try removeEntry(name)
                return nil
            }
            let code = errno
            guard code == EXDEV || code == EPERM || code == EMLINK else {
                throw ThreadfoldError.output(path: path(name), message: "cannot be linked from \(source.path(sourceName)): \(SystemError.describe(code))", errno: code)
            }
        }
        guard let copy = source.read(sourceName), copy.stamp.inode == found.inode, copy.stamp.size == found.size,
            found.hash == 0 || FileStamp.contentHash(copy.bytes) == found.hash
        else { return nil }
        // A copy is never more open than its source.
        return try create(name, copy.bytes, mode: publishedMode & (source.permissions(sourceName) ?? publishedMode))
    }

    /// Removes the entry `name` whatever it is (a link is removed, not followed; a folder with
    /// everything in it). Returns whether there was one.
    @discardableResult
    func removeEntry(_ name: String) throws(ThreadfoldError) -> Bool {
        if unlinkat(fd, name, 0) == 0 {
            journal?.changed(self)
            return true
        }
        switch errno {
        case ENOENT: return false
        case EISDIR, EPERM:
            guard entry(name)?.kind == .folder else { break }
            try removeTree(name)
            return true
        default: break
        }
        let code = errno
        throw ThreadfoldError.output(path: path(name), message: "cannot be removed: \(SystemError.describe(code))", errno: code)
    }

    /// The names in this folder (not `.` and `..`), as bytes: a name need not be UTF-8.
    ///
    /// Read with `getdents64` on the folder's own descriptor, found in the C library when it
    /// runs (glibc 2.30 and later have it; Swift's Glibc module does not declare it):
    /// `fdopendir` would take a copy of the descriptor and check it, five system calls more
    /// than the listing's own three, for each of a site's thousands of thread folders.
    func names() -> [(name: [UInt8], type: UInt8)] {
        guard let getdents = Self.getdents64 else { return namesFromReaddir() }
        // From the start: a folder's descriptor is listed once, but never from where a listing
        // before it stopped.
        guard lseek(fd, 0, SEEK_SET) == 0 else { return namesFromReaddir() }
        var names: [(name: [UInt8], type: UInt8)] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 32 << 10, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = getdents(fd, buffer.baseAddress!, buffer.count)
            // A folder that cannot be read to its end is listed again the other way, whole.
            if count < 0 { return namesFromReaddir() }
            guard count > 0 else { break }
            // Each record: inode (8 bytes), offset (8), its length (2), type (1), then the
            // name, ended by a zero byte.
            var at = 0
            while at + 19 < count {
                let length = Int(buffer.loadUnaligned(fromByteOffset: at + 16, as: UInt16.self))
                guard length > 19, at + length <= count else { break }
                let type = buffer[at + 18]
                let name = UnsafeRawBufferPointer(rebasing: buffer[(at + 19)..<(at + length)])
                let bytes = Array(name.prefix { $0 != 0 })
                at += length
                if bytes == [0x2E] || bytes == [0x2E, 0x2E] { continue }
                names.append((bytes, type))
            }
        }
        return names
    }

    private typealias GetDents = @convention(c) (Int32, UnsafeMutableRawPointer, Int) -> Int

    /// The C library's `getdents64`, or nil when it has none.
    private static let getdents64: GetDents? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "getdents64").map {
        unsafeBitCast($0, to: GetDents.self)
    }

    /// `names()` through `readdir`, on a copy of the descriptor (which shares its offset: it
    /// is rewound first).
    private func namesFromReaddir() -> [(name: [UInt8], type: UInt8)] {
        let copy = dup(fd)
        guard copy >= 0, let directory = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(directory) }
        rewinddir(directory)
        var names: [(name: [UInt8], type: UInt8)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name == [0x2E] || name == [0x2E, 0x2E] { continue }
            names.append((name, entry.pointee.d_type))
        }
        return names
    }

    /// Removes the folder `name` and everything beneath it, iteratively, never following a link
    /// (a link inside is removed as a link).
    func removeTree(_ name: String) throws(ThreadfoldError) {
        try removeTree(bytes: Array(name.utf8))
    }

    func removeTree(bytes name: [UInt8]) throws(ThreadfoldError) {
        journal?.changed(self)
        struct Frame {
            var folder: Folder
            var name: [UInt8]
            var subfolders: [[UInt8]]
        }
        func open(_ parent: Folder, _ name: [UInt8]) -> Folder? {
            let child = Folder.withCName(name) { openat(parent.fd, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            return child >= 0 ? Folder(fd: child, display: parent.path(String(decoding: name, as: UTF8.self))) : nil
        }
        func frame(_ folder: Folder, _ name: [UInt8]) -> Frame {
            var subfolders: [[UInt8]] = []
            for entry in folder.names() {
                // Unlink whatever is not a folder; unlinkat refuses folders (EISDIR), which wait.
                if entry.type != UInt8(DT_DIR), Folder.withCName(entry.name, { unlinkat(folder.fd, $0, 0) }) == 0 { continue }
                subfolders.append(entry.name)
            }
            return Frame(folder: folder, name: name, subfolders: subfolders)
        }
        guard let top = open(self, name) else {
            if Folder.withCName(name, { unlinkat(fd, $0, 0) }) == 0 || errno == ENOENT { return }
            let code = errno
            throw ThreadfoldError.output(path: path(String(decoding: name, as: UTF8.self)), message: "cannot be removed: \(SystemError.describe(code))", errno: code)
        }
        var stack = [frame(top, name)]
        while !stack.isEmpty {
            if let next = stack[stack.count - 1].subfolders.popLast() {
                let parent = stack[stack.count - 1].folder
                if let child = open(parent, next) {
                    guard stack.count < 256 else {
                        throw ThreadfoldError.output(path: child.display, message: "is nested too deep to remove safely; expected at most 256 levels")
                    }
                    stack.append(frame(child, next))
                } else {
                    _ = Folder.withCName(next) { unlinkat(parent.fd, $0, 0) }
                }
                continue
            }
            let done = stack.removeLast()
            let parent = stack.last?.folder ?? self
            if Folder.withCName(done.name, { unlinkat(parent.fd, $0, AT_REMOVEDIR) }) != 0 && errno != ENOENT {
                let code = errno
                throw ThreadfoldError.output(path: done.folder.display, message: "cannot be removed: \(SystemError.describe(code))", errno: code)
            }
        }
    }

    static func withCName<T>(_ name: [UInt8], _ body: (UnsafePointer<CChar>) -> T) -> T {
        (name + [0]).withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { body($0) }
        }
    }

    /// The permission bits of the entry `name` (never following a link), or nil when there is none.
    func permissions(_ name: String) -> mode_t? {
        var info = stat()
        guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// The permission bits a file made with `mode` gets: the process's umask taken off.
    static func created(_ mode: mode_t) -> mode_t { mode & ~umask & 0o7777 }

    /// The process's umask, read without setting it (umask(2) cannot read it alone, and
    /// setting it would race with files being created on other threads): the `Umask:` line of
    /// /proc/self/status, or 022 where there is none.
    static let umask: mode_t = {
        let file = Glibc.open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return 0o022 }
        defer { close(file) }
        guard let bytes = FileIO.read(file, count: 16 << 10),
            let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
            let value = mode_t(String(line.dropFirst("Umask:".count).filter { $0 != " " && $0 != "\t" }), radix: 8)
        else { return 0o022 }
        return value
    }()

    /// Flushes this folder's entries to the disk.
    func sync() { _ = fsync(fd) }
}
