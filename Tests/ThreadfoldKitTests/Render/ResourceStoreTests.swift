import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

@Suite("Resource store")
struct ResourceStoreTests {
    /// A new temporary folder, removed when the tests end.
    func temporaryFolder() throws -> URL { try TemporaryFolders.make("tf-resources") }

    /// A locale file whose "replies" message is `marker`, so a page shows which table it used.
    func localeJSON(_ tag: String, marker: String) throws -> Data {
        let english = try #require(BuiltinResources.files["Templates/locales/en.json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(english.utf8)) as? [String: Any])
        var copy = object
        copy["locale"] = tag
        var messages = try #require(object["messages"] as? [String: Any])
        messages["replies"] = ["one": "{count} \(marker)", "other": "{count} \(marker)"]
        copy["messages"] = messages
        return try JSONSerialization.data(withJSONObject: copy)
    }

    func page(lang: String, templates: URL) throws -> String {
        let thread =
            #"{"lang": \#(String(decoding: try JSONSerialization.data(withJSONObject: lang, options: .fragmentsAllowed), as: UTF8.self)), "comments": [{"id": 1, "body": "a"}, {"id": 2, "parent_id": 1, "body": "b"}]}"#
        let pipeline = try ThreadPipeline(options: ArchiveOptions(), resources: ResourceStore(templatesDirectory: templates.path))
        return String(decoding: try pipeline.page(bytes: Array(thread.utf8), file: "t.json").html, as: UTF8.self)
    }

    @Test(
        "language tags by BCP 47 syntax",
        arguments: [
            ("en", true), ("zh-Hans", true), ("de-CH-1996", true), ("sgn-BE-FR", true), ("abcde", true), ("EN-us", true),
            ("a", false), ("abcd", false), ("abcdefghi", false), ("e1", false), ("en-", false), ("en--us", false), ("-en", false),
            ("en_US", false), ("en-123456789", false), ("../../../../tmp/outside", false), ("en/../x", false), ("en.json", false),
            ("", false), ("en us", false), ("ｅｎ", false),
        ])
    func languageTags(_ text: String, _ valid: Bool) {
        #expect(ResourceStore.isLanguageTag(text) == valid, "\(text)")
    }

