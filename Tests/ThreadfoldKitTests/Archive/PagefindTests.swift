import Foundation
import Testing

@testable import ThreadfoldKit

@Suite("Pagefind: records read from the pages, sent through its service")
struct PagefindTests {
    /// A thread page as the templates write it, cut down to what Pagefind reads.
    static let page = """
        <!doctype html>
        <html lang="en-GB"><head><title>T</title><script src="x.js"></script></head><body>
        <h1 itemprop="headline" data-pagefind-meta="title"><bdi>Fish &amp; chips</bdi></h1>
        <span hidden data-pagefind-filter="category">Food</span>
        <span hidden data-pagefind-filter="year">2021</span>
        <main class="tf-main" data-pagefind-body data-expand-label="x">
        <h2 class="tf-heading" data-pagefind-ignore>Comments</h2>
        <article class="tf-comment" id="c-1"><header class="tf-meta" data-pagefind-ignore><bdi class="tf-author" data-pagefind-filter="author">ann</bdi> 3 points</header>
        <div class="tf-body"><p>First &lt;b&gt; line&#39;s end</p><p>Second line!</p></div>
        <details><summary data-pagefind-ignore>2 replies</summary>
        <article class="tf-comment" id="c-2"><header data-pagefind-ignore><bdi data-pagefind-filter="author">bob</bdi></header>
        <div class="tf-body"><h3>Heading</h3><p>Says ___PAGEFIND_ANCHOR___article:9:c-9 and a<br>break → café</p></div></article>
        <article class="tf-comment" id="c-3"><header data-pagefind-ignore><bdi data-pagefind-filter="author">ann</bdi></header>
        <div class="tf-body"><p>Ends with an arrow →</p><!-- <p>not this</p> --></div></article>
        </details></article>
        <nav class="tf-pager" aria-label="Pages">1 <a href="2/index.html">2</a></nav>
        </main>
        <footer>Made with Threadfold</footer>
        </body></html>
        """

    @Test("a page's record: its body's text as Pagefind reads it, with anchors, weights, title and filters")
    func record() throws {
        let record = try #require(PagefindRecord.read(Array(Self.page.utf8)))
        #expect(record.title == "Fish & chips")
        #expect(record.language == "en-GB")
        #expect(record.filters.map(\.name) == ["category", "year", "author"])
        #expect(record.filters.map(\.values) == [["Food"], ["2021"], ["ann", "bob"]])
        let expected = [
            "___PAGEFIND_ANCHOR___article:0:c-1 First <b> line's end. Second line!",
            "___PAGEFIND_ANCHOR___article:1:c-2 ___PAGEFIND_AUTO_WEIGHT___5 Heading. ___END_PAGEFIND_WEIGHT___",
            "Says _ __PAGEFIND_ANCHOR___article:9:c-9 and a break → café.",
            "___PAGEFIND_ANCHOR___article:2:c-3 Ends with an arrow →",
        ]
        #expect(record.content == expected.joined(separator: " "))
    }

    @Test("attack: a comment cannot spell one of Pagefind's markers, not even across an inline tag")
    func markerAcrossTags() throws {
        let body = #"<p>Say __<em>_PAGEFIND_ANCHOR___p:0:x</em> and ___PAGEFIN<b>D_AUTO_WEIGHT___9</b> here</p>"#
        let page = Self.page.replacingOccurrences(of: "<p>Ends with an arrow →</p>", with: body)
        let record = try #require(PagefindRecord.read(Array(page.utf8)))
        #expect(!record.content.contains("___PAGEFIND_ANCHOR___p"))
        #expect(!record.content.contains("___PAGEFIND_AUTO_WEIGHT___9"))
        #expect(record.content.contains("PAGEFIND_ANCHOR___p:0:x and"))
        #expect(record.content.components(separatedBy: "___PAGEFIND_ANCHOR___").count == 4)
    }

    @Test("a page not marked data-pagefind-body has no record; a page nested 20,000 deep is read without recursion")
    func unmarkedAndDeep() throws {
        #expect(PagefindRecord.read(Array("<html><body><main><p>Hello</p></main></body></html>".utf8)) == nil)
        let depth = 20_000
        let deep = "<main data-pagefind-body>" + String(repeating: "<div>", count: depth) + "deep" + String(repeating: "</div>", count: depth) + "</main>"
        let record = try #require(PagefindRecord.read(Array(deep.utf8)))
        #expect(record.content == "deep.")
    }

