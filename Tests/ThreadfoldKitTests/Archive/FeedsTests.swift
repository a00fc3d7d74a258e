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
        let long = try #require(summaries.first { $0.hasPrefix("**lorem") })
        // The plain text the page shows (a body past cmark's size limit is shown as typed), cut after
        // a whole word, at most the limit.
        #expect(long.hasPrefix("**lorem** ipsum dolor [sit](https://example.org) amet, **lorem** ipsum"))
        #expect(long.hasSuffix("…"))
        let lastWord = try #require(long.dropLast().split(separator: " ").last)
        #expect(["**lorem**", "ipsum", "dolor", "[sit](https://example.org)", "amet,"].contains(String(lastWord)))
        #expect(long.count <= AtomFeed.excerptLimit + 1 && long.count >= AtomFeed.excerptLimit / 2)
    }

    @Test("excerpts are the rendered body's text, cut at a word boundary with an ellipsis", arguments: [
        ("<p>one two three four</p>", 9, "one two…"),
        ("one two three four", 7, "one two…"),
        ("one two three four", 18, "one two three four"),
        ("<h3>Title</h3>\n<p><em>one</em>  two</p>", 60, "Title one two"),
        ("abcdefghijklmnop", 5, "abcde…"),
        ("a bcdefghijklmnop", 6, "a bcde…"),
        ("这是一个没有空格的很长的句子", 5, "这是一个没…"),
        // Entities are decoded, inline markup joins its text, blocks and line breaks separate it.
        ("<p>a &amp; b &lt;c&gt; &quot;d&quot; &#39;e&#39; &#x263A;</p>", 60, "a & b <c> \"d\" 'e' ☺"),
        ("<p>un<em>believ</em>able</p><p>next<br>line</p>", 60, "unbelievable next line"),
        // A Discourse quote, as its sanitised HTML: no markup leaks into a breadcrumb.
        ("<aside class=\"quote no-group\" data-username=\"sam\"><blockquote><p>If they are not happy</p></blockquote></aside><p>reply</p>", 60,
         "If they are not happy reply"),
    ])
    func cut(_ body: String, _ limit: Int, _ expected: String) {
        #expect(PageNavigation.excerpt(HTML(trusted: body), limit: limit) == expected)
    }

    @Test("Markdown, HTML and text bodies of the same words give the same excerpt")
    func sameText() throws {
        let renderer = try ThreadRenderer(options: ArchiveOptions())
        let markdown = renderer.body("**Fold** the _replies_ & keep [links](https://example.org)", .markdown)
        let html = renderer.body("<p><b>Fold</b> the <i>replies</i> &amp; keep <a href=\"https://example.org\">links</a></p>", .html)
        let text = renderer.body("Fold the replies & keep links", .text)
        #expect(PageNavigation.excerpt(markdown) == "Fold the replies & keep links")
        #expect(PageNavigation.excerpt(html) == "Fold the replies & keep links")
        #expect(PageNavigation.excerpt(text) == "Fold the replies & keep links")
    }
}
