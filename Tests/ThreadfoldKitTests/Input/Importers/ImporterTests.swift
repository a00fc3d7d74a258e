import Testing

@testable import ThreadfoldKit

@Suite("Importer")
struct ImporterTests {
    @Test(
        "each form is recognised from its structure",
        arguments: [
            (#"{"comments": []}"#, SourceFormat.threadfold),
            (#"[{"id": 1}]"#, .threadfold),
            (#"[{"kind": "Listing", "data": {"children": []}}, {"kind": "Listing", "data": {"children": []}}]"#, .reddit),
            (#"{"post_stream": {"posts": []}}"#, .discourse),
            (#"{"id": 1, "type": "story", "author": "a", "children": []}"#, .hn),
            (#"[{"id": 1, "type": "story", "by": "a"}]"#, .hn),
        ])
    func detection(_ json: String, _ format: SourceFormat) throws {
        #expect(try Importer.read(bytes: Array(json.utf8), file: "x.json").format == format)
    }

    @Test("every form is one entry in one list: --from names it, detection tries it, Threadfold's own format last")
    func registry() {
        let names = SourceFormat.forms.map { $0.name }
        #expect(Set(names).count == names.count)
        #expect(SourceFormat.named.map(\.rawValue) == ["auto"] + names)
        for form in SourceFormat.forms { #expect(SourceFormat(rawValue: form.name)?.described == form.described) }
        #expect(SourceFormat(rawValue: "mapped") == .mapped && SourceFormat(rawValue: "nope") == nil)
        #expect(names.last == "threadfold")
    }

    @Test(
        "a line of JSON Lines is a whole thread when its form says so",
        arguments: [
            (#"{"comments": []}"#, true),
            (#"{"threads": []}"#, false),
            (#"{"post_stream": {"posts": []}}"#, true),
            (#"[{"kind": "Listing", "data": {"children": []}}, {"kind": "Listing", "data": {"children": []}}]"#, true),
            (#"{"short_id": "a", "submitter_user": "b", "comments": []}"#, true),
            (#"{"id": 1, "type": "story", "author": "a", "children": []}"#, true),
            (#"{"id": 1, "type": "comment", "by": "a", "parent": 2}"#, false),
            (#"{"id": "t1_a", "link_id": "t3_b", "parent_id": "t3_b"}"#, false),
            (#"{"id": 1, "body": "x"}"#, false),
        ])
    func wholeThreadLines(_ json: String, _ whole: Bool) {
        #expect(ArchiveInput.isThread(Array(json.utf8)) == whole)
    }

    @Test("an unknown form stops with the list of forms, and a hint to name the form (no flag in the library's message)")
    func unknown() throws {
        let errors = try #require(throws: ThreadfoldError.self) { try Importer.read(bytes: Array(#"{"what": 1}"#.utf8), file: "x.json") }
        let message = errors.problems[0].description
        #expect(message.hasPrefix("x.json:1:1: error: $: cannot tell which form this is"))
        for name in ["threadfold", "reddit", "hn", "discourse"] { #expect(message.contains(name)) }
        #expect(!message.contains("--"))
        #expect(errors.problems[0].hint == .nameForm)
    }

    @Test("--from overrides detection; --body-format overrides every body")
    func overrides() throws {
        let json = #"[{"id": 1, "body": "<b>x</b>"}]"#
        var options = ImportOptions(format: .threadfold, bodyFormat: .html)
        let result = try Importer.read(bytes: Array(json.utf8), file: "x.json", options: options)
        #expect(!result.detected && result.threads[0].comments[0].bodyFormat == .html)
        options.bodyFormat = .text
        let page = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(try Importer.read(bytes: Array(json.utf8), file: "x.json", options: options).threads[0]).html, as: UTF8.self)
        #expect(page.contains("&lt;b&gt;x&lt;/b&gt;"))
        let wrong = try #require(throws: ThreadfoldError.self) { try Importer.read(bytes: Array(json.utf8), file: "x.json", options: ImportOptions(format: .reddit)) }
        #expect(wrong.problems[0].description.contains("read as Reddit (a /comments/<id>.json thread"))
    }

    @Test("JSON Lines of comments is a Threadfold thread")
    func jsonLines() throws {
        let lines = "{\"id\": 1, \"body\": \"a\"}\n{\"id\": 2, \"parent_id\": 1, \"body\": \"b\"}\n"
        let result = try Importer.read(bytes: Array(lines.utf8), file: "x.jsonl")
        #expect(result.format == .threadfold && result.threads[0].comments.count == 2)
        let bad = "{\"id\": 1}\n{\"id\": 2,}\n"
        let errors = try #require(throws: ThreadfoldError.self) { try Importer.read(bytes: Array(bad.utf8), file: "x.jsonl") }
        #expect(errors.problems[0].description.hasPrefix("x.jsonl:2:10: error: found '}'"))
    }
}
