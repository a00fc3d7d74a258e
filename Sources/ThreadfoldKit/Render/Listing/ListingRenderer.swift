/// The pages that list threads: the index (paginated, or one page of collapsible sections),
/// section pages, the site's Atom feed and, with a base URL, the sitemap. Built from the
/// threads' summaries alone, so `merge` builds them from sidecars exactly as `build` does.
///
/// Each file goes to the caller's `Write` as soon as it is rendered, in a fixed order; pages
/// render on `jobs` threads a batch at a time, so memory holds a batch of pages, never all of
/// them (the index of 100,000 threads is 2,000 pages of 100 KB).
struct ListingRenderer: Sendable {
    let options: ArchiveOptions
    let templates: TemplateSet
    let language: PageLanguage
    let generator: String
    /// Listing pages rendered at once.
    var jobs = 1
    /// Threads in the whole site (for the search index's chunk count).
    var threadCount = 0
    /// Bits of FNV-1a-64 in a category section's key; fewer only in tests, which make two names
    /// share a key to show that they still get sections of their own.
    var sectionKeyBits = 64

    var strings: StringsTable { language.strings }

    /// Takes one finished file: its path under the site root and its bytes.
    typealias Write = (_ path: String, _ bytes: [UInt8]) throws(ThreadfoldError) -> Void

    /// One paginated listing page, described with plain values so pages render in parallel.
    struct Listing: Sendable {
        var dir: [String]
        /// Its threads, by their place in the summaries.
        var threads: ArraySlice<Int>
        var page: Int
        var pages: Int
        /// The folder of page `n` of the same listing.
        var pageDir: @Sendable (Int) -> [String]
        /// A section page's heading.
        var heading: String?
        var stats: String
    }

    func render(_ listing: Listing, _ summaries: PackedSummaries) throws(ThreadfoldError) -> (path: String, bytes: [UInt8]) {
        var page = ListingPageModel(
            listing: self, dir: listing.dir, stats: listing.stats, heading: listing.heading,
            threads: listing.threads.map { summaries[$0] }, pager: listing.pages > 1 ? Pager(listing) : nil)
        if listing.dir.isEmpty { page.search = searchBox(here: false) }
        return try render(page)
    }

    /// The search box of the index (`here` false) or of the search page, when the site has search.
    func searchBox(here: Bool) -> ListingPageModel.SearchBox? {
        guard options.search != .none else { return nil }
        return ListingPageModel.SearchBox(
            mode: options.search.rawValue, chunks: SearchIndex.chunkCount(threadCount),
            one: strings.text("search_results", count: 1), other: strings.text("search_results", count: 7),
            commentsOne: strings.text("comments", count: 1), commentsOther: strings.text("comments", count: 7),
            limit: here ? 500 : 50, here: here)
    }

    /// Renders the listings on `jobs` threads and writes them in order, a batch at a time.
    func write(_ listings: [Listing], _ summaries: PackedSummaries, to write: Write) throws(ThreadfoldError) {
        try inBatches(count: listings.count, { i throws(ThreadfoldError) in try render(listings[i], summaries) }, to: write)
    }

    /// Renders files `0..<count` on `jobs` threads, `jobs` × 8 at a time, and hands each batch to
    /// `write` in order before the next is rendered.
    func inBatches(
        count: Int, _ render: @escaping @Sendable (Int) throws(ThreadfoldError) -> (path: String, bytes: [UInt8]),
        to write: Write
    ) throws(ThreadfoldError) {
        let batch = max(jobs, 1) * 8
        for start in stride(from: 0, to: count, by: batch) {
            let end = min(start + batch, count)
            let results = Parallel.map(count: end - start, jobs: jobs) { i -> Result<(path: String, bytes: [UInt8]), ThreadfoldError> in
                do throws(ThreadfoldError) { return .success(try render(start + i)) } catch { return .failure(error) }
            }
            for result in results {
                switch result {
                case .success(let file): try write(file.path, file.bytes)
                case .failure(let error): throw error
                }
            }
        }
    }

    /// The links of a paginated listing: previous, next and every page.
    struct Pager {
        var current: Int
        var hrefs: [String]

        init(_ listing: Listing) {
            current = listing.page
            hrefs = (0..<listing.pages).map { ThreadPaths.href(from: listing.dir, to: listing.pageDir($0)) }
        }

        init(current: Int, hrefs: [String]) {
            self.current = current
            self.hrefs = hrefs
        }
    }

    struct Section {
        var key: String
        var name: String
        /// Its threads, by their place in the summaries, in index order.
        var threads: [Int]
        var comments = 0
    }

