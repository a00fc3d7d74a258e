import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

@Suite("Mastodon importer")
struct MastodonImporterTests {
    @Test("the fixture: the root is the opening post, replies threaded by in_reply_to_id, private and direct statuses left out with a warning")
    func fixture() throws {
        let result = try Importer.read(bytes: try TestData.bytes("fixtures/mastodon-context/context.json"), file: "context.json")
        #expect(result.format == .mastodon && result.detected)
        let record = try #require(result.threads.first)
        #expect(record.info.id == CommentID("112030000000000001") && record.info.author == "ann@mastodon.social")
        #expect(record.info.url == "https://mastodon.social/@ann/112030000000000001" && record.info.tags == ["indieweb"])
        #expect(record.info.title == "Finally moved our old forum to static pages. Every thread is one HTML file now,…")
        #expect(record.info.bodyFormat == .html && PostMarkup.openingPost(record.info)?.contains("<img src=\"https://files.mastodon.social/") == true)
        let c = record.comments
        #expect(c.map(\.id.string) == ["112030000000000002", "112030000000000003", "112030000000000004", "112030000000000006"])
        #expect(c.map { $0.parentID?.string ?? "-" } == ["-", "112030000000000002", "112030000000000003", "-"])
        #expect(c.map { $0.author ?? "-" } == ["ben@fosstodon.org", "ann@mastodon.social", "cho@hachyderm.io", "threadbot@botsin.space"])
        #expect(c[1].edited && !c[0].edited && c[0].score == nil && c[0].reactions == [Reaction("⭐", 5)] && c[3].authorFlair == "Thread Bot · bot")
        #expect(record.info.reactions == [Reaction("⭐", 48), Reaction("🔁", 12)])
        #expect(record.info.poll == nil && c.allSatisfy { $0.poll == nil })
        #expect(c[2].parts.first == .warning("migration numbers") && !c[2].body.contains("CW"))
        #expect(PostMarkup.body(of: c[2]).hasPrefix("<p><strong>CW: migration numbers</strong></p>"))
        // 3 replies to the root, 2 in the file; 2 to ben's, 1 in the file (the others were not public).
        #expect(record.info.unarchivedComments == 1 && c[0].unarchivedReplies == 1)
        #expect(result.skipped.map(\.path) == ["$.context.descendants[1].visibility", "$.context.descendants[3].visibility"])
        #expect(result.skipped.allSatisfy { $0.kind == "notPublic" && $0.severity == .warning })
        let page = content(of: String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(record).html, as: UTF8.self))
        #expect(!page.contains("Just between us") && !page.contains("Followers only"))
        #expect(page.contains("<p><strong>CW: migration numbers</strong></p>"))
    }

    @Test("the context alone and a plain array of statuses; a status without an id is an error at its place")
    func shapes() throws {
        func status(_ id: String, _ parent: String?, _ text: String) -> String {
            #"{"id": "\#(id)", "in_reply_to_id": \#(parent.map { "\"\($0)\"" } ?? "null"), "content": "<p>\#(text)</p>", "created_at": "2024-01-01T00:00:0\#(id.count)Z", "visibility": "public", "favourites_count": 1, "account": {"acct": "a\#(id)@x.example", "display_name": ""}}"#
        }
        let context = #"{"ancestors": [\#(status("1", nil, "root &amp; more"))], "descendants": [\#(status("2", "1", "b")), \#(status("3", "2", "c"))]}"#
        let one = try #require(try Importer.read(bytes: Array(context.utf8), file: "c.json").threads.first)
        #expect(one.info.title == "root & more" && one.comments.map { $0.parentID?.string ?? "-" } == ["-", "2"])
        let array = "[\(status("2", "1", "b")), \(status("1", nil, "root")), \(status("3", "2", "c"))]"
        let result = try Importer.read(bytes: Array(array.utf8), file: "a.json")
        #expect(result.format == .mastodon && result.threads[0].info.id == CommentID("1") && result.threads[0].comments.count == 2)
        let broken = context.replacingOccurrences(of: #""id": "3", "#, with: "")
        let errors = try #require(throws: ThreadfoldError.self) { try Importer.read(bytes: Array(broken.utf8), file: "c.json") }
        #expect(errors.problems[0].description.contains("$.descendants[1].id: expected a status id, found none (read as a Mastodon status"))
    }

    @Test("a status's poll: options with their votes, the total and when it expires, on the root and on a reply")
    func poll() throws {
        let poll =
            #""poll": {"id": "34830", "expires_at": "2024-03-03T10:00:00.000Z", "expired": true, "multiple": false, "votes_count": 10, "voters_count": 10, "options": [{"title": "static <b>HTML</b>", "votes_count": 7}, {"title": "a database", "votes_count": 3}], "emojis": [], "voted": false, "own_votes": []}"#
        let context =
            #"{"ancestors": [{"id": "1", "in_reply_to_id": null, "content": "<p>Which?</p>", "created_at": "2024-03-01T00:00:00Z", "visibility": "public", "account": {"acct": "ann"}, "#
            + poll + #"}], "descendants": [{"id": "2", "in_reply_to_id": "1", "content": "<p>And you?</p>", "created_at": "2024-03-01T01:00:00Z", "visibility": "public", "account": {"acct": "bob"}, "#
            + poll.replacingOccurrences(of: "\"votes_count\": 10", with: "\"votes_count\": null") + "}]}"
        let record = try #require(try Importer.read(bytes: Array(context.utf8), file: "c.json").threads.first)
        let expected = Poll(
            options: [Poll.Option("static <b>HTML</b>", votes: 7), Poll.Option("a database", votes: 3)], total: 10,
            endsAt: Timestamp(iso: "2024-03-03T10:00:00Z"))
        #expect(record.info.poll == expected)
        var reply = expected
        reply.total = nil
        #expect(record.comments.map(\.poll) == [reply])
        let page = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(record).html, as: UTF8.self)
        #expect(page.contains("<figcaption>Poll · 10 votes · voting until <time datetime=\"2024-03-03T10:00:00Z\">3 Mar 2024</time></figcaption>"))
        #expect(page.contains("<figcaption>Poll · voting until") && page.contains("<li><bdi>static &lt;b&gt;HTML&lt;/b&gt;</bdi> <span class=\"tf-votes\">7 votes</span></li>"))
    }

    @Test("a title is the start of the text, cut at a word, tags and entities read as text")
    func excerpt() {
        #expect(MastodonImporter.excerpt("<p>a &lt;b&gt;<br>c</p><p>d</p>") == "a <b> c d")
        #expect(MastodonImporter.excerpt("<p></p>") == nil)
        let long = MastodonImporter.excerpt(String(repeating: "word ", count: 40))
        #expect(long?.hasSuffix("word…") == true && (long?.count ?? 0) <= 81)
    }
}
