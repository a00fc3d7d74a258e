/// One thread's files in an archive, under `t/<folder>/`: its pages (split between top-level
/// comments, with branches deeper than `pageDepth` on pages of their own, in every order), its
/// `thread.json` sidecar and its `atom.xml` feed.
public struct ThreadFiles: Sendable {
    public var summary: ThreadSummary
    public var files: [(path: String, bytes: [UInt8])]
    public var diagnostics: [Diagnostic]
}

/// Renders threads into their archive files. Immutable and Sendable: one instance serves every
/// worker of a build.
public struct ArchiveRenderer: Sendable {
    public let options: ArchiveOptions
    let pipeline: ThreadPipeline

    public init(options: ArchiveOptions, resources: ResourceStore) throws {
        self.options = options
        self.pipeline = try ThreadPipeline(options: options.render, resources: resources)
    }

    /// The listing pages (index, sections, site feed, sitemap) for `summaries` in index order,
    /// and the stylesheet and script.
    func listing(_ summaries: [ThreadSummary], resources: ResourceStore, jobs: Int) throws -> [(path: String, bytes: [UInt8])] {
        let index = IndexPages(options: options, templates: pipeline.templates, strings: pipeline.defaultStrings, jobs: jobs)
        return try index.files(summaries) + resources.assets().map { ($0.name, $0.bytes) }
    }

    /// The thread's id, or for a thread without one, a stable stand-in from where it was read.
    public static func id(of record: ThreadRecord, source: String, position: Int) -> CommentID {
        record.info.id ?? CommentID("\(source)#\(position)")
    }

    public func render(_ record: ThreadRecord, id: CommentID, folder: String, source: String) throws -> ThreadFiles {
        let orders = options.effectiveOrders
        var threadOptions = options.render.thread
        threadOptions.sort = orders[0]
        if !options.orders.isEmpty && options.render.thread.replySort == nil { threadOptions.replySort = nil }
        let first = try ThreadBuilder.build(record, options: threadOptions)

        var layout = options.render.layout
        layout.pageDepth = options.pageDepth
        let flat: Bool
        switch options.layout {
        case .nested: flat = false
        case .flat: flat = true
        case .auto:
            let replies = first.roots.reduce(0) { $0 + Int(first.stats[Int($1)].totalReplies) }
            flat = !first.roots.isEmpty && Double(replies) / Double(first.roots.count) > options.flatThreshold
        }
        if flat { layout.maxDepth = 1 }

        let strings = pipeline.strings(for: first.info)
        let lang = pipeline.options.locale ?? first.info.lang ?? strings.locale
        let renderer = PageRenderer(templates: pipeline.templates, strings: strings,
                                    markdown: MarkdownRenderer(options: options.render.markdown))
        let anchors = Anchors.make(for: first.records)
        var bodies = [HTML?](repeating: nil, count: first.records.count)
        let base = ["t", folder]
        var files: [(path: String, bytes: [UInt8])] = []
        var mainDirs: [[String]] = []
        var mainPageOf: [Int32] = []

        for (k, order) in orders.enumerated() {
            let tree: ThreadTree
            if k == 0 {
                tree = first
            } else {
                var reordered = threadOptions
                reordered.sort = order
                tree = try ThreadBuilder.build(record, options: reordered)
            }
            let orderDir = k == 0 ? [] : [order.rawValue]
            let plan = plan(tree, layout: layout, anchors: anchors, base: base + orderDir)
            for page in plan.pages {
                var nav = PageNavigation()
                nav.indexHref = ThreadPaths.href(from: page.dir, to: [])
                let rest = Array(page.dir.dropFirst(base.count + orderDir.count))
                if orders.count > 1 {
                    nav.orders = orders.enumerated().map { j, other in
                        .init(other, href: ThreadPaths.href(from: page.dir, to: base + (j == 0 ? [] : [other.rawValue]) + rest), current: j == k)
                    }
                }
                if page.part >= 0 {
                    if plan.parts > 1 {
                        nav.pages = (0..<plan.parts).map {
                            .init($0 + 1, href: ThreadPaths.href(from: page.dir, to: plan.pages[$0].dir), current: $0 == page.part)
                        }
                    }
                    if page.part > 0 {
                        nav.previousPage = .init(page.part, href: ThreadPaths.href(from: page.dir, to: plan.pages[page.part - 1].dir), current: false)
                    }
                } else {
                    nav.ancestors = ancestors(of: page.root, in: tree).map { a in
                        .init(comment: a, href: ThreadPaths.href(from: page.dir, to: plan.pages[Int(plan.pageOf[Int(a)])].dir, fragment: anchors[Int(a)]))
                    }
                    nav.threadHref = ThreadPaths.href(from: page.dir, to: plan.pages[0].dir)
                }
                for b in page.model.branches {
                    nav.branchHrefs[b] = ThreadPaths.href(from: page.dir, to: plan.pages[Int(plan.branchPage[b]!)].dir)
                }
                nav.feedHref = String(repeating: "../", count: page.dir.count - base.count) + "atom.xml"
                nav.canonical = options.base.map { $0 + page.dir.joined(separator: "/") + "/" }
                nav.showsPost = page.part == 0
                renderer.renderBodies(page.model, into: &bodies)
                let html = try renderer.render(page.model, assets: ThreadPaths.root(from: page.dir), lang: lang,
                                               bodies: bodies, navigation: nav)
                files.append((page.dir.joined(separator: "/") + "/index.html", html))
            }
            if k == 0 {
                mainDirs = plan.pages.map(\.dir)
                mainPageOf = plan.pageOf
            }
        }

        let summary = try summarize(first, id: id, folder: folder, flat: flat, pages: mainDirs, source: source)
        files.append(("t/\(folder)/thread.json", summary.encoded()))
        files.append(("t/\(folder)/atom.xml", feed(first, summary: summary, anchors: anchors, pageDirs: mainDirs,
                                                   pageOf: mainPageOf, renderer: renderer, lang: lang)))
        return ThreadFiles(summary: summary, files: files, diagnostics: first.diagnostics)
    }

