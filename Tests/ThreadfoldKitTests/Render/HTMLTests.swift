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
}
