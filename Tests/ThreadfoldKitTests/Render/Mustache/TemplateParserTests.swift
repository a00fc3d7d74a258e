import Testing

@testable import ThreadfoldKit

@Suite("Template errors")
struct TemplateParserTests {
    @Test("the built-in fields' names, spelt out, are their cases' names, in order")
    func fieldNames() {
        #expect(TemplateField.names == TemplateField.allCases.map { String(describing: $0) })
        #expect(TemplateKeys().names == TemplateField.names)
        #expect(TemplateField.allCases.allSatisfy { TemplateField.names[Int($0.rawValue)] == $0.name })
    }

    @Test(
        "errors name the file, line and column of the culprit",
        arguments: [
            ("a\n  {{#items}}\nb", "page.mustache:2:3: error: section 'items' is never closed; expected '{{/items}}'"),
            ("{{#a}}{{/b}}", "page.mustache:1:7: error: found '{{/b}}'; expected '{{/a}}' to close the section opened at 1:1"),
            ("x {{/a}}", "page.mustache:1:3: error: found '{{/a}}' but no section is open; expected a matching '{{#a}}' before it"),
            ("hello {{name", "page.mustache:1:7: error: unclosed tag '{{'; expected '}}'"),
            ("{{}}", "page.mustache:1:1: error: found an empty tag; expected a name"),
            ("{{=<% %> x=}}", "page.mustache:1:1: error: found '<% %> x' in a delimiter tag; expected two delimiters separated by a space, like {{=<% %>=}}"),
            ("{{{x}}", "page.mustache:1:1: error: unclosed tag '{{'; expected '}}}'"),
            ("{{a b}}", "page.mustache:1:1: error: found 'a b'; expected a name without spaces"),
        ])
    func errors(_ source: String, _ message: String) throws {
        let error = try #require(throws: ThreadfoldError.self) { try Template(name: "page", source: source, file: "page.mustache") }
        #expect(error.description == message)
    }

    @Test("input text is escaped by {{x}} and {{{x}}} alike; HTML values never are; only the template author's literals are raw in {{{x}}}")
    func escaping() throws {
        let set = try TemplateSet(sources: ["t": "{{s}}|{{{s}}}|{{&s}}|{{h}}|{{{h}}}|{{l}}|{{{l}}}"])
        let context = TemplateValue<TemplateData.Object>.node(
            TemplateData.Object([
                "s": .text("<b>"), "h": .html(HTML(trusted: "<i>")), "l": .literal("<u>"),
            ]))
        #expect(
            String(decoding: try set.render("t", model: TemplateData(set), root: context), as: UTF8.self)
                == "&lt;b&gt;|&lt;b&gt;|&lt;b&gt;|<i>|<i>|&lt;u&gt;|<u>")
    }

    @Test("runaway partial recursion is an error, not a stack overflow, located at the partial tag in its template's file")
    func recursion() throws {
        let set = try TemplateSet(sources: ["t": "{{>t}}"])
        #expect(throws: ThreadfoldError.self) { try set.render("t", model: TemplateData(set), root: .null) }
        // page includes a, which includes page again on its second line: the 501st tag is page's.
        let files = ["page": "tpl/page.mustache", "a": "tpl/a.mustache"]
        let loop = try TemplateSet(sources: ["page": "<p>{{>a}}</p>", "a": "x\n  y {{>page}}"], files: files)
        let error = try #require(throws: ThreadfoldError.self) { try loop.render("page", model: TemplateData(loop), root: .null) }
        #expect(error.description == "tpl/page.mustache:1:4: error: partial recursion: '{{>a}}' nests partials more than 500 deep; expected the recursion to end")
    }

    @Test("doubling partials stop at the output cap with an error naming the template, not gigabytes")
    func exponentialPartials() throws {
        // p0 includes p1 twice, p1 includes p2 twice, …: 2^27 copies of p27's 36 bytes (4.8 GB).
        var sources: [String: String] = ["p27": "thirty-six bytes of text, repeated\n"]
        for level in 0..<27 { sources["p\(level)"] = "{{>p\(level + 1)}}{{>p\(level + 1)}}" }
        let set = try TemplateSet(sources: sources, files: ["p0": "tpl/p0.mustache"])
        let error = try #require(throws: ThreadfoldError.self) { _ = try set.render("p0", model: TemplateData(set), root: .null) }
        let limit = TemplateSet.outputLimit(expectedSize: 64 * 1024)
        #expect(
            error.description
                == "tpl/p0.mustache:1:1: error: template 'p0' wrote more than \(limit) bytes (in partial 'p27'), the cap for one page; expected a page under the cap, which is 64 MiB plus 4 times the page's estimated size (partials that include each other more than once per level grow exponentially)"
        )
        // A smaller explicit cap, and output up to the cap is fine.
        let small = try TemplateSet(sources: ["t": "{{#items}}abcd{{/items}}"])
        let items = TemplateValue<TemplateData.Object>.node(TemplateData.Object(["items": .list(Array(repeating: .bool(true), count: 100))]))
        #expect(try small.render("t", model: TemplateData(small), root: items, limit: 400).count == 400)
        #expect(throws: ThreadfoldError.self) { _ = try small.render("t", model: TemplateData(small), root: items, limit: 399) }
        // The cap grows with the estimate: a page estimated at 500 MB may reach 2 GB and more.
        #expect(TemplateSet.outputLimit(expectedSize: 500_000_000) == 64 * 1024 * 1024 + 2_000_000_000)
        #expect(TemplateSet.outputLimit(expectedSize: Int.max) == Int.max)
    }

    /// A model of one node whose `a` is itself, so every nested `{{#a}}` finds it on top of the stack.
    struct SelfNested: TemplateModel {
        /// The template set's names, by slot.
        let names: [String]
        func value(_ key: TemplateKey, of node: Int) -> TemplateValue<Int>? { names[Int(key.slot)] == "a" ? .node(node) : nil }
        func kind(of node: Int) -> Int? { nil }
    }

    @Test("16,000 nested sections parse into 16,000 levels and render", arguments: ["", " ", "\n"])
    func deepSections(_ separator: String) throws {
        let depth = 16_000
        let source =
            String(repeating: "{{#a}}" + separator, count: depth) + "x"
            + String(repeating: separator + "{{/a}}", count: depth)
        let template = try Template(name: "deep", source: source)
        var keys = TemplateKeys()
        let a = keys.key("a")  // the template's one name, so its slot in the template's own table
        // Sections are flat: each one's children run to its `end`. Count how deep they nest.
        var ends: [Int] = []
        var levels = 0
        for (index, node) in template.nodes.enumerated() {
            while let last = ends.last, last <= index { ends.removeLast() }
            if case .section(let name, false, let end) = node, name.parts.map(\.slot) == [a.slot] {
                ends.append(end)
                levels = max(levels, ends.count)
            }
        }
        #expect(levels == depth)
        let set = try TemplateSet(sources: ["deep": source])
        let out = String(decoding: try set.render("deep", model: SelfNested(names: set.keys.names), root: .node(0)), as: UTF8.self)
        switch separator {
        case " ": #expect(out == String(repeating: " ", count: depth) + "x" + String(repeating: " ", count: depth))
        // Each tag alone on its line takes the line with it.
        case "\n": #expect(out == "x\n")
        default: #expect(out == "x")
        }
    }
}
