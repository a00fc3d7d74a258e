import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

@Suite("Search and author pages")
struct SearchAndAuthorsTests {
    static func summary(_ i: Int, title: String? = nil, author: String? = "u", posts: [ThreadSummary.Post] = []) -> ThreadSummary {
        ThreadSummary(
            id: "i\(i)", path: "t/thread-i\(i)", title: title ?? "Thread \(i)", author: author, url: nil, lang: nil,
            category: i % 2 == 0 ? "Even" : nil, tags: i % 3 == 0 ? ["three"] : [],
            created: ThreadSummary.TimePoint(Timestamp(milliseconds: Int64(i) * 86_400_000)),
            stats: .init(
                comments: i, participants: 1, topLevel: 1, levels: 1, depthHistogram: [1], firstActivity: nil,
                lastActivity: nil, unarchived: 0),
            layout: "nested", pages: ["", "2"], orders: ["oldest"], posts: posts)
    }

    /// The rows of one chunk, read back as JSON.
    static func rows(_ bytes: [UInt8], chunk: Int) throws -> (JSONReader, [Int]) {
        let prefix = Array("threadfoldSearch.add(\(chunk), ".utf8), suffix = Array(");\n".utf8)
        #expect(Array(bytes.prefix(prefix.count)) == prefix && Array(bytes.suffix(suffix.count)) == suffix)
        let reader = try JSONReader(bytes: Array(bytes.dropFirst(prefix.count).dropLast(suffix.count)), file: "chunk")
        return (reader, try reader.array(reader.root, "$"))
    }

    @Test("the title index holds every thread once, in index order, in chunks, its strings as JSON data")
    func titleIndex() throws {
        let hostile = "</script><img src=x onerror=alert(1)>\"'\\\u{2028}\u{0}"
        var summaries = (0..<(2 * SearchIndex.chunkSize + 1)).map { Self.summary($0) }
        summaries[5] = Self.summary(5, title: hostile, author: hostile)
        let strings = try ResourceStore().strings(locale: "en")
        var files: [(path: String, bytes: [UInt8])] = []
        try SearchIndex.write(PackedSummaries(summaries), strings: strings) { files.append(($0, $1)) }
        #expect(files.map(\.path) == ["search/index-0.js", "search/index-1.js", "search/index-2.js"])
        var seen = 0
        for (c, file) in files.enumerated() {
            let (reader, rows) = try Self.rows(file.bytes, chunk: c)
            for row in rows {
                let fields = try reader.array(row, "row")
                #expect(fields.count == 7)
                let summary = summaries[seen]
                #expect(try reader.string(fields[0], "title") == summary.title)
                #expect(try reader.string(fields[1], "href") == summary.path + "/index.html")
                #expect(try reader.string(fields[2], "author") == summary.author)
                #expect(try reader.string(fields[3], "category") == (summary.category ?? ""))
                #expect(try reader.strings(fields[4], "tags") == summary.tags)
                #expect(try reader.count(fields[6], "comments") == summary.stats.comments)
                seen += 1
            }
        }
        #expect(seen == summaries.count)
        // No byte of a hostile title ends the script or the string early.
        let text = String(decoding: files[0].bytes, as: UTF8.self)
        #expect(!text.contains("\"'\\\u{2028}") && text.contains(#"\"'\\"#))
        #expect(SearchIndex.chunkCount(0) == 0 && SearchIndex.chunkCount(1) == 1 && SearchIndex.chunkCount(SearchIndex.chunkSize) == 1)
    }

    @Test("author folders: a slug and the name's hash; case and Unicode twins apart; never a path")
    func authorFolders() {
        let names = ["Ann", "ann", "Jos\u{E9}", "Jose\u{301}", "../../etc/passwd", ".hidden", "CON", "用户", "!!!", "a/b", ""]
        let folders = names.map(ThreadPaths.authorFolder)
        #expect(Set(folders).count == names.count)
        for folder in folders {
            #expect(!folder.contains("/") && !folder.hasPrefix(".") && !folder.contains("..") && folder.contains("-"))
            #expect(folder.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D })
        }
        #expect(folders[0].hasPrefix("ann-") && folders[8].hasPrefix("user-") && folders[7].hasPrefix("yong-hu-"))
        var cache = ThreadPaths.AuthorFolders()
        #expect(cache.folder("Ann") == folders[0] && cache.folder("Ann") == folders[0] && cache.folder("ann") == folders[1])
    }

