import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

@Suite("Discourse importer")
struct DiscourseImporterTests {
    @Test("the real topic: threaded by reply_to_post_number, HTML sanitised with links intact")
    func realTopic() throws {
        let bytes = try TestData.bytes("fixtures/discourse-topic/topic.json")
        let result = try Importer.read(bytes: bytes, file: "topic.json")
        #expect(result.format == .discourse)
        let record = try #require(result.threads.first)
        #expect(record.info.title == "THIS SITE IS A SANDBOX -- it is reset every day")
        #expect(record.info.author == "samsaffron" && record.info.bodyFormat == .html)
        #expect(record.comments.map(\.id.string) == ["2", "3", "14"])
        #expect(record.comments.allSatisfy { $0.parentID == nil })  // replies to post 1 are top level
        #expect(record.comments[0].authorFlair == "moderator notice")
        let page = content(of: String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(record).html, as: UTF8.self))
        #expect(page.contains("<a rel=\"nofollow ugc noopener\" href=\"http://www.discourse.org\">"))
        // Images are kept, with their size, loading lazily (they used to become their alt text).
        #expect(page.contains(#"<img src="http://q101.com/wp-content/uploads/2012/02/GroundhogDay.gif" alt="image" width="650" height="824" loading="lazy">"#))
        #expect(page.contains("Try is a sandbox"))
    }

    /// The real topic as a plain `/t/<id>.json` of a longer one returns it: `stream` lists 340
    /// post ids, of which the file holds the first 4 (`posts_count` as the forum counts them).
    static func partial(stream: Bool) throws -> [UInt8] {
        var topic = try JSONSerialization.jsonObject(with: Data(TestData.bytes("fixtures/discourse-topic/topic.json"))) as! [String: Any]
        var postStream = topic["post_stream"] as! [String: Any]
        if stream {
            postStream["stream"] = (postStream["stream"] as! [Int]) + Array(900_000..<900_336)
        } else {
            postStream["stream"] = nil
        }
        topic["post_stream"] = postStream
        topic["posts_count"] = 340
        return Array(try JSONSerialization.data(withJSONObject: topic, options: [.sortedKeys]))
    }

    @Test(
        "a partial topic: the posts stream or posts_count lists that the file lacks are noted where counted and shown on the page, in both locales",
        arguments: [true, false])
    func partialTopic(stream: Bool) throws {
        let result = try Importer.read(bytes: try Self.partial(stream: stream), file: "topic.json")
        let record = try #require(result.threads.first)
        #expect(record.comments.count == 3 && record.info.unarchivedComments == 336)
        let note = try #require(result.skipped.first)
        #expect(result.skipped.count == 1 && note.kind == "notArchived" && note.severity == .note && note.line == 1 && note.column != nil)
        #expect(note.path == (stream ? "$.post_stream.stream" : "$.posts_count"))
        #expect(note.message == "336 of 340 posts are not in this export; fetch /t/57.json?print=true, or page through /t/57/posts.json, for the rest")
        let english = content(of: String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(record).html, as: UTF8.self))
        #expect(english.contains("336 more replies were not archived"))
        var chinese = RenderOptions()
        chinese.locale = "zh-Hans"
        let zh = String(decoding: try ThreadPipeline(options: ArchiveOptions(render: chinese)).page(record).html, as: UTF8.self)
        #expect(zh.contains("另有 336 条回复未存档"))
        // A stream whose ids name none of the posts present still counts: 340 listed, 4 present.
        var renumbered = try JSONSerialization.jsonObject(with: Data(Self.partial(stream: true))) as! [String: Any]
        var postStream = renumbered["post_stream"] as! [String: Any]
        postStream["stream"] = Array(1...340)
        renumbered["post_stream"] = postStream
        let counted = try Importer.read(bytes: Array(try JSONSerialization.data(withJSONObject: renumbered)), file: "topic.json")
        #expect(counted.threads[0].info.unarchivedComments == 336 && counted.skipped.first?.message.hasPrefix("336 of 340 posts") == true)
        // The whole topic says nothing.
        #expect(try Importer.read(bytes: TestData.bytes("fixtures/discourse-topic/topic.json"), file: "topic.json").skipped.isEmpty)
    }

    static let own = #"""
        {"id": 9, "title": "Hostile", "post_stream": {"posts": [
          {"post_number": 1, "username": "op", "cooked": "<p>Opening <script>alert(1)</script></p>", "created_at": "2024-01-01T00:00:00Z"},
          {"post_number": 2, "username": "a", "cooked": "<p onclick=\"x()\">hi <a href=\"javascript:alert(1)\">bad</a> <a href=\"https://ok.example\">good</a></p><iframe src=\"https://evil.example\"></iframe><svg onload=alert(1)><circle/></svg><style>*{}</style>", "created_at": "2024-01-01T01:00:00Z", "version": 2, "updated_at": "2024-01-02T00:00:00Z"},
          {"post_number": 3, "username": "b", "raw": "**markdown** reply", "cooked": "<p><strong>markdown</strong> reply</p>", "reply_to_post_number": 2, "created_at": "2024-01-01T02:00:00Z"},
          {"post_number": 4, "username": "c", "cooked": "", "deleted_at": "2024-01-03T00:00:00Z", "created_at": "2024-01-01T03:00:00Z", "reply_to_post_number": 2},
          {"post_number": 5, "username": "d", "cooked": "<p>reply to the deleted one</p>", "reply_to_post_number": 4, "created_at": "2024-01-01T04:00:00Z"}
        ]}}
        """#

    @Test("own fixture: hostile cooked HTML keeps its text and none of the danger; raw Markdown wins; edits and deletions")
    func ownFixture() throws {
        let record = try #require(try Importer.read(bytes: Array(Self.own.utf8), file: "t.json").threads.first)
        let c = record.comments
        #expect(c[0].edited && c[0].editedAt == Timestamp(iso: "2024-01-02T00:00:00Z"))
        #expect(c[1].bodyFormat == .markdown && c[1].parentID == CommentID("2"))
        #expect(c[2].deleted && c[3].parentID == CommentID("4"))
        let page = content(of: String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(record).html, as: UTF8.self))
        for danger in ["<script", "onclick", "javascript:", "<iframe", "<svg", "onload", "<style"] {
            #expect(!page.contains(danger), "\(danger)")
        }
        #expect(page.contains("Opening") && page.contains("bad") && page.contains("<a rel=\"nofollow ugc noopener\" href=\"https://ok.example\">good</a>"))
        #expect(page.contains("<strong>markdown</strong> reply"))
        #expect(page.contains("reply to the deleted one") && page.contains("[deleted]"))
    }

    @Test("category_id keeps categories apart, likes are ❤️ reactions, small-action posts are notices, the topic links its page on the forum")
    func faithful() throws {
        let json = #"""
            {"id": 77, "slug": "static-pages", "title": "T", "category_id": 7, "post_stream": {"posts": [
              {"post_number": 1, "username": "op", "cooked": "<p>x</p>"},
              {"post_number": 2, "username": "a", "cooked": "<p>liked</p>", "like_count": 4},
              {"post_number": 3, "username": "system", "cooked": "", "post_type": 3, "action_code": "split_topic"},
              {"post_number": 4, "username": "b", "cooked": "<p>under the notice</p>", "reply_to_post_number": 3,
               "actions_summary": [{"id": 3, "count": 1}, {"id": 2, "count": 2}]}]}}
            """#
        let result = try Importer.read(bytes: Array(json.utf8), file: "t.json")
        let record = try #require(result.threads.first)
        #expect(record.info.category == "Category 7" && record.info.url == "/t/static-pages/77")
        #expect(record.comments.map(\.id.string) == ["2", "4"] && record.comments.map(\.reactions) == [[Reaction("❤️", 4)], [Reaction("❤️", 2)]])
        #expect(record.comments.allSatisfy { $0.score == nil })
        #expect(record.comments[1].parentID == nil)  // it answers the notice, which answers nobody
        #expect(record.notices == [NoticeRecord(action: "split_topic", actor: "system", bodyFormat: .html)])
        #expect(result.skipped.isEmpty)
        func page(_ source: String?) throws -> String {
            var options = RenderOptions()
            options.sourceURL = source
            return String(decoding: try ThreadPipeline(options: ArchiveOptions(render: options)).page(record).html, as: UTF8.self)
        }
        #expect(try page("https://forum.example/").contains(#"<a href="https://forum.example/t/static-pages/77" rel="nofollow ugc noopener">Original thread</a>"#))
        #expect(try !page(nil).contains("static-pages"))
        #expect(DiscourseImporter.percentEncoded("../a b/é") == "%2E%2E%2Fa%20b%2F%C3%A9")
    }
}

@Suite("Discourse small-action posts")
struct DiscourseSmallActionTests {
    static func topic() throws -> ImportResult {
        try Importer.read(bytes: try TestData.bytes("fixtures/discourse-small-actions/topic.json"), file: "topic.json")
    }

    @Test("a real topic's small actions are notices with their action, actor, time and text; the comments are as without them")
    func realShape() throws {
        let result = try Self.topic()
        #expect(result.format == .discourse && result.skipped.isEmpty)
        let record = try #require(result.threads.first)
        let plain = try #require(try Importer.read(bytes: try TestData.bytes("fixtures/discourse-topic/topic.json"), file: "topic.json").threads.first)
        #expect(record.comments.map(\.id.string) == ["2", "3", "14"])
        #expect(record.comments.map(\.body) == plain.comments.map(\.body))
        #expect(record.notices.map(\.action) == ["closed.enabled", "closed.disabled", "split_topic", "autoclosed.enabled", "visible.disabled"])
        #expect(record.notices.map(\.actor) == ["system", "samsaffron", "samsaffron", "system", "samsaffron"])
        #expect(record.notices[0].createdAt == Timestamp(iso: "2013-02-04T20:40:00Z"))
        #expect(record.notices.map(\.body.isEmpty) == [true, true, false, false, true])
        #expect(record.notices[2].body.contains(#"<a href="/t/sandbox-experiments/58">Sandbox experiments</a>"#) && record.notices[2].bodyFormat == .html)
        #expect(record.notices.allSatisfy { $0.subject == nil })
    }

    @Test("raw Markdown is a notice's text when the export has it; action_code_who names whom it was done to; a missing or empty code is nil")
    func fields() throws {
        let json = #"""
            {"id": 5, "title": "PM", "archetype": "private_message", "post_stream": {"posts": [
              {"post_number": 1, "username": "op", "cooked": "<p>x</p>"},
              {"post_number": 2, "username": "op", "post_type": 3, "action_code": "invited_user", "action_code_who": "carol", "cooked": "", "created_at": "2024-05-01T10:00:00Z"},
              {"post_number": 3, "username": "mod", "post_type": 3, "action_code": "split_topic", "raw": "2 posts were split to a new topic: [Elsewhere](/t/elsewhere/9)", "cooked": "<p>2 posts …</p>"},
              {"post_number": 4, "username": "", "post_type": 3, "action_code": "", "cooked": "<p>Something happened.</p>"}]}}
            """#
        let record = try #require(try Importer.read(bytes: Array(json.utf8), file: "pm.json").threads.first)
        #expect(record.comments.isEmpty)
        #expect(record.notices[0] == NoticeRecord(action: "invited_user", actor: "op", subject: "carol", createdAt: Timestamp(iso: "2024-05-01T10:00:00Z"), bodyFormat: .html))
        #expect(record.notices[1].body == "2 posts were split to a new topic: [Elsewhere](/t/elsewhere/9)" && record.notices[1].bodyFormat == .markdown)
        #expect(record.notices[2].action == nil && record.notices[2].actor == nil && record.notices[2].body == "<p>Something happened.</p>")
    }

    @Test("a deleted small-action post is left out with a note naming it, never silently")
    func deleted() throws {
        let json = #"""
            {"id": 6, "title": "T", "post_stream": {"posts": [
              {"post_number": 1, "username": "op", "cooked": "<p>x</p>"},
              {"post_number": 2, "username": "mod", "post_type": 3, "action_code": "closed.enabled", "cooked": "", "deleted_at": "2024-01-02T00:00:00Z"},
              {"post_number": 3, "username": "a", "cooked": "<p>y</p>", "reply_to_post_number": 2}]}}
            """#
        let result = try Importer.read(bytes: Array(json.utf8), file: "t.json")
        let record = try #require(result.threads.first)
        #expect(record.notices.isEmpty && record.comments.map(\.id.string) == ["3"] && record.comments[0].parentID == nil)
        #expect(result.skipped.map(\.description) == [#"t.json:3:3: note: $.post_stream.posts[1].deleted_at: is a deleted small-action post; left out of the notices"#])
        #expect(result.skipped[0].kind == "deletedNotice")
    }
}

@Suite("Discourse category names")
struct DiscourseCategoryTests {
    static let topic =
        #"{"id": 77, "slug": "s", "title": "T", "category_id": 12, "post_stream": {"posts": [{"post_number": 1, "username": "a", "cooked": "<p>x</p>"}, {"post_number": 2, "username": "b", "cooked": "<p>y</p>"}]}}"#

    @Test("/categories.json names categories, subcategories under their parent; /site.json the same; without a name, Category N")
    func names() throws {
        let categories = #"""
            {"category_list": {"can_create_category": false, "categories": [
              {"id": 5, "name": "Support", "slug": "support", "subcategory_list": [{"id": 12, "name": "Installing", "slug": "installing"}]},
              {"id": 7, "name": "Meta", "slug": "meta"}]}}
            """#
        let fromList = try DiscourseCategories.load(json: Array(categories.utf8), file: "categories.json")
        #expect(fromList == ["5": "Support", "12": "Support / Installing", "7": "Meta"])
        let site = #"{"categories": [{"id": 5, "name": "Support"}, {"id": 12, "name": "Installing", "parent_category_id": 5}], "groups": []}"#
        let fromSite = try DiscourseCategories.load(json: Array(site.utf8), file: "site.json")
        #expect(fromSite == fromList.filter { $0.key != "7" })
        var options = ImportOptions()
        options.categoryNames = fromSite
        let named = try Importer.read(bytes: Array(Self.topic.utf8), file: "t.json", options: options)
        #expect(named.threads[0].info.category == "Support / Installing")
        let unnamed = try Importer.read(bytes: Array(Self.topic.replacingOccurrences(of: "12", with: "99").utf8), file: "t.json", options: options)
        #expect(unnamed.threads[0].info.category == "Category 99")
    }

    @Test("a file of another shape is a located error")
    func errors() throws {
        let wrong = try #require(throws: ThreadfoldError.self) { try DiscourseCategories.load(json: Array(#"{"users": []}"#.utf8), file: "c.json") }
        #expect(wrong.description == "c.json:1:1: error: $: expected category_list.categories (/categories.json) or categories (/site.json), found neither")
        let badName = try #require(throws: ThreadfoldError.self) { try DiscourseCategories.load(json: Array(#"{"categories": [{"id": 1, "name": 5}]}"#.utf8), file: "c.json") }
        #expect(badName.description == "c.json:1:35: error: $.categories[0].name: expected a string, found the number 5")
    }
}
