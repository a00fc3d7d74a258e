import Foundation
import Testing
import TestSupport
@testable import ThreadfoldKit

@Suite("Lemmy importer")
struct LemmyImporterTests {
    static func page(_ record: ThreadRecord) throws -> String {
        content(of: String(decoding: try ThreadRenderer(options: ArchiveOptions()).page(record).html, as: UTF8.self))
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
        let errors = try #require(throws: InputErrors.self) { try Importer.read(bytes: Array(bad.utf8), file: "list.json") }
        #expect(errors.errors[0].description.contains("list.json:6:33: error: $.comments[1].comment.path: found the path \"0.5.7\"; expected the chain of ids from the post to the comment, like 0.12.6 (read as a Lemmy post"))
    }

    @Test("a link in a link post is Markdown that cannot break out of its brackets")
    func linkPost() {
        #expect(LemmyImporter.markdownLink("https://a.example/x_(y)*z") == #"[https\:\/\/a\.example\/x\_\(y\)\*z](<https://a.example/x_(y)*z>)"#)
        #expect(LemmyImporter.markdownLink("https://a.example/<script>") == nil)
        #expect(LemmyImporter.markdownLink("javascript:alert(1)") == nil)
        #expect(LemmyImporter.markdownLink("https://a.example/\n[x](javascript:alert(1))") == nil)
    }
}
