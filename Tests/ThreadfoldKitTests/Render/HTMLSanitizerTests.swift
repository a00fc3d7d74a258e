import Testing

@testable import ThreadfoldKit

@Suite("HTML sanitizer")
struct HTMLSanitizerTests {
    func clean(_ html: String) -> String { HTMLSanitizer().sanitize(html).raw }

    @Test("allowed markup survives, attributes other than a checked href do not")
    func allowed() {
        #expect(clean(#"<p class="x" style="color:red">Hi <b>there</b> <i>you</i></p>"#) == "<p>Hi <strong>there</strong> <em>you</em></p>")
        #expect(clean("<pre><code>let x = 1 &lt; 2</code></pre>") == "<pre>\n<code>let x = 1 &lt; 2</code></pre>")
        // A leading blank line in <pre> survives the parser and the browser.
        #expect(clean("<pre>\n\nx</pre>") == "<pre>\n\nx</pre>")
        #expect(clean("<ul><li>a<li>b</ul>") == "<ul><li>a</li><li>b</li></ul>")
        // Headings keep their levels: `HeadingLevels` fits them into the page.
        #expect(clean("<h1>Big</h1><h4>Small</h4>") == "<h1>Big</h1><h4>Small</h4>")
        #expect(clean("a<br>b<hr>") == "<p>a<br>b</p><hr>")
        #expect(clean("First paragraph<p>Second") == "<p>First paragraph</p><p>Second</p>")  // Hacker News' shape
        #expect(
            clean(#"<a href="https://x.example/?a=1&amp;b=2" onclick="evil()" target="_blank">link</a>"#)
                == #"<p><a rel="nofollow ugc noopener" href="https://x.example/?a=1&amp;b=2">link</a></p>"#)
    }

    @Test(
        "parsed as browsers parse HTML5, and written valid in context",
        arguments: [
            // A blockquote closes the paragraph it was typed in (libxml2 kept it inside: invalid).
            ("<p>x<blockquote>q</blockquote>y</p>", "<p>x</p><blockquote>q</blockquote><p>y</p><p></p>"),
            // A list typed inside code: the list closes the paragraph and the code carries on in each
            // item, as in a browser (libxml2 kept the list inside the code: invalid).
            ("<p><code><ol><li>a</li><li>b</li></ol></code></p>", "<p><code></code></p><ol><li><code>a</code></li><li><code>b</code></li></ol><p></p>"),
            // A block inside a link (HTML5 lets the parser put it there) is unwrapped: a link here holds phrasing.
            ("<a href=\"https://x.example/\"><p>para</p></a>", "<p><a rel=\"nofollow ugc noopener\" href=\"https://x.example/\">\npara\n</a></p>"),
            // Text directly in a list gets an item; an item outside a list is unwrapped.
            ("<ul>loose<li>one</li></ul>", "<ul><li>loose</li><li>one</li></ul>"),
            ("<li>stray</li>", "<p>stray</p>"),
            // An item after text at the top does not land in the paragraph given to that text.
            ("a<li>b", "<p>a</p><p>b</p>"),
            // Links never nest; a heading inside a heading is unwrapped.
            (
                "<a href=\"https://a.example\">a<a href=\"https://b.example\">b</a></a>",
                "<p><a rel=\"nofollow ugc noopener\" href=\"https://a.example\">a</a><a rel=\"nofollow ugc noopener\" href=\"https://b.example\">b</a></p>"
            ),
            // A quote with its title, as Discourse writes it.
            (
                #"<aside class="quote no-group" data-username="sam"><div class="title">sam:</div><blockquote><p>If they are not happy</p></blockquote></aside><p>reply</p>"#,
                "<blockquote>\nsam:\n<blockquote><p>If they are not happy</p></blockquote></blockquote><p>reply</p>"
            ),
        ])
    func contentModels(_ input: String, _ expected: String) {
        #expect(clean(input) == expected)
    }

    @Test(
        "tables are kept whole or not at all (compared without line breaks)",
        arguments: [
            // Tables are kept whole, in a box that scrolls; alignment becomes a class, spans go.
            (
                "<table><tr><td>c1</td><td colspan=2 style=\"text-align: right\">c2</td></tr></table>",
                "<div class=\"tf-table\" tabindex=\"0\"><table><tbody><tr><td>c1</td><td class=\"tf-right\">c2</td></tr></tbody></table></div>"
            ),
            // A table typed in a paragraph closes it, as in a browser; rows without cells go.
            (
                "<p>x<table><tr></tr><tr><th align=center>h</th></tr></table>",
                "<p>x</p><div class=\"tf-table\" tabindex=\"0\"><table><tbody><tr><th class=\"tf-center\">h</th></tr></tbody></table></div>"
            ),
            // Inside a link or code a table would be invalid: its cells keep their text apart instead.
            ("<code><table><tr><td>c1</td><td>c2</td></tr></table></code>", "<p><code>c1c2</code></p>"),
            // A header cell holds no heading.
            (
                "<table><tr><th><h2>big</h2></th></tr></table>",
                "<div class=\"tf-table\" tabindex=\"0\"><table><tbody><tr><th>big</th></tr></tbody></table></div>"
            ),
        ])
    func tables(_ input: String, _ expected: String) {
        #expect(clean(input).replacingOccurrences(of: "\n", with: "") == expected)
    }

    @Test("images keep a checked source, alt text and size, load lazily; emoji become emoji; lightbox captions go")
    func images() {
        #expect(
            clean(#"<img src="https://i.example/a.png" alt="a cat" width="640" height="48px" onerror="x">"#)
                == #"<p><img src="https://i.example/a.png" alt="a cat" width="640" loading="lazy"></p>"#)
        #expect(clean(#"<img src="javascript:alert(1)" alt="bad">"#) == "<p>bad</p>")
        #expect(
            clean(#"<p>thanks <img class="emoji" alt=":heart:" src="https://e.example/heart.png"> <img class="emoji" alt=":unheard_of:" src="https://e.example/x.png"></p>"#)
                == "<p>thanks ❤️ :unheard_of:</p>")
        let lightbox =
            #"<div class="lightbox-wrapper"><a class="lightbox" href="https://f.example/full.png"><img src="https://f.example/small.png" alt="image" width="690" height="123"><div class="meta"><span class="filename">image</span><span class="informations">841×150 22.4 KB</span></div></a></div>"#
        let out = clean(lightbox)
        #expect(out.contains(#"<img src="https://f.example/small.png" alt="image" width="690" height="123" loading="lazy">"#))
        #expect(!out.contains("22.4 KB"))
    }

    @Test("relative links and images resolve against the source's site when it is known")
    func relative() {
        let sanitizer = HTMLSanitizer(base: "https://forum.example/")
        #expect(
            sanitizer.sanitize(#"<a href="/u/sam">@sam</a> <img src="/uploads/a.png" alt="shot">"#).raw
                == #"<p><a rel="nofollow ugc noopener" href="https://forum.example/u/sam">@sam</a> <img src="https://forum.example/uploads/a.png" alt="shot" loading="lazy"></p>"#)
        // A fragment would point into the archive's own page: text only, base or not.
        #expect(sanitizer.sanitize(##"<a href="#p2">see</a>"##).raw == "<p>see</p>")
        #expect(sanitizer.sanitize(#"<a href="javascript:x">no</a>"#).raw == "<p>no</p>")
    }

    @Test("formatting elements left open by the thousand are shown as text, not multiplied by HTML5's reconstruction")
    func formattingBomb() {
        var html = "<p>"
        for i in 1...10_000 { html += "<b id=\(i)>" }
        html += String(repeating: "<p>x", count: 9_000)
        let out = clean(html)
        #expect(out.hasPrefix("&lt;p&gt;&lt;b id=1&gt;"))
        // Ordinary markup with many closed formatting elements is parsed as usual.
        let many = String(repeating: "<p><b>bold</b> and <a href=\"https://a.example\">link</a></p>", count: 2_000)
        #expect(clean(many).components(separatedBy: "<strong>").count == 2_001)
    }

    @Test("a body with more tags than the limit is shown as text, not parsed")
    func tagLimit() {
        let html = String(repeating: "<b>", count: HTMLSanitizer.tagLimit + 1) + "x"
        let out = clean(html)
        #expect(out.hasPrefix("&lt;b&gt;&lt;b&gt;"))
        #expect(!out.contains("<b>"))
    }

    @Test(
        "hostile markup keeps its text and none of the danger",
        arguments: [
            ("<script>alert(1)</script>safe", "<p>safe</p>"),
            ("<p onclick=alert(1) onmouseover='x'>text</p>", "<p>text</p>"),
            ("<a href=\"javascript:alert(1)\">click</a>", "<p>click</p>"),
            ("<a href=\"  JaVaScRiPt:alert(1)\">click</a>", "<p>click</p>"),
            ("<a href=\"java&#x09;script:alert(1)\">click</a>", "<p>click</p>"),
            ("<a href=\"&#106;avascript:alert(1)\">click</a>", "<p>click</p>"),
            ("<a href=\"data:text/html,<script>alert(1)</script>\">click</a>", "<p>click</p>"),
            ("<a href=\"vbscript:msgbox\">click</a>", "<p>click</p>"),
            ("<style>body{display:none}</style>visible", "<p>visible</p>"),
            ("<iframe src=\"https://evil.example\">inner</iframe>after", "<p>after</p>"),
            ("<svg><script>alert(1)</script><text>svg text</text></svg>after", "<p>after</p>"),
            ("<math><mi>x</mi></math>after", "<p>after</p>"),
            ("<img src=x onerror=alert(1) alt=\"a picture\">", "<p>a picture</p>"),
            ("<div><span style=\"x\">kept</span></div>", "<p>kept</p>"),
            ("<b><i>unclosed", "<p><strong><em>unclosed</em></strong></p>"),
            ("<p>a</b>b</i></p>", "<p>ab</p>"),
            ("<form action=x><input value=secret><button>Go</button>label</form>", "<p>label</p>"),
            ("</details></summary><script>x</script>", ""),
            ("<object data=x>fallback</object><embed src=x>", ""),
            ("<template><p>hidden</p></template>shown", "<p>shown</p>"),
            ("<noscript><p>n</p></noscript>ok", "<p>ok</p>"),
            ("<!-- comment --><p>c</p>", "<p>c</p>"),
            // Without the source's site a relative link cannot be followed from an archive: its text stays.
            ("<a href=\"/relative\">rel</a>", "<p>rel</p>"),
            ("<a href=\"#top\">here</a>", "<p>here</p>"),
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
