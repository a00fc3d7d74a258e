/// The title index of `--search` (`titles`): every thread's title, link, author, category, tags,
/// date and comment count, in index order (newest activity first), as script files
/// `search/index-N.js` of `chunkSize` threads each. Each calls the global function the search
/// script defines, `threadfoldSearch.add(N, rows)`, so the index loads from `file://`, where a
/// page cannot fetch JSON. Only the index page and the search page load it, and only when a
/// reader starts typing. Every string is JSON text the script inserts with `textContent`.
enum SearchIndex {
    /// Threads per chunk: about 150 bytes each, so a chunk is a few hundred kilobytes.
    static let chunkSize = 2000

    static func chunkCount(_ threads: Int) -> Int { (threads + chunkSize - 1) / chunkSize }

    /// One row: `[title, href, author, category, [tags], date, comments]` (empty strings for
    /// what a thread lacks; `href` relative to the site root; `date` in the locale's words).
    /// Hands each chunk to `write` as it is made.
    static func write(_ summaries: PackedSummaries, strings: StringsTable, to write: ListingRenderer.Write) throws(ThreadfoldError) {
        for c in 0..<chunkCount(summaries.count) {
            let rows = summaries[(c * chunkSize)..<min((c + 1) * chunkSize, summaries.count)]
            var w = JSONWriter(pretty: false)
            w.array { w in
                for summary in rows {
                    w.array { w in
                        w.string(summary.title.flatMap { $0.isEmpty ? nil : $0 } ?? strings.text("untitled"))
                        w.string(summary.path + "/index.html")
                        w.string(summary.author ?? "")
                        w.string(summary.category ?? "")
                        w.array { w in for tag in summary.tags { w.string(tag) } }
                        w.string((summary.stats.lastActivity ?? summary.created).map { strings.date($0.timestamp) } ?? "")
                        w.int(summary.stats.comments)
                    }
                }
            }
            try write("search/index-\(c).js", Array("threadfoldSearch.add(\(c), ".utf8) + w.out + Array(");\n".utf8))
        }
    }
}
