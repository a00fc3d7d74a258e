import Testing

@testable import ThreadfoldKit

@Suite("Reddit Markdown")
struct RedditMarkdownTests {
    static let renderer = MarkdownRenderer(options: MarkdownOptions(hardBreaks: false))

    static func render(_ markdown: String, _ renderer: MarkdownRenderer = renderer) -> String {
        renderer.render(markdown, sourceFlavor: .reddit, spoilerLabel: "Spoiler").raw
    }

    @Test(
        "superscripts: a word, parentheses, nesting; a lone caret is text",
        arguments: [
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
        #expect(
            Self.render("see r/swift and /u/some_user.")
                == #"<p>see <a rel="nofollow ugc noopener" href="https://www.reddit.com/r/swift">r/swift</a> and <a rel="nofollow ugc noopener" href="https://www.reddit.com/user/some_user">/u/some_user</a>.</p>"#
                + "\n")
        #expect(Self.render("r/ab+cd") == #"<p><a rel="nofollow ugc noopener" href="https://www.reddit.com/r/ab+cd">r/ab+cd</a></p>"# + "\n")
        #expect(Self.render("for/r/x bar/u/abc r/x u/a") == "<p>for/r/x bar/u/abc r/x u/a</p>\n")
        #expect(
            Self.render("https://reddit.com/r/swift [r/ios](https://a.example) `r/code`")
                == #"<p><a rel="nofollow ugc noopener" href="https://reddit.com/r/swift">https://reddit.com/r/swift</a> <a rel="nofollow ugc noopener" href="https://a.example">r/ios</a> <code>r/code</code></p>"#
                + "\n")
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

/// Reddit's own renderer (snudown) and real bodies from public exports, where Threadfold once
/// differed from Reddit.
@Suite("Reddit Markdown as Reddit renders it")
struct RedditFidelityTests {
    static let renderer = MarkdownRenderer(options: MarkdownOptions())

    static func render(_ markdown: String, _ flavor: MarkdownFlavor = .reddit) -> String {
        renderer.render(markdown, sourceFlavor: flavor, spoilerLabel: "Spoiler").raw
    }

    static let base = "https://www.reddit.com"
    static func link(_ path: String, _ text: String) -> String { #"<a rel="nofollow ugc noopener" href="\#(base)\#(path)">\#(text)</a>"# }

    @Test("r/ and u/ links take the path after the name; capitals and escapes are not links")
    func names() {
        #expect(Self.render("(e.g. /r/changelog/about/traffic)") == "<p>(e.g. \(Self.link("/r/changelog/about/traffic", "/r/changelog/about/traffic")))</p>\n")
        #expect(
            Self.render("u/reddit/foobaz, r/all-minus-something.")
                == "<p>\(Self.link("/user/reddit/foobaz", "u/reddit/foobaz")), \(Self.link("/r/all-minus-something", "r/all-minus-something")).</p>\n")
        #expect(Self.render("u/me and u/a_poem_for_your_sprog") == "<p>\(Self.link("/user/me", "u/me")) and \(Self.link("/user/a_poem_for_your_sprog", "u/a_poem_for_your_sprog"))</p>\n")
        #expect(Self.render("R/politics /U/nope") == "<p>R/politics /U/nope</p>\n")
        #expect(Self.render(#"Greetings, \/u/bball1135!"#) == "<p>Greetings, /u/bball1135!</p>\n")
    }

    @Test("a backslash keeps a delimiter as typed, in text; in code the backslash stays too")
    func escapes() {
        #expect(Self.render(#"Escape\^superscript"#) == "<p>Escape^superscript</p>\n")
        #expect(Self.render(#"\~~escaped strikethrough~~"#) == "<p>~~escaped strikethrough~~</p>\n")
        #expect(Self.render(#"\~\~not struck\~\~"#, .gfm) == "<p>~~not struck~~</p>\n")
        #expect(Self.render(#"\>!not a spoiler!<"#) == "<p>&gt;!not a spoiler!&lt;</p>\n")
        #expect(Self.render(#"`\~~x~~` [a](https://e.example/\~b)"#) == #"<p><code>\~~x~~</code> <a rel="nofollow ugc noopener" href="https://e.example/~b">a</a></p>"# + "\n")
        // A body holding the private-use characters the escapes use is read as it is.
        #expect(Self.render("\u{E000} \\^x").contains("\u{E000}"))
    }

    @Test("superscripts: an escaped parenthesis is text, and a ^word in a group ends at the group's end")
    func superscripts() {
        #expect(Self.render(#"^\(This ^message ^will ^be ^ignored.)"#) == "<p><sup>(This</sup> <sup>message</sup> <sup>will</sup> <sup>be</sup> <sup>ignored.)</sup></p>\n")
        #expect(Self.render("^(a ^b)") == "<p><sup>a <sup>b</sup></sup></p>\n")
        #expect(Self.render("see http://x.example/^caret") == #"<p>see <a rel="nofollow ugc noopener" href="http://x.example/%5Ecaret">http://x.example/^caret</a></p>"# + "\n")
    }