    @Test("an input lang is a name, never a path: a traversal does not load a file outside the templates")
    func traversal() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let templates = root.appendingPathComponent("a/b/tpl")
        try FileManager.default.createDirectory(at: templates.appendingPathComponent("locales"), withIntermediateDirectories: true)
        try localeJSON("outside", marker: "OUTSIDE-LOCALE").write(to: root.appendingPathComponent("outside.json"))
        // tpl/locales/../../../../outside.json is root/outside.json.
        let html = try page(lang: "../../../../outside", templates: templates)
        #expect(!html.contains("OUTSIDE-LOCALE"))
        #expect(html.contains("1 reply") && html.contains("<html lang=\"en\""))
        // The same through an absolute path; a symlinked folder inside locales/ is refused whole.
        #expect(!(try page(lang: root.appendingPathComponent("outside").path, templates: templates)).contains("OUTSIDE-LOCALE"))
        try FileManager.default.createSymbolicLink(at: templates.appendingPathComponent("locales/up"), withDestinationURL: root)
        #expect(throws: ThreadfoldError.self) { try page(lang: "up/outside", templates: templates) }
        try FileManager.default.removeItem(at: templates.appendingPathComponent("locales/up"))
        // --locale with such a name is an unknown locale (a usage error), not a file.
        var options = RenderOptions()
        options.locale = "../../../../outside"
        let error = try #require(throws: ThreadfoldError.self) {
            _ = try ThreadRenderer(options: ArchiveOptions(render: options), resources: ResourceStore(templatesDirectory: templates.path))
        }
        #expect(error.kind == .usage)
        #expect(error.message.contains("'../../../../outside' is not a language tag; expected a BCP 47 tag"))
    }

    @Test("a listed locale file is used, matched ignoring case; an unknown tag falls back to the default")
    func listedLocales() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let locales = root.appendingPathComponent("locales")
        try FileManager.default.createDirectory(at: locales, withIntermediateDirectories: true)
        try localeJSON("fr", marker: "FR-LOCALE").write(to: locales.appendingPathComponent("fr.json"))
        #expect(try page(lang: "fr", templates: root).contains("1 FR-LOCALE"))
        #expect(try page(lang: "FR", templates: root).contains("1 FR-LOCALE"))
        #expect(try page(lang: "ZH-hans", templates: root).contains("1 条回复"))
        // A valid tag with no locale keeps today's behaviour: default words, the input's lang.
        let german = try page(lang: "de-CH", templates: root)
        #expect(german.contains("1 reply") && german.contains("<html lang=\"de-CH\""))
        // A folder named like a locale is not a locale; a link, even a dangling one, is an error.
        try FileManager.default.createDirectory(at: locales.appendingPathComponent("es.json"), withIntermediateDirectories: true)
        #expect(try page(lang: "es", templates: root).contains("1 reply"))
        var options = RenderOptions()
        options.locale = "es"
        #expect(throws: ThreadfoldError.self) { _ = try ThreadRenderer(options: ArchiveOptions(render: options), resources: ResourceStore(templatesDirectory: root.path)) }
        try FileManager.default.createSymbolicLink(atPath: locales.appendingPathComponent("it.json").path, withDestinationPath: root.appendingPathComponent("missing").path)
        let error = try #require(throws: ThreadfoldError.self) { try page(lang: "it", templates: root) }
        #expect(error.message.hasSuffix("locales/it.json: error: is a symbolic link (to \(root.path)/missing); expected a regular file or folder (links in the templates folder are never followed)"))
    }

    /// A folder of `files` (name to text) and `links` (name to target) under `root`.
    func theme(_ name: String, in root: URL, files: [String: String] = [:], links: [String: URL] = [:]) throws -> URL {
        let folder = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (file, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(file)) }
        for (link, target) in links { try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent(link), withDestinationURL: target) }
        return folder
    }

    /// A file outside the theme standing for /etc/shadow: only its owner may read it.
    func shadow(in root: URL) throws -> URL {
        let file = root.appendingPathComponent("shadow")
        try Data("root:SHADOW-SECRET:19000:0:99999:7:::\n".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        return file
    }

    @Test("attack: an asset linked to a secret file outside (theme.css -> /etc/shadow) is refused, naming the link and its target")
    func assetLinkedOutside() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let shadow = try shadow(in: root)
        let assets = try theme("assets", in: root, links: ["theme.css": shadow])
        let error = try #require(throws: ThreadfoldError.self) { try ResourceStore(assetsDirectory: assets.path).assetFiles() }
        #expect(error.message == "\(assets.path)/theme.css: error: is a symbolic link (to \(shadow.path)); expected a regular file or folder (links in the assets folder are never followed)")
        #expect(!error.message.contains("SHADOW-SECRET"))
    }

    @Test("attack: a template linked to a secret file outside (page.mustache -> /etc/shadow) is refused, never rendered")
    func templateLinkedOutside() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let shadow = try shadow(in: root)
        let templates = try theme("tpl", in: root, links: ["page.mustache": shadow])
        let error = try #require(throws: ThreadfoldError.self) { try ResourceStore(templatesDirectory: templates.path).templateSet() }
        #expect(error.message == "\(templates.path)/page.mustache: error: is a symbolic link (to \(shadow.path)); expected a regular file or folder (links in the templates folder are never followed)")
        #expect(throws: ThreadfoldError.self) { try ThreadRenderer(options: ArchiveOptions(), resources: ResourceStore(templatesDirectory: templates.path)) }
    }

    @Test("attack: a linked sub-folder (assets/img -> /etc, templates/locales -> elsewhere) is refused, naming it")
    func linkedSubfolder() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let outside = try theme("outside", in: root, files: ["fr.json": "{}", "theme.css": "SECRET"])
        let assets = try theme("assets", in: root, links: ["img": outside])
        let error = try #require(throws: ThreadfoldError.self) { try ResourceStore(assetsDirectory: assets.path).assetFiles() }
        #expect(error.message.hasPrefix("\(assets.path)/img: error: is a symbolic link (to \(outside.path))"))
        let templates = try theme("tpl", in: root, links: ["locales": outside])
        let localeError = try #require(throws: ThreadfoldError.self) { try ResourceStore(templatesDirectory: templates.path).templateSet() }
        #expect(localeError.message.hasPrefix("\(templates.path)/locales: error: is a symbolic link (to \(outside.path))"))
    }

    @Test("attack: a link that stays inside the theme folder is refused too: links are never followed")
    func linkInside() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let assets = try theme("assets", in: root, files: ["real.css": "a{}"])
        try FileManager.default.createSymbolicLink(atPath: assets.appendingPathComponent("theme.css").path, withDestinationPath: "real.css")
        let error = try #require(throws: ThreadfoldError.self) { try ResourceStore(assetsDirectory: assets.path).assetFiles() }
        #expect(error.message.hasPrefix("\(assets.path)/theme.css: error: is a symbolic link (to real.css)"))
        // Hidden names are not read, so a hidden link is neither refused nor published.
        try FileManager.default.removeItem(at: assets.appendingPathComponent("theme.css"))
        try FileManager.default.createSymbolicLink(atPath: assets.appendingPathComponent(".hidden").path, withDestinationPath: "real.css")
        #expect(try ResourceStore(assetsDirectory: assets.path).assetFiles().map(\.name).contains("real.css"))
    }

    @Test(
        "attack: an asset its owner alone may read (0600) is never published wider: the mode is 0644 narrowed by the source's",
        arguments: [
            (0o600 as Int, 0o600 as UInt32), (0o640, 0o640), (0o644, 0o644), (0o755, 0o644), (0o666, 0o644), (0o400, 0o400),
        ])
    func assetMode(_ source: Int, _ published: UInt32) throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let assets = try theme("assets", in: root, files: ["theme.css": "a{}"])
        try FileManager.default.setAttributes([.posixPermissions: source], ofItemAtPath: assets.appendingPathComponent("theme.css").path)
        let asset = try #require(try ResourceStore(assetsDirectory: assets.path).assetFiles().first { $0.name == "theme.css" })
        #expect(asset.mode == published && asset.file == assets.appendingPathComponent("theme.css").path)
        #expect(try ResourceStore().assetFiles().allSatisfy { $0.mode == 0o644 && $0.file == nil })
    }

    @Test("a template that recurses fails a build once, against the template's file and line, not once per thread against the input")
    func templateErrorOnce() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let templates = try theme("tpl", in: root, files: ["page.mustache": "<html>\n{{>page}}"])
        let input = root.appendingPathComponent("all.jsonl")
        let lines = (0..<5).map { #"{"id": "k\#($0)", "title": "T\#($0)", "comments": [{"id": "a", "body": "hi"}]}"# }
        try Data(lines.joined(separator: "\n").utf8).write(to: input)
        let units = try ArchiveInput.units([input.path], readStandardInput: { [] })
        let builder = ArchiveBuilder(
            units: units, output: root.appendingPathComponent("site"), options: ArchiveOptions(),
            resources: ResourceStore(templatesDirectory: templates.path), jobs: 2)
        let report = try builder.run()
        #expect(!report.published)
        #expect(report.errors.map(\.description) == ["\(templates.path)/page.mustache:2:1: error: partial recursion: '{{>page}}' nests partials more than 500 deep; expected the recursion to end"])
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("site").path))
    }
}
