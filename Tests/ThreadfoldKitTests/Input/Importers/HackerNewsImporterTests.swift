import Testing

@testable import ThreadfoldKit

@Suite("Hacker News importer")
struct HackerNewsImporterTests {
    static let algolia = #"""
        {"id": 100, "created_at": "2024-03-03T10:00:00.000Z", "created_at_i": 1709460000, "type": "story", "author": "pg",
         "title": "Ask HN: Hostile HTML?", "url": null, "text": "<p>Story text <i>here</i>", "points": 50, "children": [
          {"id": 101, "created_at_i": 1709460100, "type": "comment", "author": "a", "text": "First<p>Second <a href=\"https://x.example\" rel=\"nofollow\">link</a>", "children": [
            {"id": 102, "created_at_i": 1709460200, "type": "comment", "author": null, "text": null, "children": [
              {"id": 103, "created_at_i": 1709460300, "type": "comment", "author": "b", "text": "<script>alert(1)</script>under a deleted one", "children": []}]}]},
          {"id": 104, "created_at_i": 1709460400, "type": "comment", "author": "c", "text": "<img src=x onerror=alert(1)>&lt;not a tag&gt;", "children": []}]}
        """#

    @Test("Algolia: nested children, HTML text sanitised, deleted items as placeholders")
    func algolia() throws {
        let result = try Importer.read(bytes: Array(Self.algolia.utf8), file: "hn.json")
        #expect(result.format == .hn)
        let record = try #require(result.threads.first)
        #expect(record.info.title == "Ask HN: Hostile HTML?" && record.info.url == "https://news.ycombinator.com/item?id=100")
        #expect(record.comments.map(\.id.string) == ["101", "102", "103", "104"])
        #expect(record.comments[2].parentID == CommentID("102") && record.comments[1].deleted)
        let page = content(of: String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(record).html, as: UTF8.self))
        #expect(page.contains("<p>First</p><p>Second <a rel=\"nofollow ugc noopener\" href=\"https://x.example\">link</a></p>"))
        #expect(page.contains("<em>here</em>"))
        #expect(!page.contains("<script") && !page.contains("onerror") && !page.contains("<img"))
        #expect(page.contains("&lt;not a tag&gt;") && page.contains("under a deleted one"))
    }

    /// HNPWA's item shape (api.hnpwa.com/v0/item/<id>.json), as tastejs/hacker-news-pwas documents it.
    static let hnpwa = #"""
        {"id": 8863, "title": "My YC app: Dropbox", "points": 111, "user": "dhouston", "time": 1175714200, "time_ago": "17 years ago",
         "type": "link", "url": "http://www.getdropbox.com/u/2/screencast.html", "domain": "getdropbox.com", "content": "",
         "comments_count": 9, "level": 0, "comments": [
          {"id": 9224, "level": 0, "user": "BrandonM", "time": 1175727286, "time_ago": "17 years ago", "content": "<p>For a Linux user, you can already build such a system yourself", "comments": [
            {"id": 9272, "level": 1, "user": "dhouston", "time": 1175741211, "time_ago": "17 years ago", "content": "<p>good point", "comments": [
              {"id": 9479, "level": 2, "user": "BrandonM", "time": 1175822011, "time_ago": "17 years ago", "content": "<p>You are correct", "comments": []}]},
            {"id": 9300, "level": 1, "user": null, "time": 1175750000, "time_ago": "17 years ago", "content": "", "deleted": true, "comments": []}]},
          {"id": 9021, "level": 0, "user": "dead_one", "time": 1175716000, "time_ago": "17 years ago", "content": "<p>flagged", "dead": true, "comments": []}]}
        """#

    @Test("HNPWA: detected, comments nested in comments, the link post's URL shown, HN's own count of comments kept")
    func hnpwa() throws {
        let result = try Importer.read(bytes: Array(Self.hnpwa.utf8), file: "8863.json")
        #expect(result.format == .hn && result.detected)
        let record = try #require(result.threads.first)
        #expect(record.info.title == "My YC app: Dropbox" && record.info.author == "dhouston")
        #expect(record.info.url == "https://news.ycombinator.com/item?id=8863")
        #expect(record.info.createdAt == Timestamp(unix: 1_175_714_200))
        #expect(record.comments.map(\.id.string) == ["9224", "9272", "9479", "9300", "9021"])
        #expect(record.comments[2].parentID == CommentID("9272") && record.comments[0].parentID == nil)
        #expect(record.comments.allSatisfy { $0.bodyFormat == .html })
        #expect(record.comments[3].deleted && record.comments[4].removed)
        #expect(record.info.unarchivedComments == 4)
        let tree = try ThreadBuilder.build(record)
        #expect(tree.totals.levels == 3)
        let page = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(record).html, as: UTF8.self)
        #expect(page.contains(#"<a rel="nofollow ugc noopener" href="http://www.getdropbox.com/u/2/screencast.html">http://www.getdropbox.com/u/2/screencast.html</a>"#))
        #expect(page.contains("For a Linux user") && page.contains("You are correct"))
        // The check counts what was read: every body and author is there.
        #expect(try Importer.read(bytes: Array(Self.hnpwa.utf8), file: "8863.json", options: ImportOptions(format: .hn)).threads[0].comments.count == 5)
    }

    @Test("a story's points are its score in every API, shown on the page; comments show none")
    func storyPoints() throws {
        let firebase =
            #"{"id": 1, "type": "story", "by": "pg", "time": 1160418111, "title": "Y", "score": 3089, "kids": [2]}"# + "\n"
            + #"{"id": 2, "type": "comment", "by": "a", "time": 1160418200, "parent": 1, "text": "x"}"#
        for (json, points) in [(Self.algolia, 50), (Self.hnpwa, 111), (firebase, 3089)] {
            let record = try #require(try Importer.read(bytes: Array(json.utf8), file: "hn.json").threads.first)
            #expect(record.info.score == Int64(points))
            #expect(record.comments.allSatisfy { $0.score == nil && $0.reactions.isEmpty })
            let page = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(record).html, as: UTF8.self)
            #expect(page.contains(#"<span class="tf-score">\#(points == 3089 ? "3,089" : String(points)) points</span>"#))
            #expect(page.components(separatedBy: "tf-score").count == 2, "the story's points only")
        }
    }

    static let firebaseLines = """
        {"id": 1, "type": "story", "by": "pg", "time": 1160418111, "title": "Y Combinator", "url": "http://ycombinator.com", "kids": [2]}
        {"id": 2, "type": "comment", "by": "a", "time": 1160418200, "parent": 1, "text": "Nice &amp; fast", "kids": [3, 4]}
        {"id": 3, "type": "comment", "by": "b", "time": 1160418300, "parent": 2, "text": "Agreed", "dead": true, "kids": [5]}
        {"id": 5, "type": "comment", "by": "c", "time": 1160418400, "parent": 3, "text": "reply to a dead one"}
        {"id": 4, "type": "comment", "deleted": true, "time": 1160418350, "parent": 2}
        {"id": 9, "type": "comment", "by": "z", "time": 1160419999, "parent": 777, "text": "story not in the file"}
        """

    @Test("Firebase as JSON Lines: threads by story, dead and deleted placeholders, comments of a missing story kept")
    func firebaseLines() throws {
        let result = try Importer.read(bytes: Array(Self.firebaseLines.utf8), file: "items.jsonl")
        #expect(result.format == .hn)
        #expect(result.threads.count == 2)
        let story = result.threads[0]
        // The thread links its discussion; the link post's URL is its opening post.
        #expect(story.info.title == "Y Combinator" && story.info.url == "https://news.ycombinator.com/item?id=1" && story.info.author == "pg")
        #expect(story.info.body == nil && story.info.link == "http://ycombinator.com" && story.info.bodyFormat == .html)
        #expect(PostMarkup.openingPost(story.info) == #"<p><a href="http://ycombinator.com">http://ycombinator.com</a></p>"#)
        #expect(story.comments.map(\.id.string) == ["2", "3", "5", "4"])
        #expect(story.comments[0].parentID == nil && story.comments[1].parentID == CommentID("2"))
        #expect(story.comments[1].removed && story.comments[3].deleted)
        let tree = try ThreadBuilder.build(story)
        #expect(tree.totals.comments == 3)  // the deleted leaf is left out, the dead one stays for its reply
        #expect(result.threads[1].info.id == CommentID("777") && result.threads[1].comments.count == 1)
    }

    @Test("a dead (flagged or killed) comment is a removed placeholder: its text is not shown, its replies are; a dead leaf is left out with a warning")
    func deadRendered() throws {
        let lines =
            Self.firebaseLines.replacingOccurrences(of: #""text": "Agreed""#, with: #""text": "flagged words""#)
            + #"\#n{"id": 6, "type": "comment", "by": "d", "time": 1160418500, "parent": 1, "text": "dead leaf", "dead": true}"#
        let story = try Importer.read(bytes: Array(lines.utf8), file: "items.jsonl").threads[0]
        let tree = try ThreadBuilder.build(story)
        #expect(tree.diagnostics.contains { $0.kind == .omittedDeleted && $0.error.description.contains("is removed and has no replies") })
        let page = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(story).html, as: UTF8.self)
        #expect(!page.contains("flagged words") && !page.contains("dead leaf"))
        #expect(page.contains("[removed]") && page.contains("reply to a dead one"))
    }

    @Test("Firebase as an array; errors point at the line of the item in JSON Lines")
    func firebaseErrors() throws {
        let lines = "{\"id\": 1, \"type\": \"story\", \"by\": \"a\"}\n{\"id\": 2, \"type\": \"comment\", \"by\": \"b\", \"parent\": 1, \"time\": \"soon\"}\n"
        let errors = try #require(throws: ThreadfoldError.self) { try Importer.read(bytes: Array(lines.utf8), file: "x.jsonl") }
        #expect(errors.problems[0].description.hasPrefix("x.jsonl:2:"))
        #expect(errors.problems[0].description.contains("$[1].time: expected a Unix time or an ISO 8601 date"))
        let array = "[" + Self.firebaseLines.split(separator: "\n").joined(separator: ",") + "]"
        #expect(try Importer.read(bytes: Array(array.utf8), file: "a.json").threads.count == 2)
    }

    @Test("Firebase: a story's descendants that the file lacks are counted as not archived, not shown as no comments")
    func descendants() throws {
        let json =
            #"{"id": 8863, "type": "story", "by": "dhouston", "time": 1175714200, "title": "My YC app: Dropbox", "url": "http://www.getdropbox.com/u/2/screencast.html", "descendants": 71, "kids": [9224, 8917]}"#
        let record = try #require(try Importer.read(bytes: Array(json.utf8), file: "8863.json").threads.first)
        #expect(record.comments.isEmpty && record.info.unarchivedComments == 71)
        let page = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(record).html, as: UTF8.self)
        #expect(page.contains("71 more replies were not archived"))
        #expect(!page.contains("No comments yet"))
    }

    @Test("an item id is one id whether written as a number or as its digits: the same thread, the same parents")
    func idsAsNumbers() throws {
        let numbers =
            #"[{"id": 8863, "type": "story", "by": "pg", "title": "S", "time": 1}, {"id": 8864, "type": "comment", "by": "a", "parent": 8863, "text": "x", "time": 2}, {"id": 8865, "type": "comment", "by": "b", "parent": 8864, "text": "y", "time": 3}]"#
        let strings =
            #"[{"id": "8863", "type": "story", "by": "pg", "title": "S", "time": 1}, {"id": "8864", "type": "comment", "by": "a", "parent": "8863", "text": "x", "time": 2}, {"id": 8865, "type": "comment", "by": "b", "parent": "8864", "text": "y", "time": 3}]"#
        let a = try #require(try Importer.read(bytes: Array(numbers.utf8), file: "a.json").threads.first)
        let b = try #require(try Importer.read(bytes: Array(strings.utf8), file: "b.json").threads.first)
        #expect(a.info.id == CommentID("8863") && b.info.id == a.info.id)
        #expect(a.comments.map { $0.parentID?.string ?? "-" } == ["-", "8864"] && b.comments.map { $0.parentID?.string ?? "-" } == ["-", "8864"])
        #expect(ThreadPaths.folder(title: a.info.title, id: a.threadID) == ThreadPaths.folder(title: b.info.title, id: b.threadID))
    }
}
