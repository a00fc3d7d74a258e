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
    public func templateSet() throws -> TemplateSet {
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

    /// The locale's strings: `templatesDirectory/locales/<tag>.json` first, then built-in.
    public func strings(locale: String) throws -> StringsTable {
        if let directory = templatesDirectory {
            let path = (directory as NSString).appendingPathComponent("locales/\(locale).json")
            if FileManager.default.fileExists(atPath: path) {
                return try StringsTable(json: Array(try readText(path).utf8), file: path)
            }
        }
        let path = "Templates/locales/\(locale).json"
        guard let text = BuiltinResources.files[path] else {
            throw ResourceError(message: "no locale '\(locale)'; expected one of \(Self.builtinLocales.joined(separator: ", ")) or a file locales/\(locale).json in --templates", isUnknownLocale: true)
        }
        return try StringsTable(json: Array(text.utf8), file: path)
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

    /// A hash of every template, locale and asset a build would use, built-in or overriding:
    /// when it changes, every page may change.
    public func fingerprint() -> UInt64 {
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

public struct ResourceError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// The error is a locale name that does not exist (a usage error on the command line).
    public var isUnknownLocale = false

    public init(message: String, isUnknownLocale: Bool = false) {
        self.message = message
        self.isUnknownLocale = isUnknownLocale
    }

    public var description: String { message }
}
