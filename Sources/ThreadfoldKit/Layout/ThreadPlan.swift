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
        /// A branch page's top-level comment (the first of its breadcrumb); -1 for a part.
        var top: Int32 = -1
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
                        part: -1, root: b, top: pages[p].top >= 0 ? pages[p].top : Self.topLevel(of: b, in: tree)))
            }
            p += 1
        }
    }

    /// Whether `auto` lays a thread out flat: its top-level comments average more than
    /// `threshold` replies each.
    static func prefersFlat(_ tree: ThreadTree, threshold: Double) -> Bool {
        let replies = tree.roots.reduce(0) { $0 + Int(tree.stats[Int($1)].totalReplies) }
        return !tree.roots.isEmpty && Double(replies) / Double(tree.roots.count) > threshold
    }

    /// The layout of an archive thread's pages: `base`, with replies deeper than `pageDepth` on
    /// pages of their own and, when `flat`, every reply shown one level deep.
    static func layout(_ base: LayoutOptions, pageDepth: Int, flat: Bool) -> LayoutOptions {
        var layout = base
        layout.pageDepth = pageDepth
        if flat { layout.maxDepth = 1 }
        return layout
    }

    /// The top-level comment above `comment`. Walked only for a branch of a main part, whose
    /// depth the part's layout bounds; a branch of a branch page takes that page's `top`.
    static func topLevel(of comment: Int32, in tree: ThreadTree) -> Int32 {
        var a = comment
        while tree.parent[Int(a)] >= 0 { a = tree.parent[Int(a)] }
        return a
    }

    /// The comments above a branch page's root for its breadcrumb: the top-level one, then at
    /// most the five nearest. At most six steps up from the root: a 100,000-deep chain has
    /// 12,500 branch pages, and a walk to the top from each would be quadratic.
    static func ancestors(of page: Page, in tree: ThreadTree) -> [Int32] {
        var nearest: [Int32] = []
        var a = tree.parent[Int(page.root)]
        while a >= 0 && nearest.count < 6 {
            nearest.append(a)
            a = tree.parent[Int(a)]
        }
        // Six or fewer above it: the whole chain. More: the top-level one, then the five nearest.
        guard a >= 0 else { return nearest.reversed() }
        return [page.top] + nearest.prefix(5).reversed()
    }
}
