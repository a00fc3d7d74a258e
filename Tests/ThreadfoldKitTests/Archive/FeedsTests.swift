import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import ThreadfoldKit

@Suite("Atom feeds")
struct FeedsTests {
    @Test("a thread's feed carries a capped plain-text excerpt of each comment, not its body")
    func excerpts() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // One 4 MB comment of Markdown, and a short one.
        let words = String(repeating: "**lorem** ipsum dolor [sit](https://example.org) amet, ", count: 64_000)
        let thread = #"{"id": "big", "title": "Big", "comments": [{"id": "1", "author": "a", "created_at": 1700000000, "body": "\#(words)"}, {"id": "2", "parent_id": "1", "author": "b", "created_at": 1700000060, "body": "Short & *sweet*"}]}"#
        let input = try ArchiveFixture.write(thread, "big.json", in: folder)
        let report = try ArchiveFixture.build([input], in: folder)
        #expect(report.published)
        let feed = ArchiveFixture.text(folder.appendingPathComponent("site"), "t/big-big/atom.xml")
        #expect(feed.utf8.count < 8_000, "atom.xml is \(feed.utf8.count) bytes")
        let parser = XMLParser(data: Data(feed.utf8))
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(!feed.contains("<content"))
        #expect(feed.contains("<summary>Short &amp; sweet</summary>"))
        let summaries = feed.components(separatedBy: "<summary>").dropFirst().map { $0.components(separatedBy: "</summary>")[0] }
        let long = try #require(summaries.first { $0.hasPrefix("lorem") })
        // Plain text (Markdown punctuation gone), cut after a whole word, at most the limit.
        #expect(long.hasPrefix("lorem ipsum dolor sit https://example.org amet, lorem ipsum"))
        #expect(long.hasSuffix("…"))
        let lastWord = try #require(long.dropLast().split(separator: " ").last)
        #expect(["lorem", "ipsum", "dolor", "sit", "https://example.org", "amet,"].contains(String(lastWord)))
        #expect(long.count <= AtomFeed.excerptLimit + 1 && long.count >= AtomFeed.excerptLimit / 2)
    }

    @Test("excerpts cut at a word boundary with an ellipsis", arguments: [
        ("one two three four", 9, "one two…"),
        ("one two three four", 7, "one two…"),
        ("one two three four", 18, "one two three four"),
        ("# Title\n\n*one*  two", 60, "Title one two"),
        ("abcdefghijklmnop", 5, "abcde…"),
        ("a bcdefghijklmnop", 6, "a bcde…"),
        ("这是一个没有空格的很长的句子", 5, "这是一个没…"),
    ])
    func cut(_ body: String, _ limit: Int, _ expected: String) {
        #expect(PageNavigation.excerpt(body, limit: limit) == expected)
    }
}
