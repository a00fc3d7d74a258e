#if canImport(Glibc)
    import Glibc
#endif

/// An `errno` said the way people and scripts both read it: `Permission denied (EACCES)`.
package enum SystemError {
    package static func describe(_ code: Int32) -> String {
        let named = "\(String(cString: strerror(code))) (\(name(code)))"
        return code == ENOSPC ? named + ": the disk is full (the file system is out of space or out of inodes)" : named
    }

    /// The error of the last failed call.
    static var last: String { describe(errno) }

    /// The file system is out of blocks, inodes or quota.
    static func isFull(_ code: Int32) -> Bool { code == ENOSPC || code == EDQUOT }

    /// The symbolic name of `code`, or `errno N` for one not listed.
    package static func name(_ code: Int32) -> String {
        names[code] ?? "errno \(code)"
    }

    static let names: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", ESRCH: "ESRCH", EINTR: "EINTR", EIO: "EIO", ENXIO: "ENXIO",
        E2BIG: "E2BIG", EBADF: "EBADF", EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EACCES: "EACCES", EFAULT: "EFAULT",
        EBUSY: "EBUSY", EEXIST: "EEXIST", EXDEV: "EXDEV", ENODEV: "ENODEV", ENOTDIR: "ENOTDIR", EISDIR: "EISDIR",
        EINVAL: "EINVAL", ENFILE: "ENFILE", EMFILE: "EMFILE", ETXTBSY: "ETXTBSY", EFBIG: "EFBIG", ENOSPC: "ENOSPC",
        ESPIPE: "ESPIPE", EROFS: "EROFS", EMLINK: "EMLINK", EPIPE: "EPIPE", ENAMETOOLONG: "ENAMETOOLONG",
        ELOOP: "ELOOP", EOVERFLOW: "EOVERFLOW", ESTALE: "ESTALE", ENOTSUP: "ENOTSUP", ETIMEDOUT: "ETIMEDOUT",
        EDQUOT: "EDQUOT", ENOLCK: "ENOLCK", ENOSYS: "ENOSYS", ENOTEMPTY: "ENOTEMPTY", ENOTCONN: "ENOTCONN",
        ECONNREFUSED: "ECONNREFUSED", ENOMEDIUM: "ENOMEDIUM", EILSEQ: "EILSEQ",
    ]
}

/// Why the IO layer could not do what it was asked: a system call failed with an errno, or the
/// file it reached is not one it may read (too large, missing, a link, not a folder, not a
/// regular file). The one error of Support; the stages turn it into a located `Problem`.
package enum SystemCallError: Error, Sendable, Equatable {
    /// The call failed with this errno.
    case system(Int32)
    /// More bytes than the limit asked for.
    case tooLarge
    /// No entry of that name.
    case missing
    /// A symbolic link, with what it points to: never followed.
    case link(target: String)
    /// Not a folder where one was expected.
    case notFolder
    /// It opened, but it is this instead of a regular file.
    case notRegular(FileKind)

    /// A call that failed with `code`.
    package init(code: Int32) { self = .system(code) }

    /// The errno of a failed call; 0 for the other reasons.
    package var code: Int32 {
        if case .system(let code) = self { return code }
        return 0
    }
}
