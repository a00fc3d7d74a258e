@testable import ThreadfoldKit

/// Small helpers to turn JSON text into records, trees and pages.
enum Fixtures {
    static func record(_ json: String, file: String = "test.json") throws -> ThreadRecord {
        try ThreadDecoder.decode(bytes: Array(json.utf8), file: file)
    }

    static func tree(_ json: String, options: ThreadOptions = ThreadOptions()) throws -> ThreadTree {
        try ThreadBuilder.build(try record(json), options: options)
    }

    /// A flat thread from (id, parent, author) triples, times increasing in list order.
    static func flat(_ comments: [(String, String?, String)]) -> String {
        let items = comments.enumerated().map { i, c in
            let parent = c.1.map { "\"\($0)\"" } ?? "null"
            return "{\"id\":\"\(c.0)\",\"parent_id\":\(parent),\"author\":\"\(c.2)\",\"created_at\":\(1_700_000_000 + i * 60),\"body\":\"comment \(c.0)\"}"
        }
        return "{\"id\":\"t\",\"title\":\"T\",\"author\":\"op\",\"comments\":[\(items.joined(separator: ","))]}"
    }

    static func ids(_ tree: ThreadTree, _ indices: some Sequence<Int32>) -> [String] {
        indices.map { tree.records[Int($0)].id.string }
    }

    static func children(_ tree: ThreadTree, of id: String) -> [String] {
        let index = tree.records.firstIndex { $0.id.string == id }!
        return ids(tree, tree.children(of: index))
    }

    static func index(_ tree: ThreadTree, _ id: String) -> Int {
        tree.records.firstIndex { $0.id.string == id }!
    }
}

/// The part of a page that holds input-derived content: the thread header and `<main>`.
/// (The page's own `<head>` loads threadfold.js, so "no <script" is checked here.)
func content(of page: String) -> String {
    guard let open = page.range(of: "<body"), let start = page[open.upperBound...].firstIndex(of: ">"),
        let end = page.range(of: "<footer")
    else { return page }
    return String(page[page.index(after: start)..<end.lowerBound])
}
