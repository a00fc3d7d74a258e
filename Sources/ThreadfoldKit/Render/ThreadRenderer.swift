/// The one renderer: page models to bytes. It holds the templates and decides a page's language
/// and locale; it renders bodies (each through cmark or the sanitiser once per thread, shared by
/// its parts, branches and orders), pages, a thread's feed, and listings. It reads no input and
/// builds no tree or layout: `ThreadPipeline` hands it the models. Immutable and Sendable: one
/// instance serves every worker of a build.
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
            cache[i] = body(PostMarkup.body(of: thread.records[i]), thread.records[i].bodyFormat, context)
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
        // About 950 bytes of markup per comment plus its body (more with an archive's links), and
        // less for a notice: the page is written into an array of this size, and what passes it
        // is copied once more.
        var expected = 8 * 1024 + model.entries.count * 1152 + model.notices.count * 384
        for entry in model.entries { expected += bodies[Int(entry.comment)]?.raw.utf8.count ?? 0 }
        for notice in model.notices { expected += noticeBodies[Int(notice.notice)]?.raw.utf8.count ?? 0 }
        // The last page's array goes before the next is made, not after: two at once would double
        // a long thread's peak.
        out = []
        try templates.render("page", model: page, root: .node(.page), into: &out, expectedSize: expected)
    }

    /// The opening post's body, shown on the first page of a thread only.
    func threadBody(_ info: ThreadInfo, _ context: BodyContext) -> HTML? {
        PostMarkup.openingPost(info).map { body($0, info.bodyFormat, context, below: Self.postHeadingLevel) }
    }

    /// A standalone page of a thread (`render`, `preview`) from its model: the whole thread on
    /// one page, with no archive links. `assets` is the path from the page to the stylesheet and
    /// script.
    func page(_ model: PageModel, assets: String) throws(ThreadfoldError) -> [UInt8] {
        let language = language(for: model.thread.info)
        let context = BodyContext(model.thread.info, language)
        var bodies = [HTML?](repeating: nil, count: model.thread.records.count)
        renderBodies(model, context, into: &bodies)
        var html: [UInt8] = []
        try renderPage(
            model, language: language, assets: assets, bodies: bodies, noticeBodies: noticeBodies(model.thread, context),
            threadBody: threadBody(model.thread.info, context), navigation: nil, into: &html)
        return html
    }

    /// What every page of one archive thread shares while it is rendered: its words, the bodies
    /// rendered so far (each once, for all its parts, branches and orders), the opening post's
    /// and the notices', and the author pages' folders.
    struct ThreadState {
        let language: PageLanguage
        let context: BodyContext
        let anchors: [String]
        var bodies: [HTML?]
        let postBody: HTML?
        let notices: [HTML?]
        /// Author pages' folders, one slug per name, shared by every page of the thread.
        var authorFolders: [String?] = []
        var threadAuthorFolder: String?
    }

    /// The shared state of the archive pages of `tree` (its main order), whose comments have
    /// `anchors`.
    func start(_ tree: ThreadTree, anchors: [String]) -> ThreadState {
        let language = language(for: tree.info)
        let context = BodyContext(tree.info, language)
        var state = ThreadState(
            language: language, context: context, anchors: anchors,
            bodies: [HTML?](repeating: nil, count: tree.records.count),
            postBody: threadBody(tree.info, context), notices: noticeBodies(tree, context))
        if options.authors {
            var folders = ThreadPaths.AuthorFolders()
            state.authorFolders = tree.records.map { record in
                record.authorDeleted ? nil : AuthorPages.name(record.author).map { folders.folder($0) }
            }
            state.threadAuthorFolder = AuthorPages.name(tree.info.author).map { folders.folder($0) }
        }
        return state
    }

    /// Renders `page` of `plan` (the pages of order `k` of `orders`, from `tree`) into `out`, with
    /// its links; `base` is the thread's folder.
    func archivePage(
        _ page: ThreadPlan.Page, of plan: ThreadPlan, tree: ThreadTree, base: [String], order k: Int, orders: [CommentOrder],
        state: inout ThreadState, into out: inout [UInt8]
    ) throws(ThreadfoldError) {
        var navigation = PageNavigation(
            of: page, in: plan, tree: tree, anchors: state.anchors, base: base, order: k, orders: orders,
            canonicalBase: options.base)
        navigation.authorFolders = state.authorFolders
        navigation.threadAuthorFolder = state.threadAuthorFolder
        navigation.pagefind = options.search == .pagefind && k == 0
        renderBodies(page.model, state.context, into: &state.bodies)
        // Breadcrumbs quote the comments a branch hangs from, in plain text from their bodies.
        renderBodies(navigation.ancestors.map { Int($0.comment) }, of: tree, state.context, into: &state.bodies)
        try renderPage(
            page.model, language: state.language, assets: ThreadPaths.root(from: page.dir), bodies: state.bodies,
            noticeBodies: state.notices, threadBody: navigation.showsPost ? state.postBody : nil,
            navigation: navigation, into: &out)
    }

    /// Writes the listing pages (index, sections, site feed, sitemap) for `summaries` in index
    /// order, then the assets, each handed to `write` as soon as it is made with the mode it is
    /// published with (`ResourceStore.Asset.mode`; a page's is `publishedMode`, Support/IO).
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
                try write(path, bytes, publishedMode)
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
