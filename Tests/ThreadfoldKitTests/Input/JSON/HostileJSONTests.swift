import Foundation
import Testing

@testable import ThreadfoldKit

/// Hostile JSON, each case with its safe outcome: a clear located error, or a correct page.
@Suite("Hostile JSON")
struct HostileJSONTests {
    enum Outcome: Sendable { case error(String), page(String) }

    static let cases: [(String, [UInt8], Outcome)] = [
        ("invalid UTF-8 in a string", Array(#"[{"id": 1, "body": ""#.utf8) + [0xFF, 0xFE] + Array(#""}]"#.utf8), .error("1:21: error: found invalid UTF-8 (byte 0xFF)")),
        ("invalid UTF-8 outside strings", [0x5B, 0xC3, 0x5D], .error("1:2: error: found byte 0xC3; expected a JSON value")),
        ("lone high surrogate", Array(#"[{"id": 1, "body": "a\ud800b"}]"#.utf8), .page("a\u{FFFD}b")),
        ("lone low surrogate", Array(#"[{"id": 1, "body": "\udc00"}]"#.utf8), .page("\u{FFFD}")),
        ("escaped NUL in a body", Array(#"[{"id": 1, "body": "x\u0000y"}]"#.utf8), .page("x\u{FFFD}y")),
        ("raw NUL in a string", Array(#"[{"id": 1, "body": "x"#.utf8) + [0] + Array(#"y"}]"#.utf8), .error("found control character U+00 inside a string")),
        ("escaped NUL in an author", Array(#"[{"id": 1, "author": "a\u0000b", "body": "x"}]"#.utf8), .page("a\u{FFFD}b")),
        ("nesting past the parser's limit", Array(String(repeating: "[", count: 1_000_001).utf8), .error("nesting deeper than 1000000 levels")),
        ("duplicate keys: the last wins", Array(#"[{"id": 1, "body": "first", "body": "second"}]"#.utf8), .page("second")),
        ("a score out of range", Array(#"[{"id": 1, "score": 1e400}]"#.utf8), .error("$[0].score: expected an integer, found the number 1e400")),
        ("an id out of any integer range is kept exactly", Array(#"[{"id": 123456789012345678901234567890123456789, "body": "big"}]"#.utf8), .page("big")),
        ("a fractional id", Array(#"[{"id": 1.5e3}]"#.utf8), .error("$[0].id: expected a string or an integer, found the number 1.5e3")),
        ("a time out of range", Array(#"[{"id": 1, "created_at": 1e300}]"#.utf8), .error("$[0].created_at: expected an ISO 8601 date or Unix seconds or milliseconds")),
        ("an empty file", [], .error("the file is empty")),
        ("only whitespace", Array(" \n\t ".utf8), .error("the file is empty")),
        ("a truncated file", Array(#"{"comments": [{"id": 1, "bo"#.utf8), .error("the file is cut short (truncated) inside the string")),
        ("a truncated array", Array(#"[{"id": 1}"#.utf8), .error("the file ends inside an array")),
        ("a byte order mark alone", [0xEF, 0xBB, 0xBF], .error("the file is empty")),
        ("the smallest 64-bit time", Array(#"[{"id": 1, "created_at": -9223372036854775808, "body": "min"}]"#.utf8), .page("min")),
        ("the largest 64-bit time", Array(#"[{"id": 1, "created_at": 9223372036854775807, "edited_at": -9223372036854775807, "body": "max"}]"#.utf8), .page("max")),
        ("a time past 64 bits", Array(#"[{"id": 1, "created_at": 99999999999999999999999}]"#.utf8), .error("$[0].created_at: expected an ISO 8601 date")),
    ]

    @Test("each hostile JSON case gives a clear error or a correct page", arguments: cases.indices)
    func hostile(_ index: Int) throws {
        let (name, bytes, outcome) = Self.cases[index]
        switch outcome {
        case .error(let message):
            let errors = try #require(throws: ThreadfoldError.self, "\(name)") { try Importer.read(bytes: bytes, file: "h.json") }
            #expect(errors.description.contains(message), "\(name): \(errors.description)")
            #expect(errors.description.hasPrefix("h.json:"), "\(name)")
        case .page(let text):
            let result = try Importer.read(bytes: bytes, file: "h.json")
            let page = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(result.threads[0]).html, as: UTF8.self)
            #expect(page.contains(text), "\(name)")
            #expect(!page.contains("\u{0}"), "\(name)")
        }
    }
}

/// Hostile ids and titles: nothing escapes as a path or an anchor, nothing collides, and user text
/// is isolated for display.
@Suite("Hostile ids and titles")
struct HostileIDTests {
    static let ids = [
        "../", "../../etc/passwd", "/etc/passwd", "C:\\Windows\\system32", "CON", "NUL", "aux.txt", "com1",
        String(repeating: "é", count: 150), "Abc", "abc", "caf\u{e9}", "cafe\u{301}", "\u{212A}", "K",
        "evil\u{202E}txt.exe", "zero\u{200B}width", "a b", "a\tb", "<id>", "\"quoted\"", "#fragment", "?query", "%2e%2e%2f",
    ]

    @Test("every hostile id gets a safe, distinct anchor, and no comment is merged with another")
    func anchors() throws {
        let comments = Self.ids.enumerated().map { n, id in
            CommentRecord(id: CommentID(id), author: "u\(n)", body: "comment \(n)")
        }
        let record = ThreadRecord(title: "\u{202E}redro thgir ot tfel", comments: comments, file: "ids.json")
        let result = try ThreadPipeline(options: ArchiveOptions()).page(record)
        #expect(result.thread.totals.comments == Self.ids.count)
        #expect(result.thread.diagnostics.isEmpty)
        let anchors = Anchors.make(for: comments)
        #expect(Set(anchors).count == anchors.count)
        for anchor in anchors {
            #expect(anchor.count <= 66 && anchor.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }, "\(anchor)")
        }
        let page = String(decoding: result.html, as: UTF8.self)
        // The title's bidi override is isolated where it is shown in the page body.
        #expect(page.contains("<h1 itemprop=\"headline\"><bdi>\u{202E}redro thgir ot tfel</bdi></h1>"))
        #expect(HostileInputTests.problems(content(of: page)).isEmpty)
    }

    @Test("author names are isolated with <bdi> wherever they are shown")
    func names() throws {
        var options = RenderOptions()
        options.layout = LayoutOptions(preview: 5, openDepth: 5, maxDepth: 1)
        let json = #"[{"id": 1, "author": "\u202Eevil"}, {"id": 2, "parent_id": 1, "author": "b"}, {"id": 3, "parent_id": 2, "author": "c"}]"#
        let page = String(decoding: try ThreadPipeline(options: ArchiveOptions(render: options)).page(bytes: Array(json.utf8), file: "n.json").html, as: UTF8.self)
        #expect(page.contains("<bdi class=\"tf-author\" itemprop=\"name\">\u{202E}evil</bdi>"))
        #expect(page.contains("@<bdi>b</bdi>"))
    }
}
