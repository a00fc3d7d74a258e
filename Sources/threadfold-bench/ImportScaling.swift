import Foundation
import ThreadfoldKit

// MARK: Import scaling

/// What 10x the items may cost besides 10x the time: this much, for timer and process noise on
/// runs of a few milliseconds.
let scalingSlack = 0.1

/// The growth allowed for 10x the items: 10x up to 200,000 items. Past that the id tables (a
/// hash table of a million ids is about 50 MB) no longer fit in the cache, and each lookup
/// waits on memory: at 1,000,000 items the lookups' share of the samples grows from about 5%
/// to 15% (perf) while their count grows tenfold, and the time 10 to 17 times. 20x there still
/// tells a linear walk from a quadratic one, which grows 100x.
func allowedGrowth(to items: Int) -> Double { items > 200_000 ? 20 : 10 }

/// `check`'s time on `n` items of `shape` in `form`: the export written to a temporary file and
/// checked by the binary in a fresh process, the best of `runs`; a run past `timeout` seconds is
/// stopped and fails.
func checkTime(_ form: ReplyShapeForm, _ shape: ReplyShape, items n: Int, runs: Int, timeout: Double?) throws -> Double {
    let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("threadfold-shape-\(getpid()).\(form.fileExtension)")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try Data(form.export(shape, n)).write(to: URL(fileURLWithPath: path))
    let mapping = form == .mapped ? ["--map", ReplyShapeForm.mapping] : []
    return try best(runs) { try time(settings.threadfold, ["check", path] + mapping, stderr: "/dev/null", timeout: timeout).seconds }
}

/// Forms whose replies are nested inside their parents, as a chain one reply deep a level: each
/// comment's JSON path is as long as its depth, so anything built per comment from it is quadratic.
enum NestedChain: String, CaseIterable {
    case redditListing = "reddit-api", hnAlgolia = "hn-algolia", threadfold = "tf-nested"

