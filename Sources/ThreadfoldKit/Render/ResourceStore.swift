import Foundation

/// The templates, locales and assets a build uses: the built-in copies (embedded at build time
/// from Templates/, Public/ and docs/examples/), each overridable by a file of the same name in
/// a folder the user names.
package struct ResourceStore: Sendable {
    /// A folder whose `*.mustache` files replace or add to the built-in templates, and whose
    /// `locales/*.json` files replace or add locales.
    package var templatesDirectory: String?
    /// A folder whose files replace or add to the built-in stylesheet and script.
    package var assetsDirectory: String?

    package init(templatesDirectory: String? = nil, assetsDirectory: String? = nil) {
        self.templatesDirectory = templatesDirectory
        self.assetsDirectory = assetsDirectory
    }

    /// The store of the folders `resources` names.
    package init(_ resources: Resources) {
        self.init(templatesDirectory: resources.templatesDirectory, assetsDirectory: resources.assetsDirectory)
    }

    /// Every template, parsed. Template errors name the file they came from. A symbolic link
    /// among the templates or the locales is an error that names it (`files(in:)`).
    package func templateSet() throws(ThreadfoldError) -> TemplateSet {
        var sources: [String: String] = [:]
        var files: [String: String] = [:]
        for (path, text) in BuiltinResources.files where path.hasPrefix("Templates/") && path.hasSuffix(".mustache") {
            let name = String(path.dropFirst("Templates/".count).dropLast(".mustache".count))
            guard !name.contains("/") else { continue }
            sources[name] = text
            files[name] = path
        }
        if let directory = templatesDirectory {
            let folder = try Self.open(directory)
            for file in try Self.files(in: folder, of: "templates") where file.hasSuffix(".mustache") {
                let name = String(file.dropLast(".mustache".count))
                sources[name] = try Self.readText(file, in: folder, of: "templates")
                files[name] = folder.path(file)
            }
            if let locales = try Self.locales(folder) { _ = try Self.files(in: locales, of: "templates") }
        }
        return try TemplateSet(sources: sources, files: files)
    }

    /// The locale's strings: a file `templatesDirectory/locales/<tag>.json` first, then built-in.
    ///
    /// A locale is a name, never a path: `locale` must be a BCP 47 language tag by syntax
    /// (`isLanguageTag`), and it selects only a locale whose name equals it, ignoring case as
    /// BCP 47 does: one shipped with Threadfold or one listed in the user's `locales/` folder.
    /// No path is ever built from `locale`; the file read is the listed one. Anything else is an
    /// unknown locale (a `usage` error), which callers treat as a usage error on the command
    /// line and as "use the default locale" for an input's `lang`.
    package func strings(locale: String) throws(ThreadfoldError) -> StringsTable {
        guard Self.isLanguageTag(locale) else {
            throw ThreadfoldError.usage(
                "locale \(Self.quoted(locale)) is not a language tag; expected a BCP 47 tag such as 'en' or 'zh-Hans', one of \(Self.builtinLocales.joined(separator: ", ")) or a file locales/<tag>.json in the templates folder"
            )
        }
        if let name = userLocaleNames().first(where: { Self.sameTag($0, locale) }),
            let directory = templatesDirectory, let locales = try Self.locales(Self.open(directory))
        {
            let file = name + ".json"
            return try StringsTable(json: Array(try Self.readText(file, in: locales, of: "templates").utf8), file: locales.path(file))
        }
        guard let name = Self.builtinLocales.first(where: { Self.sameTag($0, locale) }),
            let text = BuiltinResources.files["Templates/locales/\(name).json"]
        else {
            throw ThreadfoldError.usage(
                "no locale '\(locale)'; expected one of \(Self.builtinLocales.joined(separator: ", ")) or a file locales/\(locale).json in the templates folder")
        }
        return try StringsTable(json: Array(text.utf8), file: "Templates/locales/\(name).json")
    }

    /// The names (without `.json`) of the regular files in `templatesDirectory/locales/`, sorted;
    /// empty when there is no such folder. Names that are not language tags are left out, and so
    /// are links (which `templateSet()` refuses).
    func userLocaleNames() -> [String] {
        guard let directory = templatesDirectory, let folder = try? Self.open(directory),
            let locales = try? Self.locales(folder)
        else { return [] }
        return locales.entries().compactMap { entry in
            guard entry.kind == .file, entry.name.hasSuffix(".json") else { return nil }
            let name = String(entry.name.dropLast(".json".count))
            return Self.isLanguageTag(name) ? name : nil
        }
    }

    /// A BCP 47 language tag by syntax (RFC 5646 section 2.1, without checking the registry):
    /// subtags of 1 to 8 ASCII letters or digits separated by single hyphens, the first of 2 to 3
    /// or 5 to 8 letters. So `en`, `zh-Hans`, `de-CH-1996` pass; `../x`, `en_US`, `a`, `en--x`
    /// and anything with a slash, dot or space do not.
    package static func isLanguageTag(_ text: String) -> Bool {
        let subtags = text.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard let first = subtags.first, [2, 3, 5, 6, 7, 8].contains(first.count),
            first.allSatisfy({ isASCIILetter($0) })
        else { return false }
        return subtags.allSatisfy { subtag in
            (1...8).contains(subtag.count) && subtag.allSatisfy { isASCIILetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) }
        }
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }

    /// BCP 47 tags compare without regard to ASCII case.
    static func sameTag(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count
            && zip(a.utf8, b.utf8).allSatisfy { x, y in
                x == y || (isASCIILetter(x) && isASCIILetter(y) && x | 0x20 == y | 0x20)
            }
    }

    /// A name for a message: quoted, with control characters escaped, at most 64 characters.
    private static func quoted(_ text: String) -> String {
        let short = text.count > 64 ? String(text.prefix(64)) + "…" : text
        return "'" + short.unicodeScalars.map { $0.properties.generalCategory == .control ? $0.escaped(asASCII: true) : String($0) }.joined() + "'"
    }

    package static var builtinLocales: [String] {
        BuiltinResources.files.keys.filter { $0.hasPrefix("Templates/locales/") && $0.hasSuffix(".json") }
            .map { String($0.dropFirst("Templates/locales/".count).dropLast(".json".count)) }.sorted()
    }

    /// A file copied next to the pages.
    package struct Asset: Sendable {
        package var name: String
        package var bytes: [UInt8]
        /// The permission bits it is published with: 0644, narrowed to what its source file
        /// allows (an asset only its owner may read is published so).
        package var mode: UInt32
        /// The file it came from, for messages (nil for a built-in asset).
        package var file: String?
    }

    /// Files copied next to the pages: name (relative path) to bytes, sorted by name.
    package func assets() throws(ThreadfoldError) -> [(name: String, bytes: [UInt8])] {
        try assetFiles().map { ($0.name, $0.bytes) }
    }

    /// The assets, built-in ones replaced or joined by the regular files of `assetsDirectory`,
    /// sorted by name. A symbolic link there is an error that names it (`files(in:)`).
    package func assetFiles() throws(ThreadfoldError) -> [Asset] {
        var files: [String: Asset] = [:]
        for (path, text) in BuiltinResources.files where path.hasPrefix("Public/") {
            let name = String(path.dropFirst("Public/".count))
            files[name] = Asset(name: name, bytes: Array(text.utf8), mode: publishedMode, file: nil)
        }
        if let directory = assetsDirectory {
            let folder = try Self.open(directory)
            for file in try Self.files(in: folder, of: "assets") {
                let read: (bytes: [UInt8], mode: UInt32)
                do { read = try folder.read(file) } catch { throw Self.error(error, folder.path(file), of: "assets") }
                files[file] = Asset(name: file, bytes: read.bytes, mode: publishedMode & read.mode, file: folder.path(file))
            }
        }
        return files.keys.sorted().map { files[$0]! }
    }

    /// The asset that runs the search box and the search page.
    package static let searchScript = "threadfold-search.js"

    /// The assets a page or site is given: all of them, less the search script where there is no search.
    package func assets(search: Bool) throws(ThreadfoldError) -> [Asset] {
        try assetFiles().filter { search || $0.name != Self.searchScript }
    }

    /// A hash of every template, locale and asset a build would use, built-in or overriding:
    /// when it changes, every page may change. A user's asset published with a narrower mode
    /// than 0644 adds its mode, so no earlier build's copy of it is reused with another mode.
    package func fingerprint() -> UInt64 {
        var text: [UInt8] = []
        // The embedded docs (the example thread, the templates guide) shape no page of a build.
        for path in BuiltinResources.files.keys.sorted() where !path.hasPrefix("docs/") {
            text += Array("\(path)\u{0}".utf8) + Array(BuiltinResources.files[path]!.utf8) + [0]
        }
        let templates = templatesDirectory.flatMap { try? Self.open($0) }
        let folders = [templates, templates.flatMap { try? Self.locales($0) }, assetsDirectory.flatMap { try? Self.open($0) }]
        for folder in folders.compactMap({ $0 }) {
            for entry in folder.entries() {
                let read = entry.kind == .file ? try? folder.read(entry.name) : nil
                text += Array("\(folder.path(entry.name))\u{0}".utf8) + (read?.bytes ?? []) + [0]
                if let read, folder.display == assetsDirectory, read.mode & publishedMode != publishedMode {
                    text += Array("mode \(String(read.mode & publishedMode, radix: 8))\u{0}".utf8)
                }
            }
        }
        return StableHash.content(text)
    }

    /// The bundled example thread (docs/examples/thread.json).
    package static var exampleThread: [UInt8] { Array((BuiltinResources.files["docs/examples/thread.json"] ?? "[]").utf8) }

    /// Opens a folder the user named (`--templates`, `--assets`).
    private static func open(_ directory: String) throws(ThreadfoldError) -> SourceFolder {
        do { return try SourceFolder.open(directory) } catch {
            throw ThreadfoldError.resources("\(directory): not a folder; expected a folder of templates or assets")
        }
    }

    /// The templates folder's `locales/`, never through a link; nil when there is none.
    private static func locales(_ templates: SourceFolder) throws(ThreadfoldError) -> SourceFolder? {
        do { return try templates.folder("locales") } catch .missing { return nil } catch {
            throw Self.error(error, templates.path("locales"), of: "templates")
        }
    }

    /// The names of the regular files in `folder`, sorted, hidden names left out. A symbolic
    /// link among them, to a file or a folder, inside the folder or out of it, is an error that
    /// names it: a theme is files, and a link in one (say, a page template pointing at a secret
    /// file) would publish whatever it points to. Sub-folders are not read.
    private static func files(in folder: SourceFolder, of what: String) throws(ThreadfoldError) -> [String] {
        var names: [String] = []
        for entry in folder.entries() where !entry.name.hasPrefix(".") {
            switch entry.kind {
            case .file: names.append(entry.name)
            case .link: throw error(.link(target: folder.linkTarget(entry.name)), folder.path(entry.name), of: what)
            case .folder, .other: continue
            }
        }
        return names
    }

    private static func readText(_ name: String, in folder: SourceFolder, of what: String) throws(ThreadfoldError) -> String {
        let bytes: [UInt8]
        do { bytes = try folder.read(name).bytes } catch { throw Self.error(error, folder.path(name), of: what) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ThreadfoldError.resources("\(folder.path(name)): error: is not UTF-8 text; expected a UTF-8 file")
        }
        return text
    }

    /// A message for a file of the templates or assets folder that could not be read.
    private static func error(_ failure: SystemCallError, _ path: String, of what: String) -> ThreadfoldError {
        let problem: String
        switch failure {
        case .link(let target):
            problem = "is a symbolic link (to \(target)); expected a regular file or folder (links in the \(what) folder are never followed)"
        case .missing: problem = "is missing; expected the file that was listed"
        case .notFolder: problem = "is not a folder; expected a folder"
        case .notRegular: problem = "is not a regular file; expected a regular file"
        case .tooLarge: problem = "is larger than 256 MiB; expected a template, locale or asset file"
        case .system(let code): problem = "cannot be read: \(SystemError.describe(code))"
        }
        return ThreadfoldError.resources("\(Printable.escape(path)): error: \(problem)")
    }
}
