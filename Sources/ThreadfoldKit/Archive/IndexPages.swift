/// The pages that list threads: the index (paginated, or one page of collapsible sections),
/// section pages, the site's Atom feed and, with a base URL, the sitemap. Built from the
/// threads' summaries alone, so `merge` builds them from sidecars exactly as `build` does.
struct IndexPages: Sendable {
    let options: ArchiveOptions
    let templates: TemplateSet
    let strings: StringsTable
    /// Listing pages rendered at once.
    var jobs = 1

    /// One paginated listing page, described with plain values so pages render in parallel.
    struct Listing: Sendable {
        var dir: [String]
        var threads: ArraySlice<ThreadSummary>
        var page: Int
        var pages: Int
        /// The folder of page `n` of the same listing.
        var pageDir: @Sendable (Int) -> [String]
        /// A section page's heading.
        var heading: String?
        var stats: String
    }

    func render(_ listing: Listing) throws(TemplateError) -> (path: String, bytes: [UInt8]) {
        var context = common(dir: listing.dir, stats: listing.stats)
        if let heading = listing.heading {
            context["heading"] = .string(heading)
            context["indexHref"] = .string(ThreadPaths.href(from: listing.dir, to: []))
        }
        context["threads"] = .list(listing.threads.map { item($0, from: listing.dir) })
        context["hasThreads"] = .bool(!listing.threads.isEmpty)
        context["pager"] = pager(count: listing.pages, current: listing.page, from: listing.dir, listing.pageDir)
        return try render(listing.dir, context, threads: listing.threads.count)
    }

    /// Renders the listings on `jobs` threads; results in order.
    func render(_ listings: [Listing]) throws(TemplateError) -> [(path: String, bytes: [UInt8])] {
        let results = Work.parallel(count: listings.count, jobs: jobs) { i -> Result<(path: String, bytes: [UInt8]), TemplateError> in
            do throws(TemplateError) { return .success(try render(listings[i])) } catch { return .failure(error) }
        }
        var files: [(path: String, bytes: [UInt8])] = []
        for result in results {
            switch result {
            case .success(let file): files.append(file)
            case .failure(let error): throw error
            }
        }
        return files
    }

    struct Section {
        var key: String
        var name: String
        var threads: [ThreadSummary]
    }

    /// `summaries` must be in index order (`ThreadSummary.sortedForIndex`). Throws a
    /// `TemplateError`, or an `InputError` when the threads' comment counts add up past `Int.max`.
    func files(_ summaries: [ThreadSummary]) throws -> [(path: String, bytes: [UInt8])] {
        var files: [(path: String, bytes: [UInt8])] = []
        let comments = try ThreadSummary.totalComments(summaries)
        let stats = strings.join([strings.text("threads", count: summaries.count), strings.text("comments", count: comments)])
        let perPage = max(options.perPage, 1)
        var sitemap: [(loc: String, lastmod: Timestamp?)] = []
        let newest = summaries.first?.activity

        var listings: [Listing] = []
        if options.sections == .none {
            let pages = paginate(summaries, perPage)
            for (p, page) in pages.enumerated() {
                let dir = p == 0 ? [] : ["page", String(p + 1)]
                listings.append(Listing(dir: dir, threads: page, page: p, pages: pages.count,
                                        pageDir: { $0 == 0 ? [] : ["page", String($0 + 1)] }, heading: nil, stats: stats))
                sitemap.append((url(dir), p == 0 ? newest : page.first?.activity))
            }
            files += try render(listings)
        } else {
            let sections = group(summaries)
            let open = openSection(sections)
            var items: [MustacheValue] = []
            for (s, section) in sections.enumerated() {
                let shown = min(perPage, options.sectionPreview)
                var entry: [String: MustacheValue] = [
                    "name": .string(section.name),
                    "summary": .string(try sectionSummary(section)),
                    "open": .bool(s == open),
                    "threads": .list(section.threads.prefix(shown).map { item($0, from: []) }),
                ]
                if section.threads.count > shown {
                    entry["more"] = .object(MustacheDictionary([
                        "href": .string(ThreadPaths.href(from: [], to: ["s", section.key])),
                        "text": .string(strings.text("all_in_section", count: section.threads.count, ["name": section.name])),
                    ]))
                }
                items.append(.object(MustacheDictionary(entry)))
                // Every section has its own pages, linked from the index when it has more than shown.
                let pages = paginate(section.threads, perPage)
                let key = section.key
                for (p, page) in pages.enumerated() {
                    let dir = ["s", key] + (p == 0 ? [] : [String(p + 1)])
                    listings.append(Listing(dir: dir, threads: page, page: p, pages: pages.count,
                                            pageDir: { ["s", key] + ($0 == 0 ? [] : [String($0 + 1)]) },
                                            heading: section.name, stats: try sectionSummary(section)))
                    sitemap.append((url(dir), page.first?.activity))
                }
            }
            files += try render(listings)
            var context = common(dir: [], stats: stats)
            context["sections"] = .list(items)
            let shown = sections.reduce(0) { $0 + 1 + min(perPage, options.sectionPreview, $1.threads.count) }
            files.append(try render([], context, threads: shown))
            sitemap.insert((url([]), newest), at: 0)
        }
        files.append(("atom.xml", siteFeed(summaries)))
        if let base = options.base {
            for summary in summaries {
                for page in summary.pages {
                    sitemap.append((base + summary.path + "/" + (page.isEmpty ? "" : page + "/"), summary.activity))
                }
            }
            files.append(contentsOf: Sitemap.files(urls: sitemap, base: base))
        }
        return files
    }