    /// Writes every listing file for `summaries`, which must be in index order
    /// (`ThreadSummary.sortedForIndex`). Throws a `ThreadfoldError`: a template error, an input error when the
    /// threads' comment counts add up past `Int.max`, or what `write` throws.
    func write(_ summaries: PackedSummaries, to write: Write) throws(ThreadfoldError) {
        var listing = self
        listing.threadCount = summaries.count
        try listing.writeFiles(summaries, to: write)
    }

    private func writeFiles(_ summaries: PackedSummaries, to write: Write) throws(ThreadfoldError) {
        let comments = try ThreadSummary.totalComments(summaries)
        let stats = strings.join([strings.text("threads", count: summaries.count), strings.text("comments", count: comments)])
        let perPage = max(options.perPage, 1)
        // The listing pages' own addresses; the threads' pages follow them at the end.
        var sitemap: [(loc: String, lastmod: Timestamp?)] = []
        let newest = summaries.first?.activity

        var listings: [Listing] = []
        if options.sections == .none {
            let pages = paginate(Array(summaries.indices), perPage)
            for (p, page) in pages.enumerated() {
                let dir = p == 0 ? [] : ["page", String(p + 1)]
                listings.append(
                    Listing(
                        dir: dir, threads: page, page: p, pages: pages.count,
                        pageDir: { $0 == 0 ? [] : ["page", String($0 + 1)] }, heading: nil, stats: stats))
                sitemap.append((url(dir), p == 0 ? newest : page.first.flatMap { summaries[$0].activity }))
            }
            try self.write(listings, summaries, to: write)
        } else {
            let sections = group(summaries)
            let open = openSection(sections)
            var entries: [ListingPageModel.SectionEntry] = []
            var shownThreads: [ThreadSummary] = []
            for (s, section) in sections.enumerated() {
                let shown = min(perPage, options.sectionPreview)
                let start = shownThreads.count
                shownThreads += section.threads.prefix(shown).map { summaries[$0] }
                var entry = ListingPageModel.SectionEntry(
                    name: section.name, summary: sectionSummary(section), open: s == open,
                    threads: start..<shownThreads.count)
                if section.threads.count > shown {
                    entry.more = (
                        ThreadPaths.href(from: [], to: ["s", section.key]),
                        strings.text("all_in_section", count: section.threads.count, ["name": section.name])
                    )
                }
                entries.append(entry)
                // Every section has its own pages, linked from the index when it has more than shown.
                let pages = paginate(section.threads, perPage)
                let key = section.key
                for (p, page) in pages.enumerated() {
                    let dir = ["s", key] + (p == 0 ? [] : [String(p + 1)])
                    listings.append(
                        Listing(
                            dir: dir, threads: page, page: p, pages: pages.count,
                            pageDir: { ["s", key] + ($0 == 0 ? [] : [String($0 + 1)]) },
                            heading: section.name, stats: sectionSummary(section)))
                    sitemap.append((url(dir), page.first.flatMap { summaries[$0].activity }))
                }
            }
            try self.write(listings, summaries, to: write)
            var index = ListingPageModel(listing: self, dir: [], stats: stats, heading: nil, threads: shownThreads, pager: nil)
            index.sections = entries
            index.search = searchBox(here: false)
            let file = try render(index)
            try write(file.path, file.bytes)
            sitemap.insert((url([]), newest), at: 0)
        }
        if options.search != .none {
            var page = ListingPageModel(listing: self, dir: ["search"], stats: stats, heading: strings.text("search_title"), threads: [], pager: nil)
            page.search = searchBox(here: true)
            try write("search/index.html", try templates.render("search", model: page, root: .node(.page), expectedSize: 16 * 1024))
            if options.search == .titles { try SearchIndex.write(summaries, strings: strings, to: write) }
        }
        if options.authors { sitemap += try writeAuthorPages(Array(summaries), to: write) }
        try write("atom.xml", siteFeed(summaries))
        if let base = options.base {
            var files = Sitemap(base: base)
            for (loc, lastmod) in sitemap { try files.add(loc, lastmod: lastmod, to: write) }
            for summary in summaries {
                for page in summary.pages {
                    try files.add(base + summary.path + "/" + (page.isEmpty ? "" : page + "/"), lastmod: summary.activity, to: write)
                }
            }
            try files.finish(to: write)
        }
    }

