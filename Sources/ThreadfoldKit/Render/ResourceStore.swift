import Foundation

/// The templates, locales and assets a build uses: the built-in copies (embedded at build time
/// from Templates/, Public/ and docs/examples/), each overridable by a file of the same name in
/// a folder the user names.
public struct ResourceStore: Sendable {
    /// A folder whose `*.mustache` files replace or add to the built-in templates, and whose
    /// `locales/*.json` files replace or add locales.
    public var templatesDirectory: String?
    /// A folder whose files replace or add to the built-in stylesheet and script.
    public var assetsDirectory: String?

    public init(templatesDirectory: String? = nil, assetsDirectory: String? = nil) {
        self.templatesDirectory = templatesDirectory
        self.assetsDirectory = assetsDirectory
    }

    /// Every template, parsed. Template errors name the file they came from.
    package func templateSet() throws -> TemplateSet {
        var sources: [String: String] = [:]
        var files: [String: String] = [:]
        for (path, text) in BuiltinResources.files where path.hasPrefix("Templates/") && path.hasSuffix(".mustache") {
            let name = String(path.dropFirst("Templates/".count).dropLast(".mustache".count))
            guard !name.contains("/") else { continue }
            sources[name] = text
            files[name] = path
        }
        if let directory = templatesDirectory {
            for file in try listFiles(directory) where file.hasSuffix(".mustache") {
                let path = (directory as NSString).appendingPathComponent(file)
                let name = String(file.dropLast(".mustache".count))
                sources[name] = try readText(path)
                files[name] = path
            }
        }
        return try TemplateSet(sources: sources, files: files)
    }

    /// The locale's strings: a file `templatesDirectory/locales/<tag>.json` first, then built-in.
    ///
    /// A locale is a name, never a path: `locale` must be a BCP 47 language tag by syntax
    /// (`isLanguageTag`), and it selects only a locale whose name equals it, ignoring case as
    /// BCP 47 does: one shipped with Threadfold or one listed in the user's `locales/` folder.
    /// No path is ever built from `locale`; the file read is the listed one. Anything else is an
    /// unknown locale (`isUnknownLocale`), which callers treat as a usage error on the command
    /// line and as "use the default locale" for an input's `lang`.
    package func strings(locale: String) throws -> StringsTable {
        guard Self.isLanguageTag(locale) else {
            throw ResourceError(message: "locale \(Self.quoted(locale)) is not a language tag; expected a BCP 47 tag such as 'en' or 'zh-Hans', one of \(Self.builtinLocales.joined(separator: ", ")) or a file locales/<tag>.json in the templates folder", isUnknownLocale: true)
        }
        if let directory = templatesDirectory {
            let folder = (directory as NSString).appendingPathComponent("locales")
            if let name = userLocaleNames().first(where: { Self.sameTag($0, locale) }) {
                let path = (folder as NSString).appendingPathComponent(name + ".json")
                return try StringsTable(json: Array(try readText(path).utf8), file: path)
            }
        }
        guard let name = Self.builtinLocales.first(where: { Self.sameTag($0, locale) }),
              let text = BuiltinResources.files["Templates/locales/\(name).json"] else {
            throw ResourceError(message: "no locale '\(locale)'; expected one of \(Self.builtinLocales.joined(separator: ", ")) or a file locales/\(locale).json in the templates folder", isUnknownLocale: true)
        }
        return try StringsTable(json: Array(text.utf8), file: "Templates/locales/\(name).json")
    }

