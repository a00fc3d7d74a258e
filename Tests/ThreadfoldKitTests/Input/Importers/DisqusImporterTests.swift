import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

@Suite("Disqus XML exports")
struct DisqusImporterTests {
    static func read(_ xml: String, options: ImportOptions = ImportOptions()) throws(ThreadfoldError) -> ImportResult {
        try Importer.read(bytes: Array(xml.utf8), file: "export.xml", options: options)
    }

    @Test("the fixture: recognised, a thread per thread with posts, replies by parent, deleted as placeholders, spam left out with its reply kept under the spam's parent")
    func fixture() throws {
        let result = try Importer.read(bytes: TestData.bytes("fixtures/disqus-export/export.xml"), file: "export.xml")
        #expect(result.format == .disqus && result.detected)
        #expect(result.threads.map { $0.info.id?.string } == ["7200100001", "7200100002"])
        let first = result.threads[0], second = result.threads[1]
        #expect(first.info.title == "Why we moved our comments to static pages" && first.info.category == "General")
        #expect(first.info.url == "https://blog.example.org/2023/10/static-archives/" && first.info.author == "Example Blog")
        #expect(first.info.body == "<p>Comments migrated from the old blog engine.</p>" && first.info.bodyFormat == .html)
        #expect(first.info.createdAt == Timestamp(iso: "2023-10-02T08:15:00Z") && first.info.sourceFormat == "disqus")
        #expect(second.info.title == "Release 1.2: orders & feeds" && second.info.category == "Release notes" && second.info.body == nil)
        #expect(first.comments.map(\.id.string) == ["5100000001", "5100000002", "5100000004", "5100000005", "5100000008"])
        let parents = first.comments.map { $0.parentID?.string ?? "-" }
        #expect(parents == ["-", "5100000001", "-", "5100000004", "5100000001"])
        #expect(first.comments[2].deleted && first.comments[2].body.isEmpty)
        #expect(first.comments[3].author == "Cy" && first.comments[3].body.contains("feeds</em>. There is one per thread &amp; one"))
        #expect(first.comments.allSatisfy { $0.bodyFormat == .html })
        #expect(second.comments.map { $0.parentID?.string ?? "-" } == ["-", "5100000006"])
        let kinds = result.skipped.map { $0.kind ?? "" }
        #expect(kinds == ["spam", "emptyThread"])
        #expect(result.skipped[0].description == "export.xml:93:3: warning: /disqus/post[2]: is marked as spam (isSpam); left out")
        #expect(result.skipped[1].message == "1 thread without posts left out")

        let renderer = try ThreadPipeline(options: ArchiveOptions())
        let page = String(decoding: try renderer.page(first).html, as: UTF8.self)
        #expect(page.contains(#"<a rel="nofollow ugc noopener" href="https://example.net/tools/archiver">our archiver</a>"#))
        #expect(page.contains("try_files $uri $uri/index.html =404;") && page.contains("<pre>"))
        #expect(!page.contains("Cheap watches") && !page.contains("Deleted by its author"))
        let other = String(decoding: try renderer.page(second).html, as: UTF8.self)
        #expect(!other.contains("<script>alert") && other.contains("<code>SHA256SUMS</code>"))
        // A message about a post names its element and line.
        #expect(first.message(about: 1, "x").description.hasPrefix("export.xml:75:3: error: /disqus/post[1]: x"))
    }

    @Test("recognised after a byte order mark, white space, the XML declaration and comments; --from disqus on JSON is an error")
    func detection() throws {
        let body = #"<disqus xmlns:dsq="x"><thread dsq:id="t"><title>T</title></thread><post dsq:id="p"><message>hi</message><thread dsq:id="t"/></post></disqus>"#
        for prefix in ["", "\u{FEFF}", "\n  ", #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n<!-- exported -->\n"] {
            let result = try Self.read(prefix + body)
            #expect(result.format == .disqus && result.threads.count == 1 && result.threads[0].comments[0].body == "hi", "\(prefix.debugDescription)")
        }
        #expect(!DisqusImporter.recognises(Array("<disqusx/>".utf8)) && !DisqusImporter.recognises(Array("<rss/>".utf8)))
        let json = try #require(throws: ThreadfoldError.self) { try Self.read(#"{"comments": []}"#, options: ImportOptions(format: .disqus)) }
        #expect(json.problems[0].description.hasPrefix("export.xml:1:1: error: expected a Disqus XML export, which starts with <disqus>"))
    }

