import Testing

@testable import ThreadfoldKit

@Suite("Heading levels")
struct HeadingLevelsTests {
    func fit(_ html: String, below parent: Int = 2) -> String { HeadingLevels.fit(HTML(trusted: html), below: parent).raw }

    @Test(
        "a body's headings are shifted as a whole, its shallowest just below the page's heading",
        arguments: [
            // A comment's h1 goes below the page's h2, and deeper ones by the same amount.
            ("<h1>a</h1><p>x</p><h2>b</h2><h3>c</h3>", 2, "<h3>a</h3><p>x</p><h4>b</h4><h5>c</h5>"),
            // A body whose shallowest heading is an h4 (Discourse's) is raised, not left skipping.
            ("<h4>a</h4><h5>b</h5>", 2, "<h3>a</h3><h4>b</h4>"),
            // Under the thread's h1, the opening post's h1 becomes an h2.
            ("<h1>a</h1><h2>b</h2>", 1, "<h2>a</h2><h3>b</h3>"),
            // Capped at h6.
            (
                "<h1>a</h1><h2>b</h2><h3>c</h3><h4>d</h4><h5>e</h5><h6>f</h6>", 2,
                "<h3>a</h3><h4>b</h4><h5>c</h5><h6>d</h6><h6>e</h6><h6>f</h6>"
            ),
            // A level the body skips is closed up, so the outline never skips one.
            ("<h1>a</h1><h3>b</h3><h1>c</h1>", 2, "<h3>a</h3><h4>b</h4><h3>c</h3>"),
            // A body that starts deeper than it goes later starts just below the page's heading.
            ("<h2>a</h2><h1>b</h1>", 2, "<h3>a</h3><h3>b</h3>"),
        ])
    func shifted(_ html: String, _ parent: Int, _ expected: String) {
        #expect(fit(html, below: parent) == expected)
    }

    @Test("what only looks like a heading is left alone")
    func onlyHeadings() {
        let text = "<p>&lt;h1&gt; <code>&lt;/h2&gt;</code></p><hr><h7>x</h7><header>"
        #expect(fit(text) == text)
        #expect(fit("<h3>a</h3>") == "<h3>a</h3>")
    }

    @Test("Markdown and HTML bodies on a page sit below its headings")
    func onPage() throws {
        let json = #"""
            {"title": "T", "body": "# Post\n\n## Part", "comments": [
             {"id": 1, "author": "a", "body": "# Big\n\n#### Deep"},
             {"id": 2, "author": "b", "body": "x"}]}
            """#
        let html = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(bytes: Array(json.utf8), file: "t.json").html, as: UTF8.self)
        #expect(html.contains("<h2>Post</h2>\n<h3>Part</h3>"))
        #expect(html.contains("<h3>Big</h3>\n<h4>Deep</h4>"))
        #expect(!html.contains("<h1>Post") && !html.contains("<h1>Big"))
        let discourse =
            #"{"title": "t", "post_stream": {"posts": [{"id": 1, "post_number": 1, "username": "a", "cooked": "<p>op</p>"}, {"id": 2, "post_number": 2, "username": "b", "cooked": "<h4>Heading</h4><p>x</p><h5>Sub</h5>"}]}}"#
        let topic = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(bytes: Array(discourse.utf8), file: "t.json").html, as: UTF8.self)
        #expect(topic.contains("<h3>Heading</h3><p>x</p><h4>Sub</h4>"))
    }
}
