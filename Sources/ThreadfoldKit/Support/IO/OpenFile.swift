#if canImport(Glibc)
    import Glibc
#endif

/// What a file is, from its mode: the one place `st_mode & S_IFMT` is read.
package enum FileKind: Sendable, Equatable {
    case regular, folder, pipe, link, characterDevice, blockDevice, socket, other

    package init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .folder
        case S_IFIFO: self = .pipe
        case S_IFLNK: self = .link
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        case S_IFSOCK: self = .socket
        default: self = .other
        }
    }

    /// `is a character device`, `is a pipe (FIFO)`, … as a message says it.
    package var described: String {
        switch self {
        case .regular: return "is a regular file"
        case .folder: return "is a folder"
        case .pipe: return "is a pipe (FIFO)"
        case .characterDevice: return "is a character device"
        case .blockDevice: return "is a block device"
        case .socket: return "is a socket"
        case .link: return "is a symbolic link"
        case .other: return "is not a regular file"
        }
    }
}

/// What `stat` (or `lstat`, with `followLinks` false) says of `path`: its kind, size, owner and
/// identity; the failing call's errno otherwise.
package struct FileStatus: Sendable {
    package let info: stat

    package var kind: FileKind { FileKind(mode: info.st_mode) }
    package var size: Int { Int(info.st_size) }
    package var device: UInt64 { UInt64(info.st_dev) }
    package var inode: UInt64 { UInt64(info.st_ino) }
    package var owner: UInt32 { info.st_uid }
    /// The modification time in nanoseconds since 1970.
    package var modified: Int64 { Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec) }

    package init(_ info: stat) { self.info = info }

    /// The entry `name` of the open folder `folder` (its C string, as `readdir` gives it).
    package static func of(_ name: UnsafePointer<CChar>, in folder: Int32, followLinks: Bool = true) throws(SystemCallError) -> FileStatus {
        var info = stat()
        guard fstatat(folder, name, &info, followLinks ? 0 : AT_SYMLINK_NOFOLLOW) == 0 else { throw SystemCallError(code: errno) }
        return FileStatus(info)
    }

    package static func of(_ path: String, followLinks: Bool = true) throws(SystemCallError) -> FileStatus {
        var info = stat()
        let result = followLinks ? stat(path, &info) : lstat(path, &info)
        guard result == 0 else { throw SystemCallError(code: errno) }
        return FileStatus(info)
    }
}

/// A file descriptor opened for reading, closed when released, with what `fstat` said of it
/// once it was open (so the checks and the reads are of the same file, whatever is renamed over
/// its path meanwhile). Every input file is opened here: `O_CLOEXEC` always, `O_NONBLOCK` unless
/// the caller will wait on a pipe, so a FIFO put where a file was is refused rather than waited
/// on; a failure keeps its errno.
package final class OpenFile: @unchecked Sendable {
    package let fd: Int32
    package let status: FileStatus
    private var owned = true

    private init(fd: Int32, status: FileStatus) {
        self.fd = fd
        self.status = status
    }

    deinit { if owned { close(fd) } }

    package var kind: FileKind { status.kind }
    package var size: Int { status.size }

    /// Opens `path` for reading. With `blocking`, a pipe may be waited on; with `folder`, only a
    /// folder opens (`O_DIRECTORY`).
    package static func open(_ path: String, blocking: Bool = false, folder: Bool = false) throws(SystemCallError) -> OpenFile {
        let flags = O_RDONLY | O_CLOEXEC | (blocking ? 0 : O_NONBLOCK) | (folder ? O_DIRECTORY : 0)
        let fd = retryOnInterrupt { Glibc.open(path, flags) }
        guard fd >= 0 else { throw SystemCallError(code: errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw SystemCallError(code: code)
        }
        return OpenFile(fd: fd, status: FileStatus(info))
    }

    /// Opens `path` and requires a regular file: the one "open a regular file" of the input
    /// layer. Nil with the reason otherwise.
    package static func regular(_ path: String) -> Result<OpenFile, SystemCallError> {
        let file: OpenFile
        do { file = try open(path) } catch { return .failure(.system(error.code)) }
        guard file.kind == .regular else { return .failure(.notRegular(file.kind)) }
        return .success(file)
    }

    /// Up to `count` bytes at `offset` (or from the current position): fewer at the end of the
    /// file, nil on an error (`FileIO.read`).
    package func read(count: Int, at offset: Int? = nil) -> [UInt8]? { FileIO.read(fd, count: count, at: offset) }

    /// Everything from the current position, failing past `limit` bytes (`FileIO.readAll`).
    package func readAll(limit: Int, sizeHint: Int = 0) -> Result<[UInt8], SystemCallError> {
        FileIO.readAll(fd, limit: limit, sizeHint: sizeHint)
    }

    /// The file's size as `fstat` says it now (nil when it cannot say): whether it changed since
    /// it was opened.
    package var sizeNow: Int? {
        var info = stat()
        return fstat(fd, &info) == 0 ? Int(info.st_size) : nil
    }

    /// Moves the position back to the start, for a reader that reads from the current position
    /// after others read at offsets or to the end.
    package func rewind() -> Bool { lseek(fd, 0, SEEK_SET) == 0 }

    /// Hands the descriptor to a caller that closes it (`fdopendir`); this value no longer does.
    package func release() -> Int32 {
        owned = false
        return fd
    }
}

/// `call` again for as long as it fails with EINTR: a signal arriving during a system call is
/// not a failure of the call.
@inline(__always)
package func retryOnInterrupt<T: FixedWidthInteger & SignedInteger>(_ call: () -> T) -> T {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR { return result }
    }
}