    /// Writes every author's pages (`AuthorPages`), `perPage` items each, rendered on `jobs`
    /// threads; returns their addresses for the sitemap.
    func writeAuthorPages(_ summaries: [ThreadSummary], to write: Write) throws(ThreadfoldError) -> [(loc: String, lastmod: Timestamp?)] {
        let authors = AuthorPages(summaries)
        let perPage = max(options.perPage, 1)
        var jobs: [(author: Int, page: Int, pages: Int)] = []
        var sitemap: [(loc: String, lastmod: Timestamp?)] = []
        for (a, author) in authors.authors.enumerated() {
            let pages = max(1, (author.refs.count + perPage - 1) / perPage)
            for p in 0..<pages {
                jobs.append((a, p, pages))
                let first = author.refs[p * perPage]
                sitemap.append((url(["u", author.folder] + (p == 0 ? [] : [String(p + 1)])), first.ms.map { Timestamp(milliseconds: $0) }))
            }
        }
        let untitled = strings.text("untitled")
        let work = jobs
        try inBatches(
            count: work.count,
            { j throws(ThreadfoldError) in
                let job = work[j]
                let author = authors.authors[job.author]
                let base = ["u", author.folder]
                let dir = base + (job.page == 0 ? [] : [String(job.page + 1)])
                let refs = author.refs[(job.page * perPage)..<min((job.page + 1) * perPage, author.refs.count)]
                let stats = strings.join([strings.text("threads", count: author.threads), strings.text("comments", count: author.comments)])
                let pager =
                    job.pages > 1
                    ? Pager(current: job.page, hrefs: (0..<job.pages).map { ThreadPaths.href(from: dir, to: base + ($0 == 0 ? [] : [String($0 + 1)])) })
                    : nil
                var page = ListingPageModel(listing: self, dir: dir, stats: stats, heading: author.name, threads: [], pager: pager)
                page.posts = refs.map { authors.item($0, untitled: untitled) }
                let bytes = try templates.render("author", model: page, root: .node(.page), expectedSize: 16 * 1024 + 1024 * refs.count)
                return ((dir + ["index.html"]).joined(separator: "/"), bytes)
            }, to: write)
        return sitemap
    }

    var siteTitle: String { options.title.flatMap { $0.isEmpty ? nil : $0 } ?? strings.text("index_title") }

    func url(_ dir: [String]) -> String {
        (options.base ?? "") + dir.joined(separator: "/") + (dir.isEmpty ? "" : "/")
    }

    func paginate(_ threads: [Int], _ size: Int) -> [ArraySlice<Int>] {
        guard !threads.isEmpty else { return [threads[...]] }
        return stride(from: 0, to: threads.count, by: size).map { threads[$0..<min($0 + size, threads.count)] }
    }

    /// Renders one listing page; its size estimate (which sets the template output cap,
    /// `TemplateSet.outputLimit`) is 16 KiB plus 2 KiB per thread and section shown.
    func render(_ page: ListingPageModel) throws(ThreadfoldError) -> (path: String, bytes: [UInt8]) {
        let bytes = try templates.render(
            "index", model: page, root: .node(.page),
            expectedSize: 16 * 1024 + 2048 * (page.threads.count + page.sections.count))
        return ((page.dir + ["index.html"]).joined(separator: "/"), bytes)
    }

    /// Sections in display order: months newest first, categories by name; threads without a
    /// month or category last. Threads keep index order inside each. Categories are told apart by
    /// their names' bytes, never by their keys (`categoryKeys`).
    func group(_ summaries: PackedSummaries) -> [Section] {
        var groups = Groups<[UInt8], Section>()
        var categories: [Int] = []
        for (i, summary) in summaries.enumerated() {
            let key: String, name: String
            // What the section is: a month's key, a category's name (after a 1, so that no name
            // meets a fallback's key), or the fallback's key.
            let identity: [UInt8]
            switch options.sections {
            case .month:
                if let time = summary.activity, (1...9999).contains(time.components.year) {
                    key = String(time.iso8601.prefix(7))  // YYYY-MM
                    name = strings.month(time)
                } else {
                    key = "undated"
                    name = strings.text("undated")
                }
                identity = Array(key.utf8)
            case .category, .none:
                if let category = summary.category {
                    key = ""
                    name = category
                    identity = [1] + Array(category.utf8)
                } else {
                    key = "uncategorised"
                    name = strings.text("uncategorised")
                    identity = Array(key.utf8)
                }
            }
            let seen = groups.count
            let s = groups.slot(identity) { Section(key: key, name: name, threads: []) }
            if s == seen, key.isEmpty { categories.append(s) }
            groups[s].threads.append(i)
            // No sum overflows: the whole site's total was checked first.
            groups[s].comments += summary.stats.comments
        }
        var sections = groups.values
        let keys = Self.categoryKeys(categories.map { sections[$0].name }, bits: sectionKeyBits)
        for (s, key) in zip(categories, keys) { sections[s].key = key }
        let fallback = options.sections == .month ? "undated" : "uncategorised"
        return sections.sorted { a, b in
            if (a.key == fallback) != (b.key == fallback) { return b.key == fallback }
            if options.sections == .month { return a.key > b.key }
            let x = a.name.lowercased(), y = b.name.lowercased()
            if x != y { return x.utf8.lexicographicallyPrecedes(y.utf8) }
            return a.key.utf8.lexicographicallyPrecedes(b.key.utf8)
        }
    }

