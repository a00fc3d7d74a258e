import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

@Suite("PlainMarkdown")
struct PlainMarkdownTests {
    /// Every flavour, with soft breaks as cmark writes them and as `<br />`.
    static let modes: [(flavor: MarkdownFlavor, hardBreaks: Bool)] =
        MarkdownFlavor.allCases.flatMap { flavor in [(flavor, false), (flavor, true)] }

    /// What the whole cmark path (cmark, the flavour's extensions, the URL checks) makes of `text`.
    func cmark(_ text: String, _ flavor: MarkdownFlavor, _ hardBreaks: Bool) -> String? {
        MarkdownRenderer().renderWithCmark(HTML.scrub(text), flavor: flavor, hardBreaks: hardBreaks, spoilerLabel: "Spoiler")?.raw
    }

    func plain(_ text: String, _ flavor: MarkdownFlavor = .gfm, _ hardBreaks: Bool = false) -> String? {
        MarkdownRenderer.plainParagraphs(HTML.scrub(text), flavor: flavor, hardBreaks: hardBreaks)?.raw
    }

    @Test(
        "plain paragraphs come out as cmark writes them",
        arguments: [
            "", "\n", "\n\n  \n", "One line.", "One line.\n", "Two\nlines", "Two \nlines", "Hard  \nbreak", "Hard     \nbreak",
            "Trailing spaces   ", "Trailing  \n\nparagraph", "First.\n\nSecond.\n\n\nThird.", "Blank line with spaces\n   \nafter",
            "\"Quoted\" and 'single' quotes", "Non-ASCII: café, 😄, \u{00A0}no-break\u{00A0}, \u{3000}wide", "2020 was a year. 3 of 4",
            "Costs $5 (or 10%)? Yes! Wait: no.", "a\u{2028}b", "e.g. this, i.e. that", "x\n\n\n",
            // HTML forbids these; the scrub before either path makes them U+FFFD.
            "\u{7F}", "a\u{0}b", "\u{FFFE}",
            // A byte-order mark past the body's first bytes is text to cmark too.
            "a\u{FEFF}b", "a\n\u{FEFF}# b",
        ])
    func matches(_ text: String) throws {
        for (flavor, hardBreaks) in Self.modes {
            let fast = try #require(plain(text, flavor, hardBreaks), "refused \(text.debugDescription)")
            #expect(fast == cmark(text, flavor, hardBreaks), "\(flavor) hardBreaks \(hardBreaks): \(text.debugDescription)")
        }
    }

    @Test(
        "whatever may be Markdown goes to cmark",
        arguments: [
            "*a*", "_a_", "`a`", "a\\b", "[a]", "a]", "<b>", "a > b", "&amp;", "a | b", "~~a~~", "^a", "a\tb", "a\r\nb",
            "# Heading", "- item", "+ item", "* item", "Setext\n===", "Setext\n---", "1. one", "12) twelve", "x\n2. two",
            "    code", " one space", "a\n  indented continuation",
            // cmark drops a byte-order mark at the start and reads what follows as a line's start.
            "\u{FEFF}", "\u{FEFF}hello", "\u{FEFF}# Heading", "\u{FEFF}- item",
        ])
    func refuses(_ text: String) {
        for (flavor, hardBreaks) in Self.modes {
            #expect(plain(text, flavor, hardBreaks) == nil, "\(flavor): \(text.debugDescription)")
        }
    }

    @Test("what the extensions link goes to cmark, in the flavours that have them")
    func extensions() {
        for text in ["see https://example.org", "www.example.org", "mail me@example.org"] {
            #expect(plain(text, .gfm) == nil && plain(text, .reddit) == nil)
            #expect(plain(text, .commonmark) == cmark(text, .commonmark, false))
        }
        for text in ["see r/swift", "thanks u/someone"] {
            #expect(plain(text, .reddit) == nil)
            #expect(plain(text, .gfm) == cmark(text, .gfm, false))
        }
    }

