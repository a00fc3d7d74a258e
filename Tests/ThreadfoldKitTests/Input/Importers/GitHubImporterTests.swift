import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

@Suite("GitHub importer")
struct GitHubImporterTests {
    @Test("the fixture: the issue is the thread, comments flat, edited only when updated_at differs, reactions shown as reactions")
    func fixture() throws {
        let result = try Importer.read(bytes: try TestData.bytes("fixtures/github-issue/issue.json"), file: "issue.json")
        #expect(result.format == .github && result.detected)
        let record = try #require(result.threads.first)
        #expect(record.info.title == "Deep reply chains overflow the page on phones" && record.info.author == "kai-reader")
        #expect(record.info.url == "https://github.com/threadfold-example/forum-archive/issues/128")
        #expect(record.info.category == "threadfold-example/forum-archive" && record.info.tags == ["bug", "layout"])
        #expect(record.info.body?.hasPrefix("On a 390 px wide screen") == true && record.info.bodyFormat == .markdown)
        let c = record.comments
        #expect(c.count == 5 && c.allSatisfy { $0.parentID == nil })
        #expect(c.map(\.edited) == [false, true, false, false, false])
        // GitHub has reactions, not points: no score, and each reaction counted apart, 0s left out.
        #expect(c.allSatisfy { $0.score == nil } && record.info.score == nil)
        #expect(c.map(\.reactions) == [[Reaction("👍", 2)], [], [Reaction("🎉", 4), Reaction("❤️", 1)], [], [Reaction("🚀", 2)]])
        #expect(record.info.reactions == [Reaction("👍", 3), Reaction("👀", 1)])
        #expect(c.map { $0.authorFlair ?? "-" } == ["owner", "-", "contributor", "bot", "owner"])
        #expect(record.info.unarchivedComments == 1)
        #expect(
            result.skipped.map(\.message) == ["1 of 6 comments is not in this export; page through /repos/threadfold-example/forum-archive/issues/128/comments?per_page=100&page=1, 2, … for the rest"])
        #expect(result.skipped.map(\.path) == ["$.issue.comments"] && result.skipped.allSatisfy { $0.kind == "notArchived" && $0.severity == .note })
        let page = content(of: String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(record).html, as: UTF8.self))
        #expect(page.contains(#"<input type="checkbox" checked="" disabled="" aria-label="#) && page.contains("<th>depth</th>"))
        #expect(page.contains(#"<span class="tf-reactions">🎉 4 · ❤️ 1</span>"#) && page.contains(#"<span class="tf-reactions">👍 3 · 👀 1</span>"#))
        #expect(!page.contains("point"))
    }

    @Test("comments alone, as an array or wrapped in data: the first comment's links name the thread")
    func commentsAlone() throws {
        let comment =
            #"{"id": 7, "html_url": "https://github.com/o/r/pull/3#issuecomment-7", "issue_url": "https://api.github.com/repos/o/r/issues/3", "user": {"login": "ann", "type": "User"}, "author_association": "MEMBER", "body": "LGTM", "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-01T00:00:00Z", "reactions": {"total_count": 1}}"#
        for json in ["[\(comment)]", #"{"data": [\#(comment)]}"#] {
            let result = try Importer.read(bytes: Array(json.utf8), file: "c.json")
            let record = try #require(result.threads.first)
            #expect(result.format == .github && record.info.title == "o/r#3" && record.info.url == "https://github.com/o/r/pull/3")
            #expect(record.info.id?.string == "https://api.github.com/repos/o/r/issues/3")
            #expect(record.comments[0].authorFlair == "member" && !record.comments[0].edited)
        }
        let broken = "[\(comment.replacingOccurrences(of: #""body": "LGTM""#, with: #""body": 5"#))]"
        let errors = try #require(throws: ThreadfoldError.self) { try Importer.read(bytes: Array(broken.utf8), file: "c.json") }
        #expect(errors.problems[0].description.contains("$[0].body: expected a string, found the number 5 (read as GitHub issue or pull request comments"))
    }
}
