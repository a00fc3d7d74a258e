import Foundation
import Testing

@testable import ThreadfoldKit

/// The parent graphs a hostile export can make every importer walk: a long chain, the same chain
/// listed deepest first, and a two-item cycle with every other item hanging off it. Each form
/// imports them as one thread with every comment, the right depth and the cycle reported as one.
/// How the time grows with the size is `make check-slow`'s (threadfold-bench --import-scaling).
@Suite("Reply shapes in every form")
struct ReplyShapeTests {
    static let items = 20_000

    static func options(_ form: ReplyShapeForm) throws -> ImportOptions {
        form == .mapped ? ImportOptions(mapping: try FieldMapping.parse(ReplyShapeForm.mapping)) : ImportOptions()
    }

    /// The counts `check` prints for `n` items of `shape` in `form`, read whole.
    static func counts(_ form: ReplyShapeForm, _ shape: ReplyShape, _ n: Int = items) throws -> ThreadCounts {
        let result = try Importer.read(bytes: form.export(shape, n), file: "shape.\(form.fileExtension)", options: try options(form))
        var counts = ThreadCounts()
        for record in result.threads { counts.add(ThreadCounts(record, try ThreadBuilder.build(record))) }
        return counts
    }

    static func expect(_ counts: ThreadCounts, _ shape: ReplyShape, _ n: Int = items, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(counts.threads == 1, sourceLocation: sourceLocation)
        #expect(counts.records == n && counts.comments == n, sourceLocation: sourceLocation)
        #expect(counts.cycles == shape.cycles, sourceLocation: sourceLocation)
        #expect(counts.levels == shape.levels(n), sourceLocation: sourceLocation)
        #expect(counts.orphans == 0, sourceLocation: sourceLocation)
    }

    @Test("a 20,000-item parent chain is one thread 20,000 levels deep", arguments: ReplyShapeForm.allCases)
    func longChainIsLinear(_ form: ReplyShapeForm) throws {
        Self.expect(try Self.counts(form, .chain), .chain)
    }

    @Test("the chain listed deepest first, every item before its parent, is the same thread", arguments: ReplyShapeForm.allCases)
    func reversedChainIsLinear(_ form: ReplyShapeForm) throws {
        Self.expect(try Self.counts(form, .reversedChain), .reversedChain)
    }

    @Test(
        "two items answering each other, with 19,998 more hanging off them: one thread, one cycle broken and reported",
        arguments: ReplyShapeForm.allCases)
    func cycleWithHangingItemsIsLinear(_ form: ReplyShapeForm) throws {
        Self.expect(try Self.counts(form, .cycle), .cycle)
    }

    @Test("Hacker News: items 1 and 2 each other's parent and 20,000 items under item 1, checked as a dump, is one cycle broken")
    func hackerNewsCycleWithHangingItemsIsLinear() throws {
        var lines = #"{"id": 1, "type": "comment", "by": "a", "text": "one", "time": 1700000000, "parent": 2}"# + "\n"
        lines += #"{"id": 2, "type": "comment", "by": "b", "text": "two", "time": 1700000001, "parent": 1}"# + "\n"
        for id in 3...20_002 {
            lines += #"{"id": \#(id), "type": "comment", "by": "u\#(id % 9)", "text": "hanging", "time": \#(1_700_000_000 + id), "parent": 1}"# + "\n"
        }
        let report = try Self.checkDump(Array(lines.utf8), "items.jsonl")
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.counts.threads == 1 && report.counts.comments == 20_002 && report.counts.cycles == 1)
        #expect(report.counts.levels == 2)
        let cycle = try #require(report.warnings.first { $0.message.contains("reply cycle") })
        #expect(cycle.message.contains("reply cycle of 2 comments (\"1\" → \"2\")"), "\(cycle)")
        #expect(cycle.line == 1, "the cycle is broken at its first item in the file")
    }

    @Test(
        "the shapes as dumps (Reddit comments, Hacker News items), through check's partitions",
        arguments: [ReplyShapeForm.reddit, .hn], ReplyShape.allCases)
    func dumpShapesAreLinear(_ form: ReplyShapeForm, _ shape: ReplyShape) throws {
        let report = try Self.checkDump(form.export(shape, Self.items), "shape.jsonl")
        #expect(report.errors.isEmpty, "\(report.errors)")
        Self.expect(report.counts, shape)
    }

    /// `bytes` written to a file and checked as `check` checks a dump.
    static func checkDump(_ bytes: [UInt8], _ name: String) throws -> DumpCheck.Report {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reply-shapes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try DumpCheckTests.check([path], in: folder, perKind: 1)
    }
}
