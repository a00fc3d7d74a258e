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
}
