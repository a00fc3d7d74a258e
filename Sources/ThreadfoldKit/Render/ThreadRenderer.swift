/// One thread's files in an archive, under `t/<folder>/`: its pages (split between top-level
/// comments, with branches deeper than `pageDepth` on pages of their own, in every order), its
/// `thread.json` sidecar and its `atom.xml` feed. The bytes went to the caller's sink as each
/// file was rendered; these are the paths, in the order they were written.
package struct ThreadFiles: Sendable {
    package var summary: ThreadSummary
    package var paths: [String]
    package var diagnostics: [Diagnostic]
}

/// A rendered standalone page: the thread and its HTML.
package struct RenderedThread: Sendable {
    package var thread: ThreadTree
    package var html: [UInt8]
    package var diagnostics: [Diagnostic] { thread.diagnostics }
}

/// The one renderer: templates, the choice of language and locale, bodies (each through cmark or
/// the sanitiser once per thread, shared by its parts, branches and orders) and the plan of a
/// thread's pages. `render`, `preview`, `build` and `merge` all use it. Immutable and Sendable:
/// one instance serves every worker of a build.
package struct ThreadRenderer: Sendable {
    package let options: ArchiveOptions
    let resources: ResourceStore
    let templates: TemplateSet
    let markdown: MarkdownRenderer
    let sanitizer: HTMLSanitizer
    /// The words of listings, and of threads whose input names no locale of its own.
    let defaultLanguage: PageLanguage
    let generator = "Threadfold \(Release.version)"

    package init(options: ArchiveOptions, resources: ResourceStore = ResourceStore()) throws(ThreadfoldError) {
        self.options = options
        self.resources = resources
        templates = try resources.templateSet()
        markdown = MarkdownRenderer(options: options.render.markdown)
        sanitizer = HTMLSanitizer(base: options.render.sourceURL)
        let strings = try resources.strings(locale: options.render.locale ?? "en")
        defaultLanguage = PageLanguage(strings: strings, tag: strings.locale, keys: templates.keys)
    }

    /// The words and `lang` of a thread's pages, decided here alone: the explicit locale, else the
    /// input's `lang` when it is a language tag naming a locale (`ResourceStore.strings(locale:)`
    /// matches names, never builds a path from them), else the default. The page's `lang` is the
    /// explicit locale, else the input's when it is a BCP 47 tag by syntax, else the locale's own.
    func language(for info: ThreadInfo) -> PageLanguage {
        var strings = defaultLanguage.strings
        var named = false
        if options.render.locale == nil, let lang = info.lang, let table = try? resources.strings(locale: lang) {
            strings = table
            named = true
        }
        let requested = options.render.locale ?? info.lang ?? strings.locale
        let tag = ResourceStore.isLanguageTag(requested) ? requested : strings.locale
        if !named && tag == defaultLanguage.tag { return defaultLanguage }
        return PageLanguage(strings: strings, tag: tag, keys: templates.keys, messages: named ? nil : defaultLanguage.messages)
    }

    /// How one thread's Markdown bodies are read: the flavour its importer chose (the options'
    /// own choice wins in `MarkdownRenderer`) and the words its pages speak.
    struct BodyContext {
        var flavor: MarkdownFlavor?
        var spoilerLabel: String
        /// `:name:` shortcodes in Markdown are shown as their emoji (`ThreadInfo.emojiShortcodes`).
        var emoji = false

        init(flavor: MarkdownFlavor? = nil, spoilerLabel: String = "Spoiler") {
            self.flavor = flavor
            self.spoilerLabel = spoilerLabel
        }

        init(_ info: ThreadInfo, _ language: PageLanguage) {
            flavor = info.markdownFlavor
            spoilerLabel = language.strings.text("spoiler")
            emoji = info.emojiShortcodes
        }
    }

    /// The level of the page heading comments and notices sit under (the `<h2>` over them).
    static let commentsHeadingLevel = 2
    /// The level of the page heading the opening post sits under (the thread's `<h1>`).
    static let postHeadingLevel = 1

    /// A body rendered by its format: Markdown through cmark, HTML through the sanitizer, text
    /// escaped; its headings fitted below a page heading of level `below` (`HeadingLevels`).
    func body(
        _ text: String, _ format: BodyFormat, _ context: BodyContext = BodyContext(),
        below parent: Int = commentsHeadingLevel
    ) -> HTML {
        switch format {
        case .markdown:
            let html = markdown.render(text, sourceFlavor: context.flavor, spoilerLabel: context.spoilerLabel, emoji: context.emoji)
            return HeadingLevels.fit(html, below: parent)
        case .html: return HeadingLevels.fit(sanitizer.sanitize(text), below: parent)
        case .text: return markdown.plainText(text)
        }
    }

    /// Renders the bodies `model` shows that `cache` does not hold yet. The cache is indexed like
    /// `thread.records`, so the pages of one thread (its parts, branches and orders) share it and
    /// each body is rendered once.
    func renderBodies(_ model: PageModel, _ context: BodyContext, into cache: inout [HTML?]) {
        renderBodies(model.entries.lazy.map { Int($0.comment) }, of: model.thread, context, into: &cache)
    }

    /// Renders the bodies of `comments` (indices into `thread.records`) that `cache` lacks;
    /// placeholders have none.
    func renderBodies(_ comments: some Sequence<Int>, of thread: ThreadTree, _ context: BodyContext, into cache: inout [HTML?]) {
        for i in comments where cache[i] == nil && !thread.flags[i].contains(.placeholder) {
            cache[i] = body(thread.records[i].body, thread.records[i].bodyFormat, context)
        }
    }

    /// The bodies of a thread's notices, indexed like `thread.notices` (nil for none): a handful per
    /// thread, so all are rendered once for every page and order.
    func noticeBodies(_ thread: ThreadTree, _ context: BodyContext) -> [HTML?] {
        thread.notices.map { $0.body.isEmpty ? nil : body($0.body, $0.bodyFormat, context) }
    }

    /// Renders one page of a thread into `out` (cleared first), with the links of an archive page
    /// (`navigation`), or none for a standalone page.
    func renderPage(
        _ model: PageModel, language: PageLanguage, assets: String, bodies: [HTML?], noticeBodies: [HTML?],
        threadBody: HTML?, navigation: PageNavigation?, into out: inout [UInt8]
    ) throws(ThreadfoldError) {
        let page = ThreadPageModel(
            model: model, language: language, assets: assets, generator: generator,
            bodies: bodies, noticeBodies: noticeBodies, threadBody: threadBody, navigation: navigation)
        // About 700 bytes of markup per comment plus its body, and less for a notice.
        var expected = 8 * 1024 + model.entries.count * 768 + model.notices.count * 384
        for entry in model.entries { expected += bodies[Int(entry.comment)]?.raw.utf8.count ?? 0 }
        for notice in model.notices { expected += noticeBodies[Int(notice.notice)]?.raw.utf8.count ?? 0 }
        out.removeAll(keepingCapacity: true)
        try templates.render("page", model: page, root: .node(.page), into: &out, expectedSize: expected)
    }

    /// The opening post's body, shown on the first page of a thread only.
    func threadBody(_ info: ThreadInfo, _ context: BodyContext) -> HTML? {
        info.body.map { body($0, info.bodyFormat, context, below: Self.postHeadingLevel) }
    }

    /// A standalone page of a thread (`render`, `preview`): the whole thread on one page, with
    /// no archive links. `assets` is the path from the page to the stylesheet and script.
    package func page(_ record: ThreadRecord, assets: String = "") throws(ThreadfoldError) -> RenderedThread {
        let thread = try ThreadBuilder.build(linked(record), options: options.render.thread)
        let model = PageLayout.make(thread, options: options.render.layout)
        let language = language(for: thread.info)
        let context = BodyContext(thread.info, language)
        var bodies = [HTML?](repeating: nil, count: thread.records.count)
        renderBodies(model, context, into: &bodies)
        var html: [UInt8] = []
        try renderPage(
            model, language: language, assets: assets, bodies: bodies, noticeBodies: noticeBodies(thread, context),
            threadBody: threadBody(thread.info, context), navigation: nil, into: &html)
        return RenderedThread(thread: thread, html: html)
    }

    /// Whether a thread has nothing a page would show: no comment left (every one deleted without
    /// replies, not public, or none at all), no opening post and no notice. Such a thread is not
    /// published: an empty page would pass for a thread nobody answered.
    package static func isEmpty(_ tree: ThreadTree) -> Bool {
        tree.totals.comments == 0 && (tree.info.body ?? "").isEmpty && tree.notices.isEmpty
    }

    /// The message for a thread `isEmpty` finds, about `file` (kind `emptyThread`).
    package static func emptyThread(_ tree: ThreadTree, file: String, severity: Problem.Severity) -> Problem {
        let read = tree.records.count
        let comments = read == 0 ? "no comments" : "none of its \(Printable.count(read, "comment")) left to show"
        // At the thread's start: line 1 of its document, which a dump's thread or a line of JSON Lines puts at its own line.
        var problem = Problem(
            file: file, line: 1, column: 1, path: "$",
            message: "the thread\(tree.info.id.map { " \"\($0.string)\"" } ?? "") has \(comments) and no opening post; "
                + (severity == .error ? "expected a thread with something to show (nothing was written)" : "left out of the site, as an empty page would pass for a thread nobody answered"),
            severity: severity)
        problem.kind = "emptyThread"
        return problem
    }

    /// The record with its thread's link as its bodies' links are: a relative one (a Discourse
    /// topic's `/t/slug/123`) resolves against the forum's address when it is known
    /// (`sourceURL`), and is left out otherwise.
    func linked(_ record: ThreadRecord) -> ThreadRecord {
        guard let url = record.info.url, URLPolicy.scheme(of: url) == nil else { return record }
        var copy = record
        copy.info.url = sanitizer.link(url)
        return copy
    }

    /// Reads a file that holds one thread, in any supported form, and renders its standalone page.
    package func page(bytes: [UInt8], file: String, assets: String = "") throws(ThreadfoldError) -> RenderedThread {
        let threads = try Importer.read(bytes: bytes, file: file, options: options.render.importing).threads
        guard threads.count == 1 else {
            throw ThreadfoldError.input([Problem(file: file, message: "holds \(threads.count) threads; expected one")])
        }
        return try page(threads[0], assets: assets)
    }

    /// Writes the listing pages (index, sections, site feed, sitemap) for `summaries` in index
    /// order, then the assets, each handed to `write` as soon as it is made with the mode it is
    /// published with (`ResourceStore.Asset.mode`; a page's is `publishedMode`).
    ///
    /// An asset named like a file or folder of the site (`index.html`, `t`, `pagefind`) is an
    /// error naming the asset: it would replace that page or folder.
    package func listing(
        _ summaries: PackedSummaries, jobs: Int,
        write: (_ path: String, _ bytes: [UInt8], _ mode: UInt32) throws(ThreadfoldError) -> Void
    ) throws(ThreadfoldError) {
        let listing = ListingRenderer(options: options, templates: templates, language: defaultLanguage, generator: generator, jobs: jobs)
        // Every thread's files are under t/; Pagefind writes pagefind/ after the listing.
        var files: Set<String> = []
        var folders: Set<String> = ["t"]
        if options.search == .pagefind { folders.insert("pagefind") }
        try listing.write(
            summaries,
            to: { (path, bytes) throws(ThreadfoldError) in
                if let slash = path.firstIndex(of: "/") { folders.insert(String(path[..<slash])) } else { files.insert(path) }
                try write(path, bytes, ResourceStore.publishedMode)
            })
        for asset in try resources.assets(search: options.search != .none) {
            let clash =
                files.contains(asset.name)
                ? (asset.name.hasSuffix(".html") ? "the page " : "the file ") + asset.name
                : folders.contains(asset.name) ? "the folder \(asset.name)/ of the site" : nil
            if let clash, let file = asset.file {
                throw ThreadfoldError.resources("\(Printable.escape(file)): error: would overwrite \(clash); expected an asset name no page uses")
            }
            try write(asset.name, asset.bytes, asset.mode)
        }
    }

    /// The thread's id, or for a thread without one, a stand-in made from what it says: 16 hex
    /// digits of a hash of its title, author, time, link and opening post and of its first
    /// comment's id, author, time and body. Never from where the file lies, which would be
    /// published in `thread.json` and the manifest; stable while comments are added after the first.
    package static func id(of record: ThreadRecord) -> CommentID {
        if let id = record.info.id { return id }
        var bytes: [UInt8] = []
        func add(_ text: String?) {
            // Each field with its length, so no two lists of fields make the same bytes.
            let field = text.map { Array($0.utf8) } ?? []
            bytes += "\(text == nil ? -1 : field.count):".utf8
            bytes += field
        }
        let info = record.info
        for text in [info.title, info.author, info.createdAt.map { String($0.milliseconds) }, info.url, info.body] { add(text) }
        if let first = record.comments.first {
            for text in [first.id.string, first.author, first.createdAt.map { String($0.milliseconds) }, first.body] { add(text) }
        }
        return CommentID(ContentHash.hex(ContentHash.hash(bytes)))
    }

    /// Renders an archive thread's files, handing each to `write` as it is done (the bytes are a
    /// buffer reused for the next file: write them before returning).
    /// Nil, with nothing written, for a thread with nothing to show (`isEmpty`): it is not published.
    package func files(
        _ record: ThreadRecord, id: CommentID, folder: String, source: String,
        write: (String, [UInt8]) throws(ThreadfoldError) -> Void
    ) throws(ThreadfoldError) -> ThreadFiles? {
        let record = linked(record)
        var threadOptions = options.render.thread
        threadOptions.sort = options.effectiveOrders[0]
        if !options.orders.isEmpty && options.render.thread.replySort == nil { threadOptions.replySort = nil }
        let first = try ThreadBuilder.build(record, options: threadOptions)
        if Self.isEmpty(first) { return nil }
        // Every order's tree, but an order whose comments would stand as an earlier one's (`top` with
        // no scores, `newest` with one comment) is not written or offered, unless it shows notices
        // that one does not (`oldest` after `top`: only time orders show notices).
        var orders: [CommentOrder] = []
        var trees: [ThreadTree] = []
        for (k, order) in options.effectiveOrders.enumerated() {
            let tree: ThreadTree
            if k == 0 {
                tree = first
            } else {
                var reordered = threadOptions
                reordered.sort = order
                tree = try ThreadBuilder.build(record, options: reordered)
            }
            guard
                !trees.contains(where: { earlier in
                    earlier.roots == tree.roots && earlier.childList == tree.childList
                        && (tree.noticePlaces.isEmpty || earlier.noticePlaces == tree.noticePlaces)
                })
            else { continue }
            orders.append(order)
            trees.append(tree)
        }

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

        let language = language(for: first.info)
        let context = BodyContext(first.info, language)
        let anchors = Anchors.make(for: first.records)
        var bodies = [HTML?](repeating: nil, count: first.records.count)
        let postBody = threadBody(first.info, context)
        let notices = noticeBodies(first, context)
        let base = ["t", folder]
        var paths: [String] = []
        var buffer: [UInt8] = []
        var mainPlan: ThreadPlan?
        // Author pages' folders, one slug per name, shared by every page of the thread.
        var authorFolders: [String?] = []
        var threadAuthorFolder: String?
        if options.authors {
            var folders = ThreadPaths.AuthorFolders()
            authorFolders = first.records.map { record in
                record.authorDeleted ? nil : Self.pageAuthor(record.author).map { folders.folder($0) }
            }
            threadAuthorFolder = Self.pageAuthor(first.info.author).map { folders.folder($0) }
        }

        for (k, order) in orders.enumerated() {
            let tree = trees[k]
            let orderDir = k == 0 ? [] : [order.rawValue]
            let plan = ThreadPlan(tree, layout: layout, pageSize: options.pageSize, anchors: anchors, base: base + orderDir)
            for page in plan.pages {
                var navigation = plan.navigation(
                    of: page, tree: tree, anchors: anchors, base: base, order: k, orders: orders,
                    canonicalBase: options.base)
                navigation.authorFolders = authorFolders
                navigation.threadAuthorFolder = threadAuthorFolder
                navigation.pagefind = options.search == .pagefind && k == 0
                renderBodies(page.model, context, into: &bodies)
                // Breadcrumbs quote the comments a branch hangs from, in plain text from their bodies.
                renderBodies(navigation.ancestors.map { Int($0.comment) }, of: tree, context, into: &bodies)
                try renderPage(
                    page.model, language: language, assets: ThreadPaths.root(from: page.dir), bodies: bodies,
                    noticeBodies: notices, threadBody: navigation.showsPost ? postBody : nil,
                    navigation: navigation, into: &buffer)
                let path = page.dir.joined(separator: "/") + "/index.html"
                try write(path, buffer)
                paths.append(path)
            }
            if k == 0 { mainPlan = plan }
        }

        let pages = mainPlan?.pages.map(\.dir) ?? []
        var summary = try summarize(first, id: id, folder: folder, flat: flat, pages: pages, orders: orders, source: source)
        if options.authors { summary.posts = posts(first, anchors: anchors, pageOf: mainPlan?.pageOf ?? [], bodies: bodies) }
        for (path, bytes) in [
            ("t/\(folder)/thread.json", summary.encoded()),
            (
                "t/\(folder)/atom.xml",
                feed(
                    first, summary: summary, anchors: anchors, pageDirs: pages,
                    pageOf: mainPlan?.pageOf ?? [], language: language, context: context, bodies: &bodies)
            ),
        ] {
            try write(path, bytes)
            paths.append(path)
        }
        return ThreadFiles(summary: summary, paths: paths, diagnostics: first.diagnostics)
    }

    /// Every shown comment with a named author (not deleted, removed or unknown), in thread order,
    /// with where the main order shows it and an excerpt of its body, for author pages.
    func posts(_ tree: ThreadTree, anchors: [String], pageOf: [Int32], bodies: [HTML?]) -> [ThreadSummary.Post] {
        var posts: [ThreadSummary.Post] = []
        for i in 0..<min(tree.count, pageOf.count) where pageOf[i] >= 0 && tree.flags[i].contains(.visible) && !tree.flags[i].contains(.placeholder) {
            let record = tree.records[i]
            guard let author = Self.pageAuthor(record.author), !record.authorDeleted else { continue }
            posts.append(
                ThreadSummary.Post(
                    author: author, page: Int(pageOf[i]), anchor: anchors[i],
                    created: record.createdAt.map(ThreadSummary.TimePoint.init),
                    excerpt: PageNavigation.excerpt(bodies[i] ?? HTML(trusted: ""), limit: ThreadSummary.Post.excerptLimit)))
        }
        return posts
    }

    /// The name an author page is made for: a non-empty name, else nil (unknown authors get none).
    static func pageAuthor(_ name: String?) -> String? {
        guard let name, !name.isEmpty else { return nil }
        return name
    }

    /// Replies the export knew of but did not contain, in the whole thread: the importer keeps each
    /// count within `InputLimits.maxCount`, and the sum is checked.
    static func unarchived(_ tree: ThreadTree, source: String) throws(ThreadfoldError) -> Int {
        var total = tree.info.unarchivedComments
        for record in tree.records {
            let (sum, overflow) = total.addingReportingOverflow(record.unarchivedReplies)
            guard !overflow else {
                throw ThreadfoldError.input(Problem(file: source, message: "the counts of replies not archived add up past \(Int.max); expected a total of at most \(Int.max)"))
            }
            total = sum
        }
        return total
    }

    func summarize(
        _ tree: ThreadTree, id: CommentID, folder: String, flat: Bool, pages: [[String]], orders: [CommentOrder],
        source: String
    ) throws(ThreadfoldError) -> ThreadSummary {
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
            orders: orders.map(\.rawValue))
    }

    /// The thread's latest comments, newest first, each with a plain-text excerpt of its body
    /// (`AtomFeed.excerptLimit` characters), never the whole body.
    func feed(
        _ tree: ThreadTree, summary: ThreadSummary, anchors: [String], pageDirs: [[String]], pageOf: [Int32],
        language: PageLanguage, context: BodyContext, bodies: inout [HTML?]
    ) -> [UInt8] {
        let strings = language.strings
        let base = ["t", RelativePath.segments(summary.path).dropFirst().joined(separator: "/")]
        var recent: [Int] = []
        for i in 0..<tree.count where tree.flags[i].contains(.visible) && !tree.flags[i].contains(.placeholder) && pageOf[i] >= 0 {
            recent.append(i)
        }
        recent.sort { a, b in
            let x = tree.records[a].createdAt?.milliseconds ?? Int64.min, y = tree.records[b].createdAt?.milliseconds ?? Int64.min
            return x != y ? x > y : a < b
        }
        let title = summary.title.flatMap { $0.isEmpty ? nil : $0 } ?? strings.text("untitled")
        let absolute = options.base
        let latest = recent.prefix(options.feedEntries)
        renderBodies(latest, of: tree, context, into: &bodies)
        // Each page's link, up to its fragment, made once: the entries share a few pages.
        var pageLinks = [String?](repeating: nil, count: pageDirs.count)
        var entries: [AtomFeed.Entry] = []
        entries.reserveCapacity(latest.count)
        for i in latest {
            let record = tree.records[i]
            let page = Int(pageOf[i])
            let pageLink =
                pageLinks[page]
                ?? {
                    let dir = pageDirs[page]
                    let made = absolute.map { $0 + dir.joined(separator: "/") + "/" } ?? ThreadPaths.href(from: base, to: dir)
                    pageLinks[page] = made
                    return made
                }()
            let link = pageLink + "#" + anchors[i]
            let author = record.author.flatMap { $0.isEmpty ? nil : $0 } ?? strings.text(record.authorDeleted ? "deleted" : "unknown_author")
            entries.append(
                AtomFeed.Entry(
                    title: "\(author): \(PageNavigation.excerpt(bodies[i] ?? HTML(trusted: "")))",
                    id: absolute == nil ? XMLText.uuid("comment:\(summary.id):\(record.id.string)") : link,
                    link: link, published: record.createdAt, updated: record.editedAt ?? record.createdAt,
                    author: author, summary: PageNavigation.excerpt(bodies[i] ?? HTML(trusted: ""), limit: AtomFeed.excerptLimit)))
        }
        let page = absolute.map { $0 + summary.path + "/" }
        return AtomFeed(
            title: title, id: page ?? XMLText.uuid("thread:\(summary.id)"),
            selfLink: page.map { $0 + "atom.xml" } ?? "atom.xml", alternate: page ?? "index.html", lang: language.tag,
            author: summary.author.flatMap { $0.isEmpty ? nil : $0 } ?? title,
            updated: summary.stats.lastActivity?.timestamp, entries: entries
        ).render()
    }
}
