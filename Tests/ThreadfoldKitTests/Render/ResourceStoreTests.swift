import Foundation
import Testing
import TestSupport
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
        let thread = #"{"lang": \#(String(decoding: try JSONSerialization.data(withJSONObject: lang, options: .fragmentsAllowed), as: UTF8.self)), "comments": [{"id": 1, "body": "a"}, {"id": 2, "parent_id": 1, "body": "b"}]}"#
        let pipeline = try ThreadRenderer(options: ArchiveOptions(), resources: ResourceStore(templatesDirectory: templates.path))
        return String(decoding: try pipeline.page(bytes: Array(thread.utf8), file: "t.json").html, as: UTF8.self)
    }

    @Test("language tags by BCP 47 syntax", arguments: [
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
        // The same through a symlinked folder inside locales/ and an absolute path.
        try FileManager.default.createSymbolicLink(at: templates.appendingPathComponent("locales/up"), withDestinationURL: root)
        #expect(!(try page(lang: "up/outside", templates: templates)).contains("OUTSIDE-LOCALE"))
        #expect(!(try page(lang: root.appendingPathComponent("outside").path, templates: templates)).contains("OUTSIDE-LOCALE"))
        // --locale with such a name is an unknown locale (a usage error), not a file.
        var options = RenderOptions()
        options.locale = "../../../../outside"
        let error = try #require(throws: ResourceError.self) {
            _ = try ThreadRenderer(options: ArchiveOptions(render: options), resources: ResourceStore(templatesDirectory: templates.path))
        }
        #expect(error.isUnknownLocale)
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
        // A folder, or a dangling link, named like a locale is not a locale.
        try FileManager.default.createDirectory(at: locales.appendingPathComponent("es.json"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: locales.appendingPathComponent("it.json").path, withDestinationPath: root.appendingPathComponent("missing").path)
        #expect(try page(lang: "es", templates: root).contains("1 reply"))
        #expect(try page(lang: "it", templates: root).contains("1 reply"))
        var options = RenderOptions()
        options.locale = "it"
        #expect(throws: ResourceError.self) { _ = try ThreadRenderer(options: ArchiveOptions(render: options), resources: ResourceStore(templatesDirectory: root.path)) }
    }
}
