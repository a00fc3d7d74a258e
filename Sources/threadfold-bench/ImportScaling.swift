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
    return ok
}