    /// The names (without `.json`) of the regular files in `templatesDirectory/locales/`, sorted;
    /// empty when there is no such folder. Names that are not language tags are left out.
    func userLocaleNames() -> [String] {
        guard let directory = templatesDirectory else { return [] }
        let folder = (directory as NSString).appendingPathComponent("locales")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return names.sorted().compactMap { file in
            guard file.hasSuffix(".json") else { return nil }
            let name = String(file.dropLast(".json".count))
            guard Self.isLanguageTag(name) else { return nil }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent(file), isDirectory: &isDirectory),
                  !isDirectory.boolValue else { return nil }
            return name
        }
    }

    /// A BCP 47 language tag by syntax (RFC 5646 section 2.1, without checking the registry):
    /// subtags of 1 to 8 ASCII letters or digits separated by single hyphens, the first of 2 to 3
    /// or 5 to 8 letters. So `en`, `zh-Hans`, `de-CH-1996` pass; `../x`, `en_US`, `a`, `en--x`
    /// and anything with a slash, dot or space do not.
    package static func isLanguageTag(_ text: String) -> Bool {
        let subtags = text.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard let first = subtags.first, [2, 3, 5, 6, 7, 8].contains(first.count),
              first.allSatisfy({ isASCIILetter($0) }) else { return false }
        return subtags.allSatisfy { subtag in
            (1...8).contains(subtag.count) && subtag.allSatisfy { isASCIILetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) }
        }
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }

    /// BCP 47 tags compare without regard to ASCII case.
    static func sameTag(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { x, y in
            x == y || (isASCIILetter(x) && isASCIILetter(y) && x | 0x20 == y | 0x20)
        }
    }

    /// A name for a message: quoted, with control characters escaped, at most 64 characters.
    private static func quoted(_ text: String) -> String {
        let short = text.count > 64 ? String(text.prefix(64)) + "…" : text
        return "'" + short.unicodeScalars.map { $0.properties.generalCategory == .control ? $0.escaped(asASCII: true) : String($0) }.joined() + "'"
    }

    public static var builtinLocales: [String] {
        BuiltinResources.files.keys.filter { $0.hasPrefix("Templates/locales/") && $0.hasSuffix(".json") }
            .map { String($0.dropFirst("Templates/locales/".count).dropLast(".json".count)) }.sorted()
    }

    /// Files copied next to the pages: name (relative path) to bytes, sorted by name.
    public func assets() throws -> [(name: String, bytes: [UInt8])] {
        var files: [String: [UInt8]] = [:]
        for (path, text) in BuiltinResources.files where path.hasPrefix("Public/") {
            files[String(path.dropFirst("Public/".count))] = Array(text.utf8)
        }
        if let directory = assetsDirectory {
            for file in try listFiles(directory) {
                let path = (directory as NSString).appendingPathComponent(file)
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw ResourceError(message: "\(path): cannot read this asset")
                }
                files[file] = [UInt8](data)
            }
        }
        return files.keys.sorted().map { ($0, files[$0]!) }
    }

    /// The asset that runs the search box and the search page.
    package static let searchScript = "threadfold-search.js"

    /// The assets a page or site is given: all of them, less the search script where there is no search.
    package func assets(search: Bool) throws -> [(name: String, bytes: [UInt8])] {
        try assets().filter { search || $0.name != Self.searchScript }
    }

    /// A hash of every template, locale and asset a build would use, built-in or overriding:
    /// when it changes, every page may change.
    package func fingerprint() -> UInt64 {
        var text: [UInt8] = []
        for path in BuiltinResources.files.keys.sorted() {
            text += Array("\(path)\u{0}".utf8) + Array(BuiltinResources.files[path]!.utf8) + [0]
        }
        for directory in [templatesDirectory, templatesDirectory.map { ($0 as NSString).appendingPathComponent("locales") }, assetsDirectory] {
            guard let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            for name in names.sorted() {
                let path = (directory as NSString).appendingPathComponent(name)
                text += Array("\(path)\u{0}".utf8) + ((FileManager.default.contents(atPath: path)).map { [UInt8]($0) } ?? []) + [0]
            }
        }
        return ContentHash.hash(text)
    }

    /// The bundled example thread (docs/examples/thread.json).
    public static var exampleThread: [UInt8] { Array((BuiltinResources.files["docs/examples/thread.json"] ?? "[]").utf8) }

    private func listFiles(_ directory: String) throws -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ResourceError(message: "\(directory): not a folder; expected a folder of templates or assets")
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { name in
            var isDir: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent(name), isDirectory: &isDir)
            return exists && !isDir.boolValue && !name.hasPrefix(".")
        }.sorted()
    }

    private func readText(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ResourceError(message: "\(path): cannot read this file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ResourceError(message: "\(path): not UTF-8 text")
        }
        return text
    }
}

package struct ResourceError: Error, Sendable, CustomStringConvertible {
    package var message: String
    /// The error is a locale name that does not exist (a usage error on the command line).
    package var isUnknownLocale = false

    package init(message: String, isUnknownLocale: Bool = false) {
        self.message = message
        self.isUnknownLocale = isUnknownLocale
    }

    package var description: String { message }
}
