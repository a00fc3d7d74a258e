/// What the `index` and `thread-item` templates see of one listing page (the index, a page of
/// it, or a section's page): a `TemplateModel` whose nodes are indices into its arrays.
struct ListingPageModel: TemplateModel {
    enum Node {
        case page
        /// `{{s.key}}`: a message without a count.
        case messages
        /// One section of a sectioned index, by its place in `sections`.
        case section(Int32)
        /// A section's "All N threads in …" link.
        case sectionMore(Int32)
        /// One listed thread, by its place in `threads`; values are made only when asked for.
        case thread(Int32)
        case time(ThreadSummary.TimePoint)
        case pager
        /// A pager link, by page (0-based).
        case pagerLink(Int32, label: PagerLabel)
        /// The search box's settings (`search`).
        case search
        /// One item of an author page, by its place in `posts`.
        case post(Int32)

        var kind: Int {
            switch self {
            case .page: return 0
            case .messages: return 1
            case .section: return 2
            case .sectionMore: return 3
            case .thread: return 4
            case .time: return 5
            case .pager: return 6
            case .pagerLink: return 7
            case .search: return 8
            case .post: return 9
            }
        }
    }

    enum PagerLabel { case number, previous, next }

    struct SectionEntry {
        var name: String
        var summary: String
        var open: Bool
        /// Its threads shown on the index, as a range of `threads`.
        var threads: Range<Int>
        var more: (href: String, text: String)?
    }

    typealias Value = TemplateValue<Node>

    let language: PageLanguage
    let siteTitle: String
    /// The site's title when it has one of its own (`--title`), else nil: the default title is
    /// the words of the link to the index, which a page then says once.
    let siteName: String?
    let generator: String
    let dir: [String]
    let stats: String
    /// `../` per level from this page to the site root.
    let root: String
    let canonical: String?
    /// A section page's heading.
    let heading: String?
    let threads: [ThreadSummary]
    let pager: ListingRenderer.Pager?
    var sections: [SectionEntry] = []
    /// On an author page: its items (threads started and comments), newest first.
    var posts: [AuthorPages.Item] = []
    /// The search box, on the index and the search page when the site has search.
    var search: SearchBox?
    /// Author pages' folders, when the site has them.
    let authorLinks: Bool

    /// What the search script needs, written as the box's data attributes.
    struct SearchBox {
        /// `titles` or `pagefind`.
        var mode: String
        /// Title index chunks (`search/index-N.js`).
        var chunks: Int
        /// "1 thread matches", "7 threads match": the script puts its count in place of the number.
        var one: String
        var other: String
        /// "1 comment", "7 comments", the same way.
        var commentsOne: String
        var commentsOther: String
        /// Results shown at most.
        var limit: Int
        /// Whether this is the search page itself.
        var here: Bool
    }
    let showCategory: Bool
    let markFlat: Bool

    init(
        listing: ListingRenderer, dir: [String], stats: String, heading: String?, threads: [ThreadSummary],
        pager: ListingRenderer.Pager?
    ) {
        language = listing.language
        siteTitle = listing.siteTitle
        siteName = listing.options.title.flatMap { $0.isEmpty ? nil : $0 }
        generator = listing.generator
        self.dir = dir
        self.stats = stats
        root = ThreadPaths.root(from: dir)
        canonical = listing.options.base == nil ? nil : listing.url(dir)
        self.heading = heading
        self.threads = threads
        self.pager = pager
        showCategory = listing.options.sections != .category
        markFlat = listing.options.layout == .auto
        authorLinks = listing.options.authors
    }

    var strings: StringsTable { language.strings }

    func kind(of node: Node) -> Int? { node.kind }

    func value(_ key: TemplateKey, of node: Node) -> Value? {
        switch node {
        case .page: return page(key)
        case .messages: return .text(language.message(key))
        case .section(let i):
            let section = sections[Int(i)]
            switch key.field {
            case .name: return .text(section.name)
            case .summary: return .text(section.summary)
            case .open: return .bool(section.open)
            case .threads: return .list(section.threads.map { .node(.thread(Int32($0))) })
            case .more: return section.more == nil ? nil : .node(.sectionMore(i))
            default: return nil
            }
        case .sectionMore(let i):
            guard let more = sections[Int(i)].more else { return nil }
            switch key.field {
            case .href: return .text(more.href)
            case .text: return .text(more.text)
            default: return nil
            }
        case .thread(let i): return thread(key, Int(i))
        case .time(let point):
            switch key.field {
            case .iso: return .text(point.iso)
            case .display: return .text(strings.date(point.timestamp))
            default: return nil
            }
        case .pager: return pager.flatMap { pager(key, $0) }
        case .search:
            guard let search else { return nil }
            switch key.field {
            case .mode: return .text(search.mode)
            case .pagefind: return .bool(search.mode == ArchiveOptions.Search.pagefind.rawValue)
            case .chunks: return .int(search.chunks)
            case .one: return .text(search.one)
            case .other: return .text(search.other)
            case .commentsOne: return .text(search.commentsOne)
            case .commentsOther: return .text(search.commentsOther)
            case .limit: return .int(search.limit)
            case .here: return .bool(search.here)
            case .href: return .text(root + "search/index.html")
            default: return nil
            }
        case .post(let i):
            let item = posts[Int(i)]
            switch key.field {
            case .started: return .bool(item.started)
            case .title: return .text(item.title)
            case .threadHref: return .text(root + item.threadHref)
            case .href: return .text(root + item.href)
            case .excerpt: return item.excerpt.isEmpty ? .null : .text(item.excerpt)
            case .created: return item.created.map { .node(.time($0)) } ?? .null
            default: return nil
            }
        case .pagerLink(let p, let label):
            guard let pager else { return nil }
            switch key.field {
            case .href: return .text(pager.hrefs[Int(p)])
            case .current: return .bool(Int(p) == pager.current)
            case .label:
                switch label {
                case .number: return .text(strings.number(Int(p) + 1))
                case .previous: return .text(strings.text("previous"))
                case .next: return .text(strings.text("next"))
                }
            default: return nil
            }
        }
    }

