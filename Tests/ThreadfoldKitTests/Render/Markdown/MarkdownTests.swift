import Foundation
import Testing

@testable import ThreadfoldKit

@Suite("Markdown")
struct MarkdownTests {
    let renderer = MarkdownRenderer()

    func html(_ markdown: String, _ options: MarkdownOptions = MarkdownOptions()) -> String {
        MarkdownRenderer(options: options).render(markdown).raw
    }

    @Test("CommonMark basics, with links marked nofollow ugc noopener")
    func basics() {
        #expect(html("**b** _i_ `c`") == "<p><strong>b</strong> <em>i</em> <code>c</code></p>\n")
        #expect(html("[x](https://a.example/?q=1&r=2 \"t\")") == "<p><a rel=\"nofollow ugc noopener\" href=\"https://a.example/?q=1&amp;r=2\" title=\"t\">x</a></p>\n")
        #expect(html("<https://a.example>") == "<p><a rel=\"nofollow ugc noopener\" href=\"https://a.example\">https://a.example</a></p>\n")
        #expect(html("![alt](https://a.example/i.png)") == "<p><img loading=\"lazy\" src=\"https://a.example/i.png\" alt=\"alt\" /></p>\n")
    }

    @Test("raw HTML is omitted, never passed through")
    func rawHTML() {
        #expect(!html("<script>alert(1)</script>").contains("<script"))
        #expect(!html("x <img src=x onerror=alert(1)> y").contains("<img"))
        #expect(!html("<details open><summary>x</summary></details>").contains("<details"))
    }

    @Test(
        "links outside the allowlist lose their URL and keep their text",
        arguments: [
            "javascript:alert(1)", "JaVaScRiPt:alert(1)", "java\tscript:alert(1)", " javascript:alert(1)",
            "vbscript:x", "data:text/html;base64,PHNjcmlwdD4=", "file:///etc/passwd", "ftp://x.example", "&#106;avascript:alert(1)",
            "javascript&colon;alert(1)",
        ])
    func refusedLinks(_ url: String) {
        let out = html("[click](<\(url)>)")
        // What a browser would see in each href after decoding the attribute's entities once.
        for href in hrefs(out) {
            #expect(URLPolicy.allowsLink(href), "\(out)")
            #expect(!href.lowercased().hasPrefix("javascript:"))
        }
        #expect(out.contains("click"))
    }

    func hrefs(_ html: String) -> [String] {
        html.components(separatedBy: "href=\"").dropFirst().map { part in
            String(part.prefix { $0 != "\"" })
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    @Test(
        "allowed links: http, https, mailto, relative, fragment",
        arguments: [
            "http://a.example", "https://a.example/x", "mailto:a@b.example", "/path", "../up", "#c-1", "?q=1", "//cdn.example/x",
        ])
    func allowedLinks(_ url: String) {
        #expect(html("[x](\(url))").contains("<a rel=\"nofollow ugc noopener\" href=\""))
    }

    @Test("images: only absolute http and https; others keep their alt text")
    func images() {
        #expect(html("![pic](http://a.example/p.png)").contains("<img"))
        #expect(html("![pic](/local.png)") == "<p>pic</p>\n")
        #expect(html("![pic](data:image/png;base64,AAAA)") == "<p>pic</p>\n")
        #expect(html("[![pic](javascript:x)](https://ok.example)") == "<p><a rel=\"nofollow ugc noopener\" href=\"https://ok.example\">pic</a></p>\n")
    }

    @Test("hard breaks are the default; --no-hard-breaks and --smart")
    func options() {
        #expect(html("a\nb") == "<p>a<br />\nb</p>\n")
        #expect(html("a\nb", MarkdownOptions(hardBreaks: false)) == "<p>a\nb</p>\n")
        #expect(html("\"x\" -- y...", MarkdownOptions(smart: true)) == "<p>“x” – y…</p>\n")
    }

    @Test("invalid UTF-8 and NUL never reach the page")
    func invalidBytes() {
        let out = html("a\u{0}b")
        #expect(!out.contains("\u{0}"))
    }

    @Test(
        "cmark's quadratic shapes are shown as plain text, whatever their size",
        arguments: [
            String(repeating: "![[]()", count: 40_000),  // CVE-2023-22486
            String(repeating: "> ", count: 30_000) + String(repeating: "a*", count: 30_000),  // CVE-2023-24824
            String(repeating: "> ", count: 201) + "deep",
        ])
    func pathological(_ body: String) {
        let renderer = MarkdownRenderer(options: MarkdownOptions(maxBytes: 4 * 1024 * 1024))
        #expect(renderer.isPathological(body))
        let out = renderer.render(body).raw
        #expect(out.hasPrefix("<p>") && !out.contains("<blockquote>") && !out.contains("<img"))
    }

    @Test("ordinary bodies with images and quotes are not mistaken for attacks")
    func notPathological() {
        let renderer = MarkdownRenderer()
        let body = String(repeating: "![x](https://a.example/i.png)\n", count: 500) + String(repeating: "> ", count: 50) + "quote"
        #expect(!renderer.isPathological(body))
        #expect(renderer.render(body).raw.contains("<blockquote>"))
    }

    @Test("oversized bodies fall back to escaped plain text")
    func oversized() {
        let out = html("<b>x</b>\n\nsecond\nline", MarkdownOptions(maxBytes: 4))
        #expect(out == "<p>&lt;b&gt;x&lt;/b&gt;</p>\n<p>second<br>\nline</p>\n")
    }
}

@Suite("URL policy")
struct URLPolicyTests {
    @Test(
        "schemes are read as browsers read them",
        arguments: [
            ("https://x", .https), ("HTTP://x", .http), ("  mailto:x", .mailto), ("java\nscript:x", .other(length: 10)),
            ("/a:b", nil), ("a/b:c", nil), ("#x:y", nil), ("?x:y", nil), ("1abc:x", nil), ("", nil), ("\u{1}javascript:x", .other(length: 10)),
            ("HtTpS:x", .https), ("httpss://x", .other(length: 6)), ("http\t:x", .http), ("mailt:x", .other(length: 5)), ("ttp:x", .other(length: 3)),
            ("a-very-long+scheme.x:y", .other(length: 20)), ("mailtox:x", .other(length: 7)), ("h:x", .other(length: 1)), ("http", nil),
        ] as [(String, URLPolicy.Scheme?)])
    func scheme(_ url: String, _ expected: URLPolicy.Scheme?) {
        #expect(URLPolicy.scheme(of: url) == expected)
    }

    @Test(
        "a host follows the scheme's '//', past leading spaces, tabs and newlines",
        arguments: [
            ("https://x", true, true), ("https:/x", true, false), ("https:\t//x", true, true), ("  https://x", true, true),
            ("https:///x", true, false), ("https://?x", true, false), ("https://#x", true, false), ("https://\\x", true, false),
            ("https:", true, false), ("https://", true, false), ("https:// x", true, false),
            ("//x", false, true), ("x", false, true), ("/x", false, true),
        ] as [(String, Bool, Bool)])
    func host(_ url: String, _ hasScheme: Bool, _ expected: Bool) {
        // The scheme as the policy reads it from the URL, or none for a relative reference.
        let scheme = URLPolicy.scheme(of: url)
        #expect((scheme != nil) == hasScheme)
        #expect(URLPolicy.hasHost(url, scheme: scheme) == expected)
    }
}
