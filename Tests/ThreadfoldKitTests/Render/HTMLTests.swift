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
}