    private func page(_ key: TemplateKey) -> Value? {
        switch key.field {
        case .lang: return .text(language.tag)
        case .dir: return .text(strings.direction)
        case .title: return .text(siteTitle)
        case .siteName: return siteName.map(Value.text) ?? .null
        case .stats: return .text(stats)
        case .assets: return .text(root)
        case .feed: return .text(root + "atom.xml")
        case .generator: return .text(generator)
        case .s: return .node(.messages)
        case .canonical: return canonical.map(Value.text)
        case .heading: return heading.map(Value.text)
        case .indexHref: return heading == nil ? nil : .text(ThreadPaths.href(from: dir, to: []))
        case .threads: return sections.isEmpty ? .list(threads.indices.map { .node(.thread(Int32($0))) }) : nil
        case .hasThreads: return sections.isEmpty ? .bool(!threads.isEmpty) : nil
        case .pager: return sections.isEmpty ? (pager == nil ? .null : .node(.pager)) : nil
        case .sections: return sections.isEmpty ? nil : .list(sections.indices.map { .node(.section(Int32($0))) })
        case .search: return search == nil ? .null : .node(.search)
        case .posts: return .list(posts.indices.map { .node(.post(Int32($0))) })
        case .hasPosts: return .bool(!posts.isEmpty)
        default: return nil
        }
    }

    private func pager(_ key: TemplateKey, _ pager: ListingRenderer.Pager) -> Value? {
        switch key.field {
        case .label: return .text(strings.text("pages_label"))
        case .pageOf:
            return .text(strings.text("page_of", ["page": strings.number(pager.current + 1), "pages": strings.number(pager.hrefs.count)]))
        case .previous: return pager.current > 0 ? .node(.pagerLink(Int32(pager.current - 1), label: .previous)) : .null
        case .next: return pager.current + 1 < pager.hrefs.count ? .node(.pagerLink(Int32(pager.current + 1), label: .next)) : .null
        case .items: return .list(pager.hrefs.indices.map { .node(.pagerLink(Int32($0), label: .number)) })
        default: return nil
        }
    }

    /// One listed thread (`thread-item`), by its place in `threads`. Its summary's fields are
    /// read in place: copying the summary retained and released its dozen strings and arrays on
    /// every lookup (700 instructions each).
    private func thread(_ key: TemplateKey, _ i: Int) -> Value? {
        func time(_ point: ThreadSummary.TimePoint?) -> Value { point.map { .node(.time($0)) } ?? .null }
        switch key.field {
        case .href: return .text(root + threads[i].path + "/index.html")
        case .title: return .text(threads[i].title.flatMap { $0.isEmpty ? nil : $0 } ?? strings.text("untitled"))
        case .author: return threads[i].author.flatMap { $0.isEmpty ? nil : Value.text($0) } ?? .null
        case .authorHref:
            guard authorLinks, let name = AuthorPages.name(threads[i].author) else { return .null }
            return .text(root + "u/" + ThreadPaths.authorFolder(name) + "/index.html")
        case .created: return time(threads[i].created)
        // The last activity only when it says something the creation date does not.
        case .latest: return threads[i].stats.lastActivity != threads[i].created ? time(threads[i].stats.lastActivity) : .null
        case .counts:
            let stats = threads[i].stats
            var counts = [strings.text("comments", count: stats.comments)]
            if stats.participants > 0 { counts.append(strings.text("people", count: stats.participants)) }
            return .text(strings.join(counts))
        case .category: return showCategory ? threads[i].category.map(Value.text) ?? .null : .null
        case .tags: return .list(threads[i].tags.map(Value.text))
        // The layout matters to a reader only when threads differ in it.
        case .flat: return markFlat && threads[i].layout == "flat" ? .text(strings.text("flat_layout")) : .null
        default: return nil
        }
    }
}