    @Test("a billion laughs is refused at its document type declaration, before any entity is expanded")
    func billionLaughs() throws {
        var xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE disqus [\n<!ENTITY lol \"lol\">\n"
        var previous = "lol"
        for level in 1...9 {
            xml += "<!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">\n"
            previous = "lol\(level)"
        }
        xml += "]>\n<disqus><thread dsq:id=\"t\"><title>&lol9;</title></thread><post dsq:id=\"p\"><message>&lol9;</message><thread dsq:id=\"t\"/></post></disqus>"
        let start = ContinuousClock.now
        let errors = try #require(throws: ThreadfoldError.self) { try Self.read(xml) }
        #expect(errors.problems[0].description.hasPrefix("export.xml:2:1: error: found a document type declaration (<!DOCTYPE>)"))
        #expect(ContinuousClock.now - start < .seconds(2))
        // An external entity is refused the same way; one never declared is a located error.
        let external = #"<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><disqus><post dsq:id="p"><message>&x;</message></post></disqus>"#
        #expect(throws: ThreadfoldError.self) { try Self.read(external) }
        let undeclared = try #require(throws: ThreadfoldError.self) { try Self.read("<disqus>\n<post dsq:id=\"p\"><message>&x;</message></post></disqus>") }
        #expect(undeclared.problems[0].description.hasPrefix("export.xml:2:30: error: found a reference to an entity that is not declared"))
    }

    @Test(
        "malformed XML is a located error, never a partial import",
        arguments: [
            ("<disqus>\n<post dsq:id=\"p\"><message>x</post></disqus>", "export.xml:2:"),
            ("<disqus><post dsq:id=\"p\"><message>x</message>", "export.xml:1:"),
            ("<disqus><post dsq:id=\"p\"><message>\u{1}</message></post></disqus>", "export.xml:1:"),
        ])
    func malformed(_ xml: String, _ prefix: String) throws {
        let errors = try #require(throws: ThreadfoldError.self) { try Self.read(xml) }
        #expect(errors.problems[0].description.hasPrefix(prefix), "\(errors.problems[0].description)")
        #expect(errors.problems[0].description.contains("(read as a Disqus XML export (<disqus>))"))
    }

    @Test(
        "attack: an attribute past libxml2's 10 MB limit, and other malformed XML, are said in words with line:column, never as a libxml2 error number",
        arguments: [
            (
                "<disqus>\n<thread dsq:id=\"1\" x=\"" + String(repeating: "a", count: 10_500_000) + "\"><title>t</title></thread></disqus>",
                "export.xml:2:", "found an attribute value or a name longer than libxml2 reads (10,000,000 bytes)"
            ),
            ("<disqus>\n<thread x=\"a<b\"/></disqus>", "export.xml:2:", "found '<' inside an attribute value; expected '&lt;'"),
            ("<disqus><thread a=\"1\" a=\"2\"/></disqus>", "export.xml:1:", "found an attribute given twice in one tag; expected each attribute once"),
        ])
    func wordsForCodes(_ xml: String, _ place: String, _ words: String) throws {
        let errors = try #require(throws: ThreadfoldError.self) { try Self.read(xml) }
        let message = errors.problems[0].description
        #expect(message.hasPrefix(place) && message.contains(words), "\(message)")
        #expect(!message.contains("libxml2 error"))
        #expect(message.split(separator: ":").count >= 4, "line and column: \(message)")
    }

    @Test("a text past 10 MB is read: the export is fed to libxml2 a chunk at a time")
    func longText() throws {
        let xml = "<disqus>\n<thread dsq:id=\"1\"><title>" + String(repeating: "a", count: 10_500_000) + "</title></thread></disqus>"
        let result = try Self.read(xml)
        #expect(result.threads.isEmpty && result.skipped.count == 1, "a thread without posts is left out, not refused")
    }

    @Test("every listed libxml2 code has its own sentence; an unlisted one still names the problem")
    func codeSentences() {
        #expect(XMLErrorText.describe(40).hasPrefix("found an attribute value that is not finished"))
        #expect(XMLErrorText.describe(9999) == "found malformed XML (libxml2 error 9999); expected a well-formed Disqus export")
        #expect(!XMLErrorText.describe(76).contains("libxml2 error"))
    }

    @Test("elements nested thousands deep are an error or ignored, never a crash")
    func deep() throws {
        let xml = "<disqus><post dsq:id=\"p\"><message>" + String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000) + "</message><thread dsq:id=\"t\"/></post></disqus>"
        do {
            let result = try Self.read(xml)
            #expect(result.threads.count <= 1)
        } catch {
            #expect(error.problems[0].line != nil)
        }
    }

    @Test("a chain of 10,000 spam posts under a real post, with 10,000 replies to its deepest: each reply answers the real post; a spam cycle answers where it closes")
    func disqusSpamChainIsLinear() throws {
        func post(_ id: String, parent: String?, spam: Bool) -> String {
            let answers = parent.map { #"<parent dsq:id="\#($0)"/>"# } ?? ""
            return #"<post dsq:id="\#(id)"><thread dsq:id="1"/>\#(answers)<message>m</message><isSpam>\#(spam)</isSpam><author><name>a</name></author></post>"#
        }
        var xml = #"<?xml version="1.0" encoding="utf-8"?><disqus xmlns:dsq="http://disqus.com/disqus-internals"><thread dsq:id="1"><title>T</title></thread>"#
        xml += post("real", parent: nil, spam: false)
        for k in 1...10_000 { xml += post("s\(k)", parent: k == 1 ? "real" : "s\(k - 1)", spam: true) }
        for k in 1...10_000 { xml += post("r\(k)", parent: "s10000", spam: false) }
        // Two spam posts answering each other, and a reply to one of them.
        xml += post("x1", parent: "x2", spam: true) + post("x2", parent: "x1", spam: true) + post("y", parent: "x1", spam: false)
        let result = try Self.read(xml + "</disqus>")
        let comments = try #require(result.threads.first).comments
        #expect(comments.count == 10_002 && result.skipped.count == 10_002)
        #expect(comments.dropFirst().dropLast().allSatisfy { $0.parentID == CommentID("real") })
        #expect(comments.last?.parentID == CommentID("x1"))
    }
}