    @Test("authors are grouped by their bytes, their items newest first, undated last, then in index order")
    func grouping() {
        let p = { (author: String, ms: Int64?) in
            ThreadSummary.Post(author: author, page: 1, anchor: "c-x", created: ms.map { ThreadSummary.TimePoint(Timestamp(milliseconds: $0)) }, excerpt: "e")
        }
        let summaries = [
            Self.summary(1, author: "ann", posts: [p("Ann", 5), p("ann", nil), p("ann", 9 * 86_400_000)]),
            Self.summary(2, author: nil, posts: [p("ann", 2 * 86_400_000)]),
        ]
        let pages = AuthorPages(summaries)
        #expect(pages.authors.map(\.name).sorted() == ["Ann", "ann"])
        let ann = pages.authors.first { $0.name == "ann" }!
        #expect(ann.threads == 1 && ann.comments == 3)
        #expect(ann.refs.map { "\($0.thread):\($0.post)" } == ["0:2", "1:0", "0:-1", "0:1"])
        let item = pages.item(ann.refs[0], untitled: "Untitled")
        #expect(!item.started && item.href == "t/thread-i1/2/index.html#c-x" && item.threadHref == "t/thread-i1/index.html")
    }

    @Test("thread.json keeps posts; a sidecar whose post has a bad anchor or page is refused")
    func sidecarPosts() throws {
        let post = ThreadSummary.Post(author: "a\"<b>", page: 1, anchor: "c-1", created: nil, excerpt: "hello")
        let summary = Self.summary(3, posts: [post])
        #expect(try ThreadSummary.decode(summary.encoded(), file: "thread.json") == summary)
        #expect(!String(decoding: Self.summary(3).encoded(), as: UTF8.self).contains("posts"), "no posts, no key")
        for bad in [
            ThreadSummary.Post(author: "a", page: 2, anchor: "c-1", created: nil, excerpt: ""),
            ThreadSummary.Post(author: "a", page: 0, anchor: "c-1\"><script>", created: nil, excerpt: ""),
            ThreadSummary.Post(author: "", page: 0, anchor: "c-1", created: nil, excerpt: ""),
        ] {
            #expect(throws: ThreadfoldError.self) { try ThreadSummary.decode(Self.summary(3, posts: [bad]).encoded(), file: "thread.json") }
        }
    }

    static let people =
        #"{"id": "people", "title": "People", "author": "Ann", "created_at": 1700000000, "comments": [{"id": "p1", "author": "ann", "body": "lower *case*", "created_at": 1700000100}, {"id": "p2", "parent_id": "p1", "author": "Ann", "body": "upper case", "created_at": 1700000200}, {"id": "p3", "author": "[deleted]", "deleted": true, "body": "", "created_at": 1700000300}, {"id": "p4", "body": "nobody wrote this", "created_at": 1700000400}, {"id": "p5", "parent_id": "p3", "author": "ann", "body": "under a deleted one", "created_at": 1700000500}]}"#

