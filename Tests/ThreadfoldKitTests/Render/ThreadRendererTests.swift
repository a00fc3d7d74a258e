import Foundation
import Testing
@testable import ThreadfoldKit

@Suite("Page renderer")
struct ThreadRendererTests {
    func page(_ json: String, _ options: RenderOptions = RenderOptions()) throws -> String {
        let result = try ThreadRenderer(options: ArchiveOptions(render: options)).page(bytes: Array(json.utf8), file: "t.json")
        return String(decoding: result.html, as: UTF8.self)
    }

    @Test("the bundled example renders to its golden page")
    func examplePage() throws {
        let result = try ThreadRenderer(options: ArchiveOptions()).page(bytes: ResourceStore.exampleThread, file: "example.json")
        try assertSnapshot(String(decoding: result.html, as: UTF8.self), named: "example.html")
    }

    @Test("a small thread at --max-depth 1 renders to its golden page")
    func twoLevelPage() throws {
        var options = RenderOptions()
        options.layout = LayoutOptions(preview: 1, openDepth: 1, maxDepth: 1)
        let json = #"""
            {"title": "Two levels", "author": "ann", "comments": [
             {"id": 1, "author": "ann", "created_at": "2024-03-03T10:00:00Z", "body": "Question?", "score": 1},
             {"id": 2, "parent_id": 1, "author": "bob", "created_at": "2024-03-03T11:00:00Z", "body": "Answer.", "edited": true},
             {"id": 3, "parent_id": 2, "author": "cy", "created_at": "2024-03-03T12:00:00Z", "body": "Follow-up."},
             {"id": 4, "parent_id": 1, "author": "dee", "created_at": "2024-03-04T12:00:00Z", "body": "Also."}]}
            """#
        try assertSnapshot(try page(json, options), named: "two-levels.html")
    }

    @Test("the same input gives byte-identical pages, in any time zone")
    func deterministic() throws {
        let first = try ThreadRenderer(options: ArchiveOptions()).page(bytes: ResourceStore.exampleThread, file: "example.json").html
        setenv("TZ", "Pacific/Kiritimati", 1)
        tzset()
        defer { unsetenv("TZ"); tzset() }
        let second = try ThreadRenderer(options: ArchiveOptions()).page(bytes: ResourceStore.exampleThread, file: "example.json").html
        #expect(first == second)
    }

    /// Hostile strings in every metadata field must come out as text.
    static let payloads = [
        "<script>alert(1)</script>",
        "\"><img src=x onerror=alert(1)>",
        "'><svg onload=alert(1)>",
        "</summary></details><script>alert(1)</script>",
        "</bdi></span><iframe src=javascript:alert(1)>",
        "&lt;script&gt;",
        "{{title}}",
        "\u{202E}evil\u{200B}",
    ]

    @Test("hostile author, title, flair and id text is escaped everywhere", arguments: payloads)
    func hostileMetadata(_ payload: String) throws {
        let quoted = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
        let json = #"""
            {"title": \#(quoted), "author": \#(quoted), "url": \#(quoted), "comments": [
             {"id": \#(quoted), "author": \#(quoted), "author_flair": \#(quoted), "body": "hi"},
             {"id": "r", "parent_id": \#(quoted), "author": \#(quoted), "body": "reply"},
             {"id": "s", "parent_id": "r", "author": "x", "body": "x"}]}
            """#
        var options = RenderOptions()
        options.layout.maxDepth = 1
        let html = try page(json, options)
        #expect(!html.contains(payload) || !payload.contains("<") && !payload.contains("\""))
        #expect(!html.contains("<script>alert"))
        #expect(!html.contains("<img src=x"))
        #expect(!html.contains("<svg"))
        #expect(!html.contains("<iframe"))
        #expect(!html.contains("onerror=alert") || html.contains("onerror=alert(1)&gt;"))
        // Structure survives: as many </details> as <details.
        #expect(html.components(separatedBy: "<details").count == html.components(separatedBy: "</details>").count)
        // The hostile url is not a link (not http or https).
        #expect(!html.contains("href=\"\(payload)") && !html.contains("Original thread</a>"))
    }

    @Test("the page lang comes from the input when it is a language tag, else from the locale")
    func pageLanguage() throws {
        #expect(try page(#"{"lang": "de-CH", "comments": []}"#).contains("<html lang=\"de-CH\" dir=\"ltr\">"))
        #expect(try page(#"{"lang": "x\" onload=\"alert(1)", "comments": []}"#).contains("<html lang=\"en\" dir=\"ltr\">"))
        #expect(try page(#"{"comments": []}"#).contains("<html lang=\"en\""))
    }

    @Test("a thread url is linked only when it is http or https")
    func threadURL() throws {
        #expect(try page(#"{"url": "https://ok.example/t", "comments": []}"#).contains("href=\"https://ok.example/t\""))
        #expect(!(try page(#"{"url": "javascript:alert(1)", "comments": []}"#)).contains("javascript:"))
        #expect(!(try page(#"{"url": "/relative", "comments": []}"#)).contains("href=\"/relative\""))
    }

    @Test("markers: OP badge, edited, score, deleted placeholder, orphan, replying to")
    func markers() throws {
        var options = RenderOptions()
        options.layout = LayoutOptions(preview: 5, openDepth: 5, maxDepth: 1)
        let html = try page(#"""
            {"author": "ann", "comments": [
             {"id": "a", "author": "ann", "body": "x", "score": 1, "edited_at": "2024-03-04T00:00:00Z"},
             {"id": "b", "parent_id": "a", "deleted": true, "author": "zed", "body": "secret"},
             {"id": "c", "parent_id": "b", "author": "bob", "body": "y"},
             {"id": "d", "parent_id": "zzz", "author": "cy", "body": "z"}]}
            """#, options)
        #expect(html.contains("<abbr class=\"tf-badge\" title=\"Original poster\">OP</abbr>"))
        #expect(html.contains("<span class=\"tf-edited\">edited <time datetime=\"2024-03-04T00:00:00Z\">4 Mar 2024</time></span>"))
        #expect(html.contains("<span class=\"tf-score\">1 point</span>"))
        #expect(html.contains("<bdi class=\"tf-author\" itemprop=\"name\">[deleted]</bdi>"))
        #expect(!html.contains("secret") && !html.contains("zed"))
        #expect(html.contains("↳ replying to <a href=\"#c-b\">@<bdi>[deleted]</bdi></a>"))
        #expect(html.contains("Reply to a comment that is not in this archive"))
    }

    @Test("summaries state the precomputed counts, pluralised, and what opening does: \"Hide N replies\" while open")
    func summaries() throws {
        var options = RenderOptions()
        options.layout = LayoutOptions(preview: 1, openDepth: 1, maxDepth: 8)
        let html = try page(Fixtures.flat([("a", nil, "A"), ("b", "a", "B"), ("c", "b", "C"), ("d", "a", "D"), ("e", "a", "D")]), options)
        func summary(_ closed: String, _ open: String) -> String {
            "<summary><span class=\"tf-when-closed\">\(closed)</span><span class=\"tf-when-open\">\(open)</span></summary>"
        }
        #expect(html.contains(summary("3 replies · 4 in thread · 3 people · latest 14 Nov 2023", "Hide 3 replies")))
        #expect(html.contains(summary("1 reply · 1 person · latest 14 Nov 2023", "Hide 1 reply")))
        #expect(html.contains(summary("Show 2 more replies by 1 person", "Hide 2 replies")))
        #expect(html.contains("<details class=\"tf-replies\" open>"))
    }
}

@Suite("Orders offered")
struct OrdersOfferedTests {
    static func files(_ scores: [Int64?]) throws -> ThreadFiles {
        var comments: [CommentRecord] = []
        for (i, score) in scores.enumerated() {
            comments.append(CommentRecord(id: CommentID("c\(i)"), author: "a", body: "b\(i)",
                                          createdAt: Timestamp(unix: 1_700_000_000 + Double(i)), score: score))
        }
        var options = ArchiveOptions()
        options.orders = [.oldest, .top, .newest]
        return try ThreadRenderer(options: options).files(ThreadRecord(id: CommentID("t"), title: "t", comments: comments),
                                                          id: CommentID("t"), folder: "t-t", source: "t.json") { _, _ in }
    }

    @Test("an order whose pages would equal another's is neither written nor offered: top with no scores, newest with one comment")
    func sameOrders() throws {
        let unscored = try Self.files([nil, nil, nil])
        #expect(unscored.summary.orders == ["oldest", "newest"])
        #expect(!unscored.paths.contains { $0.contains("/top/") })
        let scored = try Self.files([1, 7, 3])
        #expect(scored.summary.orders == ["oldest", "top", "newest"] && scored.paths.contains("t/t-t/top/index.html"))
        #expect(try Self.files([4]).summary.orders == ["oldest"])
    }
}