    var siteTitle: String { options.title.flatMap { $0.isEmpty ? nil : $0 } ?? strings.text("index_title") }

    func url(_ dir: [String]) -> String {
        (options.base ?? "") + dir.joined(separator: "/") + (dir.isEmpty ? "" : "/")
    }

    func paginate(_ threads: [ThreadSummary], _ size: Int) -> [ArraySlice<ThreadSummary>] {
        guard !threads.isEmpty else { return [threads[...]] }
        return stride(from: 0, to: threads.count, by: size).map { threads[$0..<min($0 + size, threads.count)] }
    }

    func common(dir: [String], stats: String) -> [String: MustacheValue] {
        var context: [String: MustacheValue] = [
            "lang": .string(strings.locale), "dir": .string(strings.direction),
            "title": .string(siteTitle), "stats": .string(stats),
            "assets": .string(ThreadPaths.root(from: dir)),
            "feed": .string(ThreadPaths.root(from: dir) + "atom.xml"),
            "generator": .string("Threadfold \(Threadfold.version)"),
            "s": .object(StringsContext(strings: strings)),
        ]
        if options.base != nil { context["canonical"] = .string(url(dir)) }
        return context
    }

    /// Renders one listing page of `threads` thread items; its size estimate (which sets the
    /// template output cap, `TemplateSet.outputLimit`) is 16 KiB plus 2 KiB per item.
    func render(_ dir: [String], _ context: [String: MustacheValue], threads: Int) throws(TemplateError) -> (path: String, bytes: [UInt8]) {
        let bytes = try templates.render("index", .object(MustacheDictionary(context)), expectedSize: 16 * 1024 + 2048 * threads)
        return ((dir + ["index.html"]).joined(separator: "/"), bytes)
    }

    func item(_ summary: ThreadSummary, from dir: [String]) -> MustacheValue {
        .object(ThreadItemContext(summary: summary, root: ThreadPaths.root(from: dir), strings: strings,
                                  showCategory: options.sections != .category, markFlat: options.layout == .auto))
    }

    func pager(count: Int, current: Int, from dir: [String], _ dirOf: @Sendable (Int) -> [String]) -> MustacheValue {
        guard count > 1 else { return .null }
        func link(_ p: Int, _ label: String) -> MustacheValue {
            .object(MustacheDictionary(["href": .string(ThreadPaths.href(from: dir, to: dirOf(p))), "label": .string(label), "current": .bool(p == current)]))
        }
        return .object(MustacheDictionary([
            "label": .string(strings.text("pages_label")),
            "pageOf": .string(strings.text("page_of", ["page": strings.number(current + 1), "pages": strings.number(count)])),
            "previous": current > 0 ? link(current - 1, strings.text("previous")) : .null,
            "next": current + 1 < count ? link(current + 1, strings.text("next")) : .null,
            "items": .list((0..<count).map { link($0, strings.number($0 + 1)) }),
        ]))
    }

    /// Sections in display order: months newest first, categories by name; threads without a
    /// month or category last. Threads keep index order inside each.
    func group(_ summaries: [ThreadSummary]) -> [Section] {
        var byKey: [String: Section] = [:]
        for summary in summaries {
            let key: String, name: String
            switch options.sections {
            case .month:
                if let time = summary.activity, (1...9999).contains(time.components.year) {
                    key = String(time.iso8601.prefix(7)) // YYYY-MM
                    name = strings.month(time)
                } else {
                    key = "undated"; name = strings.text("undated")
                }
            case .category, .none:
                if let category = summary.category {
                    key = ThreadPaths.slug(category) + "-" + String(FNV1a.hex(category.utf8).prefix(8))
                    name = category
                } else {
                    key = "uncategorised"; name = strings.text("uncategorised")
                }
            }
            byKey[key, default: Section(key: key, name: name, threads: [])].threads.append(summary)
        }
        let fallback = options.sections == .month ? "undated" : "uncategorised"
        return byKey.values.sorted { a, b in
            if (a.key == fallback) != (b.key == fallback) { return b.key == fallback }
            if options.sections == .month { return a.key > b.key }
            let x = a.name.lowercased(), y = b.name.lowercased()
            if x != y { return x.utf8.lexicographicallyPrecedes(y.utf8) }
            return a.key.utf8.lexicographicallyPrecedes(b.key.utf8)
        }
    }

