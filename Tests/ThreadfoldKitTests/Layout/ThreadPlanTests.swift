import Testing

@testable import ThreadfoldKit

@Suite("Thread plan")
struct ThreadPlanTests {
    @Test("auto lays a thread out flat when its top-level comments average more replies than the threshold; no comments, never")
    func prefersFlat() throws {
        // Two top-level comments and three replies: 1.5 replies each.
        let tree = try Fixtures.tree(Fixtures.flat([("a", nil, "x"), ("b", "a", "y"), ("c", "b", "z"), ("d", nil, "x"), ("e", "d", "y")]))
        #expect(ThreadPlan.prefersFlat(tree, threshold: 1))
        #expect(!ThreadPlan.prefersFlat(tree, threshold: 1.5))
        let empty = try Fixtures.tree(Fixtures.flat([]))
        #expect(!ThreadPlan.prefersFlat(empty, threshold: 0))
    }

    @Test("an archive's layout keeps the options, moves deep replies to pages of their own, and a flat one shows replies one level deep")
    func layout() {
        var base = LayoutOptions()
        base.maxDepth = 5
        let nested = ThreadPlan.layout(base, pageDepth: 3, flat: false)
        #expect(nested.pageDepth == 3 && nested.maxDepth == 5)
        let flat = ThreadPlan.layout(base, pageDepth: 3, flat: true)
        #expect(flat.pageDepth == 3 && flat.maxDepth == 1)
    }

    @Test("parts of pageSize top-level comments, named 2, 3, … after the first; each comment's first page is the part that shows it")
    func parts() throws {
        // Five top-level comments (a, b, d, e, f) and a reply to b.
        let tree = try Fixtures.tree(Fixtures.flat([("a", nil, "x"), ("b", nil, "y"), ("c", "b", "z"), ("d", nil, "x"), ("e", nil, "y"), ("f", nil, "y")]))
        let anchors = Anchors.make(for: tree.records)
        let plan = ThreadPlan(tree, layout: LayoutOptions(), pageSize: 2, anchors: anchors, base: ["t", "x"])
        #expect(plan.parts == 3)
        #expect(plan.pages.map(\.dir) == [["t", "x"], ["t", "x", "2"], ["t", "x", "3"]])
        #expect(plan.pages.map(\.part) == [0, 1, 2])
        #expect(plan.pageOf[Fixtures.index(tree, "c")] == 0)
        #expect(plan.pageOf[Fixtures.index(tree, "d")] == 1)
        #expect(plan.pageOf[Fixtures.index(tree, "e")] == 1)
        #expect(plan.pageOf[Fixtures.index(tree, "f")] == 2)
    }

    @Test("replies deeper than pageDepth continue on a branch page in the thread's folder; a long chain's breadcrumb keeps the top and the five nearest")
    func branches() throws {
        var chain: [(String, String?, String)] = [("c0", nil, "x")]
        for k in 1..<12 { chain.append(("c\(k)", "c\(k - 1)", "x")) }
        let tree = try Fixtures.tree(Fixtures.flat(chain))
        let anchors = Anchors.make(for: tree.records)
        var layout = LayoutOptions()
        layout.pageDepth = 4
        let plan = ThreadPlan(tree, layout: layout, pageSize: 200, anchors: anchors, base: ["t", "x"])
        #expect(plan.parts == 1)
        #expect(plan.pages.count > 1)
        let branch = plan.pages[1]
        #expect(branch.part == -1 && branch.root >= 0)
        #expect(branch.dir.count == 3 && Array(branch.dir.prefix(2)) == ["t", "x"])
        #expect(plan.branchPage[branch.root] == 1)
        // The root shows first where its replies are cut off; its replies, on its branch page.
        #expect(plan.pageOf[Int(branch.root)] == 0)
        let child = try #require(tree.parent.firstIndex(of: branch.root))
        #expect(plan.pageOf[child] == 1)
        let deepest = plan.pages.last!
        let above = ThreadPlan.ancestors(of: deepest, in: tree)
        #expect(above.count <= 6)
        #expect(above.first == Int32(Fixtures.index(tree, "c0")))
        #expect(above.last == tree.parent[Int(deepest.root)])
    }

    @Test("every branch page's breadcrumb is its top-level comment, then the five nearest above it (all of them when six or fewer)", arguments: [2, 3, 5])
    func breadcrumbs(pageDepth: Int) throws {
        // A chain 40 deep with a side reply at every level, so branch pages start both from parts and from branch pages.
        var rows: [(String, String?, String)] = [("c0", nil, "x"), ("other", nil, "y")]
        for k in 1..<40 {
            rows.append(("c\(k)", "c\(k - 1)", "x"))
            rows.append(("s\(k)", "c\(k - 1)", "y"))
        }
        let tree = try Fixtures.tree(Fixtures.flat(rows))
        var layout = LayoutOptions()
        layout.pageDepth = pageDepth
        let plan = ThreadPlan(tree, layout: layout, pageSize: 200, anchors: Anchors.make(for: tree.records), base: ["t", "x"])
        let branches = plan.pages.filter { $0.part == -1 }
        // Some branch pages lie more than six below their top-level comment, so the breadcrumb is cut.
        #expect(branches.contains { tree.depth[Int($0.root)] > 6 })
        for page in branches {
            var chain: [Int32] = []
            var a = tree.parent[Int(page.root)]
            while a >= 0 {
                chain.insert(a, at: 0)
                a = tree.parent[Int(a)]
            }
            let expected = chain.count > 6 ? [chain[0]] + chain.suffix(5) : chain
            #expect(ThreadPlan.ancestors(of: page, in: tree) == expected, "branch at \(tree.records[Int(page.root)].id.string)")
        }
    }
}
