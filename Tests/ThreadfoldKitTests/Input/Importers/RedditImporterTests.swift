import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

@Suite("Reddit importer")
struct RedditImporterTests {
    @Test("the real thread: 25 comments, nesting to depth 5, more stubs counted where they stood")
    func realThread() throws {
        let bytes = try TestData.bytes("fixtures/reddit-listing/comments.json")
        let result = try Importer.read(bytes: bytes, file: "comments.json")
        #expect(result.format == .reddit && result.detected)
        let record = try #require(result.threads.first)
        // Bodies are Reddit Markdown unless the options say otherwise.
        #expect(record.info.markdownFlavor == .reddit)
        #expect(record.info.title == "What I Wish I Knew When Starting Out as a Software Developer: Slow the Fuck Down")
        #expect(record.info.url == "https://www.reddit.com/r/programming/comments/2tpycj/what_i_wish_i_knew_when_starting_out_as_a/")
        #expect(record.comments.count == 25)
        #expect(record.info.unarchivedComments == 28)
        #expect(record.comments.map(\.unarchivedReplies).reduce(0, +) == 36)
        #expect(record.comments.first { $0.id.string == "co1byh2" }?.unarchivedReplies == 8)
        let tree = try ThreadBuilder.build(record)
        #expect(tree.totals.comments == 25)
        #expect(tree.totals.levels == 6)  // depths 0…5
        #expect(tree.diagnostics.isEmpty)
        // Entities the API escapes are unescaped, so quotes are quotes.
        let quoting = try #require(record.comments.first { $0.id.string == "co1pim1" })
        #expect(quoting.body.hasPrefix(">  what you can't express"))
        #expect(record.comments.first { $0.id.string == "co1erti" }?.body.contains("(< 3 years atm)") == true)
        let edited = try #require(record.comments.first { $0.id.string == "co1nnit" })
        #expect(edited.edited && edited.editedAt == Timestamp(unix: 1_422_329_750))
        // The page shows the stubs and renders the quote as a blockquote.
        let page = content(of: String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(record).html, as: UTF8.self))
        #expect(page.contains("28 more replies were not archived"))
        #expect(page.contains("<blockquote>\n<p>what you can"))
    }

    @Test("a removed comment whose only replies are more stubs stays as a placeholder carrying their count")
    func removedOverStubs() throws {
        let json = #"""
            [{"kind": "Listing", "data": {"children": [{"kind": "t3", "data": {"name": "t3_p", "title": "P"}}]}},
             {"kind": "Listing", "data": {"children": [
                {"kind": "t1", "data": {"id": "r1", "author": "[deleted]", "body": "[removed]", "replies": {"kind": "Listing", "data": {"children": [
                    {"kind": "more", "data": {"count": 1660, "children": ["x1", "x2"]}}]}}}},
                {"kind": "t1", "data": {"id": "d1", "author": "[deleted]", "body": "[deleted]", "replies": {"kind": "Listing", "data": {"children": [
                    {"kind": "more", "data": {"count": 0, "children": []}}]}}}},
                {"kind": "t1", "data": {"id": "k1", "author": "ann", "body": "kept", "replies": ""}},
                {"kind": "t1", "data": {"id": "g1", "author": "[deleted]", "body": "[deleted]", "replies": ""}}]}}]
            """#
        let record = try #require(try Importer.read(bytes: Array(json.utf8), file: "r.json").threads.first)
        let tree = try ThreadBuilder.build(record)
        // r1 carries 1,660 replies not archived; d1 goes on at the source ("continue this thread"); g1 has nothing.
        #expect(Fixtures.ids(tree, tree.roots) == ["r1", "d1", "k1"])
        #expect(tree.flags[0].contains(.placeholder) && tree.flags[1].contains(.placeholder))
        #expect(tree.diagnostics.map(\.kind) == [.omittedDeleted])
        #expect(try ThreadSummary.unarchived(tree, source: "r.json") == 1660)
        let page = content(of: String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(record).html, as: UTF8.self))
        #expect(page.contains("1,660 more replies were not archived") && page.contains("[removed]"))
    }

    static let own = #"""
        [{"kind": "Listing", "data": {"children": [{"kind": "t3", "data": {
            "name": "t3_abc", "title": "A &amp; B", "author": "op", "created_utc": 1700000000.0,
            "permalink": "/r/x/comments/abc/a_b/", "selftext": "Post &gt; text"}}]}},
         {"kind": "Listing", "data": {"children": [
            {"kind": "t1", "data": {"id": "c1", "author": "[deleted]", "body": "[deleted]", "created_utc": 1700000100,
              "edited": false, "score": 3, "replies": {"kind": "Listing", "data": {"children": [
                {"kind": "t1", "data": {"id": "c2", "author": "mod", "body": "&lt;script&gt;alert(1)&lt;/script&gt; ^super",
                  "distinguished": "moderator", "stickied": true, "author_flair_text": "Helper", "created_utc": 1700000200,
                  "edited": 1700000300.5, "score": 1, "replies": ""}},
                {"kind": "t1", "data": {"id": "c3", "author": "x", "body": "[removed]", "created_utc": 1700000250, "replies": ""}},
                {"kind": "more", "data": {"count": 0, "children": []}}]}}}},
            {"kind": "more", "data": {"count": 5, "children": ["a", "b"]}}]}}]
        """#

    @Test("own fixture: deleted and removed, flair, edits, entities, stubs")
    func ownFixture() throws {
        let record = try #require(try Importer.read(bytes: Array(Self.own.utf8), file: "r.json").threads.first)
        // The API escapes &, < and > in titles as in bodies (a real r/nfl thread's "per me, @TomPelissero
        // &amp; @MikeGarafolo"), as dumps do: unescaped here, and escaped again by the page.
        #expect(record.info.title == "A & B")
        #expect(record.info.body == "Post > text")
        #expect(record.info.id == CommentID("abc"), "t3_ dropped, as a dump's records name the thread")
        let c = record.comments
        #expect(c.map(\.id.string) == ["c1", "c2", "c3"])
        // The count-0 stub under c1 is Reddit's "continue this thread", not a reply missing.
        #expect(c[0].deleted && c[0].author == nil && c[0].body.isEmpty && c[0].unarchivedReplies == 0)
        #expect(c[0].continuation == "https://www.reddit.com/r/x/comments/abc/a_b/c1/")
        #expect(c[1].parentID == CommentID("c1") && c[1].body == "<script>alert(1)</script> ^super")
        #expect(c[1].authorFlair == "Helper · moderator · stickied" && c[1].edited)
        #expect(c[2].removed && c[2].body.isEmpty)
        #expect(record.info.unarchivedComments == 5)
        let page = content(of: String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(record).html, as: UTF8.self))
        #expect(!page.contains("<script>alert"))
        #expect(page.contains("[deleted]") && !page.contains("1 more reply was not archived"))
        #expect(page.contains(#"<p class="tf-note"><a href="https://www.reddit.com/r/x/comments/abc/a_b/c1/" rel="nofollow ugc noopener">Continue this thread on Reddit →</a></p>"#))
    }

    @Test("a thread's post reads as a dump's submission does: a link post's URL, its score and flags")
    func postAsSubmission() throws {
        let json = Self.own.replacingOccurrences(
            of: #""selftext": "Post &gt; text""#,
            with: #""selftext": "", "is_self": false, "url": "https://example.org/a?b=1&amp;c=2", "score": 41, "stickied": true, "over_18": true"#)
        let record = try #require(try Importer.read(bytes: Array(json.utf8), file: "r.json").threads.first)
        #expect(record.info.score == 41 && record.info.tags == ["stickied", "NSFW"])
        #expect(record.info.bodyFormat == .html && record.info.link == "https://example.org/a?b=1&c=2")
        #expect(PostMarkup.openingPost(record.info) == #"<p><a href="https://example.org/a?b=1&amp;c=2">https://example.org/a?b=1&amp;c=2</a></p>"#)
    }

    /// A poll post's `poll_data` as Reddit's API writes it (option ids, prediction fields).
    static let pollData =
        #""poll_data": {"prediction_status": null, "total_stake_amount": null, "voting_end_timestamp": 1709460000000, "options": [{"text": "Tabs", "id": "1", "vote_count": 6200}, {"text": "Spaces &amp; <script>alert(1)</script>", "id": "2", "vote_count": 5049}], "vote_updates_remained": null, "is_prediction": false, "resolved_option_id": null, "user_won_amount": null, "user_selection": null, "total_vote_count": 11249, "tournament_id": null}"#

    @Test("a poll post's options, votes, total and end time reach the page as a static list, escaped, in both locales")
    func poll() throws {
        let json = Self.own.replacingOccurrences(of: #""selftext": "Post &gt; text""#, with: #""selftext": "Which?", "# + Self.pollData)
        let record = try #require(try Importer.read(bytes: Array(json.utf8), file: "r.json").threads.first)
        #expect(
            record.info.poll
                == Poll(
                    options: [Poll.Option("Tabs", votes: 6200), Poll.Option("Spaces & <script>alert(1)</script>", votes: 5049)],
                    total: 11249, endsAt: Timestamp(milliseconds: 1709460000000)))
        let page = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(record).html, as: UTF8.self)
        #expect(
            page.contains(
                """
                <figure class="tf-poll">
                <figcaption>Poll · 11,249 votes · voting until <time datetime="2024-03-03T10:00:00Z">3 Mar 2024</time></figcaption>
                <ul class="tf-poll-options">
                <li><bdi>Tabs</bdi> <span class="tf-votes">6,200 votes</span></li>
                <li><bdi>Spaces &amp; &lt;script&gt;alert(1)&lt;/script&gt;</bdi> <span class="tf-votes">5,049 votes</span></li>
                </ul>
                </figure>
                """))
        var options = RenderOptions()
        options.locale = "zh-Hans"
        let zh = String(decoding: try ThreadPipeline(options: ArchiveOptions(render: options)).page(record).html, as: UTF8.self)
        #expect(zh.contains("<figcaption>投票 · 11,249 票 · 投票截止于 <time") && zh.contains("6,200 票"))
        // While a poll is open Reddit leaves out the counts: the options are listed without them.
        let open = json.replacingOccurrences(of: #", "vote_count": 6200"#, with: "").replacingOccurrences(of: #", "vote_count": 5049"#, with: "")
            .replacingOccurrences(of: #""total_vote_count": 11249"#, with: #""total_vote_count": null"#)
        let openPage = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(bytes: Array(open.utf8), file: "r.json").html, as: UTF8.self)
        #expect(openPage.contains("<figcaption>Poll · voting until") && openPage.contains("<li><bdi>Tabs</bdi></li>"))
    }

    @Test("a count-0 stub without a known permalink says so without a link, in the page's language")
    func continueWithoutLink() throws {
        let json = Self.own.replacingOccurrences(of: #""permalink": "/r/x/comments/abc/a_b/", "#, with: "")
        let record = try #require(try Importer.read(bytes: Array(json.utf8), file: "r.json").threads.first)
        #expect(record.comments[0].continuation == "")
        var options = RenderOptions()
        options.locale = "zh-Hans"
        let page = content(of: String(decoding: try ThreadPipeline(options: ArchiveOptions(render: options)).page(record).html, as: UTF8.self))
        #expect(page.contains(#"<p class="tf-note">在 Reddit 上继续阅读此楼 →</p>"#))
    }

    @Test("counts of replies not archived are bounded and added with overflow checked")
    func unarchivedCounts() throws {
        func thread(_ counts: [String]) -> String {
            let more = counts.map { #"{"kind": "more", "data": {"count": \#($0), "children": []}}"# }.joined(separator: ", ")
            return #"[{"kind": "Listing", "data": {"children": [{"kind": "t3", "data": {"name": "t3_x", "title": "T"}}]}}, {"kind": "Listing", "data": {"children": [\#(more)]}}]"#
        }
        // Two counts of Int64.max used to trap adding up.
        let huge = try #require(throws: ThreadfoldError.self) { try Importer.read(bytes: Array(thread(["9223372036854775807", "9223372036854775807"]).utf8), file: "r.json") }
        #expect(huge.problems.first?.path == "$[1].data.children[0].data.count")
        #expect(huge.problems.first?.message.hasPrefix("found 9223372036854775807; expected a count of at most 1099511627776") == true)
        let sum = try #require(throws: ThreadfoldError.self) { try Importer.read(bytes: Array(thread(["1099511627776", "1"]).utf8), file: "r.json") }
        #expect(sum.problems.first?.path == "$[1].data.children[1].data.count")
        let fine = try Importer.read(bytes: Array(thread(["1099511627775", "1"]).utf8), file: "r.json")
        #expect(fine.threads.first?.info.unarchivedComments == 1 << 40)
    }

    @Test("broken structure is reported with the JSON path and a hint")
    func broken() throws {
        let json = #"[{"kind": "Listing", "data": {"children": []}}, {"kind": "Listing", "data": {"children": [{"kind": "t1", "data": {"id": 5.5}}]}}]"#
        let errors = try #require(throws: ThreadfoldError.self) { try Importer.read(bytes: Array(json.utf8), file: "r.json") }
        #expect(errors.problems.count == 1)
        #expect(errors.problems[0].description.hasPrefix("r.json:1:121: error: $[1].data.children[0].data.id: expected a string or an integer id, found the number 5.5"))
        #expect(errors.problems[0].description.hasSuffix("(read as Reddit (a /comments/<id>.json thread, or dump comments and submissions))"))
        #expect(errors.problems[0].hint == .otherForm)
    }
}

@Suite("Reddit names and entities")
struct RedditTextTests {
    @Test(
        "kind prefixes come off full names, and nothing else does",
        arguments: [
            ("t1_abc", "abc"), ("t3_x", "x"), ("t1__x", "_x"), ("abc", "abc"), ("t1_", "t1_"), ("t12_x", "t12_x"),
            ("x1_abc", "x1_abc"), ("t__x", "t__x"), ("", ""), ("t1_é", "é"),
        ])
    func strip(_ name: String, _ expected: String) {
        #expect(RedditImporter.strip(name) == expected)
    }

    @Test(
        "the API's three entities are unescaped once, and only they",
        arguments: [
            ("a &amp;lt; b", "a &lt; b"), ("&gt;&lt;&amp;", "><&"), ("&nbsp; &quot;", "&nbsp; &quot;"), ("& x &", "& x &"),
            ("é&amp;ü", "é&ü"), ("&am", "&am"), ("&gt", "&gt"), ("no entities", "no entities"),
            ("&&amp;", "&&"), ("&amp;&amp;&", "&&&"), ("x &amp", "x &amp"), ("&lt;p&gt;&lt;/p&gt;", "<p></p>"),
        ])
    func entities(_ text: String, _ expected: String) {
        #expect(RedditImporter.unescapeEntities(text) == expected)
    }
}

@Suite("Reddit dump importer")
struct RedditDumpTests {
    static let dump = """
        {"id": "c1", "link_id": "t3_aa", "parent_id": "t3_aa", "author": "ann", "body": "&gt; quoted", "created_utc": "1422293457", "score": 5, "link_title": "First &amp; best"}
        {"id": "c2", "link_id": "t3_aa", "parent_id": "t1_c1", "author": "bob", "body": "reply", "created_utc": 1422293500, "edited": 1422293600}
        {"id": "d1", "link_id": "t3_bb", "parent_id": "t3_bb", "author": "[deleted]", "body": "[deleted]", "created_utc": 1422293700}
        {"id": "d2", "link_id": "t3_bb", "parent_id": "t1_d1", "author": "cy", "body": "[removed]", "created_utc": 1422293800}
        {"id": "d3", "link_id": "t3_bb", "parent_id": "t1_d2", "author": "dee", "body": "still here", "created_utc": 1422293900}
        """

    @Test("records of threads that alternate go to their own threads; a repeated member's last value counts, an escaped name is read, and null reads as absent")
    func alternating() throws {
        let dump = #"""
            {"id": "a1", "link_id": "t3_aa", "parent_id": "t3_aa", "author": "ann", "body": "first", "body": "second", "created_utc": 1422293457, "sc\u006fre": 7}
            {"id": "b1", "link_id": "t3_bb", "parent_id": "t3_bb", "author": null, "body": "x", "created_utc": 1422293458}
            {"id": "a2", "link_id": "t3_aa", "parent_id": "t1_a1", "author": "bob", "body": "y", "created_utc": 1422293459, "score": null}
            """#
        let result = try Importer.read(bytes: Array(dump.utf8), file: "RC.jsonl")
        #expect(result.format == .reddit)
        #expect(result.threads.map(\.info.id) == [CommentID("aa"), CommentID("bb")])
        #expect(result.threads[0].comments.map(\.id.string) == ["a1", "a2"])
        #expect(result.threads[0].comments[0].body == "second" && result.threads[0].comments[0].score == 7)
        #expect(result.threads[1].comments[0].author == nil && result.threads[1].comments[0].body == "x")
        #expect(result.threads[0].comments[1].score == nil && result.threads[0].comments[1].parentID == CommentID("a1"))
    }

    @Test("one comment per line, grouped into threads by link_id, parents from t1_ ids")
    func dump() throws {
        let result = try Importer.read(bytes: Array(Self.dump.utf8), file: "RC_2015-01.jsonl")
        #expect(result.format == .reddit && result.threads.count == 2)
        let first = result.threads[0]
        #expect(first.info.title == "First & best" && first.info.id == CommentID("aa"))
        #expect(first.comments[0].body == "> quoted" && first.comments[0].createdAt == Timestamp(unix: 1_422_293_457))
        #expect(first.comments[1].parentID == CommentID("c1") && first.comments[1].edited)
        let second = try ThreadBuilder.build(result.threads[1])
        #expect(result.threads[1].info.title == "Reddit thread bb")
        #expect(second.totals.comments == 3)  // deleted and removed stay as placeholders for the reply below them
        #expect(second.flags[0].contains(.placeholder) && second.flags[1].contains(.placeholder))
    }

    @Test("Reddit bodies render as Reddit Markdown by default; --markdown overrides")
    func flavour() throws {
        let json =
            #"[{"kind": "Listing", "data": {"children": [{"kind": "t3", "data": {"id": "p", "title": "T", "author": "op"}}]}}, {"kind": "Listing", "data": {"children": [{"kind": "t1", "data": {"id": "c", "author": "a", "body": "2^10 &gt;!secret!&lt; r/books", "created_utc": 1}}]}}]"#
        let page = { (options: RenderOptions) in
            String(decoding: try ThreadPipeline(options: ArchiveOptions(render: options)).page(bytes: Array(json.utf8), file: "r.json").html, as: UTF8.self)
        }
        let reddit = try page(RenderOptions())
        #expect(reddit.contains("2<sup>10</sup>") && reddit.contains("tf-spoiler") && reddit.contains("href=\"https://www.reddit.com/r/books\""))
        var options = RenderOptions()
        options.markdown.flavor = .gfm
        let gfm = try page(options)
        #expect(gfm.contains("2^10 &gt;!secret!&lt; r/books"))
    }

    @Test("a [deleted] author over a surviving body shows as [deleted], not as an unknown author")
    func deletedAuthor() throws {
        let json =
            #"[{"kind": "Listing", "data": {"children": [{"kind": "t3", "data": {"id": "p", "title": "T", "author": "op"}}]}}, {"kind": "Listing", "data": {"children": [{"kind": "t1", "data": {"id": "c", "author": "[deleted]", "body": "still here", "created_utc": 1}}, {"kind": "t1", "data": {"id": "d", "author": "[deleted]", "body": "[deleted]", "created_utc": 2}}]}}]"#
        let record = try #require(try Importer.read(bytes: Array(json.utf8), file: "r.json").threads.first)
        #expect(record.comments[0].authorDeleted && !record.comments[0].deleted && record.comments[0].author == nil)
        #expect(record.comments[1].deleted && !record.comments[1].authorDeleted)
        let page = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(record).html, as: UTF8.self)
        #expect(page.contains("still here") && !page.contains("[unknown]"))
    }
}
