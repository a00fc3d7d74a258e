import Testing

@testable import ThreadfoldKit

@Suite("Emoji shortcodes")
struct EmojiShortcodesTests {
    @Test(
        "common shortcodes are their emoji, GitHub's and Discourse's names alike; unknown ones stay as typed",
        arguments: [
            (":confetti_ball:", "🎊"), (":tada:", "🎉"), (":+1:", "👍"), (":-1:", "👎"), (":heart:", "❤️"),
            (":slight_smile:", "🙂"), (":slightly_smiling_face:", "🙂"), (":100:", "💯"), (":rocket:", "🚀"), (":eyes:", "👀"),
            ("party :confetti_ball: time", "party 🎊 time"), (":tada::tada:", "🎉🎉"), ("a :no_such_emoji: b", "a :no_such_emoji: b"),
            ("10:30:45", "10:30:45"), (":: :tada", ":: :tada"), ("::tada:", ":🎉"), (":Tada:", ":Tada:"),
        ])
    func replaced(_ text: String, _ expected: String) {
        #expect(EmojiShortcodes.replacing(in: text) == expected)
    }

    @Test("a line of colons and names costs linear time and changes nothing it does not know")
    func long() {
        let text = String(repeating: ":abc_def", count: 50_000) + String(repeating: "x", count: 100_000)
        #expect(EmojiShortcodes.replacing(in: text) == text)
    }

    @Test("Discourse: emoji images, raw Markdown and the title show the emoji; code keeps the shortcode")
    func discourse() throws {
        let json = #"""
            {"id": 5, "title": "Launch day :confetti_ball:", "post_stream": {"posts": [
              {"post_number": 1, "username": "op", "cooked": "<p>x</p>"},
              {"post_number": 2, "username": "a", "cooked": "<p>yay <img src=\"https://f.example/e/confetti_ball.png\" class=\"emoji\" alt=\":confetti_ball:\"> <img class=\"emoji emoji-custom\" alt=\":our_logo:\" src=\"https://f.example/logo.png\"></p>"},
              {"post_number": 3, "username": "b", "raw": "Nice :tada: but `:tada:` stays\n\n    :tada:", "cooked": "<p>ignored</p>"},
              {"post_number": 4, "username": "c", "raw": "plain words :rocket:", "cooked": "<p>ignored</p>"}]}}
            """#
        let html = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(bytes: Array(json.utf8), file: "t.json").html, as: UTF8.self)
        #expect(html.contains("<title>Launch day 🎊</title>"))
        #expect(html.contains("<p>yay 🎊 :our_logo:</p>"))
        #expect(html.contains("<p>Nice 🎉 but <code>:tada:</code> stays</p>\n<pre><code>:tada:\n</code></pre>"))
        #expect(html.contains("<p>plain words 🚀</p>"))
    }

    @Test("Markdown from a source without shortcodes keeps them as typed")
    func otherSources() throws {
        let json = #"{"title": "t :tada:", "comments": [{"id": 1, "author": "a", "body": "hi :tada:"}]}"#
        let html = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(bytes: Array(json.utf8), file: "t.json").html, as: UTF8.self)
        #expect(html.contains("<p>hi :tada:</p>") && html.contains("<title>t :tada:</title>"))
    }
}