    /// A new folder holding `site/` with one thread page marked for Pagefind.
    static func siteOfOnePage() throws -> (folder: URL, site: URL) {
        let folder = try ArchiveFixture.folder()
        let site = folder.appendingPathComponent("site")
        try ArchiveFixture.write(Self.page, "t/fish-1/index.html", in: site)
        return (folder, site)
    }

    /// A fake `pagefind --service` in `folder`: it logs each message it decodes to `messages`
    /// (one a line) and answers as Pagefind does; `error` makes it refuse the first AddRecord;
    /// `late` makes it write `pagefind-entry.json` a third of a second after it answers
    /// `WriteFiles`, holding the file open meanwhile, as Pagefind's runtime may.
    static func fakeService(in folder: URL, refusing: Bool = false, late: Bool = false) throws -> String {
        let log = folder.appendingPathComponent("messages").path
        let script = """
            #!/bin/bash
            [ "$1" = --service ] || exit 9
            n=0
            while IFS= read -r -d ',' m; do
              json=$(printf %s "$m" | base64 -d)
              printf '%s\\n' "$json" >> '\(log)'
              case "$json" in
                *'"type":"NewIndex"'*) r='"type":"NewIndex","index_id":0' ;;
                *'"type":"AddRecord"'*) \(refusing ? "r='\"type\":\"Error\",\"original_message\":null,\"message\":\"bad record\"'" : "r='\"type\":\"IndexedFile\",\"page_word_count\":1,\"page_url\":\"/\",\"page_meta\":{}'") ;;
                *'"type":"WriteFiles"'*) out=$(printf %s "$json" | sed 's/.*"output_path":"\\([^"]*\\)".*/\\1/'); mkdir -p "$out"; echo x > "$out/pagefind.js"; \(late ? #"exec 3>"$out/pagefind-entry.json"; "# : "")r='"type":"WriteFiles","output_path":"x"' ;;
              esac
              printf '%s,' "$(printf '{"message_id":%d,"payload":{%s}}' $n "$r" | base64 -w0)"
              \(late ? #"case "$json" in *'"type":"WriteFiles"'*) sleep 0.3; printf '{"version":"late"}' >&3; exec 3>&- ;; esac"# : "")
              n=$((n+1))
            done

            """
        let path = try ArchiveFixture.write(script, "bin/pagefind", in: folder)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    @Test("the service is sent a NewIndex, one AddRecord per marked page under t/ (not other orders, listings or its own folder), then WriteFiles into the site")
    func protocolMessages() throws {
        let folder = try ArchiveFixture.folder()
        let site = folder.appendingPathComponent("site")
        try ArchiveFixture.write(Self.page, "t/fish-1/index.html", in: site)
        try ArchiveFixture.write(Self.page.replacingOccurrences(of: "c-1", with: "c-7"), "t/fish-1/c-1/index.html", in: site)
        try ArchiveFixture.write(Self.page.replacingOccurrences(of: " data-pagefind-body", with: ""), "t/fish-1/newest/index.html", in: site)
        try ArchiveFixture.write(Self.page, "index.html", in: site)
        let fake = try Self.fakeService(in: folder)
        try Pagefind.index(site: site.path, command: [fake], timeout: 60)
        let messages = ArchiveFixture.text(folder, "messages").split(separator: "\n").map(String.init)
        try #require(messages.count == 4, "\(messages)")
        #expect(messages[0] == #"{"message_id":0,"payload":{"type":"NewIndex","config":{"keep_index_url":true}}}"#)
        #expect(messages[1].hasPrefix(#"{"message_id":1,"payload":{"type":"AddRecord","index_id":0,"url":"/t/fish-1/index.html","content":"___PAGEFIND_ANCHOR___article:0:c-1 First"#))
        #expect(messages[2].hasPrefix(#"{"message_id":2,"payload":{"type":"AddRecord","index_id":0,"url":"/t/fish-1/c-1/index.html","content":"___PAGEFIND_ANCHOR___article:0:c-7 First"#))
        #expect(messages[1].contains(#""language":"en-GB","meta":{"title":"Fish & chips"},"filters":{"category":["Food"],"year":["2021"],"author":["ann","bob"]}}}"#))
        #expect(messages[3] == #"{"message_id":3,"payload":{"type":"WriteFiles","index_id":0,"output_path":"\#(site.path)/pagefind"}}"#)
        #expect(ArchiveFixture.text(site, "pagefind/pagefind.js") == "x\n")
    }

    @Test("the index is written whole: a service that answers WriteFiles before it has written a file it holds open is not ended until it closes it")
    func lateWrites() throws {
        let (folder, site) = try Self.siteOfOnePage()
        let fake = try Self.fakeService(in: folder, late: true)
        try Pagefind.index(site: site.path, command: [fake], timeout: 60)
        #expect(ArchiveFixture.text(site, "pagefind/pagefind-entry.json") == #"{"version":"late"}"#)
        // Through a build's feed as well.
        try FileManager.default.removeItem(at: site.appendingPathComponent("pagefind"))
        let feed = try Pagefind.Feed(command: [fake])
        try feed.finish(site: site.path, timeout: 60)
        #expect(ArchiveFixture.text(site, "pagefind/pagefind-entry.json") == #"{"version":"late"}"#)
    }

    @Test("attack: a service that refuses a record, or ends before it answers, fails the build naming pagefind, with its words")
    func failures() throws {
        let (folder, site) = try Self.siteOfOnePage()
        let refusing = try Self.fakeService(in: folder, refusing: true)
        let refused = #expect(throws: ThreadfoldError.self) { try Pagefind.index(site: site.path, command: [refusing], timeout: 60) }
        #expect(refused?.message == "failed (bad record) indexing the site")
        let quitting = try ArchiveFixture.write("#!/bin/sh\necho 'no index today' >&2\nexit 4\n", "bin/quits", in: folder)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: quitting)
        let quit = #expect(throws: ThreadfoldError.self) { try Pagefind.index(site: site.path, command: [quitting], timeout: 60) }
        #expect(quit?.message == "failed (exit status 4) indexing the site: no index today")
    }

