import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

@Suite("Thread pipeline")
struct ThreadPipelineTests {
    func page(_ json: String, _ options: RenderOptions = RenderOptions()) throws -> String {
        let result = try ThreadPipeline(options: ArchiveOptions(render: options)).page(bytes: Array(json.utf8), file: "t.json")
        return String(decoding: result.html, as: UTF8.self)
    }

    @Test("the bundled example renders to its golden page")
    func examplePage() throws {
        let result = try ThreadPipeline(options: ArchiveOptions()).page(bytes: ResourceStore.exampleThread, file: "example.json")
        try assertSnapshot(String(decoding: result.html, as: UTF8.self), named: "example.html")
    }

    @Test("a small thread at --max-depth 1 renders to its golden page")
    func twoLevelPage() throws {
        var options = RenderOptions()
        options.layout = LayoutOptions(preview: 1, openDepth: 1, maxDepth: 1)
        let json = #"""
            {"title": "Two levels", "author": "ann", "comments": [
             {"id": 1, "author": "ann", "created_at": "2024-03-03T10:00:00Z", "body": "Question?", "score": 1},
             {"id": 2, "parent_id": 1, "author": "bob", "created_at": "2024-03-03T11:00:00Z", "body": "Answer.", "edited": true},
             {"id": 3, "parent_id": 2, "author": "cy", "created_at": "2024-03-03T12:00:00Z", "body": "Follow-up."},
             {"id": 4, "parent_id": 1, "author": "dee", "created_at": "2024-03-04T12:00:00Z", "body": "Also."}]}
            """#
        try assertSnapshot(try page(json, options), named: "two-levels.html")
    }

    @Test("the same input gives byte-identical pages, in any time zone")
    func deterministic() throws {
        let first = try ThreadPipeline(options: ArchiveOptions()).page(bytes: ResourceStore.exampleThread, file: "example.json").html
        setenv("TZ", "Pacific/Kiritimati", 1)
        tzset()
        defer {
            unsetenv("TZ")
            tzset()
        }
        let second = try ThreadPipeline(options: ArchiveOptions()).page(bytes: ResourceStore.exampleThread, file: "example.json").html
        #expect(first == second)
    }

    /// Hostile strings in every metadata field must come out as text.
    static let payloads = [
        "<script>alert(1)</script>",
        "\"><img src=x onerror=alert(1)>",
        "'><svg onload=alert(1)>",
        "</summary></details><script>alert(1)</script>",
        "</bdi></span><iframe src=javascript:alert(1)>",
        "&lt;script&gt;",
        "{{title}}",
        "\u{202E}evil\u{200B}",
    ]

    @Test("hostile author, title, flair and id text is escaped everywhere", arguments: payloads)
    func hostileMetadata(_ payload: String) throws {
        let quoted = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
        let json = #"""
            {"title": \#(quoted), "author": \#(quoted), "url": \#(quoted), "comments": [
             {"id": \#(quoted), "author": \#(quoted), "author_flair": \#(quoted), "body": "hi"},
             {"id": "r", "parent_id": \#(quoted), "author": \#(quoted), "body": "reply"},
             {"id": "s", "parent_id": "r", "author": "x", "body": "x"}]}
            """#
        var options = RenderOptions()
        options.layout.maxDepth = 1
        let html = try page(json, options)
        #expect(!html.contains(payload) || !payload.contains("<") && !payload.contains("\""))
        #expect(!html.contains("<script>alert"))
        #expect(!html.contains("<img src=x"))
        #expect(!html.contains("<svg"))
        #expect(!html.contains("<iframe"))
        #expect(!html.contains("onerror=alert") || html.contains("onerror=alert(1)&gt;"))
        // Structure survives: as many </details> as <details.
        #expect(html.components(separatedBy: "<details").count == html.components(separatedBy: "</details>").count)
        // The hostile url is not a link (not http or https).
        #expect(!html.contains("href=\"\(payload)") && !html.contains("Original thread</a>"))
    }

    @Test("the page lang comes from the input when it is a language tag, else from the locale")
    func pageLanguage() throws {
        #expect(try page(#"{"lang": "de-CH", "comments": []}"#).contains("<html lang=\"de-CH\" dir=\"ltr\">"))
        #expect(try page(#"{"lang": "x\" onload=\"alert(1)", "comments": []}"#).contains("<html lang=\"en\" dir=\"ltr\">"))
        #expect(try page(#"{"comments": []}"#).contains("<html lang=\"en\""))
    }

    @Test("a thread url is linked only when it is http or https")
    func threadURL() throws {
        #expect(try page(#"{"url": "https://ok.example/t", "comments": []}"#).contains("href=\"https://ok.example/t\""))
        #expect(!(try page(#"{"url": "javascript:alert(1)", "comments": []}"#)).contains("javascript:"))
        #expect(!(try page(#"{"url": "/relative", "comments": []}"#)).contains("href=\"/relative\""))
    }

    @Test("every comment's date is its own when the page's comments and reply summaries go back and forth between days")
    func datesAcrossDays() throws {
        // Sorted by score, the comments alternate between days, and each reply summary's latest
        // activity falls on a third: a page keeps only its last date made.
        var comments: [String] = []
        for k in 0..<12 {
            let day = [3, 4, 3, 5, 4, 4, 3, 6, 6, 3, 5, 4][k]
            let parent = k < 6 ? "null" : "\"c\(k - 6)\""
            comments.append(#"{"id": "c\#(k)", "parent_id": \#(parent), "author": "u\#(k)", "body": "b", "score": \#(100 - k * 7 % 12), "created_at": "2024-03-0\#(day)T\#(10 + k):00:00Z"}"#)
        }
        var options = RenderOptions()
        options.thread = ThreadOptions(sort: .top)
        let html = try page("{\"comments\": [" + comments.joined(separator: ",") + "]}", options)
        let times = html.components(separatedBy: "<time datetime=\"").dropFirst().map { $0.prefix { $0 != "<" } }
        #expect(times.count == 12)
        for time in times {
            let day = Int(String(time.dropFirst(8).prefix(2)))!
            #expect(time.hasSuffix("\">\(day) Mar 2024"), "\(time)")
        }
        // The summaries' latest activity: 3 Mar (c0), 6 Mar (c1, c2), 5 Mar (c3, c4), 4 Mar (c5).
        for latest in [3, 4, 5, 6] { #expect(html.contains("latest \(latest) Mar 2024"), "\(latest)") }
    }

    @Test("reply sections that say the same counts keep their own latest date, or none")
    func summariesRemembered() throws {
        // Four sections of one reply by one person: two on 3 Mar, one on 4 Mar, one with no date
        // (shown first: a comment without a time counts as oldest).
        let html = try page(
            #"""
            {"comments": [
             {"id": "a", "author": "p", "body": "x", "created_at": "2024-03-01T00:00:00Z"},
             {"id": "a1", "parent_id": "a", "author": "q", "body": "x", "created_at": "2024-03-03T09:00:00Z"},
             {"id": "b", "author": "p", "body": "x"},
             {"id": "b1", "parent_id": "b", "author": "q", "body": "x"},
             {"id": "c", "author": "p", "body": "x", "created_at": "2024-03-01T02:00:00Z"},
             {"id": "c1", "parent_id": "c", "author": "q", "body": "x", "created_at": "2024-03-04T09:00:00Z"},
             {"id": "d", "author": "p", "body": "x", "created_at": "2024-03-01T03:00:00Z"},
             {"id": "d1", "parent_id": "d", "author": "q", "body": "x", "created_at": "2024-03-03T23:00:00Z"}]}
            """#, RenderOptions())
        let summaries = html.components(separatedBy: "<span class=\"tf-when-closed\">").dropFirst().map { String($0.prefix { $0 != "<" }) }
            .filter { $0.hasPrefix("1 reply") }
        #expect(
            summaries == [
                "1 reply · 1 person", "1 reply · 1 person · latest 3 Mar 2024", "1 reply · 1 person · latest 4 Mar 2024",
                "1 reply · 1 person · latest 3 Mar 2024",
            ])
    }

    @Test("markers: OP badge, edited, score, deleted placeholder, orphan, replying to")
    func markers() throws {
        var options = RenderOptions()
        options.layout = LayoutOptions(preview: 5, openDepth: 5, maxDepth: 1)
        let html = try page(
            #"""
            {"author": "ann", "comments": [
             {"id": "a", "author": "ann", "body": "x", "score": 1, "edited_at": "2024-03-04T00:00:00Z"},
             {"id": "b", "parent_id": "a", "deleted": true, "author": "zed", "body": "secret"},
             {"id": "c", "parent_id": "b", "author": "bob", "body": "y"},
             {"id": "d", "parent_id": "zzz", "author": "cy", "body": "z"}]}
            """#, options)
        #expect(html.contains("<abbr class=\"tf-badge\" title=\"Original poster\">OP</abbr>"))
        #expect(html.contains("<span class=\"tf-edited\">edited <time datetime=\"2024-03-04T00:00:00Z\">4 Mar 2024</time></span>"))
        #expect(html.contains("<span class=\"tf-score\">1 point</span>"))
        #expect(html.contains("<bdi class=\"tf-author\" itemprop=\"name\">[deleted]</bdi>"))
        #expect(!html.contains("secret") && !html.contains("zed"))
        #expect(html.contains("↳ replying to <a href=\"#c-b\">@<bdi>[deleted]</bdi></a>"))
        #expect(html.contains("Reply to a comment that is not in this archive"))
    }

    @Test("summaries state the precomputed counts, pluralised, and what opening does: \"Hide N replies\" while open")
    func summaries() throws {
        var options = RenderOptions()
        options.layout = LayoutOptions(preview: 1, openDepth: 1, maxDepth: 8)
        let html = try page(Fixtures.flat([("a", nil, "A"), ("b", "a", "B"), ("c", "b", "C"), ("d", "a", "D"), ("e", "a", "D")]), options)
        func summary(_ closed: String, _ open: String) -> String {
            "<summary><span class=\"tf-when-closed\">\(closed)</span><span class=\"tf-when-open\">\(open)</span></summary>"
        }
        #expect(html.contains(summary("3 replies · 4 in thread · 3 people · latest 14 Nov 2023", "Hide 3 replies")))
        #expect(html.contains(summary("1 reply · 1 person · latest 14 Nov 2023", "Hide 1 reply")))
        #expect(html.contains(summary("Show 2 more replies (1 person)", "Hide 2 replies")))
        #expect(html.contains("<details class=\"tf-replies\" open>"))
    }

    @Test("a fold says how many comments and people its whole branch holds, when it holds more than its replies, in both locales")
    func foldBranch() throws {
        var options = RenderOptions()
        options.layout = LayoutOptions(preview: 1, openDepth: 1, maxDepth: 8)
        // a's second reply, d, hides four more comments below it, by four people in all.
        let thread = Fixtures.flat([("a", nil, "A"), ("b", "a", "B"), ("d", "a", "D"), ("e", "d", "E"), ("f", "e", "F"), ("g", "d", "G"), ("h", "g", "E")])
        let html = try page(thread, options)
        #expect(html.contains(">Show 1 more reply (5 comments, 4 people)<"))
        #expect(!html.contains("by 4 people"))
        options.locale = "zh-Hans"
        #expect(try page(thread, options).contains(">展开其余 1 条回复（5 条评论，4 人）<"))
    }
}

@Suite("Orders offered")
struct OrdersOfferedTests {
    static func files(_ scores: [Int64?]) throws -> ThreadFiles {
        var comments: [CommentRecord] = []
        for (i, score) in scores.enumerated() {
            comments.append(
                CommentRecord(
                    id: CommentID("c\(i)"), author: "a", body: "b\(i)",
                    createdAt: Timestamp(unix: 1_700_000_000 + Double(i)), score: score))
        }
        var options = ArchiveOptions()
        options.orders = [.oldest, .top, .newest]
        let thread = try ThreadPipeline(options: options).files(
            ThreadRecord(id: CommentID("t"), title: "t", comments: comments),
            id: CommentID("t"), folder: "t-t", source: "t.json"
        ) { _, _ in }
        if case .written(let files) = thread { return files }
        return try #require(nil as ThreadFiles?, "a thread with comments is written")
    }

    @Test("an order whose pages would equal another's is neither written nor offered: top with no scores, newest with one comment")
    func sameOrders() throws {
        let unscored = try Self.files([nil, nil, nil])
        #expect(unscored.summary.orders == ["oldest", "newest"])
        #expect(!unscored.paths.contains { $0.contains("/top/") })
        let scored = try Self.files([1, 7, 3])
        #expect(scored.summary.orders == ["oldest", "top", "newest"] && scored.paths.contains("t/t-t/top/index.html"))
        #expect(try Self.files([4]).summary.orders == ["oldest"])
    }
}

@Suite("Notices on pages")
struct NoticePageTests {
    static func topic() throws -> ThreadRecord {
        try #require(try Importer.read(bytes: try TestData.bytes("fixtures/discourse-small-actions/topic.json"), file: "topic.json").threads.first)
    }

    /// What `<main>` shows, in order: `c-<id>` for a comment, the notice's line for a notice.
    static func timeline(_ page: String) -> [String] {
        var out: [String] = []
        for line in page.split(separator: "\n") {
            if line.hasPrefix("<article class=\"tf-comment"), let id = line.range(of: #"id=""#) {
                out.append(String(line[id.upperBound...].prefix { $0 != "\"" }))
            } else if line.hasPrefix("<p class=\"tf-notice-line\">") {
                out.append(line.replacingOccurrences(of: #"<[^>]*>"#, with: "", options: .regularExpression))
            }
        }
        return out
    }

    static func page(_ record: ThreadRecord, _ options: RenderOptions = RenderOptions()) throws -> String {
        String(decoding: try ThreadPipeline(options: ArchiveOptions(render: options)).page(record).html, as: UTF8.self)
    }

    @Test("notices show between the comments at their time, as notes with actor, action and time; they are not comments")
    func between() throws {
        var options = RenderOptions()
        options.sourceURL = "https://try.discourse.org/"
        let page = try Self.page(try Self.topic(), options)
        #expect(
            Self.timeline(page) == [
                "c-2", "c-3",
                "system closed the topic 4 Feb 2013",
                "samsaffron opened the topic 5 Feb 2013",
                "samsaffron split the topic 5 Feb 2013",
                "c-14",
                "system closed the topic automatically 7 Mar 2013",
                "samsaffron unlisted the topic 8 Mar 2013",
            ])
        #expect(page.components(separatedBy: #"<div class="tf-notice-note" role="note">"#).count == 6)
        #expect(page.contains(#"<time datetime="2013-02-04T20:40:00Z">4 Feb 2013</time>"#))
        // The split's own text, sanitised, its link resolved against the forum.
        #expect(page.contains(#"<p>3 posts were split to a new topic: <a rel="nofollow ugc noopener" href="https://try.discourse.org/t/sandbox-experiments/58">Sandbox experiments</a></p>"#))
        // Counted as before: three comments, three people, and no comment markup for a notice.
        #expect(page.contains("<p class=\"tf-stats\">3 comments · 3 people · 1 level</p>") && page.contains(#"<meta itemprop="commentCount" content="3">"#))
        #expect(page.components(separatedBy: #"itemprop="comment""#).count == 4)
        #expect(page.components(separatedBy: "<details class=\"tf-fold\"").count == 4)
    }

    @Test("every action code the locales name reads as words in English and Chinese; the two locales name the same codes")
    func locales() throws {
        let resources = ResourceStore()
        let en = try resources.strings(locale: "en"), zh = try resources.strings(locale: "zh-Hans")
        let codes = en.messages.keys.filter { $0.hasPrefix("notice.") }.map { String($0.dropFirst("notice.".count)) }.sorted()
        #expect(Set(codes) == Set(zh.messages.keys.filter { $0.hasPrefix("notice.") }.map { String($0.dropFirst("notice.".count)) }))
        #expect(
            Set([
                "split_topic", "closed.enabled", "closed.disabled", "pinned.enabled", "pinned_globally.enabled", "visible.disabled",
                "autoclosed.enabled", "archived.enabled", "banner.enabled", "user_left", "invited_user", "public_topic", "private_topic",
            ])
            .isSubset(of: codes))
        var record = ThreadRecord(title: "T", comments: [CommentRecord(id: CommentID("1"), author: "a", body: "hi")])
        record.notices = codes.map { NoticeRecord(action: $0, actor: "mod", subject: "carol") }
        for (locale, strings) in [("en", en), ("zh-Hans", zh)] {
            var options = RenderOptions()
            options.locale = locale
            let lines = Self.timeline(try Self.page(record, options)).dropFirst()
            #expect(lines.count == codes.count)
            for (line, code) in zip(lines, codes) {
                let words = strings.text("notice." + code, ["who": "carol"])
                #expect(line == "mod " + words.replacingOccurrences(of: "'", with: "&#39;"), "\(locale) \(code)")
                #expect(!words.isEmpty && !words.contains("{") && !words.contains("“"), "\(locale): \(line)")
            }
        }
    }

    @Test("an unknown action code shows itself, escaped; a missing one, that a notice was posted; a missing actor or subject is unknown")
    func unknown() throws {
        var record = ThreadRecord(title: "T")
        let hostile = "</p></li><script>alert(1)</script>\"'&"
        record.notices = [NoticeRecord(action: hostile, actor: hostile), NoticeRecord(), NoticeRecord(action: "invited_user")]
        let page = try Self.page(record)
        #expect(!page.contains("<script>alert(1)"))
        #expect(
            page.contains(
                #"<bdi class="tf-actor">&lt;/p&gt;&lt;/li&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;</bdi> recorded the action “&lt;/p&gt;&lt;/li&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;”"#
            ))
        #expect(
            Self.timeline(page)
                == [hostile + " recorded the action “" + hostile + "”", "[unknown] posted a notice", "[unknown] invited [unknown]"].map {
                    $0.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
                        .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
                })
        // A thread of notices alone still has no comments.
        #expect(page.contains(#"<p class="tf-empty">No comments yet.</p>"#) && page.contains(#"<ol class="tf-comments">"#))
        #expect(page.contains("<p class=\"tf-stats\">0 comments · 0 people · 0 levels</p>"))
    }

    @Test("notices show in the time orders only, mirrored newest first; an order equal but for notices is not offered")
    func orders() throws {
        func files(_ record: ThreadRecord, _ orders: [CommentOrder]) throws -> [String: String] {
            var options = ArchiveOptions()
            options.orders = orders
            var written: [String: String] = [:]
            _ = try ThreadPipeline(options: options).files(record, id: CommentID("57"), folder: "t-57", source: "topic.json") { path, bytes in
                if path.hasSuffix(".html") { written[path] = String(decoding: bytes, as: UTF8.self) }
            }
            return written
        }
        let site = try files(try Self.topic(), [.oldest, .newest, .top])
        let oldest = Self.timeline(try #require(site["t/t-57/index.html"]))
        #expect(oldest.count == 8)
        #expect(Self.timeline(try #require(site["t/t-57/newest/index.html"])) == oldest.reversed())
        #expect(Self.timeline(try #require(site["t/t-57/top/index.html"])) == ["c-3", "c-14", "c-2"])
        // Without likes, `top` orders the comments as `oldest` does, less the notices: not offered after it,
        // while `oldest` after `top` shows the notices `top` lacks, so it is.
        var unliked = try Self.topic()
        for i in unliked.comments.indices { unliked.comments[i].reactions = [] }
        #expect(try files(unliked, [.oldest, .top]).keys.sorted() == ["t/t-57/index.html"])
        let topFirst = try files(unliked, [.top, .oldest])
        #expect(Self.timeline(try #require(topFirst["t/t-57/index.html"])) == ["c-2", "c-3", "c-14"])
        #expect(Self.timeline(try #require(topFirst["t/t-57/oldest/index.html"])) == oldest)
    }

    @Test("split into pages, a notice goes with the comment it comes before, and those after every comment with the last page")
    func pages() throws {
        var options = ArchiveOptions()
        options.pageSize = 1
        var written: [String: String] = [:]
        _ = try ThreadPipeline(options: options).files(try Self.topic(), id: CommentID("57"), folder: "t-57", source: "topic.json") { path, bytes in
            written[path] = String(decoding: bytes, as: UTF8.self)
        }
        #expect(Self.timeline(try #require(written["t/t-57/index.html"])) == ["c-2"])
        #expect(Self.timeline(try #require(written["t/t-57/2/index.html"])) == ["c-3"])
        let last = Self.timeline(try #require(written["t/t-57/3/index.html"]))
        #expect(last.count == 6 && last[3] == "c-14")
    }

    @Test("the same input gives byte-identical pages with notices")
    func deterministic() throws {
        let record = try Self.topic()
        #expect(try Self.page(record) == (try Self.page(try Self.topic())))
    }
}