    /// The newest month, or the largest category (the first of equals), starts open.
    func openSection(_ sections: [Section]) -> Int {
        guard !sections.isEmpty else { return -1 }
        if options.sections == .month { return 0 }
        var best = 0
        for (i, section) in sections.enumerated() where section.threads.count > sections[best].threads.count { best = i }
        return best
    }

    func sectionSummary(_ section: Section) throws(InputError) -> String {
        strings.join([strings.text("threads", count: section.threads.count),
                      strings.text("comments", count: try ThreadSummary.totalComments(section.threads))])
    }

    /// The newest threads by creation (then activity), with links to their pages.
    func siteFeed(_ summaries: [ThreadSummary]) -> [UInt8] {
        let newest = summaries.sorted { a, b in
            let x = a.created?.ms ?? a.activity?.milliseconds ?? Int64.min
            let y = b.created?.ms ?? b.activity?.milliseconds ?? Int64.min
            return x != y ? x > y : a.path.utf8.lexicographicallyPrecedes(b.path.utf8)
        }
        let base = options.base
        let entries = newest.prefix(options.feedEntries).map { summary in
            AtomFeed.Entry(
                title: summary.title.flatMap { $0.isEmpty ? nil : $0 } ?? strings.text("untitled"),
                id: base.map { $0 + summary.path + "/" } ?? XMLText.uuid("thread:\(summary.id)"),
                link: base.map { $0 + summary.path + "/" } ?? summary.path + "/index.html",
                published: summary.created?.timestamp, updated: summary.activity,
                author: summary.author,
                summary: strings.join([strings.text("comments", count: summary.stats.comments),
                                       strings.text("people", count: summary.stats.participants)]))
        }
        return AtomFeed(title: siteTitle, id: base ?? XMLText.uuid("site:" + siteTitle), selfLink: (base ?? "") + "atom.xml",
                        alternate: base ?? "index.html", lang: strings.locale, author: siteTitle,
                        updated: summaries.first?.activity, entries: Array(entries)).render()
    }
}

/// One listed thread (`thread-item`): values are made only when the template asks for them.
struct ThreadItemContext: MustacheObject {
    static var keysDependOnTypeOnly: Bool { true }
    let summary: ThreadSummary
    /// `../` per level from the listing page to the site root.
    let root: String
    let strings: StringsTable
    let showCategory: Bool
    let markFlat: Bool

    func value(forKey key: String) -> MustacheValue? {
        func time(_ point: ThreadSummary.TimePoint?) -> MustacheValue {
            guard let point else { return .null }
            return .object(MustacheDictionary(["iso": .string(point.iso), "display": .string(strings.date(point.timestamp))]))
        }
        switch key {
        case "href": return .string(root + summary.path + "/index.html")
        case "title": return .string(summary.title.flatMap { $0.isEmpty ? nil : $0 } ?? strings.text("untitled"))
        case "author": return summary.author.flatMap { $0.isEmpty ? nil : MustacheValue.string($0) } ?? .null
        case "created": return time(summary.created)
        // The last activity only when it says something the creation date does not.
        case "latest": return summary.stats.lastActivity != summary.created ? time(summary.stats.lastActivity) : .null
        case "counts":
            var counts = [strings.text("comments", count: summary.stats.comments)]
            if summary.stats.participants > 0 { counts.append(strings.text("people", count: summary.stats.participants)) }
            return .string(strings.join(counts))
        case "category": return showCategory ? summary.category.map(MustacheValue.string) ?? .null : .null
        case "tags": return .list(summary.tags.map(MustacheValue.string))
        // The layout matters to a reader only when threads differ in it.
        case "flat": return markFlat && summary.layout == "flat" ? .string(strings.text("flat_layout")) : .null
        default: return nil
        }
    }
}

/// `{{s.key}}` for index pages.
struct StringsContext: MustacheObject {
    static var keysDependOnTypeOnly: Bool { true }
    let strings: StringsTable
    func value(forKey key: String) -> MustacheValue? { .string(strings.text(key)) }
}