    @Test("a quote typed >! is a covered spoiler block")
    func blockSpoiler() {
        let html = Self.render(">! spoily mcspoilerface\n>!second line")
        #expect(
            html == #"<div class="tf-spoiler tf-spoiler-block" tabindex="0"><span class="tf-sr">Spoiler: </span>"# + "\n<blockquote>\n<p>spoily mcspoilerface\nsecond line</p>\n</blockquote>\n</div>\n"
        )
        #expect(Self.render("> !not one") == "<blockquote>\n<p>!not one</p>\n</blockquote>\n")
    }

    @Test("inside a link a spoiler holds nothing focusable; a link inside a link keeps its text only")
    func links() {
        #expect(
            Self.render("[>!hidden!<](https://e.example)")
                == #"<p><a rel="nofollow ugc noopener" href="https://e.example"><span class="tf-spoiler"><span class="tf-sr">Spoiler: </span>hidden</span></a></p>"# + "\n")
        #expect(Self.render("[r://<http://reddit.com/>](/aa)") == #"<p><a rel="nofollow ugc noopener" href="/aa">r://http://reddit.com/</a></p>"# + "\n")
    }

    @Test("URLs without a host keep their text", arguments: ["[x](https:/reddit.com/r/a)", "[x](//#test)", "[x](//?)", "[x](///#test)", "![i](https:/x.example/i.png)"])
    func hostless(_ markdown: String) {
        #expect(!Self.render(markdown, .gfm).contains("href") && !Self.render(markdown, .gfm).contains("src"))
    }

    @Test("raw HTML reads as typed, headings need no space, 1) is not a list, lines join")
    func lineRules() {
        #expect(Self.render("I think you forgot a <sarcasm>") == "<p>I think you forgot a &lt;sarcasm&gt;</p>\n")
        #expect(Self.render("<test>\n\nafter") == "<p>&lt;test&gt;</p>\n<p>after</p>\n")
        #expect(Self.render("#**MARK MY WORDS**\n###Top") == "<h1><strong>MARK MY WORDS</strong></h1>\n<h3>Top</h3>\n")
        #expect(Self.render("1) he didn't") == "<p>1) he didn't</p>\n")
        #expect(Self.render("one\ntwo") == "<p>one\ntwo</p>\n")
        // A last line of spaces ends the text where the line rules look for a marker: read past
        // the text's end, it stopped a debug build.
        for spaces in ["\n ", "\n  ", "\n   ", "\n\n   "] {
            #expect(Self.render("# Top\n1) x" + spaces) == "<h1>Top</h1>\n<p>1) x</p>\n")
        }
        // GFM keeps its own rules.
        #expect(Self.render("<sarcasm> #tag\n1) x", .gfm) == "<p><!-- raw HTML omitted --> #tag</p>\n<ol>\n<li>x</li>\n</ol>\n")
        #expect(Self.render("one\ntwo", .gfm) == "<p>one<br />\ntwo</p>\n")
    }

    /// The first `mayApply`, a byte-by-byte loop, kept as the reference for the memchr one.
    static func mayApplyByteByByte(_ text: [UInt8]) -> Bool {
        func isNameByte(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "_")
        }
        guard text.count > 1 else { return false }
        for i in 1..<text.count {
            let previous = text[i - 1]
            switch text[i] {
            case UInt8(ascii: "!"): if previous == UInt8(ascii: ">") { return true }
            case UInt8(ascii: "/"):
                if previous | 0x20 == UInt8(ascii: "r") || previous | 0x20 == UInt8(ascii: "u"), i < 2 || !isNameByte(text[i - 2]) { return true }
            default: if previous == UInt8(ascii: "^") && ![0x20, 0x09, 0x0A, 0x0D].contains(text[i]) { return true }
            }
        }
        return false
    }

    @Test("whether a body may hold an extension: the memchr scan agrees with the byte-by-byte one")
    func mayApply() {
        let alphabet = Array("!/^>rRuUa_1 \t\n\r.".utf8) + [0xC3, 0xA9]
        func check(_ text: [UInt8]) -> Bool {
            let fast = text.withUnsafeBufferPointer { RedditMarkdown.mayApply($0) }
            #expect(fast == Self.mayApplyByteByByte(text), "\(text)")
            return fast
        }
        // Every text of up to four bytes from the alphabet, then longer random ones.
        var texts: [[UInt8]] = [[]]
        var found = 0
        for _ in 0..<4 {
            texts = texts.flatMap { text in alphabet.map { text + [$0] } }
            for text in texts where check(text) { found += 1 }
        }
        var generator = SplitMix64(seed: 5)
        for _ in 0..<20_000 {
            let text = (0..<Int(generator.next() % 40)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            if check(text) { found += 1 }
        }
        #expect(found > 10_000)
    }
}
