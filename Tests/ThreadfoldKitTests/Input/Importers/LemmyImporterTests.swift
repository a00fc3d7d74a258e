import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

@Suite("Lemmy importer")
struct LemmyImporterTests {
    static func page(_ record: ThreadRecord) throws -> String {
        content(of: String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(record).html, as: UTF8.self))
    }

    @Test("the fixture: detected, threaded by path, remote users named with their instance, counts not archived placed")
    func fixture() throws {
        let result = try Importer.read(bytes: try TestData.bytes("fixtures/lemmy-post/post.json"), file: "post.json")
        #expect(result.format == .lemmy && result.detected)
        let record = try #require(result.threads.first)
        #expect(record.info.title == "Static archives of forum threads: what do you use?" && record.info.author == "alice")
        #expect(record.info.url == "https://lemmy.ml/post/1834765" && record.info.category == "c/selfhosted")
        #expect(record.info.id == CommentID("1834765") && record.info.markdownFlavor == nil && record.info.sourceFormat == "lemmy")
        #expect(record.info.createdAt == Timestamp(iso: "2024-03-03T10:00:00.123Z"))
        let c = record.comments
        #expect(c.map(\.id.string) == ["9000101", "9000102", "9000103", "9000104", "9000105", "9000106", "9000107", "9000108"])
        #expect(c.map { $0.parentID?.string ?? "-" } == ["-", "9000101", "9000102", "-", "9000104", "-", "-", "-"])
        #expect(c[0].author == "bob@feddit.de" && c[1].author == "alice" && c[4].author == "dan@lemmy.world")
        #expect(!c[0].edited && c[1].edited && c[1].editedAt == Timestamp(iso: "2024-03-03T10:50:00Z"))
        #expect(c[3].deleted && c[6].removed && c[0].score == 14)
        #expect(c[5].authorFlair == "bot" && c[7].authorFlair == "moderator")
        // child_count 4 under 9000101, 2 of them in the file: one is missing under 9000103, one under 9000101.
        #expect(c.map(\.unarchivedReplies) == [1, 0, 1, 0, 0, 0, 0, 0])
        // The post counts 11: 8 in the file, 2 placed under comments, 1 more at the top.
        #expect(record.info.unarchivedComments == 1)
        #expect(result.skipped.map(\.path) == ["$.post_view.counts.comments"] && result.skipped.allSatisfy { $0.kind == "notArchived" && $0.severity == .note })
        #expect(result.skipped.first?.message.hasPrefix("3 of 11 comments are not in this export; page through /api/v3/comment/list?post_id=") == true)
        let page = try Self.page(record)
        #expect(page.contains(#"<a rel="nofollow ugc noopener" href="https://example.org/blog/static-threads">https://example.org/blog/static-threads</a>"#))
        #expect(page.contains("<del>a database</del>") && page.contains("Replying to a comment that has since been deleted"))
    }

    /// The vendored real responses (LemmyKit's, from a Lemmy 0.19 test instance) joined as
    /// docs/importers.md joins them: the post's object with the comment list's `comments` added.
    static func lemmyKit() throws -> [UInt8] {
        let post = String(decoding: try TestData.bytes("fixtures/lemmy-lemmykit/getPostResponseV3.json"), as: UTF8.self)
        let list = String(decoding: try TestData.bytes("fixtures/lemmy-lemmykit/getCommentsResponseV3.json"), as: UTF8.self)
        let open = try #require(post.lastIndex(of: "}")), from = try #require(list.firstIndex(of: "[")), to = try #require(list.lastIndex(of: "]"))
        return Array((post[..<open] + ",\n  \"comments\": " + list[from...to] + "\n}\n").utf8)
    }

    @Test("real responses: LemmyKit's /api/v3/post and /api/v3/comment/list, joined, read with exact counts")
    func realResponses() throws {
        let result = try Importer.read(bytes: try Self.lemmyKit(), file: "post.json")
        #expect(result.format == .lemmy && result.detected)
        // The one message: the post counts 7 comments and the list holds 1 (a located note).
        #expect(
            result.skipped.map(\.kind) == ["notArchived"] && result.skipped.first?.message.contains("6 of 7 comments are not in this export") == true,
            "\(result.skipped.map(\.description))")
        let record = try #require(result.threads.first)
        #expect(record.info.id == CommentID("180") && record.info.title == "Live recording (thread 8)" && record.info.author == "seed_mod1")
        #expect(record.info.url == "https://test1.lemmy.ddenis.info/post/180" && record.info.category == "c/music")
        #expect(record.info.createdAt == Timestamp(iso: "2026-06-12T23:37:46.566Z") && record.info.score == 1)
        #expect(record.info.link == "https://example.com/live" && PostMarkup.openingPost(record.info)?.contains("(<https://example.com/live>)") == true)
        #expect(record.comments.count == 1)
        let c = try #require(record.comments.first)
        #expect(c.id == CommentID("501") && c.parentID == nil && c.author == "seed_mod1" && c.score == 3)
        #expect(c.body == "Great track, thanks for sharing!" && c.createdAt == Timestamp(iso: "2026-06-12T23:39:00Z") && !c.edited)
        // The post counts 7 comments; the list holds 1.
        #expect(record.info.unarchivedComments == 6 && c.unarchivedReplies == 0)
        let page = try Self.page(record)
        #expect(page.contains("Great track, thanks for sharing!") && page.contains("6 more replies were not archived"))
        // Each response alone reads too: the post without comments, the list with the post from its view.
        #expect(try Importer.read(bytes: try TestData.bytes("fixtures/lemmy-lemmykit/getPostResponseV3.json"), file: "p.json").threads[0].comments.isEmpty)
        let alone = try Importer.read(bytes: try TestData.bytes("fixtures/lemmy-lemmykit/getCommentsResponseV3.json"), file: "c.json").threads[0]
        #expect(alone.comments.count == 1 && alone.info.title == "Live recording (thread 8)")
    }

    @Test("the comment list alone: the post comes from each view; a bad path is an error at its place")
    func commentList() throws {
        let json = #"""
            {"comments": [
              {"comment": {"id": 5, "path": "0.5", "content": "top", "published": "2024-01-01T00:00:00.000000"},
               "creator": {"name": "ann", "local": true, "actor_id": "https://lemmy.ml/u/ann"},
               "post": {"id": 9, "name": "A post", "ap_id": "https://lemmy.ml/post/9", "published": "2023-12-31T00:00:00Z"},
               "community": {"name": "test"}, "counts": {"score": 2, "child_count": 1}},
              {"comment": {"id": 6, "path": "0.5.6", "content": "reply", "published": "2024-01-01T01:00:00Z", "updated": null},
               "creator": {"name": "bo", "local": false, "actor_id": "https://other.example/u/bo"}, "counts": {"score": 1, "child_count": 0}}]}
            """#
        let result = try Importer.read(bytes: Array(json.utf8), file: "list.json")
        #expect(result.format == .lemmy)
        let record = try #require(result.threads.first)
        #expect(record.info.title == "A post" && record.info.author == nil && record.info.category == "c/test")
        #expect(record.comments[1].parentID == CommentID("5") && record.comments[1].author == "bo@other.example")
        #expect(record.comments.allSatisfy { $0.unarchivedReplies == 0 } && !record.comments[1].edited)

        let bad = json.replacingOccurrences(of: #""0.5.6""#, with: #""0.5.7""#)
        let errors = try #require(throws: ThreadfoldError.self) { try Importer.read(bytes: Array(bad.utf8), file: "list.json") }
        #expect(
            errors.problems[0].description.contains(
                "list.json:6:33: error: $.comments[1].comment.path: found the path \"0.5.7\"; expected the chain of ids from the post to the comment, like 0.12.6 (read as a Lemmy post"))
    }
}
