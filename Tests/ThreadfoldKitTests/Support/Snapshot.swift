import Foundation
import Testing

/// Compares `actual` with the golden file `Snapshots/<name>`; `RECORD_SNAPSHOTS=1` rewrites it.
func assertSnapshot(_ actual: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let url = TestPaths.repository.appendingPathComponent("Tests/ThreadfoldKitTests/Snapshots/\(name)")
    if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
        try Data(actual.utf8).write(to: url)
        return
    }
    let expected = try #require(
        TestPaths.read(url).map { String(decoding: $0, as: UTF8.self) },
        "no snapshot \(name); run with RECORD_SNAPSHOTS=1 to record it", sourceLocation: sourceLocation)
    if actual != expected {
        let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let line = Array(zip(a, e)).firstIndex { $0 != $1 } ?? min(a.count, e.count)
        let got = line < a.count ? String(a[line]) : "<end>"
        let want = line < e.count ? String(e[line]) : "<end>"
        Issue.record("snapshot \(name) differs at line \(line + 1):\n  got:      \(got)\n  expected: \(want)\n(RECORD_SNAPSHOTS=1 rewrites it)", sourceLocation: sourceLocation)
    }
}
