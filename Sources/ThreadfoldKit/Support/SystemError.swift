#if canImport(Glibc)
import Glibc
#endif

/// How a failed system call is told to people: the C library's words and the errno's name,
/// e.g. "Permission denied (EACCES)", so a message can be looked up and acted on.
enum SystemError {
    static func describe(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        let named = names[code].map { "\(text) (\($0))" } ?? "\(text) (errno \(code))"
        return code == ENOSPC ? named + ": the file system is out of space or out of inodes" : named
    }

    /// The error of the last failed call.
    static var last: String { describe(errno) }

    /// The file system is out of blocks, inodes or quota.
    static func isFull(_ code: Int32) -> Bool { code == ENOSPC || code == EDQUOT }

    static let names: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", EINTR: "EINTR", EIO: "EIO", ENXIO: "ENXIO", EBADF: "EBADF",
        EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EACCES: "EACCES", EBUSY: "EBUSY", EEXIST: "EEXIST", EXDEV: "EXDEV",
        ENODEV: "ENODEV", ENOTDIR: "ENOTDIR", EISDIR: "EISDIR", EINVAL: "EINVAL", ENFILE: "ENFILE",
        EMFILE: "EMFILE", ETXTBSY: "ETXTBSY", EFBIG: "EFBIG", ENOSPC: "ENOSPC", ESPIPE: "ESPIPE",
        EROFS: "EROFS", EMLINK: "EMLINK", EPIPE: "EPIPE", ENAMETOOLONG: "ENAMETOOLONG", ENOSYS: "ENOSYS",
        ENOTEMPTY: "ENOTEMPTY", ELOOP: "ELOOP", EDQUOT: "EDQUOT", ESTALE: "ESTALE", EOVERFLOW: "EOVERFLOW",
        EOPNOTSUPP: "EOPNOTSUPP",
    ]
}
