import Testing

@testable import ThreadfoldKit

@Suite("Page layout")
struct PageLayoutTests {
    /// a ← b ← c ← d (a chain) and a ← e, a ← f, a ← g (siblings), authors named after ids.
    static let json = Fixtures.flat([
        ("a", nil, "A"), ("b", "a", "B"), ("c", "b", "C"), ("d", "c", "D"), ("e", "a", "E"), ("f", "a", "F"), ("g", "a", "B"),
    ])

    func layout(_ options: LayoutOptions) throws -> (ThreadTree, PageModel) {
        let tree = try Fixtures.tree(Self.json)
        return (tree, PageLayout.make(tree, options: options))
    }

    func ids(_ model: PageModel, _ entries: [Int32]) -> [String] {
        entries.map { model.thread.records[Int(model.entries[Int($0)].comment)].id.string }
    }

    @Test("the first N replies show; the rest fold with their counts")
    func preview() throws {
        let (_, model) = try layout(LayoutOptions(preview: 2, openDepth: 1, maxDepth: 8))
        let root = model.entries[Int(model.rootEntries[0])]
        let block = model.blocks[Int(root.replies)]
        #expect(ids(model, block.shown) == ["b", "e"])
        #expect(ids(model, block.hidden) == ["f", "g"])
        #expect(block.hiddenComments == 2 && block.hiddenPeople == 2)
        #expect(block.open && !block.flattened)
        let b = model.entries[Int(block.shown[0])]
        #expect(!model.blocks[Int(b.replies)].open)
    }

    @Test("hidden counts include the hidden replies' own replies")
    func hiddenSubtrees() throws {
        let (_, model) = try layout(LayoutOptions(preview: 0, openDepth: 0, maxDepth: 8))
        let block = model.blocks[Int(model.entries[Int(model.rootEntries[0])].replies)]
        #expect(block.shown.isEmpty)
        #expect(block.hidden.count == 4)
        #expect(block.hiddenComments == 6)
        #expect(block.hiddenPeople == 5)  // B, C, D, E, F (B twice)
    }

    @Test("--max-depth 1: every reply in one flat list, depth-first, saying whom it answers")
    func twoLevels() throws {
        let (tree, model) = try layout(LayoutOptions(preview: 100, openDepth: 1, maxDepth: 1))
        let block = model.blocks[Int(model.entries[Int(model.rootEntries[0])].replies)]
        #expect(block.flattened)
        #expect(ids(model, block.shown) == ["b", "c", "d", "e", "f", "g"])
        let answering = block.shown.map { e -> String in
            let to = model.entries[Int(e)].replyingTo
            return to < 0 ? "-" : tree.records[Int(to)].id.string
        }
        #expect(answering == ["-", "b", "c", "-", "-", "-"])
        #expect(block.shown.allSatisfy { model.entries[Int($0)].replies == -1 && model.entries[Int($0)].level == 1 })
    }

    @Test("--max-depth 2 nests one level and flattens below it")
    func maxDepthTwo() throws {
        let (_, model) = try layout(LayoutOptions(preview: 100, openDepth: 1, maxDepth: 2))
        let top = model.blocks[Int(model.entries[Int(model.rootEntries[0])].replies)]
        #expect(!top.flattened)
        let b = model.entries[Int(top.shown[0])]
        let below = model.blocks[Int(b.replies)]
        #expect(below.flattened)
        #expect(ids(model, below.shown) == ["c", "d"])
        #expect(model.entries[Int(below.shown[1])].replyingTo >= 0)
    }

    @Test("every comment is shown exactly once, whatever the options", arguments: [1, 2, 3, 8], [0, 1, 2])
    func shownOnce(_ maxDepth: Int, _ preview: Int) throws {
        let (tree, model) = try layout(LayoutOptions(preview: preview, openDepth: 1, maxDepth: maxDepth))
        #expect(model.entries.count == tree.totals.comments)
        #expect(Set(model.entries.map(\.comment)).count == tree.totals.comments)
    }
}

@Suite("Page layout of notices")
struct NoticeLayoutTests {
    /// Top-level a, c, e (minutes 1, 3, 5), b a reply to a; notices at minutes 0, 2, 4 and 6.
    static func tree() throws -> ThreadTree {
        var record = try Fixtures.record(
            #"""
            {"comments": [{"id": "a", "author": "A", "created_at": 60}, {"id": "b", "parent_id": "a", "author": "B", "created_at": 120},
                          {"id": "c", "author": "C", "created_at": 180}, {"id": "e", "author": "E", "created_at": 300}]}
            """#)
        record.notices = [0, 2, 4, 6].map { NoticeRecord(action: "m\($0)", createdAt: Timestamp(milliseconds: Int64($0) * 60_000)) }
        return try ThreadBuilder.build(record)
    }

    @Test("notices are top-level items of their own, placed by how many top-level entries come before them; no entry is a notice")
    func whole() throws {
        let tree = try Self.tree()
        let model = PageLayout.make(tree, options: LayoutOptions(preview: 5, openDepth: 1, maxDepth: 8))
        #expect(model.notices == [0, 1, 2, 3].map { PageModel.Notice(notice: Int32($0), position: Int32($0)) })
        #expect(model.entries.count == 4 && model.rootEntries.count == 3)
        #expect(model.blocks.allSatisfy { $0.shown.count + $0.hidden.count == 1 })
    }

    @Test("a page of some top-level comments counts its notices' places from its own first comment")
    func slice() throws {
        let tree = try Self.tree()
        let anchors = Anchors.make(for: tree.records)
        let part = PageLayout.make(tree, options: LayoutOptions(), roots: tree.roots[1..<3], notices: tree.noticePlaces[2...], anchors: anchors)
        #expect(part.notices == [PageModel.Notice(notice: 2, position: 1), PageModel.Notice(notice: 3, position: 2)])
        let branch = PageLayout.make(tree, options: LayoutOptions(), roots: [tree.roots[0]][...], anchors: anchors)
        #expect(branch.notices.isEmpty)
    }
}

@Suite("Anchors")
struct AnchorsTests {
    func anchors(_ ids: [String]) -> [String] {
        Anchors.make(for: ids.map { CommentID($0) }.map { CommentRecord(id: $0) })
    }

    @Test("plain ids read as themselves; anything else is hashed")
    func shapes() {
        let result = anchors(["abc_1-2", "ABC", "../../etc/passwd", "<script>", "a b", String(repeating: "x", count: 65), ""])
        #expect(result[0] == "c-abc_1-2")
        #expect(result[1] == "c-ABC")
        for anchor in result.dropFirst(2) {
            #expect(anchor.hasPrefix("c_") && anchor.count == 18)
            #expect(anchor.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
        }
        #expect(Set(result).count == result.count)
    }

    @Test("ids that differ by case or normalisation get different anchors")
    func distinct() {
        let result = anchors(["Abc", "abc", "caf\u{e9}", "cafe\u{301}", "\u{212A}", "K"])
        #expect(Set(result).count == 6)
    }

    @Test("an anchor already used gets the first free -2, -3…, checked against every anchor made before")
    func collisions() {
        #expect(anchors(["a-2", "a", "a", "a-3"]) == ["c-a-2", "c-a", "c-a-3", "c-a-3-2"])
    }

    @Test("anchors are stable across runs")
    func stable() {
        #expect(anchors(["é"]) == anchors(["é"]))
        #expect(anchors(["é"])[0] == "c_" + StableHash.nameHex("é".utf8))
    }
}
