import Testing

@testable import ThreadfoldKit

@Suite("Template renderer")
struct TemplateRendererTests {
    /// A page (node 0) with items: odd items have a name `x` of their own, even ones do not (kinds
    /// fix the keys, as `TemplateModel.kind(of:)` asks). Counts what the page is asked.
    final class Counter { var page: [String: Int] = [:] }

    struct Page: TemplateModel {
        let counter: Counter
        let items: Int
        /// The template set's names, by slot.
        let names: [String]

        func kind(of node: Int) -> Int? { node == 0 ? 0 : 1 + node % 2 }

        func value(_ key: TemplateKey, of node: Int) -> TemplateValue<Int>? {
            let name = names[Int(key.slot)]
            if node == 0 {
                counter.page[name, default: 0] += 1
                switch name {
                case "items": return .list((1...items).map { .node($0) })
                case "s": return .text("page")
                case "x": return .text("X")
                case "t": return .node(0)
                default: return nil
                }
            }
            switch name {
            case "n": return .int(node)
            case "x": return node % 2 == 1 ? .text("x\(node)") : nil
            // Against `kind(of:)`'s advice, a key some nodes of a kind have and others lack.
            case "m": return node % 3 == 0 ? .text("m") : nil
            default: return nil
            }
        }
    }

    @Test("a name the page answers is read from the page once, and a nearer node that has it still wins")
    func pageNamesOnce() throws {
        let counter = Counter()
        let set = try TemplateSet(sources: ["p": "{{#items}}{{n}}:{{s}},{{x}},{{t.s}},{{t.none}}{{m}}|{{/items}}{{x}}"])
        let out = String(decoding: try set.render("p", model: Page(counter: counter, items: 6, names: set.keys.names), root: .node(0)), as: UTF8.self)
        #expect(out == "1:page,x1,page,|2:page,X,page,|3:page,x3,page,m|4:page,X,page,|5:page,x5,page,|6:page,X,page,m|X")
        // Once per tag: `s` (and again as the second part of `t.s`), `t` for each of its two tags,
        // `none` (found missing once, on the page `t` names), `x` for the even items and once more
        // outside the section. The items' own `n` never reaches the page. `m`, which only some
        // items have and the page lacks, is asked of the page for each item without it, and read
        // from every item that has it.
        #expect(counter.page == ["items": 1, "s": 2, "x": 2, "t": 2, "none": 1, "m": 4])
    }

    @Test(
        "a page written into an array of its estimated size is the page written after other bytes, whether it fits, overflows or has no estimate",
        arguments: [0, 1, 16, 100, 1 << 20])
    func estimatedSize(expectedSize: Int) throws {
        let set = try TemplateSet(sources: ["p": "<ol>{{#items}}<li>{{n}} {{x}} {{s}}</li>\n{{/items}}</ol>"])
        let model = Page(counter: Counter(), items: 300, names: set.keys.names)
        // Into an empty array the page is written into one of `expectedSize` bytes; after other
        // bytes, through the writer's blocks.
        var direct: [UInt8] = []
        try set.render("p", model: model, root: .node(0), into: &direct, expectedSize: expectedSize)
        var after: [UInt8] = Array("head".utf8)
        try set.render("p", model: model, root: .node(0), into: &after, expectedSize: expectedSize)
        #expect(direct.count > 300 * 12)
        #expect(Array("head".utf8) + direct == after)
    }

    @Test("a page past its cap is an error whether it is written into an array of its estimated size or after other bytes; the bytes in the array count")
    func capInEitherWay() throws {
        let set = try TemplateSet(sources: ["p": "{{#items}}<li>{{n}} {{x}} {{s}}</li>{{/items}}"])
        // 60 items write about 1,100 bytes: 900 into the array, the rest past it.
        let model = Page(counter: Counter(), items: 60, names: set.keys.names)
        let size = try set.render("p", model: model, root: .node(0)).count
        #expect(size > 1_000 && size < 1_300)
        var direct: [UInt8] = []
        #expect(throws: ThreadfoldError.self) { try set.render("p", model: model, root: .node(0), into: &direct, expectedSize: 900, limit: 1_000) }
        var after: [UInt8] = [0x20]
        #expect(throws: ThreadfoldError.self) { try set.render("p", model: model, root: .node(0), into: &after, expectedSize: 900, limit: 1_000) }
        var fits: [UInt8] = []
        try set.render("p", model: model, root: .node(0), into: &fits, expectedSize: 900, limit: 2_000)
        #expect(fits.count == size)
    }

    /// Items within items, asked for names only the page has, and counted.
    struct Nested: TemplateModel {
        let counter: Counter
        let names: [String]
        /// Whether the model says that only the page has `s`.
        let declares: Bool

        func kind(of node: Int) -> Int? { node == 0 ? 0 : 1 }
        func kinds(answering key: TemplateKey) -> UInt64 { declares && names[Int(key.slot)] == "s" ? 1 : ~0 }

        func value(_ key: TemplateKey, of node: Int) -> TemplateValue<Int>? {
            let name = names[Int(key.slot)]
            if node != 0 { counter.page["item " + name, default: 0] += 1 }
            switch (node, name) {
            case (0, "items"): return .list([.node(1), .node(2)])
            case (0, "s"): return .text("page")
            case (_, "n"): return .int(node)
            default: return nil
            }
        }
    }

    @Test("a name the model says only the page has is not asked of the nodes around the tag")
    func declaredKinds() throws {
        let set = try TemplateSet(sources: ["p": "{{#items}}{{n}}{{#items}}{{n}}{{s}};{{/items}}{{/items}}"])
        for declares in [false, true] {
            let counter = Counter()
            let model = Nested(counter: counter, names: set.keys.names, declares: declares)
            let out = String(decoding: try set.render("p", model: model, root: .node(0)), as: UTF8.self)
            #expect(out == "11page;2page;21page;2page;")
            // Undeclared, each `{{s}}` asks the item kind once (then passes the outer item by);
            // declared, never. `items` is asked of the outer item for the inner section either way.
            #expect(counter.page["item s"] == (declares ? nil : 4))
            #expect(counter.page["item items"] == 2)
        }
    }
}
