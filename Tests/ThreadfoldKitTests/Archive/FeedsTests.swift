import Foundation
import Testing

@testable import ThreadfoldKit

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("Atom feeds")
struct FeedsTests {
    @Test("a thread's feed carries a capped plain-text excerpt of each comment, not its body")
    func excerpts() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // One 4 MB comment of Markdown, and a short one.
        let words = String(repeating: "**lorem** ipsum dolor [sit](https://example.org) amet, ", count: 64_000)
        let thread =
            #"{"id": "big", "title": "Big", "comments": [{"id": "1", "author": "a", "created_at": 1700000000, "body": "\#(words)"}, {"id": "2", "parent_id": "1", "author": "b", "created_at": 1700000060, "body": "Short & *sweet*"}]}"#
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

    @Test(
        "excerpts are the rendered body's text, cut at a word boundary with an ellipsis",
        arguments: [
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
            (
                "<aside class=\"quote no-group\" data-username=\"sam\"><blockquote><p>If they are not happy</p></blockquote></aside><p>reply</p>", 60,
                "If they are not happy reply"
            ),
        ])
    func cut(_ body: String, _ limit: Int, _ expected: String) {
        #expect(PageNavigation.excerpt(HTML(trusted: body), limit: limit) == expected)
    }

    @Test("the excerpt agrees with the scalar-by-scalar reference on every shape: tags, entities, Unicode space, CJK, caps and cuts")
    func agreesWithReference() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(n))
        }
        let pieces = [
            "<p>", "</p>", "<em>", "</em>", "<br>", "<a href=\"x\">", "</a>", "<STRONG>", "<h3>", "<Ünïcode>", "<", ">", "&amp;", "&lt;",
            "&#x263A;", "&#39;", "&nbsp;", "&bogus;", "&", ";", " ", "  ", "\n", "\t", "\u{00A0}", "\u{3000}", "\u{2003}", "word",
            "longerword", "这是", "一个", "é", "😀", "x", "<code>", "</code>", "<blockquote>", "&#1234567;", "&#x;",
        ]
        for round in 0..<3_000 {
            var body = ""
            for _ in 0..<next(40) { body += pieces[next(pieces.count)] }
            let limit = [1, 2, 5, 9, 20, 60, 1_000][round % 7]
            #expect(
                PageNavigation.excerpt(HTML(trusted: body), limit: limit) == ReferenceExcerpt.reference(HTML(trusted: body), limit: limit),
                "\(body.debugDescription) at \(limit)")
        }
        // Runs of ASCII words with single spaces, which go in whole while they fit: cut before,
        // inside and after each word, with a tag, an entity or a double space now and then.
        // "!" and "\u{1F}" sit next to the space in byte value, where an eight-byte test could
        // be fooled by a borrow.
        let words = ["a", "to", "the", "word", "longerword", "x-y", "(z)", "end.", "!bang", "ok!", "\u{1F}", "a\u{7F}b", "!!"]
        for round in 0..<3_000 {
            var body = ""
            for k in 0..<(1 + next(30)) {
                if k > 0 { body += next(12) == 0 ? ["  ", "\n", "<p>", "<em>", "&amp;", " é "][next(6)] : " " }
                body += words[next(words.count)]
            }
            let limit = 1 + (round % 3 == 0 ? next(12) : next(body.unicodeScalars.count + 4))
            #expect(
                PageNavigation.excerpt(HTML(trusted: body), limit: limit) == ReferenceExcerpt.reference(HTML(trusted: body), limit: limit),
                "\(body.debugDescription) at \(limit)")
        }
        // Past the cap on work: 64 × limit + 4096 scalars of markup, then text.
        let long = String(repeating: "<b>", count: 1_500) + "text after"
        #expect(PageNavigation.excerpt(HTML(trusted: long), limit: 5) == ReferenceExcerpt.reference(HTML(trusted: long), limit: 5))
    }

    @Test("the inline tags are exactly the listed names: every name of up to four letters, and the longer ones")
    func inlineTags() {
        // A tag name packed a byte at a time, as `excerpt` packs it.
        func packed(_ name: String) -> UInt64 { name.utf8.reduce(0) { $0 << 8 | UInt64($1) } }
        let inline = Set(PageNavigation.inlineNames)
        let letters = Array("abcdefghijklmnopqrstuvwxyz").map(String.init)
        var names = letters
        var mismatches: [String] = []
        for _ in 1...4 {
            for name in names where PageNavigation.isInline(packed(name)) != inline.contains(name) { mismatches.append(name) }
            if names.count < 26 * 26 * 26 * 26 { names = names.flatMap { name in letters.map { name + $0 } } }
        }
        #expect(mismatches.isEmpty)
        for name in ["small", "strong", "blockquote", "strike", "script", "smalls", "strongs", "summary"] {
            #expect(PageNavigation.isInline(packed(name)) == inline.contains(name), "\(name)")
        }
        #expect(!PageNavigation.isInline(0))
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

/// The scalar-array excerpt the byte-at-a-time one replaced, kept as the oracle the new one must
/// agree with on every input.
enum ReferenceExcerpt {
    static func reference(_ body: HTML, limit: Int = 60) -> String {
        var out = String.UnicodeScalarView()
        var count = 0
        var space = false
        /// Scalars written since the last space written, or nil before the first.
        var sinceSpace: Int?
        var full = false
        func put(_ scalar: Unicode.Scalar) {
            // ASCII answered without Unicode's property tables, which cost more than the rest.
            if scalar.value < 0x80 ? (scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value)) : scalar.properties.isWhitespace {
                space = !out.isEmpty
                return
            }
            if count >= limit {
                // Cut back to the last space unless the text ends at a word boundary already.
                if !space, let word = sinceSpace, count - word - 1 >= limit / 2 {
                    out.removeLast(word + 1)
                }
                out.append("…")
                full = true
                return
            }
            if space {
                out.append(" ")
                count += 1
                space = false
                sinceSpace = 0
            }
            out.append(scalar)
            count += 1
            sinceSpace = sinceSpace.map { $0 + 1 }
        }
        let scalars = Array(body.raw.unicodeScalars.prefix(64 * limit + 4096))
        var i = 0
        while i < scalars.count && !full {
            let scalar = scalars[i]
            if scalar == "<" {
                // A tag: inline ones join their text; every other one (blocks, <br>) is a space.
                var j = i + 1
                if j < scalars.count && scalars[j] == "/" { j += 1 }
                var name = ""
                while j < scalars.count,
                    scalars[j].value < 0x80
                        ? (("a"..."z").contains(scalars[j]) || ("A"..."Z").contains(scalars[j]) || ("0"..."9").contains(scalars[j]))
                        : scalars[j].properties.isAlphabetic
                {
                    name.unicodeScalars.append(scalars[j])
                    j += 1
                }
                while j < scalars.count && scalars[j] != ">" { j += 1 }
                if !Self.inline.contains(name.lowercased()) { space = !out.isEmpty }
                i = j + 1
                continue
            }
            if scalar == "&", let (decoded, length) = Self.entity(scalars, i) {
                put(decoded)
                i += length
                continue
            }
            put(scalar)
            i += 1
        }
        // A body whose first stretch is all markup: what was read is what there is to show.
        if !full && scalars.count == 64 * limit + 4096 && !out.isEmpty { out.append("…") }
        return String(out)
    }

    static let inline: Set<String> = [
        "a", "abbr", "b", "bdi", "cite", "code", "del", "em", "i", "kbd", "mark", "q",
        "s", "samp", "small", "span", "strong", "sub", "sup", "u", "ins", "time",
    ]

    static func entity(_ scalars: [Unicode.Scalar], _ i: Int) -> (Unicode.Scalar, Int)? {
        var j = i + 1
        var name = ""
        while j < scalars.count, j - i <= 10, scalars[j] != ";" {
            name.unicodeScalars.append(scalars[j])
            j += 1
        }
        guard j < scalars.count, scalars[j] == ";" else { return nil }
        let length = j - i + 1
        switch name {
        case "amp": return ("&", length)
        case "lt": return ("<", length)
        case "gt": return (">", length)
        case "quot": return ("\"", length)
        case "#39", "apos": return ("'", length)
        case "nbsp": return (" ", length)
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value = digits.hasPrefix("x") || digits.hasPrefix("X") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            return value.flatMap(Unicode.Scalar.init).map { ($0, length) }
        }
    }
}
