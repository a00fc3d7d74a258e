import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

struct MissingSection: Error { var name: String }

/// One example of GitHub's extension suite (`Tests/Data/gfm-spec/extensions.txt`).
struct GFMExample: CustomTestStringConvertible, Sendable {
    var section: String
    var number: Int
    var markdown: String
    var html: String
    var testDescription: String { "\(section) #\(number)" }

    /// The examples of `sections`, in file order. A missing file or section throws.
    static func load(_ sections: Set<String>) throws -> [GFMExample] {
        let text = String(decoding: try TestData.bytes("gfm-spec/extensions.txt"), as: UTF8.self)
        let fence = String(repeating: "`", count: 32)
        var examples: [GFMExample] = []
        var section = ""
        var lines = text.components(separatedBy: "\n")[...]
        var counts: [String: Int] = [:]
        while let line = lines.popFirst() {
            if line.hasPrefix("## ") { section = String(line.dropFirst(3)) }
            guard line == fence + " example", sections.contains(section) else { continue }
            var markdown: [String] = [], html: [String] = []
            var inHTML = false
            while let body = lines.popFirst(), body != fence {
                if body == "." && !inHTML {
                    inHTML = true
                    continue
                }
                if inHTML { html.append(body) } else { markdown.append(body) }
            }
            counts[section, default: 0] += 1
            examples.append(
                GFMExample(
                    section: section, number: counts[section]!, markdown: markdown.joined(separator: "\n").replacingOccurrences(of: "→", with: "\t"),
                    html: html.joined(separator: "\n")))
        }
        for name in sections where counts[name] == nil { throw MissingSection(name: name) }
        return examples
    }

    /// Markup compared after white space is normalised, the attributes Threadfold adds to every
    /// link, image and task box (its name, `aria-label`) are taken off, and its table markup is put back in GitHub's: a scrolling
    /// wrapper around each table, and classes for alignment (HTML5 made `align` obsolete, and
    /// the Content-Security-Policy forbids `style`).
    static func normalised(_ html: String) -> String {
        var text = html.replacingOccurrences(of: #" rel="nofollow ugc noopener""#, with: "")
            .replacingOccurrences(of: #"<div class="tf-table" tabindex="0"><table>"#, with: "<table>")
            .replacingOccurrences(of: "</table></div>", with: "</table>")
            .replacingOccurrences(of: #" class="tf-left""#, with: #" align="left""#)
            .replacingOccurrences(of: #" class="tf-center""#, with: #" align="center""#)
            .replacingOccurrences(of: #" class="tf-right""#, with: #" align="right""#)
            .replacingOccurrences(of: #" loading="lazy""#, with: "")
            .replacingOccurrences(of: " />", with: ">")
        text = text.replacingOccurrences(of: #"(<input type="checkbox"[^>]*) aria-label="[^"]*">"#, with: "$1>", options: .regularExpression)
        text = text.replacingOccurrences(of: #"<img src="([^"]*)" alt="([^"]*)">"#, with: "<img src=\"$1\" alt=\"$2\">", options: .regularExpression)
        return text.split(whereSeparator: \.isWhitespace).joined(separator: " ").replacingOccurrences(of: "> <", with: "><")
    }
}

@Suite("Markdown extensions (GFM)")
struct MarkdownExtensionsTests {
    static let renderer = MarkdownRenderer(options: MarkdownOptions(hardBreaks: false))

    @Test("GitHub's examples: strikethrough, autolinks, tables and task lists", arguments: try GFMExample.load(["Strikethroughs", "Autolinks", "Tables", "Task lists"]))
    func spec(_ example: GFMExample) {
        let output = Self.renderer.render(example.markdown).raw
        if example.html == "<IGNORE>" { return }  // must only not crash
        if example.testDescription == "Tables #12" {
            // Left out on purpose: raw HTML in a cell is omitted, as everywhere else in a body.
            #expect(!output.contains("<strong>") && !output.contains("<br>") && output.contains("<!-- raw HTML omitted -->"))
            return
        }
        #expect(GFMExample.normalised(output) == GFMExample.normalised(example.html))
    }

    @Test("the example suite holds the sections and counts passed above")
    func counts() throws {
        let examples = try GFMExample.load(["Strikethroughs", "Autolinks", "Tables", "Task lists"])
        #expect(Dictionary(grouping: examples, by: \.section).mapValues(\.count) == ["Strikethroughs": 2, "Autolinks": 3, "Tables": 16, "Task lists": 3])
    }

    @Test(
        "autolinks: what links and what does not",
        arguments: [
            ("see https://example.com/a_(b)?x=1.", #"<p>see <a href="https://example.com/a_(b)?x=1">https://example.com/a_(b)?x=1</a>.</p>"#),
            ("www.commonmark.org/help, next", #"<p><a href="http://www.commonmark.org/help">www.commonmark.org/help</a>, next</p>"#),
            ("mail foo.bar@example.org!", #"<p>mail <a href="mailto:foo.bar@example.org">foo.bar@example.org</a>!</p>"#),
            ("no: https://bad_domain_.example_/ x", "<p>no: https://bad_domain_.example_/ x</p>"),
            ("no: prefixhttps://a.example", "<p>no: prefixhttps://a.example</p>"),
            (
                "(https://a.example) and [t](https://b.example) and <https://c.example>",
                #"<p>(<a href="https://a.example">https://a.example</a>) and <a href="https://b.example">t</a> and <a href="https://c.example">https://c.example</a></p>"#
            ),
            ("`https://code.example` [x](https://ok.example)", #"<p><code>https://code.example</code> <a href="https://ok.example">x</a></p>"#),
        ])
    func autolinks(_ markdown: String, _ expected: String) {
        #expect(GFMExample.normalised(Self.renderer.render(markdown).raw) == GFMExample.normalised(expected))
    }

    @Test("strikethrough inside text with other markup around it; CommonMark leaves both as typed")
    func strikethrough() {
        #expect(Self.renderer.render("**a** ~~b c~~ _d_").raw == "<p><strong>a</strong> <del>b c</del> <em>d</em></p>\n")
        var options = MarkdownOptions(hardBreaks: false)
        options.flavor = .commonmark
        let plain = MarkdownRenderer(options: options)
        #expect(plain.render("~~b~~ https://a.example").raw == "<p>~~b~~ https://a.example</p>\n")
    }

    @Test("60,000 tilde runs and 10,000 URLs in one body (under cmark's size limit) render, with every span and link")
    func many() {
        let tildes = String(repeating: "~a~ ~~b ", count: 30_000)
        #expect(Self.renderer.render(tildes).raw.components(separatedBy: "<del>").count == 30_001)
        let urls = String(repeating: "https://a.example/x ", count: 10_000)
        #expect(Self.renderer.render(urls).raw.components(separatedBy: "<a ").count == 10_001)
    }
}
