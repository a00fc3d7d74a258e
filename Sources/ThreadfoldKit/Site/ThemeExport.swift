#if canImport(Glibc)
    import Glibc
#endif

/// The built-in theme as files a user can edit: the templates and locales under `templates/`, the
/// assets under `assets/`, and a `README.md` listing every template variable. A build given
/// `--templates DIR/templates --assets DIR/assets` reads back exactly what the default build uses.
package enum ThemeExport {
    /// A file of the theme: its path under the theme folder (`templates/page.mustache`,
    /// `templates/locales/en.json`, `assets/threadfold.css`, `README.md`) and its bytes.
    package struct File: Sendable {
        package var path: String
        package var bytes: [UInt8]
    }

    /// Every file of the theme, sorted by path.
    package static func files() -> [File] {
        var files: [File] = []
        for (key, text) in BuiltinResources.files {
            if key.hasPrefix("Templates/") {
                files.append(File(path: "templates/" + key.dropFirst("Templates/".count), bytes: Array(text.utf8)))
            } else if key.hasPrefix("Public/") {
                files.append(File(path: "assets/" + key.dropFirst("Public/".count), bytes: Array(text.utf8)))
            }
        }
        files.append(File(path: "README.md", bytes: Array(readme.utf8)))
        return files.sorted { $0.path < $1.path }
    }

    /// What stands in the way of writing the theme into `directory`, one error per path: a file
    /// or link where a theme file goes (unless `replacing`), a folder or other entry there (never
    /// replaced), a link or file where a theme folder goes. Empty when the theme can be written.
    package static func problems(in directory: String, replacing: Bool) -> [ThreadfoldError] {
        guard let root = try? Folder.open(directory) else { return [] }
        var problems: [ThreadfoldError] = []
        var folders: [String: Folder?] = ["": root]
        for file in files() {
            let (parentPath, name) = split(file.path)
            let parent: Folder?
            if let known = folders[parentPath] {
                parent = known
            } else {
                do {
                    parent = try root.folder(at: parentPath.split(separator: "/"))
                } catch {
                    // A missing folder is made when the theme is written; anything else is a problem.
                    if error.errno != ENOENT { problems.append(error) }
                    parent = nil
                }
                folders[parentPath] = parent
            }
            guard let parent, let entry = parent.entry(name) else { continue }
            switch entry.kind {
            case .file, .link:
                if !replacing {
                    problems.append(ThreadfoldError.output(path: parent.path(name), message: "already exists; expected no file there (nothing was written)", errno: EEXIST))
                }
            case .folder, .other:
                problems.append(ThreadfoldError.output(path: parent.path(name), message: "is not a regular file; expected a theme file or nothing there (nothing was written)"))
            }
        }
        return problems
    }

    /// Writes the theme into `directory` (made when missing; its parent must exist) and returns
    /// the paths written. Each file is created with `O_EXCL | O_NOFOLLOW` in a folder opened
    /// without following links; with `replacing`, a file or link already there is removed first
    /// (a link itself, never its target). Call `problems(in:replacing:)` first to report every
    /// conflict at once; this stops at the first.
    package static func write(to directory: String, replacing: Bool) throws(ThreadfoldError) -> [String] {
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            let code = errno
            throw ThreadfoldError.output(path: directory, message: "cannot be created: \(SystemError.describe(code))", errno: code)
        }
        let root = try Folder.open(directory)
        var written: [String] = []
        for file in files() {
            let (parentPath, name) = split(file.path)
            let parent = try root.folder(at: parentPath.split(separator: "/"), create: true)
            if replacing, let entry = parent.entry(name), entry.kind == .file || entry.kind == .link {
                try parent.removeEntry(name)
            }
            try parent.create(name, file.bytes)
            written.append(parent.path(name))
        }
        return written
    }

    /// The theme's README: how to use the folder, then the templates and every variable, as
    /// docs/templates.md documents them (its table of templates and its "Variables" section,
    /// taken from the copy embedded at build time, so the two cannot differ).
    package static var readme: String {
        var text = """
            # A Threadfold theme

            `threadfold theme` wrote this folder: the templates, locales and assets that Threadfold \(Release.version) \
            builds with when it is given none. Edit them and build with

                threadfold build <input> ... --templates THEME/templates --assets THEME/assets

            (`render` and `preview` take the same two options). Files you delete fall back to the
            built-in ones; new partials and assets are added.

            - `templates/*.mustache`: the Mustache templates, one per kind of page or part.
            - `templates/locales/<tag>.json`: the words of each locale (`--locale <tag>`).
            - `assets/`: the files copied next to the pages (stylesheet, scripts).


            """
        let guide = BuiltinResources.files["docs/templates.md"] ?? ""
        if let templates = block(of: guide, from: "| template |") {
            text += "## Templates\n\n" + templates + "\n"
        }
        if let variables = block(of: guide, from: "## Variables", to: "## ") {
            text += variables
        }
        return text
    }

    /// The lines of `text` from the first line starting with `start` up to (not including) the
    /// next line starting with `end`, or the next empty line when `end` is nil; nil when no line
    /// starts with `start`.
    static func block(of text: String, from start: String, to end: String? = nil) -> String? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.firstIndex(where: { $0.hasPrefix(start) }) else { return nil }
        let rest = lines[(first + 1)...]
        let stop = rest.firstIndex { line in end.map { line.hasPrefix($0) } ?? line.isEmpty } ?? lines.endIndex
        var block = lines[first..<stop].joined(separator: "\n")
        while block.hasSuffix("\n\n") { block.removeLast() }
        return block.hasSuffix("\n") ? block : block + "\n"
    }

    /// A theme path's folder (empty for the top) and name.
    private static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        return (String(path[..<slash]), String(path[path.index(after: slash)...]))
    }
}
