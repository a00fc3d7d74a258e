import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("Archive builder")
struct ArchiveBuilderTests {
    /// Ten threads on ten days, in three categories, one file each.
    func tenThreads(_ folder: URL) throws -> URL {
        let input = folder.appendingPathComponent("in")
        for i in 0..<10 {
            try ArchiveFixture.write(
                ArchiveFixture.thread(id: "n\(i)", day: i * 20, category: ["Help", "Meta", "Off-topic"][i % 3]),
                "n\(i).json", in: input)
        }
        return input
    }

    @Test("the index lists every thread newest first, paginated with numbered links")
    func indexPagination() throws {
        let folder = try ArchiveFixture.folder()
        let input = try tenThreads(folder)
        var options = ArchiveOptions()
        options.perPage = 4
        let report = try ArchiveFixture.build([input.path], in: folder, options: options)
        #expect(report.published && report.errors.isEmpty)
        #expect(report.threads == 10 && report.comments == 40)
        let site = folder.appendingPathComponent("site")
        let files = ArchiveFixture.files(site)
        #expect(files["index.html"] != nil && files["page/2/index.html"] != nil && files["page/3/index.html"] != nil)
        #expect(files["page/4/index.html"] == nil)
        let first = ArchiveFixture.text(site, "index.html")
        // Newest activity first: n9 (day 180) before n8.
        let n9 = try #require(first.range(of: "t/thread-n9-n9/index.html")), n8 = try #require(first.range(of: "t/thread-n8-n8/index.html"))
        #expect(n9.lowerBound < n8.lowerBound)
        #expect(first.contains("Page 1 of 3") && first.contains(#"<a href="page/2/index.html">2</a>"#) && first.contains(#"rel="next""#))
        let third = ArchiveFixture.text(site, "page/3/index.html")
        #expect(third.contains(#"href="../../index.html">1</a>"#) && third.contains(#"href="../../t/thread-n0-n0/index.html""#))
        #expect(third.contains(#"href="../../threadfold.css""#))
        for i in 0..<10 { #expect(files["t/thread-n\(i)-n\(i)/index.html"] != nil) }
    }

    @Test("sections by category: one <details> each with counts, the largest open, section pages")
    func categorySections() throws {
        let folder = try ArchiveFixture.folder()
        let input = try tenThreads(folder)
        var options = ArchiveOptions()
        options.sections = .category
        options.perPage = 2
        _ = try ArchiveFixture.build([input.path], in: folder, options: options)
        let site = folder.appendingPathComponent("site")
        let index = ArchiveFixture.text(site, "index.html")
        #expect(index.components(separatedBy: "<details class=\"tf-section\"").count == 4)
        // Help has 4 threads (0, 3, 6, 9), the most: it starts open, and the others closed.
        #expect(index.contains(#"<details class="tf-section" open>"# + "\n<summary><bdi class=\"tf-section-name\">Help</bdi> <span class=\"tf-count\">4 threads · 16 comments</span>"))
        #expect(index.components(separatedBy: " open>").count == 2)
        let files = ArchiveFixture.files(site)
        let helpPages = files.keys.filter { $0.hasPrefix("s/help-") }.sorted()
        #expect(helpPages.count == 2, "4 threads at 2 a page")
        #expect(index.contains("All 4 threads in Help →"))
    }

    @Test("sections by month: the newest month in the data starts open, months newest first")
    func monthSections() throws {
        let folder = try ArchiveFixture.folder()
        let input = try tenThreads(folder)
        var options = ArchiveOptions()
        options.sections = .month
        _ = try ArchiveFixture.build([input.path], in: folder, options: options)
        let index = ArchiveFixture.text(folder.appendingPathComponent("site"), "index.html")
        let months = index.components(separatedBy: "<bdi class=\"tf-section-name\">").dropFirst().map { $0.prefix { $0 != "<" } }
        #expect(months.first == "May 2024" && months.last == "Nov 2023")
        #expect(index.contains("<details class=\"tf-section\" open>\n<summary><bdi class=\"tf-section-name\">May 2024"))
    }

    @Test("a branch deeper than --page-depth continues on its own page, with a breadcrumb back")
    func continueThisThread() throws {
        let folder = try ArchiveFixture.folder()
        let path = try ArchiveFixture.write(ArchiveFixture.thread(id: "deep", chain: 20), "deep.json", in: folder)
        var options = ArchiveOptions()
        options.pageDepth = 4
        _ = try ArchiveFixture.build([path], in: folder, options: options)
        let site = folder.appendingPathComponent("site")
        let base = "t/thread-deep-deep"
        let main = ArchiveFixture.text(site, base + "/index.html")
        // Chain d0 (level 1), d1, d2 (level 3 = page depth − 1): d2's replies move away.
        #expect(main.contains(#"id="c-deepd2""#) && !main.contains(#"id="c-deepd3""#))
        #expect(main.contains(#"<p class="tf-continue"><a href="c-deepd2/index.html">Continue this thread (17 replies) →</a></p>"#))
        let branch = ArchiveFixture.text(site, base + "/c-deepd2/index.html")
        #expect(branch.contains(#"id="c-deepd2""#) && branch.contains(#"id="c-deepd5""#) && !branch.contains(#"id="c-deepd6""#))
        #expect(branch.contains(#"<a href="../index.html#c-deepc0">"#) && branch.contains(#"<a href="../index.html#c-deepd1">"#))
        #expect(branch.contains(#"Back to the thread"#) && branch.contains(#"href="../../../threadfold.css""#))
        #expect(branch.contains(#"<a href="../c-deepd5/index.html">Continue this thread (14 replies) →</a>"#))
        let deeper = ArchiveFixture.text(site, base + "/c-deepd5/index.html")
        #expect(deeper.contains(#"<a href="../c-deepd2/index.html#c-deepd4">"#), "an ancestor on a branch page links there")
        let sidecar = try ThreadSummary.decode(Array(ArchiveFixture.text(site, base + "/thread.json").utf8), file: "thread.json")
        #expect(sidecar.pages.first == "" && sidecar.pages.contains("c-deepd2") && sidecar.pages.count == 1 + 6)
        #expect(sidecar.stats.depthHistogram == [2, 3] + Array(repeating: 1, count: 19))
    }

    @Test("a thread over --page-size top-level comments splits between them, never inside a branch")
    func pageSplit() throws {
        let folder = try ArchiveFixture.folder()
        let path = try ArchiveFixture.write(ArchiveFixture.thread(id: "long", comments: 5, replies: 3), "long.json", in: folder)
        var options = ArchiveOptions()
        options.pageSize = 2
        _ = try ArchiveFixture.build([path], in: folder, options: options)
        let site = folder.appendingPathComponent("site")
        let base = "t/thread-long-long"
        let pages = [base + "/index.html", base + "/2/index.html", base + "/3/index.html"].map { ArchiveFixture.text(site, $0) }
        for (k, page) in pages.enumerated() {
            for c in 0..<5 {
                let here = c / 2 == k
                #expect(page.contains(#"id="c-longc\#(c)""#) == here)
                #expect(page.contains(#"id="c-longc\#(c)r2""#) == here, "replies stay with their comment")
            }
            #expect(page.contains("Page \(k + 1) of 3"))
        }
        #expect(pages[1].contains(#"<a href="../index.html">Continued from page 1</a>"#))
        #expect(pages[2].contains(#"<a href="../2/index.html">Continued from page 2</a>"#))
        #expect(!pages[1].contains("tf-post"), "the opening post shows on the first part only")
    }

    @Test("flat layout lists every reply under its top-level comment; auto picks it above 10 replies each")
    func layouts() throws {
        let folder = try ArchiveFixture.folder()
        let busy = try ArchiveFixture.write(ArchiveFixture.thread(id: "busy", comments: 2, replies: 12, chain: 3), "busy.json", in: folder)
        let calm = try ArchiveFixture.write(ArchiveFixture.thread(id: "calm", comments: 3, replies: 2, chain: 3), "calm.json", in: folder)
        var options = ArchiveOptions()
        options.layout = .auto
        _ = try ArchiveFixture.build([busy, calm], in: folder, options: options)
        let site = folder.appendingPathComponent("site")
        let flat = ArchiveFixture.text(site, "t/thread-busy-busy/index.html")
        let nested = ArchiveFixture.text(site, "t/thread-calm-calm/index.html")
        #expect(flat.contains("tf-list tf-flat") && flat.contains(##"<a href="#c-busyd0">"##), "d1 says it answers d0")
        #expect(!nested.contains("tf-flat"))
        let index = ArchiveFixture.text(site, "index.html")
        #expect(index.components(separatedBy: "flat view").count == 2)
        options.layout = .flat
        _ = try ArchiveFixture.build([busy, calm], in: folder, site: "flat", options: options)
        #expect(ArchiveFixture.text(folder.appendingPathComponent("flat"), "t/thread-calm-calm/index.html").contains("tf-flat"))
        #expect(!ArchiveFixture.text(folder.appendingPathComponent("flat"), "index.html").contains("flat view"), "all flat: not worth saying")
    }

    @Test("--orders writes a page per order with a switcher, the first order at the thread's folder")
    func orders() throws {
        let folder = try ArchiveFixture.folder()
        let path = try ArchiveFixture.write(ArchiveFixture.thread(id: "o", comments: 4, chain: 10), "o.json", in: folder)
        var options = ArchiveOptions()
        options.orders = [.newest, .oldest, .top]
        options.pageDepth = 5
        _ = try ArchiveFixture.build([path], in: folder, options: options)
        let site = folder.appendingPathComponent("site")
        let files = ArchiveFixture.files(site)
        for dir in ["", "oldest/", "top/"] {
            #expect(files["t/thread-o-o/\(dir)index.html"] != nil)
            #expect(files["t/thread-o-o/\(dir)c-od3/index.html"] != nil)
        }
        let main = ArchiveFixture.text(site, "t/thread-o-o/index.html")
        #expect(main.contains(#"Sort by: <strong aria-current="page">Newest</strong> <a href="oldest/index.html">Oldest</a> <a href="top/index.html">Top</a>"#))
        let c3 = try #require(main.range(of: #"id="c-oc3""#)), c0 = try #require(main.range(of: #"id="c-oc0""#))
        #expect(c3.lowerBound < c0.lowerBound, "newest first")
        let branch = ArchiveFixture.text(site, "t/thread-o-o/top/c-od3/index.html")
        #expect(branch.contains(#"<a href="../../c-od3/index.html">Newest</a>"#))
    }

    @Test("the same input gives byte-identical sites in any order and with any number of jobs")
    func determinism() throws {
        let folder = try ArchiveFixture.folder()
        let input = try tenThreads(folder)
        let lines = (0..<20).map { ArchiveFixture.thread(id: "l\($0)", day: $0, chain: $0 % 12) }.joined(separator: "\n")
        let jsonl = try ArchiveFixture.write(lines, "more.jsonl", in: folder)
        var options = ArchiveOptions()
        options.sections = .month
        options.orders = [.oldest, .top]
        options.baseURL = "https://example.org/forum/"
        options.pageDepth = 4
        _ = try ArchiveFixture.build([input.path, jsonl], in: folder, site: "one", options: options, jobs: 1)
        _ = try ArchiveFixture.build([jsonl, input.path], in: folder, site: "four", options: options, jobs: 4, reversed: true)
        let one = ArchiveFixture.files(folder.appendingPathComponent("one"))
        let four = ArchiveFixture.files(folder.appendingPathComponent("four"))
        #expect(one.count > 60)
        #expect(one.keys.sorted() == four.keys.sorted())
        for (path, bytes) in one { #expect(four[path] == bytes, "\(path) differs") }
    }

    @Test("a failed build publishes nothing and leaves the previous site whole; removed threads disappear")
    func atomicPublish() throws {
        let folder = try ArchiveFixture.folder()
        let input = try tenThreads(folder)
        _ = try ArchiveFixture.build([input.path], in: folder)
        let site = folder.appendingPathComponent("site")
        let before = ArchiveFixture.files(site)
        try ArchiveFixture.write(#"{"id": "bad", "comments": [{"id": 1}, {"id": 2, "parent_id": {}}]}"#, "zz-bad.json", in: input)
        let failed = try ArchiveFixture.build([input.path], in: folder)
        #expect(!failed.published && failed.errors.count == 1)
        #expect(failed.errors[0].path == "$.comments[1].parent_id" && failed.errors[0].file.hasSuffix("zz-bad.json"))
        #expect(ArchiveFixture.files(site) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("staging") }
        #expect(leftovers.isEmpty)

        try FileManager.default.removeItem(at: input.appendingPathComponent("zz-bad.json"))
        try FileManager.default.removeItem(at: input.appendingPathComponent("n3.json"))
        _ = try ArchiveFixture.build([input.path], in: folder)
        let after = ArchiveFixture.files(site)
        #expect(!after.keys.contains { $0.hasPrefix("t/thread-n3-n3/") })
        #expect(!ArchiveFixture.text(site, "index.html").contains("thread-n3-n3"))
    }

    @Test("two threads with one id fail the build, naming both inputs")
    func duplicateThreads() throws {
        let folder = try ArchiveFixture.folder()
        let a = try ArchiveFixture.write(ArchiveFixture.thread(id: "same", title: "First"), "a.json", in: folder)
        let b = try ArchiveFixture.write(ArchiveFixture.thread(id: "same", title: "Second"), "b.json", in: folder)
        let report = try ArchiveFixture.build([a, b], in: folder)
        #expect(!report.published)
        let error = try #require(report.errors.first)
        #expect(report.errors.count == 1 && error.file == b && error.message.contains("\"same\""))
        #expect(error.message.contains("is used by a thread in \(a) and by one in \(b)"), "both, in one order whichever claimed first")
        // Whichever worker claims first, the thread of the earliest input holds the id, and each
        // later one is an error naming it: the same messages every time.
        let more = try ["c", "d", "e"].map { try ArchiveFixture.write(ArchiveFixture.thread(id: "same", title: "Title \($0)"), "\($0).json", in: folder) }
        for _ in 0..<6 {
            let errors = try ArchiveFixture.build([a, b] + more, in: folder).errors
            #expect(errors.map(\.file) == [b] + more && errors.allSatisfy { $0.message.contains("is used by a thread in \(a) and by one in \($0.file)") })
        }
    }

    @Test("a thread with nothing left to show is not published but warned about; a build of nothing but such threads fails")
    func emptyThreads() throws {
        let folder = try ArchiveFixture.folder()
        let empty = try ArchiveFixture.write(#"{"id": "e", "title": "Empty", "comments": [{"id": 1, "deleted": true}, {"id": 2, "removed": true}]}"#, "empty.json", in: folder)
        let full = try ArchiveFixture.write(ArchiveFixture.thread(id: "full", title: "Full"), "full.json", in: folder)
        let report = try ArchiveFixture.build([empty, full], in: folder)
        #expect(report.published && report.errors.isEmpty && report.threads == 1)
        let warning = try #require(report.warnings.first { $0.kind == "emptyThread" })
        #expect(warning.severity == .warning && warning.file == empty)
        #expect(warning.message == "the thread \"e\" has none of its 2 comments left to show and no opening post; left out of the site, as an empty page would pass for a thread nobody answered")
        let site = folder.appendingPathComponent("site")
        #expect(!ArchiveFixture.files(site).keys.contains { $0.hasPrefix("t/empty-e/") } && !ArchiveFixture.text(site, "index.html").contains("Empty"))
        // An opening post alone is something to show.
        let post = try ArchiveFixture.write(#"{"id": "p", "title": "Post", "body": "Just the post.", "comments": []}"#, "post.json", in: folder)
        #expect(try ArchiveFixture.build([post], in: folder, site: "post").threads == 1)
        // Nothing left at all: the build fails, and nothing is published.
        let none = try ArchiveFixture.build([empty], in: folder, site: "none")
        #expect(!none.published && none.errors.first?.message.hasPrefix("no thread has anything to show") == true)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("none").path))
    }

    @Test("hostile ids and titles give distinct, safe folders whose pages escape them")
    func hostileNames() throws {
        let folder = try ArchiveFixture.folder()
        let ids = ["../../etc", "ABC", "abc", "caf\u{E9}", "cafe\u{301}", "con", "<b>x</b>", "a/b", ".git"]
        let lines = ids.enumerated().map { i, id in
            let escaped = id.replacingOccurrences(of: "\"", with: "\\\"")
            return #"{"id": "\#(escaped)", "title": "<script>alert(\#(i))</script> \#(escaped)", "comments": [{"id": 1, "body": "x"}]}"#
        }.joined(separator: "\n")
        let path = try ArchiveFixture.write(lines, "hostile.jsonl", in: folder)
        let report = try ArchiveFixture.build([path], in: folder)
        #expect(report.published && report.threads == ids.count)
        let site = folder.appendingPathComponent("site")
        let threads = try FileManager.default.contentsOfDirectory(atPath: site.appendingPathComponent("t").path)
        #expect(Set(threads.map { $0.lowercased() }).count == ids.count)
        #expect(threads.allSatisfy { !$0.hasPrefix(".") && !$0.contains("..") })
        let index = ArchiveFixture.text(site, "index.html")
        #expect(!index.contains("<script>alert") && index.contains("&lt;script&gt;alert(0)"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("etc").path))
    }

    @Test("--incremental re-renders only the changed thread and links the rest")
    func incremental() throws {
        let folder = try ArchiveFixture.folder()
        let input = try tenThreads(folder)
        let first = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        #expect(first.threadsRendered == 10 && !first.incrementalBase)
        let site = folder.appendingPathComponent("site")
        let untouched = site.appendingPathComponent("t/thread-n2-n2/index.html").path
        let inode = ArchiveFixture.inode(untouched)
        // n5 gains a comment and becomes the newest activity.
        try ArchiveFixture.write(ArchiveFixture.thread(id: "n5", day: 500, comments: 3, category: "Off-topic"), "n5.json", in: input)
        let second = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        #expect(second.incrementalBase)
        #expect(second.threadsRendered == 1 && second.threadsReused == 9)
        #expect(ArchiveFixture.inode(untouched) == inode, "an unchanged page is the same file")
        #expect(ArchiveFixture.text(site, "t/thread-n5-n5/index.html").contains(#"id="c-n5c2""#))
        // The result equals a full build.
        _ = try ArchiveFixture.build([input.path], in: folder, site: "full")
        #expect(ArchiveFixture.files(site) == ArchiveFixture.files(folder.appendingPathComponent("full")))
        // Changing an option renders everything again.
        var options = ArchiveOptions()
        options.perPage = 3
        let third = try ArchiveFixture.build([input.path], in: folder, options: options, incremental: true)
        #expect(third.threadsRendered == 10 && !third.incrementalBase)
    }

    @Test("a thread reused from an earlier build is warned about where it is now: its line and JSON path follow it")
    func reusedWarningsMove() throws {
        let folder = try ArchiveFixture.folder()
        let a = #"{"id": "a", "title": "A", "comments": [{"id": "1", "body": "x"}]}"#
        let b = #"{"id": "b", "title": "B", "comments": [{"id": "1", "body": "x"}, {"id": "2", "parent_id": "zz", "body": "orphan"}]}"#
        let c = #"{"id": "c", "title": "C", "comments": [{"id": "1", "body": "y"}]}"#
        let empty = #"{"id": "e", "title": "E", "comments": []}"#
        func places(_ report: ArchiveBuilder.Report) -> [String] {
            report.warnings.map { "\($0.file):\($0.line ?? 0) \($0.path ?? "") \($0.kind ?? "")" }.sorted()
        }
        let lines = try ArchiveFixture.write([a, b, empty].joined(separator: "\n") + "\n", "t.jsonl", in: folder)
        let document = try ArchiveFixture.write("{\"threads\": [\n" + b.replacingOccurrences(of: "\"b\"", with: "\"d\"") + "]}\n", "d.json", in: folder)
        let first = try ArchiveFixture.build([lines, document], in: folder, incremental: true)
        #expect(places(first) == ["\(document):2 $.threads[0].comments[1] orphan", "\(lines):2 $.comments[1] orphan", "\(lines):3 $ emptyThread"])
        // A line before them, and a thread before the document's: each moves down one line, and
        // the document's to the second element.
        _ = try ArchiveFixture.write([c, a, b, empty].joined(separator: "\n") + "\n", "t.jsonl", in: folder)
        _ = try ArchiveFixture.write("{\"threads\": [\n" + c + ",\n" + b.replacingOccurrences(of: "\"b\"", with: "\"d\"") + "]}\n", "d.json", in: folder)
        let second = try ArchiveFixture.build([lines, document], in: folder, incremental: true)
        #expect(second.threadsReused >= 2, "the moved threads are reused, not rendered again")
        let full = try ArchiveFixture.build([lines, document], in: folder, site: "full")
        #expect(second.warnings.map(\.description).sorted() == full.warnings.map(\.description).sorted())
        #expect(places(full) == ["\(document):3 $.threads[1].comments[1] orphan", "\(lines):3 $.comments[1] orphan", "\(lines):4 $ emptyThread"])
    }

    @Test("incremental builds take the listing files as they are while no summary changed, and render them when one did or a file was edited")
    func listingReuse() throws {
        let folder = try ArchiveFixture.folder()
        let input = try tenThreads(folder)
        let site = folder.appendingPathComponent("site")
        func manifest(_ site: URL) -> Manifest? {
            FileManager.default.contents(atPath: site.appendingPathComponent(Manifest.fileName).path).flatMap { Manifest(bytes: [UInt8]($0)) }
        }
        func full(_ name: String) throws -> [String: [UInt8]] {
            _ = try ArchiveFixture.build([input.path], in: folder, site: name)
            return ArchiveFixture.files(folder.appendingPathComponent(name))
        }
        // A reply's body changes: its page does, no summary does.
        func editReply(_ text: String) throws {
            let thread = ArchiveFixture.thread(id: "n2", day: 40, category: "Off-topic")
            try ArchiveFixture.write(thread.replacingOccurrences(of: "Comment *n2c0r0*", with: text), "n2.json", in: input)
        }
        _ = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        let first = try #require(manifest(site)?.listingHash)
        let index = ArchiveFixture.inode(site.appendingPathComponent("index.html").path)
        // No spare yet: the listing is linked from the live site.
        try editReply("Edited once")
        let second = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        #expect(second.threadsRendered == 1 && manifest(site)?.listingHash == first)
        #expect(ArchiveFixture.inode(site.appendingPathComponent("index.html").path) == index)
        #expect(ArchiveFixture.files(site) == (try full("full2")))
        // The spare (generation 1) is recycled: its listing files are kept.
        try editReply("Edited twice")
        let third = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        #expect(third.threadsRendered == 1 && manifest(site)?.listingHash == first)
        #expect(ArchiveFixture.files(site) == (try full("full3")))
        // A file of the live site edited by hand is not carried forward, and neither is the spare's.
        try Data("edited by hand".utf8).write(to: site.appendingPathComponent("index.html"))
        try editReply("Edited three times")
        _ = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        #expect(ArchiveFixture.files(site) == (try full("full4")))
        try editReply("Edited four times")
        _ = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        #expect(ArchiveFixture.files(site) == (try full("full5")))
        // A title changes a summary: the listing is rendered again and shows it.
        try ArchiveFixture.write(ArchiveFixture.thread(id: "n4", title: "A new title", day: 80, category: "Meta"), "n4.json", in: input)
        _ = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        #expect(manifest(site)?.listingHash != first)
        #expect(ArchiveFixture.text(site, "index.html").contains("A new title"))
        #expect(ArchiveFixture.files(site) == (try full("full6")))
    }

    @Test("incremental builds recycle the spare site: every result equals a full build, and the live site is never touched")
    func incrementalGenerations() throws {
        let folder = try ArchiveFixture.folder()
        let input = try tenThreads(folder)
        var options = ArchiveOptions()
        options.perPage = 4
        let site = folder.appendingPathComponent("site")
        let spare = folder.appendingPathComponent(".site.spare")
        func full(_ name: String) throws -> [String: [UInt8]] {
            _ = try ArchiveFixture.build([input.path], in: folder, site: name, options: options)
            return ArchiveFixture.files(folder.appendingPathComponent(name))
        }
        _ = try ArchiveFixture.build([input.path], in: folder, options: options, incremental: true)
        // Generation 2: one thread changes; no spare yet, so the rest is linked from the live site.
        try ArchiveFixture.write(ArchiveFixture.thread(id: "n5", day: 300, comments: 3, category: "Off-topic"), "n5.json", in: input)
        let second = try ArchiveFixture.build([input.path], in: folder, options: options, incremental: true)
        #expect(second.threadsRendered == 1 && second.threadsReused == 9)
        let generation2 = ArchiveFixture.files(site)
        #expect(generation2 == (try full("full2")))
        #expect(FileManager.default.fileExists(atPath: spare.path), "the swapped-out site is kept as the spare")
        // Generation 3 recycles the spare (generation 1): n5, changed in generation 2, is linked
        // from the live site, n7 and n10 are rendered, n3 goes, and the index loses and gains pages.
        try ArchiveFixture.write(ArchiveFixture.thread(id: "n7", day: 140, comments: 4, category: "Meta"), "n7.json", in: input)
        try FileManager.default.removeItem(at: input.appendingPathComponent("n3.json"))
        try ArchiveFixture.write(ArchiveFixture.thread(id: "n10", day: 400, category: "New"), "n10.json", in: input)
        let third = try ArchiveFixture.build([input.path], in: folder, options: options, incremental: true)
        #expect(third.published && third.threadsRendered == 2 && third.threadsReused == 8)
        #expect(ArchiveFixture.files(site) == (try full("full3")))
        #expect(ArchiveFixture.files(spare) == generation2, "generation 2, now the spare, was never written through a shared link")
        // Generation 4: nothing changed; what the recycled folder (generation 2) lacks, generation 3
        // changed, and it is linked from the live site.
        let fourth = try ArchiveFixture.build([input.path], in: folder, options: options, incremental: true)
        #expect(fourth.threadsRendered == 0 && fourth.threadsReused == 10 && fourth.filesWritten == 0)
        #expect(ArchiveFixture.files(site) == (try full("full4")))
        let fifth = try ArchiveFixture.build([input.path], in: folder, options: options, incremental: true)
        #expect(fifth.threadsRendered == 0 && fifth.filesWritten == 0, "two unchanged generations: nothing to write")
        #expect(ArchiveFixture.files(site) == (try full("full5")))
    }

    @Test("feeds and the sitemap are well-formed XML; absolute URLs only with a base URL")
    func feeds() throws {
        let folder = try ArchiveFixture.folder()
        let input = try tenThreads(folder)
        try ArchiveFixture.write(ArchiveFixture.thread(id: "amp", title: "Tom & Jerry <3 'quotes'"), "amp.json", in: input)
        _ = try ArchiveFixture.build([input.path], in: folder, site: "relative")
        var options = ArchiveOptions()
        options.baseURL = "https://example.org/forum"
        _ = try ArchiveFixture.build([input.path], in: folder, site: "absolute", options: options)
        let relative = folder.appendingPathComponent("relative"), absolute = folder.appendingPathComponent("absolute")
        #expect(ArchiveFixture.files(relative)["sitemap.xml"] == nil)
        for (site, file) in [
            (relative, "atom.xml"), (relative, "t/tom-jerry-3-quotes-amp/atom.xml"), (absolute, "atom.xml"), (absolute, "sitemap.xml"),
            (absolute, "t/thread-n1-n1/atom.xml"),
        ] {
            let text = ArchiveFixture.text(site, file)
            #expect(!text.isEmpty, "\(file)")
            let parser = XMLParser(data: Data(text.utf8))
            #expect(parser.parse(), "\(file): \(parser.parserError.map { "\($0)" } ?? "")")
        }
        let feed = ArchiveFixture.text(relative, "atom.xml")
        #expect(!feed.contains("https://example.org") && feed.contains(#"href="t/thread-n9-n9/index.html""#))
        let absoluteFeed = ArchiveFixture.text(absolute, "atom.xml")
        #expect(absoluteFeed.contains("<id>https://example.org/forum/t/thread-n9-n9/</id>"))
        let sitemap = ArchiveFixture.text(absolute, "sitemap.xml")
        #expect(sitemap.contains("<loc>https://example.org/forum/</loc>") && sitemap.contains("<loc>https://example.org/forum/t/thread-n0-n0/</loc>"))
        let page = ArchiveFixture.text(absolute, "t/thread-n1-n1/index.html")
        #expect(page.contains(#"<link rel="canonical" href="https://example.org/forum/t/thread-n1-n1/">"#))
        #expect(!ArchiveFixture.text(relative, "t/thread-n1-n1/index.html").contains("canonical"))
    }

    @Test("shards merged give the same site as one build")
    func shards() throws {
        let folder = try ArchiveFixture.folder()
        let input = try tenThreads(folder)
        var options = ArchiveOptions()
        options.sections = .category
        _ = try ArchiveFixture.build([input.path], in: folder, site: "whole", options: options)
        var counts: [Int] = []
        for k in 1...3 {
            let report = try ArchiveFixture.build([input.path], in: folder, site: "shard-\(k)", options: options, shard: Shard(index: k, count: 3))
            counts.append(report.threads)
            #expect(report.threads + report.threadsInOtherShards == 10)
        }
        #expect(counts.reduce(0, +) == 10)
        let merge = ArchiveMerge(
            shards: (1...3).map { folder.appendingPathComponent("shard-\($0)").path },
            output: folder.appendingPathComponent("merged"), options: options)
        let report = try merge.run()
        #expect(report.published && report.threads == 10)
        #expect(ArchiveFixture.files(folder.appendingPathComponent("merged")) == ArchiveFixture.files(folder.appendingPathComponent("whole")))
        // A shard twice is an error.
        let twice = ArchiveMerge(
            shards: [folder.appendingPathComponent("shard-1").path, folder.appendingPathComponent("shard-1").path],
            output: folder.appendingPathComponent("twice"), options: options)
        let failed = try twice.run()
        #expect(!failed.published && !failed.errors.isEmpty)
    }

    @Test("a flat list of comments from many threads, grouped by --thread-key")
    func threadKey() throws {
        let folder = try ArchiveFixture.folder()
        let comments = (0..<12).map { i in
            #"{"id": "k\#(i)", "story_id": \#(i % 3), "story_title": "Story \#(i % 3)", "parent_id": \#(i >= 3 ? "\"k\(i - 3)\"" : "null"), "author": "a\#(i)", "body": "hi", "created_at": \#(1_700_000_000 + i)}"#
        }
        let path = try ArchiveFixture.write("[" + comments.joined(separator: ",\n") + "]", "flat.json", in: folder)
        var options = ArchiveOptions()
        options.render.importing.mapping = FieldMapping(paths: [
            .id: ["id"], .parent: ["parent_id"], .author: ["author"], .body: ["body"],
            .time: ["created_at"], .thread: ["story_id"], .title: ["story_title"],
        ])
        let units = try ArchiveInput.units([path], readStandardInput: { [] }, linesAreThreads: false)
        let report = try ArchiveBuilder(units: units, output: folder.appendingPathComponent("site"), options: options).run()
        #expect(report.published && report.threads == 3 && report.comments == 12)
        #expect(report.threadPaths.sorted() == ["t/story-0-0", "t/story-1-1", "t/story-2-2"])
    }

    @Test("a dump read through a mapping with where=: lines it leaves out need no thread key, and are counted")
    func threadKeyFiltered() throws {
        let folder = try ArchiveFixture.folder()
        var lines = (0..<6).map { i in
            #"{"kind": "c", "id": "k\#(i)", "story_id": \#(i % 2), "parent_id": \#(i >= 2 ? "\"k\(i - 2)\"" : "null"), "author": "a\#(i)", "body": "hi \#(i)", "created_at": \#(1_700_000_000 + i)}"#
        }
        lines.insert(#"{"kind": "ad", "id": "x1", "body": "buy"}"#, at: 3)
        let path = try ArchiveFixture.write(lines.joined(separator: "\n") + "\n", "dump.jsonl", in: folder)
        var options = ArchiveOptions()
        var mapping = try FieldMapping.parse("id=id,parent=parent_id,author=author,body=body,time=created_at,thread=story_id,where.kind=c")
        mapping.topLevelParent = nil
        options.render.importing.mapping = mapping
        let units = try ArchiveInput.units(
            [path], readStandardInput: { [] }, linesAreThreads: false,
            dumpForm: ArchiveInput.dumps(options.render.importing))
        if case .dump(_, let form) = units[0].source { #expect(form == .mapped) } else { Issue.record("not streamed as a dump: \(units)") }
        let report = try ArchiveBuilder(units: units, output: folder.appendingPathComponent("site"), options: options).run()
        #expect(report.published && report.threads == 2 && report.comments == 6, "\(report.errors)")
        #expect(report.warnings.contains { $0.message.contains("1 item left out by where.kind=c") }, "\(report.warnings)")
    }
}

@Suite("Archive notices")
struct ArchiveNoticeTests {
    @Test("notices change only the thread pages: the index, feeds, thread.json, title index, author pages and sitemap are as without them")
    func countInNothing() throws {
        let folder = try ArchiveFixture.folder()
        var options = ArchiveOptions()
        options.authors = true
        options.search = .titles
        options.baseURL = "https://example.org/forum/"
        options.orders = [.oldest, .newest]
        var sites: [[String: [UInt8]]] = []
        for (name, fixture) in [("with", "discourse-small-actions"), ("without", "discourse-topic")] {
            let input = folder.appendingPathComponent("in-\(name)")
            try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
            try Data(try TestData.bytes("fixtures/\(fixture)/topic.json")).write(to: input.appendingPathComponent("topic.json"))
            let report = try ArchiveFixture.build([input.path], in: folder, site: name, options: options)
            #expect(report.published && report.errors.isEmpty && report.warnings.isEmpty)
            sites.append(ArchiveFixture.files(folder.appendingPathComponent(name)))
        }
        let (with, without) = (sites[0], sites[1])
        #expect(with.keys.sorted() == without.keys.sorted())
        let pages = with.keys.filter { $0.hasPrefix("t/") && $0.hasSuffix(".html") }.sorted()
        #expect(pages.count == 2)
        for (path, bytes) in with where !pages.contains(path) { #expect(without[path] == bytes, "\(path) differs") }
        #expect(!with.keys.contains { $0.hasPrefix("u/system") }, "no author page for who only posted notices")
        let index = String(decoding: try #require(with["index.html"]), as: UTF8.self)
        #expect(index.contains("3 comments"))
        for page in pages {
            let html = String(decoding: try #require(with[page]), as: UTF8.self)
            #expect(html.components(separatedBy: "<li class=\"tf-notice\">").count == 6, "\(page)")
            #expect(!(String(decoding: try #require(without[page]), as: UTF8.self)).contains("tf-notice"))
        }
        // Byte-identical again, with one job.
        let again = try ArchiveFixture.build([folder.appendingPathComponent("in-with").path], in: folder, site: "again", options: options, jobs: 1)
        #expect(again.published && ArchiveFixture.files(folder.appendingPathComponent("again")) == with)
    }
}

@Suite("Archive counts")
struct ArchiveCountTests {
    static func summary(_ path: String, comments: Int) -> ThreadSummary {
        ThreadSummary(
            id: path, path: path, title: nil, author: nil, url: nil, lang: nil, category: nil, tags: [], created: nil,
            stats: .init(
                comments: comments, participants: 1, topLevel: 1, levels: 1, depthHistogram: [comments],
                firstActivity: nil, lastActivity: nil, unarchived: 0),
            layout: "nested", pages: [""], orders: ["oldest"])
    }

    @Test("comment totals are added with overflow checked: an error naming the thread, not a trap")
    func totals() throws {
        let fine = [Self.summary("t/a", comments: 2), Self.summary("t/b", comments: 3)]
        #expect(try ThreadSummary.totalComments(fine) == 5)
        let huge = [Self.summary("t/a", comments: Int.max / 2 + 1), Self.summary("t/b", comments: Int.max / 2 + 1)]
        let error = try #require(throws: ThreadfoldError.self) { try ThreadSummary.totalComments(huge) }.problems[0]
        #expect(
            error.description
                == "t/b/thread.json: error: $.stats.comments: found 4611686018427387904, which brings the comments of all threads past 9223372036854775807; expected counts that add up to at most 9223372036854775807"
        )
        // The listing pages sum the same way, with or without sections.
        for sections in [ArchiveOptions.Sections.none, .month] {
            var options = ArchiveOptions()
            options.sections = sections
            let renderer = try ThreadRenderer(options: options, resources: ResourceStore())
            #expect(throws: ThreadfoldError.self) { try renderer.listing(PackedSummaries(huge), jobs: 1) { _, _, _ in } }
        }
    }

    @Test("a sidecar's counts must be whole numbers from 0 to 2^40")
    func decode() throws {
        let good = Self.summary("t/a", comments: 2)
        #expect(try ThreadSummary.decode(good.encoded(), file: "a.json") == good)
        let text = String(decoding: good.encoded(), as: UTF8.self)
        for (from, to, path) in [
            (#""comments": 2"#, #""comments": 1099511627777"#, "$.stats.comments"),
            (#""participants": 1"#, #""participants": -3"#, "$.stats.participants"),
            (#""unarchived": 0"#, #""unarchived": 9223372036854775807"#, "$.stats.unarchived"),
        ] {
            let bad = text.replacingOccurrences(of: from, with: to)
            let errors = try #require(throws: ThreadfoldError.self) { try ThreadSummary.decode(Array(bad.utf8), file: "a.json") }
            #expect(errors.problems.first?.path == path)
            #expect(errors.problems.first?.message.hasPrefix("expected a count from 0 to 1099511627776, found the number \(to.split(separator: " ").last!)") == true)
        }
    }
}