    /// Bodies of words, spaces, line ends and punctuation, with now and then a byte or a line
    /// start that may be Markdown.
    static func randomBody(_ generator: inout SplitMix64) -> String {
        let common = [
            "word", "The", "don't", "e.g.", "3", "2020", "1.5", "r", "u", "www", "http", "x:", ":)", "(", ")", "!", "?",
            "\"", "'", ",", ".", "é", "😄", "\u{00A0}", "\u{3000}", "/", "@", "%", "$", "{", "}", ";",
        ]
        let spaces = [" ", " ", " ", "  ", "   ", "\n", "\n", "\n\n", "\n \n", " \n", "  \n"]
        let rare = [
            "*", "_", "`", "#", "-", "+", "=", ">", "<", "&", "|", "~", "^", "\t", "\r", "\\", "[", "]", "1.", "2)",
            "\u{0}", "\u{7F}", "\u{FFFE}", "\u{FEFF}", "r/a", "u/b", "a@b", "www.x", "http://x",
        ]
        var text = ""
        for _ in 0..<(1 + Int(generator.next() % 40)) {
            switch generator.next() % 100 {
            case 0..<2: text += rare[Int(generator.next() % UInt64(rare.count))]
            case 2..<40: text += spaces[Int(generator.next() % UInt64(spaces.count))]
            default: text += common[Int(generator.next() % UInt64(common.count))]
            }
        }
        return text
    }

    @Test("random bodies: every one it takes, it renders as cmark does")
    func random() {
        var generator = SplitMix64(seed: 20261203)
        var taken = 0, refused = 0
        for _ in 0..<5_000 {
            let text = Self.randomBody(&generator)
            let (flavor, hardBreaks) = Self.modes[Int(generator.next() % UInt64(Self.modes.count))]
            guard let fast = plain(text, flavor, hardBreaks) else {
                refused += 1
                continue
            }
            taken += 1
            let slow = cmark(text, flavor, hardBreaks)
            #expect(fast == slow, "\(flavor) hardBreaks \(hardBreaks): \(text.debugDescription)")
            if fast != slow { return }
        }
        // Both sides are exercised (about two bodies in five are taken).
        #expect(taken > 1_500 && refused > 1_500, "taken \(taken), refused \(refused)")
    }

    @Test("real Reddit comments: those it takes come out as cmark writes them")
    func realComments() throws {
        let document = try JSONDocument(bytes: TestData.bytes("fixtures/reddit-listing/comments.json"))
        var bodies: [String] = []
        func walk(_ index: Int) {
            switch document.kind(index) {
            case .object:
                document.forEachMember(index) { key, member in
                    if key == "body", document.kind(member) == .string { bodies.append(document.string(member)) } else { walk(member) }
                }
            case .array: document.forEachElement(index) { _, element in walk(element) }
            default: break
            }
        }
        walk(0)
        let renderer = MarkdownRenderer()
        var taken = 0
        for body in bodies {
            // Reddit's API sends `&gt;`, `&lt;` and `&amp;` for what was typed; its importer decodes them.
            let text = body.replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&amp;", with: "&")
            #expect(renderer.render(text, sourceFlavor: .reddit).raw == cmark(text, .reddit, false))
            if plain(text, .reddit) != nil { taken += 1 }
        }
        #expect(bodies.count == 25 && taken >= 12, "\(bodies.count) bodies, \(taken) taken")
    }

    @Test("render uses it only without the smart option, which changes quotes and dashes")
    func smart() {
        var options = MarkdownOptions()
        options.smart = true
        #expect(MarkdownRenderer(options: options).render("\"Quoted\" -- it's").raw == "<p>“Quoted” – it’s</p>\n")
        #expect(MarkdownRenderer().render("\"Quoted\" -- it's").raw == "<p>&quot;Quoted&quot; -- it's</p>\n")
    }
}