    struct PlannedPage {
        var dir: [String]
        var model: PageModel
        /// 0-based part of the main page, or -1 for a branch page.
        var part: Int
        /// A branch page's root comment.
        var root: Int32
    }

    struct Plan {
        var pages: [PlannedPage]
        var parts: Int
        /// The first page each comment shows on, by comment.
        var pageOf: [Int32]
        /// The page of each branch, by its root comment.
        var branchPage: [Int32: Int32]
    }

    /// The pages of one order: the parts of the main page, then every branch page, breadth
    /// first through an explicit worklist (a reply chain 100,000 long is 12,500 pages, no
    /// recursion).
    func plan(_ tree: ThreadTree, layout: LayoutOptions, anchors: [String], base: [String]) -> Plan {
        var pages: [PlannedPage] = []
        let size = max(options.pageSize, 1)
        var start = 0
        repeat {
            let end = min(start + size, tree.roots.count)
            let part = pages.count
            pages.append(PlannedPage(dir: base + (part == 0 ? [] : [String(part + 1)]),
                                     model: PageLayout.make(tree, options: layout, roots: tree.roots[start..<end], anchors: anchors),
                                     part: part, root: -1))
            start = end
        } while start < tree.roots.count
        let parts = pages.count
        var pageOf = [Int32](repeating: -1, count: tree.records.count)
        var branchPage: [Int32: Int32] = [:]
        var usedFolders = Set<String>()
        var p = 0
        while p < pages.count {
            for entry in pages[p].model.entries where pageOf[Int(entry.comment)] < 0 {
                pageOf[Int(entry.comment)] = Int32(p)
            }
            for b in pages[p].model.branches where branchPage[b] == nil {
                var name = ThreadPaths.branchFolder(anchor: anchors[Int(b)], id: tree.records[Int(b)].id)
                if usedFolders.contains(name) {
                    var k = 2
                    while usedFolders.contains("\(name)-\(k)") { k += 1 }
                    name = "\(name)-\(k)"
                }
                usedFolders.insert(name)
                branchPage[b] = Int32(pages.count)
                pages.append(PlannedPage(dir: base + [name],
                                         model: PageLayout.make(tree, options: layout, roots: [b][...], anchors: anchors),
                                         part: -1, root: b))
            }
            p += 1
        }
        return Plan(pages: pages, parts: parts, pageOf: pageOf, branchPage: branchPage)
    }

    /// The comments above a branch root for its breadcrumb: the top-level one, then at most the
    /// five nearest (a 100,000-deep chain must not give every page a 100,000-item trail).
    func ancestors(of root: Int32, in tree: ThreadTree) -> [Int32] {
        var chain: [Int32] = []
        var a = tree.parent[Int(root)]
        while a >= 0 {
            chain.append(a)
            a = tree.parent[Int(a)]
        }
        chain.reverse()
        guard chain.count > 6 else { return chain }
        return [chain[0]] + chain.suffix(5)
    }

