import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

/// Every payload of the hostile corpus in every field a page shows, each a named test case.
/// The rendered page is tokenised and every tag, attribute and URL checked against an allowlist.
@Suite("Hostile input")
struct HostileInputTests {
    /// The tags a page may contain in its content, each with the attributes it may carry.
    static let allowed: [String: Set<String>] = [
        "h1": ["itemprop"], "h2": ["class"], "h3": [], "h4": [], "h5": [], "h6": [], "p": ["class"], "br": [], "hr": [],
        "em": [], "strong": [], "code": ["class"], "pre": [], "blockquote": [], "ul": [], "ol": ["class", "start"], "li": ["class"],
        "del": [], "sup": [], "sub": [], "a": ["rel", "href", "title", "class"], "img": ["loading", "src", "alt", "title", "width", "height"],
        "bdi": ["class", "itemprop"], "time": ["datetime", "itemprop"], "main": ["class", "data-expand-label", "data-collapse-label"],
        "article": ["class", "id", "itemprop", "itemscope", "itemtype"], "header": ["class"], "abbr": ["class", "title"],
        "span": ["class", "itemprop", "itemscope", "itemtype", "aria-hidden", "tabindex"], "div": ["class", "itemprop", "tabindex"],
        "meta": ["itemprop", "content"], "details": ["class", "open"], "summary": [],
        "table": [], "thead": [], "tbody": [], "tr": [], "th": ["class"], "td": ["class"], "input": ["type", "checked", "disabled", "aria-label"],
    ]

    static func render(_ payload: String, flavor: MarkdownFlavor? = nil) throws -> String {
        func comment(_ id: String, parent: String? = nil, format: BodyFormat) -> CommentRecord {
            var record = CommentRecord(
                id: CommentID(id), parentID: parent.map(CommentID.init), author: payload, body: payload,
                createdAt: Timestamp(unix: 1_700_000_000), authorFlair: payload)
            record.bodyFormat = format
            return record
        }
        var thread = ThreadRecord(
            id: CommentID("t"), title: payload, author: payload, url: payload, lang: payload,
            comments: [
                comment(payload, format: .markdown), comment("h", parent: payload, format: .html),
                comment("x", parent: "h", format: .text), comment("o", parent: "missing", format: .markdown),
            ],
            file: "hostile.json")
        thread.info.body = payload
        thread.info.markdownFlavor = flavor
        var options = RenderOptions()
        options.layout = LayoutOptions(preview: 1, openDepth: 1, maxDepth: 1)
        return String(decoding: try ThreadPipeline(options: ArchiveOptions(render: options)).page(thread).html, as: UTF8.self)
    }

    /// Decodes the entities our escaping and cmark's produce, as a browser would read an attribute.
    static func attributeValue(_ raw: String) -> String {
        var value = raw
        for (entity, character) in [("&quot;", "\""), ("&#39;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")] {
            value = value.replacingOccurrences(of: entity, with: character)
        }
        return value
    }

