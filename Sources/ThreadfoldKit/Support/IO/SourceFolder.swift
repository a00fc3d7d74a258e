#if canImport(Glibc)
    import Glibc
#endif

/// A folder of the user's that is read, never written (templates, locales, assets). Its own path,
/// which the user chose, is opened the ordinary way; everything in it is listed with
/// `fstatat(AT_SYMLINK_NOFOLLOW)` and opened relative to its descriptor with `O_NOFOLLOW`, so an
/// entry is never read through a symbolic link, even one swapped in after it was listed.
final class SourceFolder: @unchecked Sendable {
    enum Kind: Equatable { case file, folder, link, other }

    private let fd: Int32
    /// How the folder is named in messages: the path the user gave, and names below it.
    let display: String

    private init(fd: Int32, display: String) {
        self.fd = fd
        self.display = display
    }

    deinit { close(fd) }

    /// Opens the folder the user named (links in this path are the user's own and are followed).
    static func open(_ path: String) throws(SystemCallError) -> SourceFolder {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw errno == ENOTDIR ? .notFolder : errno == ENOENT ? .missing : .system(errno) }
        return SourceFolder(fd: fd, display: path)
    }

    /// `name` below this folder, for messages.
    func path(_ name: String) -> String { display.hasSuffix("/") ? display + name : display + "/" + name }

    /// The sub-folder `name`, never through a link.
    func folder(_ name: String) throws(SystemCallError) -> SourceFolder {
        let child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard child >= 0 else { throw failure(name, errno) }
        return SourceFolder(fd: child, display: path(name))
    }

    /// The entries of the folder (not `.` and `..`), sorted by name; names that are not UTF-8
    /// are left out. A link is a link here, whatever it points to.
    func entries() -> [(name: String, kind: Kind)] {
        let copy = dup(fd)
        guard copy >= 0, let directory = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(directory) }
        var found: [(name: String, kind: Kind)] = []
        while let entry = readdir(directory) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            guard bytes != [0x2E], bytes != [0x2E, 0x2E], let name = String(validating: bytes, as: UTF8.self) else { continue }
            found.append((name, kind(name)))
        }
        return found.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// What `name` is, never following a link (`.other` when it is missing).
    func kind(_ name: String) -> Kind {
        var info = stat()
        guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return .other }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .folder
        case S_IFLNK: return .link
        default: return .other
        }
    }

    /// The bytes of the regular file `name` and its permission bits, never through a link.
    func read(_ name: String, limit: Int = 256 << 20) throws(SystemCallError) -> (bytes: [UInt8], mode: UInt32) {
        let file = openat(fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard file >= 0 else { throw failure(name, errno) }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0 else { throw .system(errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notRegular(FileKind(mode: info.st_mode)) }
        guard info.st_size <= limit else { throw .tooLarge }
        switch FileIO.readAll(file, limit: limit, sizeHint: Int(info.st_size)) {
        case .success(let bytes): return (bytes, UInt32(info.st_mode & 0o7777))
        case .failure(let error): throw error
        }
    }

    /// Why opening `name` failed with `code`: a link (with its target) when it is one.
    private func failure(_ name: String, _ code: Int32) -> SystemCallError {
        if (code == ELOOP || code == ENOTDIR) && kind(name) == .link { return .link(target: linkTarget(name)) }
        switch code {
        case ENOENT: return .missing
        case ENOTDIR: return .notFolder
        default: return .system(code)
        }
    }

    /// What the link `name` points to, as text (control characters escaped), for messages.
    func linkTarget(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4097)
        let count = readlinkat(fd, name, &buffer, 4096)
        guard count >= 0 else { return "?" }
        return Printable.escape(bytes: buffer.prefix(count).map { UInt8(bitPattern: $0) })
    }
}
