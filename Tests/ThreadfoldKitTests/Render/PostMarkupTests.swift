import Testing

@testable import ThreadfoldKit

@Suite("Post markup")
struct PostMarkupTests {
    @Test("a link in a link post is Markdown that cannot break out of its brackets")
    func markdownLink() {
        #expect(PostMarkup.markdownLink("https://a.example/x_(y)*z") == #"[https\:\/\/a\.example\/x\_\(y\)\*z](<https://a.example/x_(y)*z>)"#)
        #expect(PostMarkup.markdownLink("https://a.example/<script>") == nil)
        #expect(PostMarkup.markdownLink("javascript:alert(1)") == nil)
        #expect(PostMarkup.markdownLink("https://a.example/\n[x](javascript:alert(1))") == nil)
    }

    @Test("an opening post's link comes first, in the body's format; a refused link leaves the body alone")
    func openingPost() {
        var info = ThreadInfo()
        info.link = "https://a.example/?a=1&b=\"2\""
        info.bodyFormat = .html
        #expect(PostMarkup.openingPost(info) == #"<p><a href="https://a.example/?a=1&amp;b=&quot;2&quot;">https://a.example/?a=1&amp;b=&quot;2&quot;</a></p>"#)
        info.link = "javascript:alert(1)"
        #expect(PostMarkup.openingPost(info) == nil)
        info.bodyFormat = .markdown
        info.body = "text"
        #expect(PostMarkup.openingPost(info) == "text")
        info.link = "https://a.example/"
        #expect(PostMarkup.openingPost(info) == "[https\\:\\/\\/a\\.example\\/](<https://a.example/>)\n\ntext")
        info.link = nil
        #expect(PostMarkup.openingPost(info) == "text")
    }

    @Test("a comment's warning comes before its text and its media after, every value escaped")
    func parts() {
        var comment = CommentRecord(id: CommentID("1"), body: "<p>hi</p>")
        #expect(PostMarkup.body(of: comment) == "<p>hi</p>")
        comment.parts = [
            .image(url: "https://i.example/a.png", description: "a \"cat\""), .warning("<b>spoilers</b>"),
            .media(url: "https://v.example/v.mp4", description: nil), .media(url: "https://v.example/w.mp4", description: "w & v"),
        ]
        #expect(
            PostMarkup.body(of: comment)
                == #"<p><strong>CW: &lt;b&gt;spoilers&lt;/b&gt;</strong></p><p>hi</p><p><img src="https://i.example/a.png" alt="a &quot;cat&quot;"></p>"#
                + #"<p><a href="https://v.example/v.mp4">https://v.example/v.mp4</a></p><p><a href="https://v.example/w.mp4">w &amp; v</a></p>"#)
        #expect(comment.hasBody && !CommentRecord(id: CommentID("2")).hasBody)
    }
}