    @Test(
        "a feed keeps the records of the pages rendered, in whatever order they come, and sends every staged page in the site's order, reading only those it was not given; dropped unfinished, it kills Pagefind"
    )
    func feed() throws {
        let folder = try ArchiveFixture.folder()
        let site = folder.appendingPathComponent("site")
        let unmarked = Self.page.replacingOccurrences(of: " data-pagefind-body", with: "")
        try ArchiveFixture.write(Self.page.replacingOccurrences(of: "c-1", with: "c-5"), "t/a-0/index.html", in: site)
        try ArchiveFixture.write(Self.page, "t/fish-1/index.html", in: site)
        try ArchiveFixture.write(unmarked, "t/fish-1/newest/index.html", in: site)
        try ArchiveFixture.write(Self.page.replacingOccurrences(of: "c-1", with: "c-7"), "t/kept-2/index.html", in: site)
        let fake = try Self.fakeService(in: folder)
        let feed = try Pagefind.Feed(command: [fake])
        // Given out of the site's order, as workers finish; the unmarked page as well, which is then not read again.
        feed.add(path: "t/fish-1/index.html", bytes: Array(Self.page.utf8))
        feed.add(path: "t/fish-1/newest/index.html", bytes: Array(unmarked.utf8))
        feed.add(path: "index.html", bytes: Array(Self.page.utf8))
        feed.add(path: "t/a-0/index.html", bytes: Array(Self.page.replacingOccurrences(of: "c-1", with: "c-5").utf8))
        try FileManager.default.removeItem(at: site.appendingPathComponent("t/fish-1/newest/index.html"))
        try ArchiveFixture.write("not a page it may read", "t/fish-1/newest/index.html", in: site)
        try feed.finish(site: site.path, timeout: 60)
        let messages = ArchiveFixture.text(folder, "messages").split(separator: "\n").map(String.init)
        try #require(messages.count == 5, "\(messages)")
        let urls = messages[1...3].map { $0.components(separatedBy: #""url":""#)[1].prefix { $0 != "\"" } }
        #expect(urls == ["/t/a-0/index.html", "/t/fish-1/index.html", "/t/kept-2/index.html"])
        #expect(messages[1].contains("c-5") && messages[2].contains("c-1") && messages[3].contains("c-7"))
        #expect(messages[4].contains(#""type":"WriteFiles""#))

        var dropped: Pagefind.Feed? = try Pagefind.Feed(command: [fake])
        let pid = try #require(dropped?.pid)
        #expect(ChildProcess.isRunning(pid))
        dropped = nil
        var waited = 0
        while ChildProcess.isRunning(pid) && waited < 500 {
            usleep(10_000)
            waited += 1
        }
        #expect(!ChildProcess.isRunning(pid), "the dropped feed's Pagefind was killed")
    }
}
