/// One thread's files in an archive, under `t/<folder>/`: its pages (split between top-level
/// comments, with branches deeper than `pageDepth` on pages of their own, in every order), its
/// `thread.json` sidecar and its `atom.xml` feed. The bytes went to the caller's sink as each
/// file was rendered; these are the paths, in the order they were written.
package struct ThreadFiles: Sendable {
    package var summary: ThreadSummary
    package var paths: [String]
    package var diagnostics: [Diagnostic]
}

/// What `ThreadPipeline.files` made of an archive thread: its files, or for a thread with
/// nothing to show (`showsNothing`), nothing written and its tree, which the caller warns about.
package enum ArchiveThread: Sendable {
    case written(ThreadFiles)
    case empty(ThreadTree)
}

/// A rendered standalone page: the thread and its HTML.
package struct RenderedThread: Sendable {
    package var thread: ThreadTree
    package var html: [UInt8]
    package var diagnostics: [Diagnostic] { thread.diagnostics }
}

/// One thread through the stages, in their order: read (the importer) → a tree per order
/// (`ThreadBuilder`) → layout and the plan of its pages (`PageLayout`, `ThreadPlan`) → bytes
/// (`ThreadRenderer`). The standalone page (`render`, `preview`, `Threadfold.renderPage`, a
/// dump's `render`) and an archive's thread files (`build`) both come from here. Immutable and
/// Sendable: one instance serves every worker of a build.
package struct ThreadPipeline: Sendable {
    package let renderer: ThreadRenderer
    package var options: ArchiveOptions { renderer.options }

    package init(options: ArchiveOptions, resources: ResourceStore = ResourceStore()) throws(ThreadfoldError) {
        renderer = try ThreadRenderer(options: options, resources: resources)
    }

    /// Reads a file that holds one thread, in any supported form, and renders its standalone page.
    package func page(bytes: [UInt8], file: String, assets: String = "") throws(ThreadfoldError) -> RenderedThread {
        let threads = try Importer.read(bytes: bytes, file: file, options: options.render.importing).threads
        guard threads.count == 1 else {
            throw ThreadfoldError.input([Problem(file: file, message: "holds \(threads.count) threads; expected one")])
        }
        return try page(threads[0], assets: assets)
    }

    /// A standalone page of a thread: the whole thread on one page, with no archive links.
    /// `assets` is the path from the page to the stylesheet and script.
    package func page(_ record: ThreadRecord, assets: String = "") throws(ThreadfoldError) -> RenderedThread {
        let thread = try ThreadBuilder.build(linked(record), options: options.render.thread)
        let model = PageLayout.make(thread, options: options.render.layout)
        return RenderedThread(thread: thread, html: try renderer.page(model, assets: assets))
    }

    /// The record with its thread's link as its bodies' links are: a relative one (a Discourse
    /// topic's `/t/slug/123`) resolves against the forum's address when it is known
    /// (`sourceURL`), and is left out otherwise.
    func linked(_ record: ThreadRecord) -> ThreadRecord {
        guard let url = record.info.url, URLPolicy.scheme(of: url) == nil else { return record }
        var copy = record
        copy.info.url = renderer.sanitizer.link(url)
        return copy
    }

    /// Renders an archive thread's files, handing each to `write` as it is done (write the bytes
    /// before returning: the buffer that holds them is taken for the next file).
    /// A thread with nothing to show (`showsNothing`) is not published: nothing is written.
    package func files(
        _ record: ThreadRecord, id: CommentID, folder: String, source: String,
        write: (String, [UInt8]) throws(ThreadfoldError) -> Void
    ) throws(ThreadfoldError) -> ArchiveThread {
        let (orders, trees) = try orderTrees(linked(record))
        let first = trees[0]
        if first.showsNothing { return .empty(first) }
        let flat: Bool
        switch options.layout {
        case .nested: flat = false
        case .flat: flat = true
        case .auto: flat = ThreadPlan.prefersFlat(first, threshold: options.flatThreshold)
        }
        let layout = ThreadPlan.layout(options.render.layout, pageDepth: options.pageDepth, flat: flat)
        var state = renderer.start(first, anchors: Anchors.make(for: first.records))
        let base = ["t", folder]
        var paths: [String] = []
        var buffer: [UInt8] = []
        var mainPlan: ThreadPlan?
        for (k, order) in orders.enumerated() {
            let tree = trees[k]
            let plan = ThreadPlan(tree, layout: layout, pageSize: options.pageSize, anchors: state.anchors, base: base + (k == 0 ? [] : [order.rawValue]))
            for page in plan.pages {
                try renderer.archivePage(page, of: plan, tree: tree, base: base, order: k, orders: orders, state: &state, into: &buffer)
                let path = page.dir.joined(separator: "/") + "/index.html"
                try write(path, buffer)
                paths.append(path)
            }
            if k == 0 { mainPlan = plan }
        }
        let pages = mainPlan?.pages.map(\.dir) ?? []
        let pageOf = mainPlan?.pageOf ?? []
        var summary = try ThreadSummary(tree: first, id: id, folder: folder, flat: flat, pages: pages, orders: orders, source: source)
        if options.authors { summary.posts = ThreadSummary.posts(first, anchors: state.anchors, pageOf: pageOf, bodies: state.bodies) }
        let feed = renderer.feed(
            first, summary: summary, anchors: state.anchors, pageDirs: pages, pageOf: pageOf, language: state.language,
            context: state.context, bodies: &state.bodies)
        for (path, bytes) in [("t/\(folder)/thread.json", summary.encoded()), ("t/\(folder)/atom.xml", feed)] {
            try write(path, bytes)
            paths.append(path)
        }
        return .written(ThreadFiles(summary: summary, paths: paths, diagnostics: first.diagnostics))
    }

    /// The thread's tree in every order of the archive, the main one first; the main one alone
    /// when it has nothing to show (`showsNothing`). An order whose comments would stand as an
    /// earlier one's (`top` with no scores, `newest` with one comment) is left out, unless it
    /// shows notices that one does not (`oldest` after `top`: only time orders show notices).
    func orderTrees(_ record: ThreadRecord) throws(ThreadfoldError) -> (orders: [CommentOrder], trees: [ThreadTree]) {
        var threadOptions = options.render.thread
        threadOptions.sort = options.effectiveOrders[0]
        if !options.orders.isEmpty && options.render.thread.replySort == nil { threadOptions.replySort = nil }
        let first = try ThreadBuilder.build(record, options: threadOptions)
        if first.showsNothing { return ([options.effectiveOrders[0]], [first]) }
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
        return (orders, trees)
    }
}
