import Testing

@testable import ThreadfoldKit

@Suite("Markdown tables and task lists (GFM)")
struct MarkdownTableTests {
    static let renderer = MarkdownRenderer(options: MarkdownOptions(hardBreaks: false))

    static func render(_ markdown: String, _ flavor: MarkdownFlavor = .gfm) -> String {
        GFMExample.normalised(renderer.render(markdown, sourceFlavor: flavor).raw)
    }

    @Test("rows split at unescaped pipes, with the outer pipes optional")
    func cells() {
        func split(_ line: String) -> [String] { MarkdownTable.cells(Array(line.utf8)[...]).map { String(decoding: $0, as: UTF8.self) } }
        #expect(split("| a | b |") == ["a", "b"])
        #expect(split("a | b") == ["a", "b"])
        #expect(split("| d || e |") == ["d", "", "e"])
        #expect(split(#"| a \| b | `c\|` |"#) == ["a | b", "`c|`"])
        #expect(split(#"| \\ | x"#) == [#"\\"#, "x"])
        #expect(split("  |  ") == [""])
        #expect(MarkdownTable.delimiterRow(Array("| :-- | --: | :-: | - |".utf8)[...]) == [.left, .right, .center, .none])
        #expect(MarkdownTable.delimiterRow(Array("---".utf8)[...]) == nil)
        #expect(MarkdownTable.delimiterRow(Array("| -- | x |".utf8)[...]) == nil)
        #expect(MarkdownTable.delimiterRow(Array("| : |".utf8)[...]) == nil)
    }

    @Test(
        "only a body with a delimiter-row line may hold a table, wherever the pipes are",
        arguments: [
            ("| a |\n|---|\n| b |", true),
            ("text | with pipes\nmore\n> | :-: | -- |", true),  // the delimiter row is the last line
            ("a | b\n| c | d |\n", false),  // pipes, no delimiter row
            ("|||||||||\n- item\n", false),  // pipes without a dash; a dash without a pipe
            ("| x |-|", false),  // a dash beside other text on the line
            ("no pipes at all --- here", false),
            ("|-\r\n", true),
        ])
    func mayHold(_ body: String, _ expected: Bool) {
        let bytes = Array(body.utf8)
        #expect(bytes.withUnsafeBufferPointer { MarkdownTable.mayHold($0) } == expected)
    }

    @Test("a table in a block quote and in a list item, under a paragraph's lines")
    func containers() {
        #expect(
            Self.render("> | a | b |\n> |---|---|\n> | 1 | 2 |")
                == "<blockquote><table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table></blockquote>")
        #expect(
            Self.render("- item\n  | a |\n  | - |\n  | 1 |")
                == "<ul><li>item <table><thead><tr><th>a</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table></li></ul>")
    }

    @Test("cells get the inline extensions and the URL checks; the table scrolls on its own")
    func cellContent() {
        let html = Self.renderer.render("| a | b |\n|---|---|\n| ~~x~~ https://e.example | [bad](javascript:alert(1)) |").raw
        #expect(html.hasPrefix("<div class=\"tf-table\" tabindex=\"0\"><table>"))
        #expect(html.contains("<td><del>x</del> <a rel=\"nofollow ugc noopener\" href=\"https://e.example\">https://e.example</a></td>"))
        #expect(html.contains("<td>bad</td>"))
        #expect(!html.contains("javascript"))
    }

    @Test(
        "what is not a table stays as typed",
        arguments: [
            "| a | b |\n| --- |",  // header and delimiter differ in cells
            "| a |\n| x |",  // no delimiter row
            "```\n| a |\n|---|\n```",  // code
            "*a\nb*\n| h |\n|---|",  // emphasis across the lines before the header
        ])
    func notTables(_ markdown: String) {
        #expect(!Self.renderer.render(markdown).raw.contains("<table>"))
    }

    @Test("CommonMark leaves tables and task lists as typed; Reddit has tables but no task lists")
    func flavors() {
        let table = "| a |\n|---|\n| b |"
        #expect(!Self.renderer.render(table, sourceFlavor: .commonmark).raw.contains("<table>"))
        #expect(Self.renderer.render(table, sourceFlavor: .reddit).raw.contains("<table>"))
        #expect(Self.render("- [x] done\n- [ ] todo") == #"<ul><li><input type="checkbox" checked="" disabled=""> done</li><li><input type="checkbox" disabled=""> todo</li></ul>"#)
        #expect(Self.render("- [x] done", .reddit) == "<ul><li>[x] done</li></ul>")
        #expect(Self.render("- [x] done", .commonmark) == "<ul><li>[x] done</li></ul>")
        #expect(Self.render("- [x]") == "<ul><li>[x]</li></ul>")
        #expect(Self.render("1. [X] ordered") == #"<ol><li><input type="checkbox" checked="" disabled=""> ordered</li></ol>"#)
    }

    @Test("a task box is named by its item's words, escaped and bounded")
    func taskNames() {
        #expect(
            Self.renderer.render("- [ ] ship **the** `x<y` \"fix\"\n  now").raw
                == #"<ul>\#n<li><input type="checkbox" disabled="" aria-label="ship the x&lt;y &quot;fix&quot; now"> ship <strong>the</strong> <code>x&lt;y</code> &quot;fix&quot;\#nnow</li>\#n</ul>\#n"#
        )
        let long = String(repeating: "é", count: 200)
        let name = Self.renderer.render("- [ ] " + long).raw.split(separator: "\"", omittingEmptySubsequences: false)[5]
        #expect(name.utf8.count <= MarkdownRenderer.taskNameLimit && name.allSatisfy { $0 == "é" } && !name.isEmpty)
    }

    @Test("a cell's own heading markers and trailing hashes stay its text")
    func hashes() {
        #expect(Self.render("| C# | # x | a # |\n|-|-|-|") == "<table><thead><tr><th>C#</th><th># x</th><th>a #</th></tr></thead></table>")
    }
}
