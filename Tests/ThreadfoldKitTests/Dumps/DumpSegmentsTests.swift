import Foundation
import Testing

@testable import ThreadfoldKit

/// The segments a kept spill holds (`DumpSegments`): a segment whose bytes are unchanged is
/// replayed, not read; whatever changed, the partitions, digests, thread counts and messages are
/// those a pass over a fresh spill gives.
@Suite("Dump segments")
struct DumpSegmentsTests {
    /// A pass over `files` (text, name), into a spill that continues the one kept in `folder` and
    /// is kept in turn (`kept`), or into a fresh one; with segments of `segmentBytes`.
    static func pass(
        _ files: [(text: String, name: String)], kept: Bool, in folder: URL, lenient: Bool = false, segmentBytes: Int = 512
    ) throws -> (DumpPartitionTests.Run, DumpPartition.Outcome) {
        let parent = try Folder.open(folder.path)
        let inputs = try files.map { file -> DumpFile in
            let path = folder.appendingPathComponent(file.name).path
            try Data(file.text.utf8).write(to: URL(fileURLWithPath: path))
            return (path, file.name, .reddit)
        }
        let name = kept ? "kept" : "fresh"
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(name), withIntermediateDirectories: true)
        let spill = try Spill(
            in: try parent.folder(name), count: 9, bufferBytes: 4096, format: "segments test", continuing: kept ? Spill.previousName : nil, keep: kept)
        var options = ImportOptions()
        options.lenient = lenient
        options.maxSkipped = 1
        var partition = DumpPartition(files: inputs, options: options, keeps: nil)
        partition.jobs = 2
        partition.segmentBytes = segmentBytes
        let outcome = partition.run(into: spill) { _ in }
        try spill.finishWriting()
        // What the partition pass's users read from it, as `DumpPartitionTests` compares passes.
        let pass = DumpPartitionTests.Run(
            partitions: try (0..<8).map { try spill.read($0) }, errors: outcome.errors.map(\.description),
            skipped: outcome.skipped.map(\.description), lines: outcome.lines, threads: outcome.threads, digests: outcome.digests)
        if kept { try spill.keep(as: Spill.previousName, in: try parent.folder(name)) } else { spill.remove() }
        return (pass, outcome)
    }

    /// Runs `files` through the kept spill and a fresh one: they must agree. Returns the kept
    /// pass's outcome.
    static func same(_ files: [(text: String, name: String)], in folder: URL, lenient: Bool = false, _ label: String) throws -> DumpPartition.Outcome {
        let (kept, outcome) = try pass(files, kept: true, in: folder, lenient: lenient)
        let (fresh, _) = try pass(files, kept: false, in: folder, lenient: lenient)
        #expect(kept == fresh, "\(label)")
        return outcome
    }

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tf-segments-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("a pass over unchanged dumps replays every segment; one over changed dumps reads what changed and equals a fresh pass")
    func replays() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var lines = DumpPartitionTests.dump(count: 600, bad: []).split(separator: "\n").map(String.init)
        func text(_ lines: [String]) -> String { lines.joined(separator: "\n") + "\n" }
        let first = try Self.same([(text(lines), "RC_a.jsonl")], in: folder, "first")
        #expect(first.segmentsReplayed == 0 && first.segmentsRead > 20)
        let again = try Self.same([(text(lines), "RC_a.jsonl")], in: folder, "unchanged")
        #expect(again.segmentsReplayed == first.segmentsRead && again.segmentsRead == 0)
        // Its bytes on disk are the same: not even decompressed.
        #expect(again.filesReplayed == 1)

        // A line changed in place (the same length): its segment is read, the others replayed.
        lines[300] = lines[300].replacingOccurrences(of: "comment 300", with: "comment 3X0")
        let changed = try Self.same([(text(lines), "RC_a.jsonl")], in: folder, "a line changed")
        #expect(changed.segmentsRead == 1 && changed.segmentsReplayed == first.segmentsRead - 1)
        #expect(changed.filesReplayed == 0)

        // A comment moved to another thread, in a line of the same length.
        lines[200] = lines[200].replacingOccurrences(of: "t3_6\"", with: "t3_7\"")
        let moved = try Self.same([(text(lines), "RC_a.jsonl")], in: folder, "a comment moved")
        #expect(moved.segmentsRead >= 1 && moved.segmentsReplayed > 0)

        // A longer line: the later segments start one byte on, and are found by their bytes.
        lines[400] += " "
        let grew = try Self.same([(text(lines), "RC_a.jsonl")], in: folder, "a line grew")
        #expect(grew.segmentsRead <= 3 && grew.segmentsReplayed > 0)
        // A line inserted: every later line has another number, so every later segment is read.
        lines.insert(lines[100].replacingOccurrences(of: "\"id\": \"c100\"", with: "\"id\": \"c100b\""), at: 101)
        let inserted = try Self.same([(text(lines), "RC_a.jsonl")], in: folder, "a line inserted")
        #expect(inserted.segmentsRead > first.segmentsRead / 2)

        // A file added after it, then removed: the first file's segments are replayed.
        let month = (0..<80).map { i in
            "{\"id\": \"m\(i)\", \"link_id\": \"t3_\(i % 7)\", \"parent_id\": \"t3_\(i % 7)\", \"author\": \"b\", \"created_utc\": \(1_700_000_000 + i), \"body\": \"next month \(i)\"}"
        }
        let added = try Self.same([(text(lines), "RC_a.jsonl"), (text(month), "RC_b.jsonl")], in: folder, "a file added")
        let segments = inserted.segmentsRead + inserted.segmentsReplayed
        #expect(added.segmentsReplayed == segments)
        #expect(added.filesReplayed == 1)
        let removed = try Self.same([(text(lines), "RC_a.jsonl")], in: folder, "a file removed")
        #expect(removed.segmentsReplayed == segments)
        #expect(removed.filesReplayed == 1)
        // The files in the other order: each record's file has another place, nothing is replayed.
        let swapped = try Self.same([(text(month), "RC_b.jsonl"), (text(lines), "RC_a.jsonl")], in: folder, "files swapped")
        #expect(swapped.segmentsReplayed == 0)

        // The first file changed, the second not: the second is replayed whole, and the lines of
        // it whose partitions the change reached are read from it again.
        _ = try Self.same([(text(lines), "RC_a.jsonl"), (text(month), "RC_b.jsonl")], in: folder, "both files again")
        lines[20] = lines[20].replacingOccurrences(of: "comment 20", with: "comment 2X")
        let earlier = try Self.same([(text(lines), "RC_a.jsonl"), (text(month), "RC_b.jsonl")], in: folder, "the first file changed")
        #expect(earlier.filesReplayed == 1 && earlier.segmentsRead == 1)
    }

    @Test("a segment with a line that has no key (skipped with lenient) is read again, its messages as a fresh pass gives them; a pass with errors keeps no table")
    func unreplayable() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = DumpPartitionTests.dump(count: 300, bad: [150])
        let first = try Self.same([(text, "RC_bad.jsonl")], in: folder, lenient: true, "first")
        #expect(first.skipped.count == 1 && first.errors.isEmpty)
        let again = try Self.same([(text, "RC_bad.jsonl")], in: folder, lenient: true, "again")
        #expect(again.segmentsRead == 1 && again.skipped.count == 1 && again.segmentsReplayed == first.segmentsRead - 1)
        let failed = try Self.same([(text, "RC_bad.jsonl")], in: folder, "an error")
        #expect(failed.errors.count == 1)
        let after = try Self.same([(text, "RC_bad.jsonl")], in: folder, lenient: true, "after an error")
        #expect(after.segmentsReplayed == 0)
    }

    @Test("a kept table written in many pieces (3,000 records, 12,000 words) reads back whole, and replays every segment")
    func largeTable() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = DumpPartitionTests.dump(count: 3_000, bad: [])
        let first = try Self.same([(text, "RC_a.jsonl")], in: folder, "first")
        let path = folder.appendingPathComponent("kept").appendingPathComponent(Spill.previousName).appendingPathComponent(DumpSegments.fileName)
        let table = try #require(DumpSegments(bytes: Array(try Data(contentsOf: path))))
        #expect(table.words.count == 3_000 * DumpSegments.recordWords)
        let again = try Self.same([(text, "RC_a.jsonl")], in: folder, "again")
        #expect(again.segmentsRead == 0 && again.segmentsReplayed == first.segmentsRead + first.segmentsReplayed)
    }

    @Test("a kept table that is damaged or of another format is not used")
    func damagedTable() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = DumpPartitionTests.dump(count: 300, bad: [])
        _ = try Self.same([(text, "RC_a.jsonl")], in: folder, "first")
        let path = folder.appendingPathComponent("kept").appendingPathComponent(Spill.previousName).appendingPathComponent(DumpSegments.fileName)
        var bytes = try Data(contentsOf: path)
        let table = try #require(DumpSegments(bytes: Array(bytes)))
        #expect(table.files.count == 1 && table.words.count == 300 * DumpSegments.recordWords)
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: path)
        #expect(DumpSegments(bytes: Array(bytes)) == nil)
        let damaged = try Self.same([(text, "RC_a.jsonl")], in: folder, "a damaged table")
        #expect(damaged.segmentsReplayed == 0)
        #expect(DumpSegments(bytes: Array(bytes.prefix(bytes.count - 8))) == nil)
    }
}
