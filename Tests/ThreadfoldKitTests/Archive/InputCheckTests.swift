import Foundation
import Testing

@testable import ThreadfoldKit

@Suite("Input check")
struct InputCheckTests {
    @Test("a file of threads is checked a thread at a time: those before one that fails were handed over, in order")
    func threadsInOrder() throws {
        let json = #"""
            {"threads": [
             {"id": "1", "comments": [{"id": "a", "body": "x"}, {"id": "b", "parent_id": "a", "body": "y"}]},
             {"id": "2", "comments": [{"id": "c", "body": "z"}]},
             {"id": "3", "comments": [{"id": "d", "body": "x"}, {"id": "d", "body": "y"}]}]}
            """#
        let check = InputCheck(importing: ImportOptions(), jobs: 1)
        let file = try check.file(Array(json.utf8), display: "many.json")
        #expect(file.result.threads.count == 3)
        var seen: [String] = []
        #expect(throws: ThreadfoldError.self) {
            _ = try file.forEachThread { record, checked in seen.append("\(record.info.id?.string ?? "?"):\(checked.counts.comments)") }
        }
        #expect(seen == ["1:2", "2:1"])
    }

    @Test("the sum of a file's threads adds their counts")
    func sum() throws {
        let json = #"{"threads": [{"id": "1", "comments": [{"id": "a", "body": "x"}]}, {"id": "2", "comments": [{"id": "b", "parent_id": "gone", "body": "y"}]}]}"#
        let (sum, diagnostics) = try InputCheck(importing: ImportOptions(), jobs: 1).file(Array(json.utf8), display: "two.json").forEachThread { _, _ in }
        #expect(sum.threads == 2)
        #expect(sum.comments == 2)
        #expect(sum.orphans == 1)
        #expect(diagnostics.map(\.kind) == [.orphan])
    }

    @Test("a build's check of its units names each bad input; a good one adds nothing")
    func units() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("input-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("good.json").path
        let bad = folder.appendingPathComponent("bad.json").path
        try Data(#"{"comments": [{"id": "a", "body": "x"}]}"#.utf8).write(to: URL(fileURLWithPath: good))
        try Data(#"{"comments": [{"id": "a", "body": "x"}"#.utf8).write(to: URL(fileURLWithPath: bad))
        let units = [ArchiveUnit(source: .file(path: good), display: good), ArchiveUnit(source: .file(path: bad), display: bad)]
        let problems = InputCheck(importing: ImportOptions(), jobs: 2).units(units)
        #expect(!problems.isEmpty)
        #expect(problems.allSatisfy { $0.file == bad })
    }
}
