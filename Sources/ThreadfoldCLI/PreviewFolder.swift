import Foundation
import ThreadfoldKit

/// Where `threadfold preview` builds: a subfolder per set of inputs inside a private parent that
/// only this user can enter, so another local user cannot plant a folder, a link or a manifest
/// where a preview will write or delete.
///
/// The parent is `$XDG_RUNTIME_DIR/threadfold-preview` when `XDG_RUNTIME_DIR` is a directory owned
/// by the user with mode 0700, else `$TMPDIR/threadfold-preview-<uid>` (or under `/tmp`). It is
/// created with mode 0700 and then checked with `lstat`: a real directory (not a link), owned by
/// `getuid()`, with no group or other permission bits. A parent that fails the check is never
/// used: the preview goes into a fresh `mkdtemp` folder instead, with a warning naming the
/// refused folder and why.
struct PreviewFolder {
    /// A private folder that cannot be had, as its message says it: an output error.
    static func failure(_ message: String) -> ThreadfoldError {
        ThreadfoldError(kind: .output, problems: [Problem(file: "preview", message: message)])
    }

    /// The folder of this preview (its site is `folder/site`).
    var folder: URL
    /// The private parent, when it passed the check (previews there are reused and cleaned).
    var parent: URL?
    /// Why the usual parent was refused, to print.
    var warning: String?

    /// Previews whose folder was last modified longer ago than this are removed when a preview starts.
    static let maximumAge: TimeInterval = 24 * 60 * 60

    /// Chooses (and creates) the folder for inputs hashed to `key`.
    static func choose(key: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(ThreadfoldError) -> PreviewFolder {
        let uid = getuid()
        let parentPath: String
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty, problem(runtime, uid: uid, exactMode: 0o700) == nil {
            parentPath = (runtime as NSString).appendingPathComponent("threadfold-preview")
        } else {
            parentPath = (temporaryDirectory(environment) as NSString).appendingPathComponent("threadfold-preview-\(uid)")
        }
        if mkdir(parentPath, 0o700) != 0 && errno != EEXIST {
            let reason = String(cString: strerror(errno))
            return try fallback(environment, warning: "cannot create the preview folder \(parentPath): \(reason)")
        }
        if let problem = problem(parentPath, uid: uid, exactMode: nil) {
            return try fallback(environment, warning: "refusing the preview folder \(parentPath): \(problem); expected a directory owned by uid \(uid) with mode 0700 (remove it if it is not yours)")
        }
        let parent = URL(fileURLWithPath: parentPath)
        let folder = parent.appendingPathComponent(key)
        if mkdir(folder.path, 0o700) != 0 && errno != EEXIST {
            throw Self.failure("\(folder.path): cannot create this folder: \(String(cString: strerror(errno)))")
        }
        if let problem = problem(folder.path, uid: uid, exactMode: nil) {
            throw Self.failure("\(folder.path): \(problem); expected a directory owned by uid \(uid) with mode 0700")
        }
        return PreviewFolder(folder: folder, parent: parent, warning: nil)
    }

    /// `$TMPDIR`, else `/tmp`.
    static func temporaryDirectory(_ environment: [String: String]) -> String {
        environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    /// Why `path` is not a private directory of `uid` (nil when it is), judged by `lstat`, so a
    /// link is never followed. `exactMode` asks for exactly those permission bits; otherwise any
    /// group or other bit is refused.
    static func problem(_ path: String, uid: uid_t, exactMode: mode_t?) -> String? {
        let status: FileStatus
        do { status = try FileStatus.of(path, followLinks: false) } catch { return "cannot inspect it (\(String(cString: strerror(error.code))))" }
        let info = status.info
        if status.kind == .link { return "it is a symbolic link" }
        guard status.kind == .folder else { return "it is not a directory" }
        guard info.st_uid == uid else { return "it is owned by uid \(info.st_uid), not \(uid)" }
        let permissions = info.st_mode & 0o7777
        if let exactMode {
            guard permissions == exactMode else { return "its mode is \(String(permissions, radix: 8)), not \(String(exactMode, radix: 8))" }
        } else if permissions & 0o077 != 0 {
            return "its mode \(String(permissions, radix: 8)) lets others in"
        }
        return nil
    }

    /// A fresh private folder from `mkdtemp`, used when the usual parent is refused.
    static func fallback(_ environment: [String: String], warning: String) throws(ThreadfoldError) -> PreviewFolder {
        var template = Array(((temporaryDirectory(environment) as NSString).appendingPathComponent("threadfold-preview-XXXXXX")).utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else {
            throw Self.failure("\(warning); and cannot create a private folder in \(temporaryDirectory(environment)): \(String(cString: strerror(errno)))")
        }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return PreviewFolder(
            folder: URL(fileURLWithPath: path), parent: nil,
            warning: "\(warning); using the new private folder \(path) instead")
    }

    /// Removes previews in the private parent last modified more than `maximumAge` ago, except
    /// `keep`. Only entries that `lstat` shows to be real directories owned by the user are
    /// removed, and nothing under them is followed: links are unlinked, never entered.
    static func removeStale(in parent: URL, keep: String, now: Date = Date()) {
        let uid = getuid()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent.path) else { return }
        for name in names where name != keep {
            let path = parent.appendingPathComponent(name).path
            guard let status = try? FileStatus.of(path, followLinks: false), status.kind == .folder, status.owner == uid else { continue }
            let info = status.info
            let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            guard now.timeIntervalSince1970 - modified > maximumAge else { continue }
            removeTree(path)
        }
    }

    /// Deletes `root` and everything under it without following links: children first, each
    /// judged by `lstat`; directories are entered only when they are real directories.
    static func removeTree(_ root: String) {
        // Each directory is visited twice: once to push its children, once (after them) to remove it.
        var pending: [(path: String, expanded: Bool)] = [(root, false)]
        while let (path, expanded) = pending.popLast() {
            guard let status = try? FileStatus.of(path, followLinks: false) else { continue }
            guard status.kind == .folder else {
                unlink(path)
                continue
            }
            if expanded {
                rmdir(path)
                continue
            }
            pending.append((path, true))
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                pending.append(((path as NSString).appendingPathComponent(name), false))
            }
        }
    }
}
