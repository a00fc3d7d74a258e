/// The pages of one order of an archive thread: the parts of the main page (`pageSize`
/// top-level comments each), then every branch page, breadth first through an explicit
/// worklist (a reply chain 100,000 long is 12,500 pages, no recursion).
struct ThreadPlan {
    struct Page {
        var dir: [String]
        var model: PageModel
        /// 0-based part of the main page, or -1 for a branch page.
        var part: Int
        /// A branch page's root comment.
        var root: Int32
    }

    var pages: [Page] = []
    var parts: Int
    /// The first page each comment shows on, by comment.
    var pageOf: [Int32]
    /// The page of each branch, by its root comment.
    var branchPage: [Int32: Int32] = [:]

    init(_ tree: ThreadTree, layout: LayoutOptions, pageSize: Int, anchors: [String], base: [String]) {
        let size = max(pageSize, 1)
        var start = 0
        // Notices go with the part of the comment they come before; those after every comment, with the last.
        let places = tree.noticePlaces
        var nextPlace = 0
        repeat {
            let end = min(start + size, tree.roots.count)
            let part = pages.count
            let firstPlace = nextPlace
            while nextPlace < places.count, places[nextPlace].before < end || end == tree.roots.count { nextPlace += 1 }
            pages.append(
                Page(
                    dir: base + (part == 0 ? [] : [String(part + 1)]),
                    model: PageLayout.make(
                        tree, options: layout, roots: tree.roots[start..<end],
                        notices: places[firstPlace..<nextPlace], anchors: anchors),
                    part: part, root: -1))
            start = end
        } while start < tree.roots.count
        parts = pages.count
        pageOf = [Int32](repeating: -1, count: tree.records.count)
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
                pages.append(
                    Page(
                        dir: base + [name],
                        model: PageLayout.make(tree, options: layout, roots: [b][...], anchors: anchors),
                        part: -1, root: b))
            }
            p += 1
        }
    }

    /// The links of `page`: the index, the other orders of the same page, the parts, and on a
    /// branch page the comments above it. `base` is the thread's folder; `order` is the index of
    /// this plan's order in `orders`.
    func navigation(
        of page: Page, tree: ThreadTree, anchors: [String], base: [String], order k: Int,
        orders: [CommentOrder], canonicalBase: String?
    ) -> PageNavigation {
        var nav = PageNavigation()
        let orderDirs = k == 0 ? 0 : 1
        nav.indexHref = ThreadPaths.href(from: page.dir, to: [])
        let rest = Array(page.dir.dropFirst(base.count + orderDirs))
        if orders.count > 1 {
            nav.orders = orders.enumerated().map { j, other in
                .init(other, href: ThreadPaths.href(from: page.dir, to: base + (j == 0 ? [] : [other.rawValue]) + rest), current: j == k)
            }
        }
        if page.part >= 0 {
            if parts > 1 {
                nav.pages = (0..<parts).map {
                    .init($0 + 1, href: ThreadPaths.href(from: page.dir, to: pages[$0].dir), current: $0 == page.part)
                }
            }
            if page.part > 0 {
                nav.previousPage = .init(page.part, href: ThreadPaths.href(from: page.dir, to: pages[page.part - 1].dir), current: false)
            }
        } else {
            nav.ancestors = Self.ancestors(of: page.root, in: tree).map { a in
                .init(comment: a, href: ThreadPaths.href(from: page.dir, to: pages[Int(pageOf[Int(a)])].dir, fragment: anchors[Int(a)]))
            }
            nav.threadHref = ThreadPaths.href(from: page.dir, to: pages[0].dir)
        }
        for b in page.model.branches {
            nav.branchHrefs[b] = ThreadPaths.href(from: page.dir, to: pages[Int(branchPage[b]!)].dir)
        }
        nav.feedHref = String(repeating: "../", count: page.dir.count - base.count) + "atom.xml"
        nav.canonical = canonicalBase.map { $0 + page.dir.joined(separator: "/") + "/" }
        nav.showsPost = page.part == 0
        return nav
    }

    /// The comments above a branch root for its breadcrumb: the top-level one, then at most the
    /// five nearest (a 100,000-deep chain must not give every page a 100,000-item trail).
    static func ancestors(of root: Int32, in tree: ThreadTree) -> [Int32] {
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
}
