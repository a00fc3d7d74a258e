import Testing
@testable import ThreadfoldKit

@Suite("Reddit Markdown")
struct RedditMarkdownTests {
    static let renderer = MarkdownRenderer(options: MarkdownOptions(hardBreaks: false))

    static func render(_ markdown: String, _ renderer: MarkdownRenderer = renderer) -> String {
        renderer.render(markdown, sourceFlavor: .reddit, spoilerLabel: "Spoiler").raw
    }

    @Test("superscripts: a word, parentheses, nesting; a lone caret is text", arguments: [
        ("2^10 is", "<p>2<sup>10</sup> is</p>\n"),
        ("^(two words) after", "<p><sup>two words</sup> after</p>\n"),
        ("a^^b c", "<p>a<sup><sup>b</sup></sup> c</p>\n"),
        ("^(f(x)) y", "<p><sup>f(x)</sup> y</p>\n"),
        ("a ^ b ^", "<p>a ^ b ^</p>\n"),
        ("`x^2` ^*em*", "<p><code>x^2</code> <sup><em>em</em></sup></p>\n"),
    ])
    func superscripts(_ markdown: String, _ expected: String) {
        #expect(Self.render(markdown) == expected)
    }

    @Test("spoilers: inline, at a line's start (not a quote), inside a quote, around other markup")
    func spoilers() {
        let open = #"<span class="tf-spoiler" tabindex="0"><span class="tf-sr">Spoiler: </span>"#
        #expect(Self.render("he dies >!in the end!< sadly") == "<p>he dies \(open)in the end</span> sadly</p>\n")
        #expect(Self.render(">!Snape kills Dumbledore!<") == "<p>\(open)Snape kills Dumbledore</span></p>\n")
        #expect(Self.render("> >!quoted!<") == "<blockquote>\n<p>\(open)quoted</span></p>\n</blockquote>\n")
        #expect(Self.render(">!**bold** secret!<") == "<p>\(open)<strong>bold</strong> secret</span></p>\n")
        #expect(Self.render("> a quote\n> !< not a spoiler") == "<blockquote>\n<p>a quote\n!&lt; not a spoiler</p>\n</blockquote>\n")
        #expect(Self.render("```\n>!code!<\n```") == "<pre><code>&gt;!code!&lt;\n</code></pre>\n")
        #expect(Self.render("a >! b") == "<p>a &gt;! b</p>\n")
        // The label is the page's words, escaped.
        #expect(Self.renderer.render(">!x!<", sourceFlavor: .reddit, spoilerLabel: "<剧透>").raw.contains(#"<span class="tf-sr">&lt;剧透&gt;: </span>"#))
    }

    @Test("r/ and u/ names link under the Reddit base; not inside words, URLs, links or code")
    func names() {
        #expect(Self.render("see r/swift and /u/some_user.") == #"<p>see <a rel="nofollow ugc noopener" href="https://www.reddit.com/r/swift">r/swift</a> and <a rel="nofollow ugc noopener" href="https://www.reddit.com/user/some_user">/u/some_user</a>.</p>"# + "\n")
        #expect(Self.render("r/ab+cd") == #"<p><a rel="nofollow ugc noopener" href="https://www.reddit.com/r/ab+cd">r/ab+cd</a></p>"# + "\n")
        #expect(Self.render("for/r/x bar/u/abc r/x u/ab r/example.com") == "<p>for/r/x bar/u/abc r/x u/ab r/example.com</p>\n")
        #expect(Self.render("https://reddit.com/r/swift [r/ios](https://a.example) `r/code`")
                == #"<p><a rel="nofollow ugc noopener" href="https://reddit.com/r/swift">https://reddit.com/r/swift</a> <a rel="nofollow ugc noopener" href="https://a.example">r/ios</a> <code>r/code</code></p>"# + "\n")
        var options = MarkdownOptions(hardBreaks: false)
        options.redditBase = "https://old.reddit.com"
        #expect(Self.render("r/swift", MarkdownRenderer(options: options)).contains(#"href="https://old.reddit.com/r/swift""#))
        // Other flavours leave them as typed.
        #expect(Self.renderer.render("r/swift 2^10 >!x!<", sourceFlavor: .gfm).raw == "<p>r/swift 2^10 &gt;!x!&lt;</p>\n")
    }

    @Test("the options' flavour wins over the source's")
    func precedence() {
        var options = MarkdownOptions(hardBreaks: false)
        options.flavor = .commonmark
        #expect(MarkdownRenderer(options: options).render("2^10 ~~x~~", sourceFlavor: .reddit).raw == "<p>2^10 ~~x~~</p>\n")
    }

    @Test("deeply nested spans stop nesting at 16 and stay linear")
    func depth() {
        let carets = String(repeating: "^", count: 5_000) + "a"
        let html = Self.render(carets)
        #expect(html.components(separatedBy: "<sup>").count - 1 == 16)
        let tildes = String(repeating: "~~a ", count: 5_000) + String(repeating: "a~~ ", count: 5_000)
        #expect(Self.render(tildes).components(separatedBy: "<del>").count - 1 == 16)
        let parens = String(repeating: "^(", count: 20_000) + String(repeating: ")", count: 20_000)
        #expect(Self.render(parens).components(separatedBy: "<sup>").count - 1 == 16)
    }
}