    @Test("author pages: one per participant with their threads and comments, newest first, paginated, linked from names")
    func authorPages() throws {
        let folder = try ArchiveFixture.folder()
        let input = folder.appendingPathComponent("in")
        try ArchiveFixture.write(Self.people, "people.json", in: input)
        for i in 0..<3 { try ArchiveFixture.write(ArchiveFixture.thread(id: "a\(i)", day: i), "a\(i).json", in: input) }
        var options = ArchiveOptions()
        options.authors = true
        options.perPage = 2
        let report = try ArchiveFixture.build([input.path], in: folder, options: options)
        #expect(report.published && report.errors.isEmpty)
        let site = folder.appendingPathComponent("site")
        let files = ArchiveFixture.files(site)
        let authorFolders = Set(files.keys.filter { $0.hasPrefix("u/") }.map { $0.split(separator: "/")[1] })
        // ann, Ann, and u0, u1, u2 of the fixture threads; no page for the deleted or the unknown author.
        #expect(authorFolders.count == 5, "\(authorFolders.sorted())")
        let ann = ThreadPaths.authorFolder("ann")
        // ann: 2 comments; pages of 2 items.
        let page = ArchiveFixture.text(site, "u/\(ann)/index.html")
        #expect(page.contains("<h1 class=\"tf-author-heading\"><bdi>ann</bdi></h1>") && page.contains("0 threads · 2 comments"))
        let under = try #require(page.range(of: "#c-p5\"")), lower = try #require(page.range(of: "#c-p1\""))
        #expect(under.lowerBound < lower.lowerBound, "newest first")
        // The link to the index says "All threads"; the default site title does not say it again.
        let body = try #require(page.range(of: "<body>")).upperBound
        #expect(page[body...].components(separatedBy: ">All threads<").count - 1 == 1, "\(page)")
        #expect(!page.contains("tf-site-title"))
        #expect(page.contains(#"href="../../t/people-people/index.html#c-p1"><bdi>lower case</bdi></a>"#))
        let u0 = ThreadPaths.authorFolder("u0")
        #expect(files["u/\(u0)/2/index.html"] != nil, "u0 has more than two items")
        #expect(ArchiveFixture.text(site, "u/\(u0)/2/index.html").contains(#"href="../../../t/"#))
        // Names link to their pages on thread pages and the index.
        let thread = ArchiveFixture.text(site, "t/people-people/index.html")
        #expect(thread.contains(#"<a class="tf-author-link" href="../../u/\#(ann)/index.html" itemprop="url"><bdi class="tf-author" itemprop="name">ann</bdi></a>"#))
        #expect(thread.contains(#"href="../../u/\#(ThreadPaths.authorFolder("Ann"))/index.html""#))
        #expect(!thread.contains(#"tf-author-link" href="../../u/user-"#))
        let index = files.keys.filter { $0 == "index.html" || $0.hasPrefix("page/") }.map { ArchiveFixture.text(site, $0) }.joined()
        #expect(index.contains(#"<a class="tf-author-link" href="../../u/\#(ThreadPaths.authorFolder("Ann"))/index.html">"#))
        // A site title of its own is shown beside the link.
        options.title = "Town <forum>"
        #expect(try ArchiveFixture.build([input.path], in: folder, site: "titled", options: options).published)
        #expect(
            ArchiveFixture.text(folder.appendingPathComponent("titled"), "u/\(ann)/index.html")
                .contains(#"<p class="tf-site-title"><bdi>Town &lt;forum&gt;</bdi></p>"#))
        // Without --authors: no pages, no links.
        let plain = try ArchiveFixture.build([input.path], in: folder, site: "plain")
        #expect(plain.published)
        let plainFiles = ArchiveFixture.files(folder.appendingPathComponent("plain"))
        #expect(!plainFiles.keys.contains { $0.hasPrefix("u/") || $0.hasPrefix("search/") || $0 == "threadfold-search.js" })
        #expect(!ArchiveFixture.text(folder.appendingPathComponent("plain"), "t/people-people/index.html").contains("tf-author-link"))
    }

    @Test("search and author pages are byte-identical across jobs, and merge builds them from shards as one build does")
    func mergeAndDeterminism() throws {
        let folder = try ArchiveFixture.folder()
        let input = folder.appendingPathComponent("in")
        try ArchiveFixture.write(Self.people, "people.json", in: input)
        for i in 0..<9 { try ArchiveFixture.write(ArchiveFixture.thread(id: "m\(i)", day: i * 3, chain: i), "m\(i).json", in: input) }
        var options = ArchiveOptions()
        options.authors = true
        options.search = .titles
        options.sections = .category
        options.pageDepth = 3
        _ = try ArchiveFixture.build([input.path], in: folder, site: "whole", options: options, jobs: 1)
        _ = try ArchiveFixture.build([input.path], in: folder, site: "four", options: options, jobs: 4, reversed: true)
        let whole = ArchiveFixture.files(folder.appendingPathComponent("whole"))
        #expect(whole["search/index-0.js"] != nil && whole["search/index.html"] != nil && whole["threadfold-search.js"] != nil)
        #expect(whole == ArchiveFixture.files(folder.appendingPathComponent("four")))
        for k in 1...2 {
            _ = try ArchiveFixture.build([input.path], in: folder, site: "shard-\(k)", options: options, shard: Shard(index: k, count: 2))
        }
        let merge = ArchiveMerge(
            shards: (1...2).map { folder.appendingPathComponent("shard-\($0)").path },
            output: folder.appendingPathComponent("merged"), options: options)
        #expect(try merge.run().published)
        #expect(ArchiveFixture.files(folder.appendingPathComponent("merged")) == whole)
    }

    @Test("incremental builds keep the title index and author pages right")
    func incremental() throws {
        let folder = try ArchiveFixture.folder()
        let input = folder.appendingPathComponent("in")
        try ArchiveFixture.write(Self.people, "people.json", in: input)
        try ArchiveFixture.write(ArchiveFixture.thread(id: "k0", day: 1), "k0.json", in: input)
        var options = ArchiveOptions()
        options.authors = true
        options.search = .titles
        for round in 0..<3 {
            let title = "Renamed \(round)"
            try ArchiveFixture.write(
                Self.people.replacingOccurrences(of: #""title": "People""#, with: #""title": "\#(title)""#)
                    .replacingOccurrences(of: #""author": "ann""#, with: #""author": "ann\#(round)""#), "people.json", in: input)
            let report = try ArchiveFixture.build([input.path], in: folder, options: options, incremental: true)
            #expect(report.published)
            let site = folder.appendingPathComponent("site")
            #expect(ArchiveFixture.text(site, "search/index-0.js").contains(title))
            let files = ArchiveFixture.files(site)
            #expect(files["u/\(ThreadPaths.authorFolder("ann\(round)"))/index.html"] != nil)
            if round > 0 { #expect(files["u/\(ThreadPaths.authorFolder("ann\(round - 1)"))/index.html"] == nil) }
            _ = try ArchiveFixture.build([input.path], in: folder, site: "fresh-\(round)", options: options)
            #expect(ArchiveFixture.files(folder.appendingPathComponent("fresh-\(round)")) == files, "as a fresh build")
        }
    }

    @Test(
        "Pagefind runs on the staged site: its index is published with the pages, and kept right by incremental builds",
        .enabled(if: ExternalTools.runs(when: Pagefind.command() != nil)))
    func pagefind() throws {
        try #require(Pagefind.command() != nil, "Pagefind is missing: \(Pagefind.install)")
        let folder = try ArchiveFixture.folder()
        let input = folder.appendingPathComponent("in")
        var options = ArchiveOptions()
        options.search = .pagefind
        options.orders = [.oldest, .newest]
        let site = folder.appendingPathComponent("site")
        for round in 1...3 {
            try ArchiveFixture.write(ArchiveFixture.thread(id: "f\(round)", day: round), "f\(round).json", in: input)
            let report = try ArchiveFixture.build([input.path], in: folder, options: options, incremental: true)
            #expect(report.published && report.timings.contains { $0.phase == "pagefind" })
            let entry = ArchiveFixture.text(site, "pagefind/pagefind-entry.json")
            // One page per thread: the other order's pages are not indexed.
            #expect(
                entry.contains("\"page_count\":\(round)"),
                "\(entry) \(String(describing: FileManager.default.subpaths(atPath: site.appendingPathComponent("pagefind").path))) \(report.timings) \(report.threadsRendered) \(report.threadsReused)"
            )
        }
        let page = ArchiveFixture.text(site, "t/thread-f1-f1/index.html")
        #expect(page.contains("<main class=\"tf-main\" data-pagefind-body") && page.contains(#"data-pagefind-meta="title""#))
        #expect(!ArchiveFixture.text(site, "t/thread-f1-f1/newest/index.html").contains("data-pagefind-body"))
        let search = ArchiveFixture.text(site, "search/index.html")
        #expect(search.contains("script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'"))
        #expect(!ArchiveFixture.text(site, "index.html").contains("wasm-unsafe-eval"))
        // Missing Pagefind: the build says so, with the install command.
        #expect(Pagefind.missing("site").message.contains("python3 -m pip install 'pagefind[bin]'"))
        #expect(Pagefind.command(environment: ["PATH": "/nonexistent"]) == nil)
    }
}
