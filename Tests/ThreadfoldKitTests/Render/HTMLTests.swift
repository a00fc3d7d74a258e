import Foundation
import Testing

@testable import ThreadfoldKit

@Suite("HTML escaping")
struct HTMLTests {
    @Test("the five special characters are escaped; NUL becomes U+FFFD")
    func escaping() {
        #expect(HTML(escaping: #"<a href="x" onclick='y'>&amp;</a>"#).raw == "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;")
        #expect(HTML(escaping: "a\u{0}b").raw == "a\u{FFFD}b")
        #expect(HTML(escaping: "日本語 😀").raw == "日本語 😀")
    }

    /// A string of the given scalars (noncharacters cannot be written as Swift literals).
    static func text(_ scalars: UInt32...) -> String { String(String.UnicodeScalarView(scalars.map { Unicode.Scalar($0)! })) }

    static let forbiddenCases: [(String, String)] = [
        ("a\u{1}b", "a\u{FFFD}b"), ("\u{7F}", "\u{FFFD}"), ("\u{85}x", "\u{FFFD}x"), (text(0xFDD0), "\u{FFFD}"),
        (text(0xFFFE, 0xFFFF), "\u{FFFD}\u{FFFD}"), (text(0x1FFFE), "\u{FFFD}"), (text(0x10FFFF), "\u{FFFD}"),
        ("tab\tnl\ncr\rff\u{C}", "tab\tnl\ncr\rff\u{C}"), ("\u{A0}©°", "\u{A0}©°"), ("\u{FF01}\u{FFFD}", "\u{FF01}\u{FFFD}"),
        ("😀\u{1F600}", "😀😀"),
    ]

    @Test("code points HTML forbids become U+FFFD; allowed ones stay", arguments: forbiddenCases)
    func forbidden(_ input: String, _ expected: String) {
        #expect(HTML(escaping: input).raw == expected)
        #expect(HTML.scrub(input) == expected)
        let rendered = MarkdownRenderer().render(input).raw
        #expect(HTML.scrub(rendered) == rendered, "cmark's output still holds a forbidden code point")
    }

    @Test("escape finds each special and forbidden character at every offset of a printable run, eight bytes at a time or not")
    func escapeEveryOffset() {
        let cases: [(String, String)] = [
            ("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("\"", "&quot;"), ("'", "&#39;"),
            ("\u{0}", "\u{FFFD}"), ("\u{1F}", "\u{FFFD}"), ("\u{7F}", "\u{FFFD}"), ("\u{9F}", "\u{FFFD}"),
            (Self.text(0xFFFF), "\u{FFFD}"), ("\n", "\n"), ("é", "é"), ("😀", "😀"), ("~", "~"), (" ", " "),
        ]
        for (special, escaped) in cases {
            for offset in 0..<20 {
                let prefix = String(repeating: "a", count: offset)
                let suffix = String(repeating: "z", count: 19 - offset)
                #expect(HTML(escaping: prefix + special + suffix).raw == prefix + escaped + suffix, "\(special.debugDescription) at offset \(offset)")
                // Two in a row, and one on each side of an eight-byte word.
                #expect(HTML(escaping: prefix + special + special + suffix).raw == prefix + escaped + escaped + suffix)
            }
        }
        let printable = String(decoding: (0x20...0x7E).map { UInt8($0) }.filter { !"&<>\"'".utf8.contains($0) }, as: UTF8.self)
        #expect(HTML(escaping: printable + printable).raw == printable + printable)
    }

    @Test("scrub finds a forbidden code point at every offset of a long printable run, eight bytes at a time or not")
    func scrubEveryOffset() {
        let forbidden: [(String, String)] = [
            ("\u{0}", "\u{FFFD}"), ("\u{1F}", "\u{FFFD}"), ("\u{7F}", "\u{FFFD}"),
            ("\u{9F}", "\u{FFFD}"), (Self.text(0xFFFF), "\u{FFFD}"), ("\n", "\n"), ("é", "é"), ("~", "~"),
        ]
        for (bad, good) in forbidden {
            for offset in 0..<20 {
                let prefix = String(repeating: "a", count: offset)
                let suffix = String(repeating: "z", count: 19 - offset)
                #expect(HTML.scrub(prefix + bad + suffix) == prefix + good + suffix, "at offset \(offset)")
            }
        }
        // Bytes just inside the printable range stay: space, tilde, and every byte between.
        let printable = String(decoding: (0x20...0x7E).map { UInt8($0) }, as: UTF8.self)
        #expect(HTML.scrub(printable + printable) == printable + printable)
    }
}