    /// The section keys (`s/<key>/`) of categories `names`, different in bytes: the slug, a dash
    /// and `bits` of FNV-1a-64 over the name's bytes as hex. Names whose keys meet are put in
    /// byte order; the first keeps the key, the others get `_2`, `_3`, … after it. A key is
    /// otherwise only slug letters, digits, dashes and hex, so a suffixed key meets no other
    /// key, and the keys depend on the set of names alone, not on the order threads came in.
    static func categoryKeys(_ names: [String], bits: Int) -> [String] {
        let keys = names.map { ThreadPaths.slug($0) + "-" + StableHash.nameHex(Array($0.utf8), bits: bits) }
        var sharing: [String: [Int]] = [:]
        for (n, key) in keys.enumerated() { sharing[key, default: []].append(n) }
        var result = keys
        for (key, members) in sharing where members.count > 1 {
            let ordered = members.sorted { Array(names[$0].utf8).lexicographicallyPrecedes(Array(names[$1].utf8)) }
            for (k, n) in ordered.enumerated() where k > 0 { result[n] = key + "_\(k + 1)" }
        }
        return result
    }

    /// The newest month, or the largest category (the first of equals), starts open.
    func openSection(_ sections: [Section]) -> Int {
        guard !sections.isEmpty else { return -1 }
        if options.sections == .month { return 0 }
        var best = 0
        for (i, section) in sections.enumerated() where section.threads.count > sections[best].threads.count { best = i }
        return best
    }

    /// The places of the `count` largest `values`, with every place equal to the smallest of
    /// them, so the caller's tie-break decides which of those are shown.
    static func top(_ count: Int, of indices: Range<Int>, by values: [Int64]) -> [Int] {
        guard count > 0 else { return [] }
        let sorted = indices.sorted { values[$0] > values[$1] }
        let threshold = values[sorted[count - 1]]
        return Array(sorted.prefix { values[$0] >= threshold })
    }

    func sectionSummary(_ section: Section) -> String {
        strings.join([strings.text("threads", count: section.threads.count), strings.text("comments", count: section.comments)])
    }

    /// The newest threads by creation (then activity), with links to their pages.
    func siteFeed(_ summaries: PackedSummaries) -> [UInt8] {
        let times = summaries.map { $0.created?.ms ?? $0.activity?.milliseconds ?? Int64.min }
        // Only the entries shown are ordered; ties (rare) compare their paths.
        let limit = max(0, min(options.feedEntries, summaries.count))
        let candidates = Self.top(limit, of: summaries.indices, by: times)
        let newest = candidates.sorted { a, b in
            times[a] != times[b] ? times[a] > times[b] : summaries[a].path.utf8.lexicographicallyPrecedes(summaries[b].path.utf8)
        }.map { summaries[$0] }
        let base = options.base
        let entries = newest.prefix(limit).map { summary in
            AtomFeed.Entry(
                title: summary.title.flatMap { $0.isEmpty ? nil : $0 } ?? strings.text("untitled"),
                id: base.map { $0 + summary.path + "/" } ?? XMLText.uuid("thread:\(summary.id)"),
                link: base.map { $0 + summary.path + "/" } ?? summary.path + "/index.html",
                published: summary.created?.timestamp, updated: summary.activity,
                author: summary.author,
                summary: strings.join([
                    strings.text("comments", count: summary.stats.comments),
                    strings.text("people", count: summary.stats.participants),
                ]))
        }
        return AtomFeed(
            title: siteTitle, id: base ?? XMLText.uuid("site:" + siteTitle), selfLink: (base ?? "") + "atom.xml",
            alternate: base ?? "index.html", lang: strings.locale, author: siteTitle,
            updated: summaries.first?.activity, entries: Array(entries)
        ).render()
    }
}