    /// Problems in `html`, tag by tag; empty when everything is on the allowlist.
    static func problems(_ html: String, allowed: [String: Set<String>] = allowed) -> [String] {
        var found: [String] = []
        let bytes = Array(html.utf8)
        var i = 0
        func name(_ at: inout Int) -> String {
            let start = at
            while at < bytes.count, (bytes[at] >= 97 && bytes[at] <= 122) || (bytes[at] >= 48 && bytes[at] <= 57) || bytes[at] == 45 { at += 1 }
            return String(decoding: bytes[start..<at], as: UTF8.self)
        }
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "<") else {
                i += 1
                continue
            }
            i += 1
            // cmark replaces raw HTML with exactly this comment; any other comment is a finding.
            let omitted = Array("!-- raw HTML omitted -->".utf8)
            if bytes.count - i >= omitted.count, Array(bytes[i..<(i + omitted.count)]) == omitted {
                i += omitted.count
                continue
            }
            let closing = i < bytes.count && bytes[i] == UInt8(ascii: "/")
            if closing { i += 1 }
            let tag = name(&i)
            guard let attributes = allowed[tag] else {
                found.append("tag <\(closing ? "/" : "")\(tag)>")
                continue
            }
            while i < bytes.count && bytes[i] != UInt8(ascii: ">") {
                if bytes[i] == 0x20 || bytes[i] == UInt8(ascii: "/") {
                    i += 1
                    continue
                }
                let attribute = name(&i)
                guard !attribute.isEmpty else {
                    found.append("malformed <\(tag)>")
                    break
                }
                if !attributes.contains(attribute) { found.append("attribute \(attribute) on <\(tag)>") }
                guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { continue }  // a bare attribute (open)
                guard i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "\"") else {
                    found.append("unquoted \(attribute) on <\(tag)>")
                    break
                }
                let start = i + 2
                guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\"")) else {
                    found.append("unterminated \(attribute)")
                    break
                }
                let value = attributeValue(String(decoding: bytes[start..<end], as: UTF8.self))
                if attribute == "href", !URLPolicy.allowsLink(value) { found.append("href \(value)") }
                if attribute == "src", !URLPolicy.allowsImage(value) { found.append("src \(value)") }
                if attribute == "id", !(value.hasPrefix("c-") || value.hasPrefix("c_")) || value.contains(where: { !$0.isASCII || !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
                    found.append("id \(value)")
                }
                i = end + 1
            }
            i += 1
        }
        return found
    }

    @Test("the corpus holds at least 200 payloads")
    func corpusSize() {
        #expect(HostileCorpus.all.count >= 200)
    }

    @Test(
        "a payload in every field comes out as text, read as GFM and as Reddit Markdown",
        arguments: HostileCorpus.all, [MarkdownFlavor.gfm, .reddit])
    func payload(_ payload: HostileCorpus.Payload, _ flavor: MarkdownFlavor) throws {
        let page = try Self.render(payload.text, flavor: flavor)
        let body = content(of: page)
        let issues = Self.problems(body)
        #expect(issues.isEmpty, "\(issues.prefix(5))")
        // The head: the title is text, the lang attribute a language tag.
        let title = page.components(separatedBy: "<title>")[1].components(separatedBy: "</title>")[0]
        #expect(!title.contains("<"))
        #expect(page.contains("<html lang=\"en\" dir=\"ltr\">"))
        // Structure survives: every fold closes.
        #expect(body.components(separatedBy: "<details").count == body.components(separatedBy: "</details>").count)
    }

    @Test("the checker itself finds planted markup")
    func checkerWorks() {
        #expect(!Self.problems("<p onclick=\"x\">a</p>").isEmpty)
        #expect(!Self.problems("<a href=\"javascript:alert(1)\">a</a>").isEmpty)
        #expect(!Self.problems("<script>alert(1)</script>").isEmpty)
        #expect(!Self.problems("<img src=\"data:x\">").isEmpty)
        #expect(!Self.problems("<article id=\"x y\">").isEmpty)
        #expect(!Self.problems("<!-- <script> -->").isEmpty)
        #expect(Self.problems("<p><!-- raw HTML omitted --></p>").isEmpty)
        #expect(Self.problems("<p class=\"tf-note\">fine &lt;script&gt;</p><a rel=\"nofollow ugc noopener\" href=\"https://ok.example/?a=1&amp;b=2\">x</a>").isEmpty)
    }
}

@Suite("Hostile input in a browser")
struct HostileBrowserTests {
    @Test(
        "the whole corpus on one page runs no script in Chromium, leaves only allowed elements, and is valid HTML",
        .enabled(if: ExternalTools.runs(when: ExternalTools.hasBrowser && ExternalTools.hasChecker)))
    func corpusInBrowser() throws {
        let fm = FileManager.default
        try #require(ExternalTools.hasBrowser, "chromium and chromium-driver are missing (make test installs them)")
        // Every payload as a comment: in its author, flair, id and body; every other one as HTML.
        var comments: [CommentRecord] = []
        for (n, payload) in HostileCorpus.all.enumerated() {
            var comment = CommentRecord(
                id: CommentID(payload.text + "#\(n)"), parentID: n % 3 == 2 ? comments.last?.id : nil,
                author: payload.text, body: payload.text, authorFlair: payload.text)
            comment.bodyFormat = n % 2 == 0 ? .markdown : .html
            comments.append(comment)
        }
        var thread = ThreadRecord(
            title: HostileCorpus.all.map(\.text).joined(separator: " "), author: "<script>alert(1)</script>",
            url: "javascript:alert(1)", comments: comments, file: "corpus.json")
        thread.info.body = HostileCorpus.all.map(\.text).joined(separator: "\n\n")
        var options = RenderOptions()
        options.layout = LayoutOptions(preview: 3, openDepth: 0, maxDepth: 2)
        let page = try ThreadPipeline(options: ArchiveOptions(render: options)).page(thread).html
        let folder = fm.temporaryDirectory.appendingPathComponent("tf-corpus-\(UUID().uuidString)")
        try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: folder) }
        try Data(page).write(to: folder.appendingPathComponent("corpus.html"))
        for asset in try ResourceStore().assets() { try Data(asset.bytes).write(to: folder.appendingPathComponent(asset.name)) }

        let (status, report) = try ExternalTools.run(
            "/usr/bin/env",
            [
                "python3", TestPaths.repository.appendingPathComponent("Tests/Browser/browser_tests.py").path,
                "--site", folder.path, "--hostile", "corpus.html",
            ])
        #expect(status == 0, "\(report)")
        #expect(report.contains("4 passed, 0 failed"), "\(report)")

        // The same page through the W3C Nu checker.
        let jar = try #require(ExternalTools.vnuJar(), "the Nu checker is missing (make test installs it)")
        let (valid, validation) = try ExternalTools.validate(folder.path, jar: jar)
        #expect(valid == 0, "Nu checker:\n\(validation.prefix(2000))")
    }
}
