import Testing
@testable import ThreadfoldKit

@Suite("HTML sanitizer")
struct HTMLSanitizerTests {
    func clean(_ html: String) -> String { HTMLSanitizer().sanitize(html).raw }

    @Test("allowed markup survives, attributes other than a checked href do not")
    func allowed() {
        #expect(clean(#"<p class="x" style="color:red">Hi <b>there</b> <i>you</i></p>"#) == "<p>Hi <strong>there</strong> <em>you</em></p>")
        #expect(clean("<pre><code>let x = 1 &lt; 2</code></pre>") == "<pre><code>let x = 1 &lt; 2</code></pre>")
        #expect(clean("<ul><li>a<li>b</ul>") == "<ul><li>a</li><li>b</li></ul>")
        #expect(clean("<h1>Big</h1><h4>Small</h4>") == "<h3>Big</h3><h4>Small</h4>")
        #expect(clean("a<br>b<hr>") == "<p>a<br>b</p><hr>")
        #expect(clean("First paragraph<p>Second") == "<p>First paragraph</p><p>Second</p>") // Hacker News' shape
        #expect(clean(#"<a href="https://x.example/?a=1&amp;b=2" onclick="evil()" target="_blank">link</a>"#)
            == #"<a rel="nofollow ugc noopener" href="https://x.example/?a=1&amp;b=2">link</a>"#)
    }

    @Test("hostile markup keeps its text and none of the danger", arguments: [
        ("<script>alert(1)</script>safe", "<p>safe</p>"),
        ("<p onclick=alert(1) onmouseover='x'>text</p>", "<p>text</p>"),
        ("<a href=\"javascript:alert(1)\">click</a>", "click"),
        ("<a href=\"  JaVaScRiPt:alert(1)\">click</a>", "click"),
        ("<a href=\"java&#x09;script:alert(1)\">click</a>", "click"),
        ("<a href=\"&#106;avascript:alert(1)\">click</a>", "click"),
        ("<a href=\"data:text/html,<script>alert(1)</script>\">click</a>", "click"),
        ("<a href=\"vbscript:msgbox\">click</a>", "click"),
        ("<style>body{display:none}</style>visible", "<p>visible</p>"),
        ("<iframe src=\"https://evil.example\">inner</iframe>after", "after"),
        ("<svg><script>alert(1)</script><text>svg text</text></svg>after", "after"),
        ("<math><mi>x</mi></math>after", "after"),
        ("<img src=x onerror=alert(1) alt=\"a picture\">", "a picture"),
        ("<div><span style=\"x\">kept</span></div>", "kept"),
        ("<b><i>unclosed", "<strong><em>unclosed</em></strong>"),
        ("<p>a</b>b</i></p>", "<p>ab</p>"),
        ("<form action=x><input value=secret><button>Go</button>label</form>", "label"),
        ("</details></summary><script>x</script>", ""),
        ("<object data=x>fallback</object><embed src=x>", ""),
        ("<template><p>hidden</p></template>shown", "shown"),
        ("<noscript><p>n</p></noscript>ok", "ok"),
        ("<!-- comment --><p>c</p>", "<p>c</p>"),
        ("<a href=\"/relative\">rel</a>", "<a rel=\"nofollow ugc noopener\" href=\"/relative\">rel</a>"),
        ("&lt;script&gt;", "<p>&lt;script&gt;</p>"),
        ("\"quotes\" & 'apostrophes'", "<p>&quot;quotes&quot; &amp; &#39;apostrophes&#39;</p>"),
    ])
    func hostile(_ input: String, _ expected: String) {
        let output = clean(input)
        #expect(output == expected)
        let lower = output.lowercased()
        for needle in ["<script", "<iframe", "<svg", "<math", "<style", "<img", "onerror", "onclick", "javascript:", "<object", "<embed", "<form", "<input"] {
            #expect(!lower.contains(needle), "\(needle) in \(output)")
        }
    }

    @Test("deeply nested HTML does not crash")
    func deep() {
        let html = String(repeating: "<blockquote>", count: 5_000) + "deep" + String(repeating: "</blockquote>", count: 5_000)
        let output = clean(html)
        #expect(output.contains("deep"))
        // Nesting is capped; the tags that remain are balanced.
        #expect(output.components(separatedBy: "<blockquote>").count - 1 == HTMLSanitizer.nestingLimit)
        #expect(output.components(separatedBy: "<blockquote>").count == output.components(separatedBy: "</blockquote>").count)
    }

    @Test("empty and whitespace bodies")
    func empty() {
        #expect(clean("") == "")
        #expect(clean("   ") == "")
    }
}
