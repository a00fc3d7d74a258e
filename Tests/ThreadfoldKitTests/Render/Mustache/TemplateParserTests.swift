import Testing
@testable import ThreadfoldKit

@Suite("Template errors")
struct TemplateParserTests {
    @Test("errors name the file, line and column of the culprit", arguments: [
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
        let error = try #require(throws: TemplateError.self) { try Template(name: "page", source: source, file: "page.mustache") }
        #expect(error.description == message)
    }

    @Test("{{x}} escapes strings, never HTML values; {{{x}}} escapes neither")
    func escaping() throws {
        let set = try TemplateSet(sources: ["t": "{{s}}|{{{s}}}|{{h}}|{{{h}}}"])
        let context = MustacheValue.object(MustacheDictionary(["s": .string("<b>"), "h": .html(HTML(trusted: "<i>"))]))
        #expect(String(decoding: try set.render("t", context), as: UTF8.self) == "&lt;b&gt;|<b>|<i>|<i>")
    }

    @Test("runaway partial recursion is an error, not a stack overflow")
    func recursion() throws {
        let set = try TemplateSet(sources: ["t": "{{>t}}"])
        #expect(throws: TemplateError.self) { try set.render("t", .null) }
    }
}