    /// A chain of `n` comments, each the only reply to the one before.
    func export(_ n: Int) -> [UInt8] {
        let head: String, tail: String, close: String
        switch self {
        case .redditListing:
            head =
                #"[{"kind": "Listing", "data": {"children": [{"kind": "t3", "data": {"id": "s1", "name": "t3_s1", "title": "A chain", "author": "op", "created_utc": 1700000000, "selftext": ""}}]}}, "#
            (tail, close) = ("]", "}}]}}")
        case .hnAlgolia:
            head = #"{"id": 1, "type": "story", "title": "A chain", "author": "op", "created_at_i": 1700000000, "children": ["#
            (tail, close) = ("]}", "]}")
        case .threadfold:
            head = #"{"id": "t", "title": "A chain", "comments": ["#
            (tail, close) = ("]}", "]}")
        }
        var out = Array(head.utf8)
        out.reserveCapacity(n * 140)
        for k in 0..<n {
            switch self {
            case .redditListing:
                let parent = k == 0 ? "t3_s1" : "t1_c\(k - 1)"
                out += Array(
                    #"{"kind": "Listing", "data": {"children": [{"kind": "t1", "data": {"id": "c\#(k)", "parent_id": "\#(parent)", "author": "a", "body": "b", "created_utc": 1700000001, "replies": "#
                        .utf8)
            case .hnAlgolia:
                out += Array(#"{"id": \#(k + 2), "author": "a", "text": "b", "created_at_i": 1700000001, "children": ["#.utf8)
            case .threadfold:
                out += Array(#"{"id": "c\#(k)", "author": "a", "body": "b", "replies": ["#.utf8)
            }
        }
        // The deepest comment has no replies: "" in the Reddit form, an empty array in the others.
        if self == .redditListing { out += [0x22, 0x22] }
        for _ in 0..<n { out += Array(close.utf8) }
        out += Array(tail.utf8)
        return out
    }
}

/// `check`'s time on a nested chain of `n` comments, as `checkTime`.
func checkTime(_ chain: NestedChain, items n: Int, runs: Int, timeout: Double?) throws -> Double {
    let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("threadfold-nested-\(getpid()).json")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try Data(chain.export(n)).write(to: URL(fileURLWithPath: path))
    return try best(runs) { try time(settings.threadfold, ["check", path], stderr: "/dev/null", timeout: timeout).seconds }
}

/// Times `threadfold check` on every form's chain, reversed chain and cycle with hanging items at
/// each of `sizes` (growing) and prints a row per form and shape, with the growth from each size
/// to the one ten times larger. A row fails when 10x the items take more than `allowedGrowth`
/// times the time plus `scalingSlack`: every importer and the tree must be linear on these shapes.
func checkImportScaling(sizes: [Int]) -> Bool {
    var ok = true
    let header = "form        shape            " + sizes.map { "\(grouped($0)) items".padding(toLength: 18, withPad: " ", startingAt: 0) }.joined()
    print(header + "10x growth  result")
    for form in ReplyShapeForm.allCases {
        for shape in ReplyShape.allCases {
            var times: [Double] = []
            var failure: String?
            for n in sizes {
                do {
                    // A size far past linear is stopped rather than waited for.
                    let timeout = times.last.map { 30 * $0 * Double(n) / Double(sizes[times.count - 1]) + 10 }
                    times.append(try checkTime(form, shape, items: n, runs: n >= 1_000_000 ? 1 : 3, timeout: timeout))
                } catch {
                    failure = "FAILED: \(error.localizedDescription)"
                    break
                }
            }
            // Each size's time against the size a tenth of it, when that was timed.
            let tenfold = times.indices.compactMap { k in sizes.firstIndex(of: sizes[k] / 10).map { (times[$0], times[k], sizes[k]) } }
            let growth: [Double] = tenfold.map { pair in pair.1 / max(pair.0, 1e-6) }
            let linear = tenfold.allSatisfy { pair in pair.1 <= allowedGrowth(to: pair.2) * pair.0 + scalingSlack }
            let passed = failure == nil && linear
            ok = ok && passed
            let cells = times.map { (format($0 * 1000, 1) + " ms").padding(toLength: 18, withPad: " ", startingAt: 0) }.joined()
            print(
                form.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0) + shape.rawValue.padding(toLength: 17, withPad: " ", startingAt: 0)
                    + cells + growth.map { format($0, 1) + "x" }.joined(separator: " ").padding(toLength: 12, withPad: " ", startingAt: 0)
                    + (failure ?? (passed ? "ok" : "SUPER-LINEAR")))
            fflush(nil)
        }
    }
    // Nested chains a tenth as long: each comment is five levels of JSON in the Reddit form, and
    // a document is refused past a million.
    for chain in NestedChain.allCases {
        let nested = sizes.map { max(1, $0 / 10) }
        var times: [Double] = []
        var failure: String?
        for n in nested {
            do {
                let timeout = times.last.map { 30 * $0 * Double(n) / Double(nested[times.count - 1]) + 10 }
                times.append(try checkTime(chain, items: n, runs: 3, timeout: timeout))
            } catch {
                failure = "FAILED: \(error.localizedDescription)"
                break
            }
        }
        let tenfold = times.indices.compactMap { k in nested.firstIndex(of: nested[k] / 10).map { (times[$0], times[k], nested[k]) } }
        let linear = tenfold.allSatisfy { pair in pair.1 <= allowedGrowth(to: pair.2) * pair.0 + scalingSlack }
        let passed = failure == nil && linear
        ok = ok && passed
        let cells = zip(nested, times).map { ("\(grouped($0)): " + format($1 * 1000, 1) + " ms").padding(toLength: 18, withPad: " ", startingAt: 0) }.joined()
        print(
            chain.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0) + "nested chain     " + cells
                + tenfold.map { format($0.1 / max($0.0, 1e-6), 1) + "x" }.joined(separator: " ").padding(toLength: 12, withPad: " ", startingAt: 0)
                + (failure ?? (passed ? "ok" : "SUPER-LINEAR")))
        fflush(nil)
    }
    return ok
}
