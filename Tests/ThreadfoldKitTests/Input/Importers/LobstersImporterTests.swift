import Testing

@testable import ThreadfoldKit

@Suite("Lobsters importer")
struct LobstersImporterTests {
    /// A story in the shape lobste.rs returns from /s/<short_id>.json, written here: users as
    /// objects on the story and as names on comments (the API has written both).
    static let story = #"""
        {"short_id": "abc123", "short_id_url": "https://lobste.rs/s/abc123", "created_at": "2024-03-03T10:00:00.000-06:00",
         "title": "Static comment pages", "url": "https://example.org/post", "score": 42, "comment_count": 6,
         "description": "", "comments_url": "https://lobste.rs/s/abc123/static_comment_pages",
         "submitter_user": {"username": "alice", "karma": 10}, "tags": ["web", "show"], "comments": [
          {"short_id": "c1", "created_at": "2024-03-03T11:00:00.000-06:00", "updated_at": "2024-03-03T11:00:00.000-06:00",
           "is_deleted": false, "is_moderated": false, "score": 5, "parent_comment": null, "depth": 0,
           "comment": "<p>Nice <em>work</em></p>", "commenting_user": "bob"},
          {"short_id": "c2", "created_at": "2024-03-03T12:00:00.000-06:00", "updated_at": "2024-03-03T12:30:00.000-06:00",
           "is_deleted": false, "is_moderated": false, "score": 2, "parent_comment": "c1", "depth": 1,
           "comment": "<p>Thanks</p>", "commenting_user": {"username": "alice"}},
          {"short_id": "c3", "created_at": "2024-03-03T13:00:00.000-06:00", "updated_at": "2024-03-03T13:00:00.000-06:00",
           "is_deleted": true, "is_moderated": false, "score": 0, "parent_comment": "c1", "depth": 1,
           "comment": "<p>removed words qq</p>", "commenting_user": "carol"},
          {"short_id": "c4", "created_at": "2024-03-03T14:00:00.000-06:00", "updated_at": "2024-03-03T14:00:00.000-06:00",
           "is_deleted": false, "is_moderated": false, "score": 1, "parent_comment": "c3", "depth": 2,
           "comment": "<p>under a deleted one</p>", "commenting_user": "dan"}]}
        """#

    @Test("a story: detected, threaded by parent_comment, edited only when updated, the link post's URL shown")
    func story() throws {
        let result = try Importer.read(bytes: Array(Self.story.utf8), file: "abc123.json")
        #expect(result.format == .lobsters && result.detected)
        let record = try #require(result.threads.first)
        #expect(record.info.title == "Static comment pages" && record.info.author == "alice")
        #expect(record.info.url == "https://lobste.rs/s/abc123" && record.info.tags == ["web", "show"])
        #expect(record.comments.map(\.id.string) == ["c1", "c2", "c3", "c4"])
        #expect(record.comments.map { $0.author ?? "-" } == ["bob", "alice", "carol", "dan"])
        #expect(record.comments[1].parentID == CommentID("c1") && record.comments[3].parentID == CommentID("c3"))
        #expect(!record.comments[0].edited && record.comments[1].edited)
        #expect(record.comments[2].deleted && record.comments[2].body.isEmpty)
        #expect(record.info.unarchivedComments == 2)
        #expect(result.skipped.map(\.message) == ["2 of 6 comments are not in this export; fetch /s/abc123.json again for the rest"])
        #expect(result.skipped.map(\.path) == ["$.comment_count"] && result.skipped.first?.line == 2)
        let tree = try ThreadBuilder.build(record)
        #expect(tree.totals.levels == 3 && tree.diagnostics.isEmpty)
        let page = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(record).html, as: UTF8.self)
        #expect(page.contains(#"href="https://example.org/post">https://example.org/post</a>"#))
        #expect(page.contains("Nice <em>work</em>") && page.contains("under a deleted one") && !page.contains("removed words qq"))
    }

    @Test("a comment without an id is an error that names its place")
    func missingID() throws {
        let json = #"{"short_id": "s", "submitter_user": "a", "comments": [{"comment": "<p>x</p>", "commenting_user": "b"}]}"#
        let errors = try #require(throws: ThreadfoldError.self) { try Importer.read(bytes: Array(json.utf8), file: "s.json") }
        #expect(errors.problems[0].description.contains("$.comments[0].short_id: expected a comment id (short_id), found none"))
    }
}