    /// Replies the export knew of but did not contain, in the whole thread: the importer keeps each
    /// count within `InputLimits.maxCount`, and the sum is checked.
    static func unarchived(_ tree: ThreadTree, source: String) throws(InputError) -> Int {
        var total = tree.info.unarchivedComments
        for record in tree.records {
            let (sum, overflow) = total.addingReportingOverflow(record.unarchivedReplies)
            guard !overflow else {
                throw InputError(file: source, message: "the counts of replies not archived add up past \(Int.max); expected a total of at most \(Int.max)")
            }
            total = sum
        }
        return total
    }

    func summarize(_ tree: ThreadTree, id: CommentID, folder: String, flat: Bool, pages: [[String]], source: String) throws(InputError) -> ThreadSummary {
        var histogram: [Int] = []
        var firstActivity: Timestamp? = tree.info.createdAt
        for i in 0..<tree.count where tree.flags[i].contains(.visible) {
            let depth = Int(tree.depth[i])
            if depth >= histogram.count { histogram.append(contentsOf: repeatElement(0, count: depth + 1 - histogram.count)) }
            histogram[depth] += 1
            if let time = tree.records[i].createdAt, firstActivity.map({ time < $0 }) ?? true { firstActivity = time }
        }
        var last = tree.totals.latestActivity
        if let created = tree.info.createdAt, last.map({ created > $0 }) ?? true { last = created }
        let stats = ThreadSummary.Stats(
            comments: tree.totals.comments, participants: tree.totals.participants, topLevel: tree.roots.count,
            levels: tree.totals.levels, depthHistogram: histogram,
            firstActivity: firstActivity.map(ThreadSummary.TimePoint.init), lastActivity: last.map(ThreadSummary.TimePoint.init),
            unarchived: try Self.unarchived(tree, source: source))
        let info = tree.info
        return ThreadSummary(
            id: id.string, path: "t/\(folder)", title: info.title, author: info.author,
            url: URLPolicy.originalLink(info.url),
            lang: info.lang, category: info.category.flatMap { $0.isEmpty ? nil : $0 }, tags: info.tags,
            created: info.createdAt.map(ThreadSummary.TimePoint.init), stats: stats, layout: flat ? "flat" : "nested",
            pages: pages.map { $0.dropFirst(2).joined(separator: "/") },
            orders: options.effectiveOrders.map(\.rawValue))
    }

    /// The thread's latest comments, newest first, each with a plain-text excerpt of its body
    /// (`AtomFeed.excerptLimit` characters), never the whole body.
    func feed(_ tree: ThreadTree, summary: ThreadSummary, anchors: [String], pageDirs: [[String]], pageOf: [Int32],
              renderer: PageRenderer, lang: String) -> [UInt8] {
        let base = ["t", summary.path.split(separator: "/").dropFirst().joined(separator: "/")]
        var recent: [Int] = []
        for i in 0..<tree.count where tree.flags[i].contains(.visible) && !tree.flags[i].contains(.placeholder) && pageOf[i] >= 0 {
            recent.append(i)
        }
        recent.sort { a, b in
            let x = tree.records[a].createdAt?.milliseconds ?? Int64.min, y = tree.records[b].createdAt?.milliseconds ?? Int64.min
            return x != y ? x > y : a < b
        }
        let title = summary.title.flatMap { $0.isEmpty ? nil : $0 } ?? renderer.strings.text("untitled")
        let absolute = options.base
        let entries = recent.prefix(options.feedEntries).map { i -> AtomFeed.Entry in
            let record = tree.records[i]
            let dir = pageDirs[Int(pageOf[i])]
            let link = absolute.map { $0 + dir.joined(separator: "/") + "/#" + anchors[i] }
                ?? ThreadPaths.href(from: base, to: dir, fragment: anchors[i])
            let author = record.author.flatMap { $0.isEmpty ? nil : $0 } ?? renderer.strings.text("unknown_author")
            return AtomFeed.Entry(
                title: "\(author): \(PageNavigation.excerpt(record.body))",
                id: absolute.map { $0 + dir.joined(separator: "/") + "/#" + anchors[i] } ?? XMLText.uuid("comment:\(summary.id):\(record.id.string)"),
                link: link, published: record.createdAt, updated: record.editedAt ?? record.createdAt,
                author: author, summary: PageNavigation.excerpt(record.body, limit: AtomFeed.excerptLimit))
        }
        let page = absolute.map { $0 + summary.path + "/" }
        return AtomFeed(
            title: title, id: page ?? XMLText.uuid("thread:\(summary.id)"),
            selfLink: page.map { $0 + "atom.xml" } ?? "atom.xml", alternate: page ?? "index.html", lang: lang,
            author: summary.author.flatMap { $0.isEmpty ? nil : $0 } ?? title,
            updated: summary.stats.lastActivity?.timestamp, entries: Array(entries)).render()
    }
}
