import Foundation
import TestSupport
import Testing
import ThreadfoldKit

/// Pages in a real browser: headless Chromium driven by Tests/Browser/browser_tests.py through
/// chromedriver and Selenium, with JavaScript on and off. In CI a missing browser is a
/// failure, not a skip; `make test` installs it.
@Suite("Browser (headless Chromium)")
struct BrowserTests {
    @Test(
        "folding, anchors, counts, keyboard, hostile pages, and axe-core on every fixture's page in Chromium",
        .enabled(if: ExternalTools.runs(when: ExternalTools.hasBrowser && Pagefind.command() != nil)))
    func browser() throws {
        try #require(ExternalTools.hasBrowser, "the browser is missing: apt-get install chromium chromium-driver; python3 -m pip install selenium selenium-axe-python (make test does both)")
        try #require(Pagefind.command() != nil, "Pagefind is missing: \(Pagefind.install) (make test-deps does it)")
        let cli = CLITests()
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let example = repository.appendingPathComponent("docs/examples/thread.json").path
        let hostile = try cli.write(HostilePages.metadata, "hostile.json", in: folder)
        let discourse = try cli.write(HostilePages.discourse, "discourse-hostile.json", in: folder)
        let hn = try cli.write(HackerNewsImporterTests_algolia, "hn.json", in: folder)
        let site = folder.appendingPathComponent("site").path
        let rendered = try cli.run(["render", "-q", "-o", site, example, hostile, discourse, hn], in: folder)
        #expect(rendered.status == 0, "\(rendered.err)")

        // An archive: sections, a paginated index, two orders, and a deep chain with branch pages.
        var chain = [#"{"id": "c0", "author": "ann", "body": "top"}"#]
        for d in 1..<14 { chain.append(#"{"id": "c\#(d)", "parent_id": "c\#(d - 1)", "author": "u\#(d % 3)", "body": "reply \#(d)", "created_at": \#(1_700_000_000 + d)}"#) }
        let deep = try cli.write(#"{"id": "deep", "title": "A deep chain", "category": "Long", "comments": [\#(chain.joined(separator: ","))]}"#, "deep.json", in: folder)
        let archive = folder.appendingPathComponent("archive").path
        let built = try cli.run(
            [
                "build", "-q", "-o", archive, example, deep, hostile, repository.appendingPathComponent("docs/examples/nested.json").path,
                "--sections", "category", "--per-page", "1", "--orders", "oldest,newest", "--page-depth", "4",
                "--search", "--authors",
            ], in: folder)
        #expect(built.status == 0, "\(built.err)")
        let hostileThread = try FileManager.default.contentsOfDirectory(atPath: archive + "/t").first { $0.hasPrefix("script-alert") } ?? "missing"
        // A real Reddit thread and the 13-level chain, nested up to 16 deep, for the layout checks.
        let reddit = TestData.url("fixtures/reddit-listing/comments.json").path
        let deepSite = folder.appendingPathComponent("deep").path
        let deepRendered = try cli.run(["render", "-q", "-o", deepSite, reddit, deep, "--max-depth", "16", "--open-depth", "16"], in: folder)
        #expect(deepRendered.status == 0, "\(deepRendered.err)")

        // Reddit Markdown: a spoiler around other markup, and a table too wide for a phone.
        let columns = (0..<20).map { "column\($0)" }.joined(separator: " | ")
        let dashes = Array(repeating: "---", count: 20).joined(separator: " | ")
        let cells = (0..<20).map { "value-\($0)-long" }.joined(separator: " | ")
        let flavours = try cli.write(
            #"{"title": "Flavours", "comments": [{"id": "1", "author": "ann", "body": "Who dies? >!Everyone, in **the** end!< See r/books and 2^10."}, {"id": "2", "parent_id": "1", "author": "bob", "body": "| \#(columns) |\n| \#(dashes) |\n| \#(cells) |"}]}"#,
            "flavours.json", in: folder)
        let flavoured = try cli.run(["render", "-q", "-o", folder.appendingPathComponent("flavours").path, flavours, "--markdown", "reddit"], in: folder)
        #expect(flavoured.status == 0, "\(flavoured.err)")

        // Full text with Pagefind: one comment, deep in a fold, says a phrase no other does.
        let findme = try cli.write(SearchPages.findme, "findme.json", in: folder)
        let pagefindSite = folder.appendingPathComponent("pagefind").path
        let indexed = try cli.run(["build", "-q", "-o", pagefindSite, example, findme, "--search", "pagefind", "--authors"], in: folder)
        #expect(indexed.status == 0, "\(indexed.err)")
        let pagefindArguments = ["--pagefind", pagefindSite, SearchPages.phrase, SearchPages.title]

        // axe-core on a page of every vendored fixture and of the bundled example, and on the
        // archive's listings, author and search pages.
        let fixtures = folder.appendingPathComponent("fixtures").path
        let fixtureFiles = try FileManager.default.contentsOfDirectory(atPath: TestData.url("fixtures").path).sorted().flatMap { name in
            try FileManager.default.contentsOfDirectory(atPath: TestData.url("fixtures/\(name)").path).sorted()
                .filter { $0.hasSuffix(".json") || $0.hasSuffix(".xml") }.map { TestData.url("fixtures/\(name)/\($0)").path }
        }
        #expect(fixtureFiles.count >= 8, "\(fixtureFiles)")
        let fixturesRendered = try cli.run(["render", "-q", "-o", fixtures] + fixtureFiles + [example], in: folder)
        #expect(fixturesRendered.status == 0, "\(fixturesRendered.err)")
        var axePages = try FileManager.default.contentsOfDirectory(atPath: fixtures).sorted().filter { $0.hasSuffix(".html") }.map { "../fixtures/" + $0 }
        #expect(axePages.count >= fixtureFiles.count, "\(axePages)")
        let authorPage = try FileManager.default.contentsOfDirectory(atPath: archive + "/u").sorted().first ?? "missing"
        axePages += [
            "../archive/index.html", "../archive/search/index.html", "../archive/u/\(authorPage)/index.html",
            "../archive/t/\(hostileThread)/index.html",
        ]

        let (status, report) = try ExternalTools.run(
            "/usr/bin/env",
            [
                "python3", repository.appendingPathComponent("Tests/Browser/browser_tests.py").path,
                "--site", site, "--page", "thread.html", "--input", example,
                "--hostile", "hostile.html", "--hostile", "discourse-hostile.html", "--hostile", "hn.html",
                "--hostile", "../archive/index.html", "--hostile", "../archive/t/\(hostileThread)/index.html", "--archive", archive,
                "--layout", "thread.html", "--layout", "../deep/comments.html", "--layout", "../deep/deep.html",
                "--markdown", "../flavours/flavours.html", "--authors", "--search", "chain", "A deep chain",
            ]
                + axePages.flatMap { ["--axe", $0] } + pagefindArguments)
        #expect(status == 0, "\(report)")
        #expect(report.contains(" passed, 0 failed"), "\(report)")
    }
}

/// A thread for full-text search: one reply, three levels down and folded, says `phrase`.
enum SearchPages {
    static let title = "Zebra crossings near the harbour"
    static let phrase = "marmalade sandwich protocol"
    static let findme = #"""
        {"id": "findme", "title": "Zebra crossings near the harbour", "author": "quinn", "category": "Town", "created_at": "2023-05-01T10:00:00Z",
         "comments": [
          {"id": "f1", "author": "rosa", "body": "The lights changed last week.", "created_at": "2023-05-01T11:00:00Z"},
          {"id": "f2", "parent_id": "f1", "author": "quinn", "body": "They did, and the buttons too.", "created_at": "2023-05-01T12:00:00Z"},
          {"id": "f3", "parent_id": "f2", "author": "sol", "body": "Nobody reads the signs anyway.", "created_at": "2023-05-01T13:00:00Z"},
          {"id": "f4", "parent_id": "f3", "author": "rosa", "body": "My aunt calls it the marmalade sandwich protocol: look left, look right, then eat.", "created_at": "2023-05-01T14:00:00Z"},
          {"id": "f5", "author": "tova", "body": "Unrelated, but the ferry is late again.", "created_at": "2023-05-01T15:00:00Z"}]}
        """#
}

/// Hostile inputs shared by the browser and validity tests.
enum HostilePages {
    static let metadata = #"""
        {"title": "<script>alert(1)</script>\"'><svg onload=alert(1)>", "author": "</bdi><img src=x onerror=alert(1)>", "lang": "en",
         "url": "javascript:alert(1)", "comments": [
          {"id": "<id>", "author": "\u202eevil<script>print()</script>", "author_flair": "</summary></details><iframe src=javascript:alert(1)>", "body": "<b onmouseover=alert(1)>raw</b> [x](javascript:alert(1)) [y](JaVaScRiPt:fetch('/')) ![i](data:image/svg+xml,<svg onload=alert(1)>) <script>alert(1)</script>", "score": 1},
          {"id": "r", "parent_id": "<id>", "author": "a&b", "body": "> quote\n\n```\n</code></pre><script>alert(1)</script>\n```\n\n<details open ontoggle=alert(1)>", "edited": true},
          {"id": "o", "parent_id": "missing", "deleted": true, "author": "<script>alert(1)</script>", "body": "<script>alert(1)</script>"},
          {"id": "p", "parent_id": "o", "body": "under a deleted one [ok](https://ok.example)"}]}
        """#
    static let discourse =
        #"{"title": "t", "post_stream": {"posts": [{"post_number": 1, "username": "a", "cooked": "<p>x<ul><li>a<p>b</ul><table><tr><td>c</table><a href=\"https://a.example\"><a href=\"https://b.example\">nested</a></a><h1>big</h1><blockquote><p>q</blockquote><pre><code>c</code></pre>"}, {"post_number": 2, "username": "b<script>alert(1)</script>", "cooked": "<div><p>one<div>two</div></p><svg><a href=x>s</a></svg><img src=x onerror=alert(1) alt=\"alt\"><iframe src=\"javascript:alert(1)\"></iframe><object data=x></object><form action=javascript:alert(1)><button formaction=javascript:alert(1)>go</button></form><a href=\" javascript:alert(1)\">click</a><math><mtext><script>alert(1)</script></mtext></math><style>@import 'x'</style>"}, {"post_number": 3, "post_type": 3, "username": "</bdi></p><script>alert(1)</script>", "action_code": "<img src=x onerror=alert(1)>", "action_code_who": "\"><svg onload=alert(1)>", "created_at": "2024-01-01T00:00:00Z", "cooked": "<p onclick=alert(1)>moved <a href=\"javascript:alert(1)\">x</a><script>alert(1)</script><details open ontoggle=alert(1)>"}, {"post_number": 4, "post_type": 3, "username": "m", "action_code": "invited_user", "action_code_who": "</li><iframe src=javascript:alert(1)>"}]}}"#
}
