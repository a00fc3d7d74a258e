import Foundation
import Testing

@testable import ThreadfoldKit

/// The partition pass reads lines' keys in batches, on one thread or several: the partitions,
/// messages and counts must not depend on how many.
@Suite("Dump partition")
struct DumpPartitionTests {
    /// A time-sorted comment dump of `count` lines over 97 threads, with lines that are not JSON
    /// or not comments at `bad` (0-based).
    static func dump(count: Int, bad: Set<Int>) -> String {
        var text = ""
        for i in 0..<count {
            if bad.contains(i) {
                text += i % 2 == 0 ? "{\"id\": \"b\(i)\", broken\n" : "{\"id\": \"b\(i)\", \"body\": \"no thread\"}\n"
            } else {
                // With members the importer does not read, which the pass leaves off, at the start, in the middle and at the end.
                text +=
                    "{\"gilded\": \(i % 3), \"id\": \"c\(i)\", \"link_id\": \"t3_\(i % 97)\", \"parent_id\": \"t3_\(i % 97)\", \"awarders\": [\"é😀\"], \"author\": \"a\(i % 13)\", \"created_utc\": \(1_600_000_000 + i), \"body\": \"comment \(i)\", \"ups\": {\"n\": \(i)}}\n"
            }
        }
        return text
    }

    struct Run: Equatable {
        var partitions: [[UInt8]]
        var errors: [String]
        var skipped: [String]
        var lines: Int
        var threads: [Int]
        var digests: [UInt64] = []
    }

    static func run(
        _ path: String, jobs: Int, lenient: Bool = false, form: DumpForm = .reddit, storyLimit: Int = StoryMap.maximumLimit,
        in folder: URL
    ) throws -> Run {
        let parent = try Folder.open(folder.path)
        let name = "spill-\(jobs)-\(lenient)-\(form)-\(storyLimit)"
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(name), withIntermediateDirectories: true)
        let spill = try Spill(in: try parent.folder(name), count: 9, bufferBytes: 4096)
        defer { spill.remove() }
        var options = ImportOptions()
        options.lenient = lenient
        options.maxSkipped = 1
        var partition = DumpPartition(files: [(path, "RC_test.jsonl", form)], options: options, keeps: nil)
        partition.jobs = jobs
        partition.storyLimit = storyLimit
        let outcome = partition.run(into: spill) { _ in }
        try spill.finishWriting()
        let describe = { (error: Problem) in "\(error.line ?? 0):\(error.column ?? 0) \(error.path ?? "") \(error.message)" }
        return Run(
            partitions: try (0..<8).map { try spill.read($0) }, errors: outcome.errors.map(describe),
            skipped: outcome.skipped.map(describe), lines: outcome.lines, threads: outcome.threads, digests: outcome.digests)
    }

    @Test("a partition's digest is of what reaches the spill: a member no page reads changes it only when its length moves a column")
    func digestsOfWhatIsKept() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tf-digests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = Self.dump(count: 500, bad: [])
        func digests(_ text: String, _ name: String) throws -> [UInt64] {
            let path = folder.appendingPathComponent(name).path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return try Self.run(path, jobs: 1, in: folder).digests
        }
        let base = try digests(original, "a.jsonl")
        #expect(base.count == 8)
        let line = "\"id\": \"c250\""
        // `gilded` is left off: the same length, the same digests.
        #expect(try digests(original.replacingOccurrences(of: "{\"gilded\": 1, \(line)", with: "{\"gilded\": 7, \(line)"), "b.jsonl") == base)
        // Longer, it moves the kept members' columns, which messages name: one partition's digest changes.
        let longer = try digests(original.replacingOccurrences(of: "{\"gilded\": 1, \(line)", with: "{\"gilded\": 17, \(line)"), "c.jsonl")
        #expect(zip(longer, base).filter { $0 != $1 }.count == 1)
        // A body is read: its partition's digest changes, and no other.
        let body = try digests(original.replacingOccurrences(of: "\"body\": \"comment 250\"", with: "\"body\": \"comment 25O\""), "d.jsonl")
        #expect(zip(body, base).filter { $0 != $1 }.count == 1)
        #expect(zip(body, longer).filter { $0 != $1 }.count == 1)
    }

    @Test("a Hacker News story's key is its id in decimal", arguments: [0, 7, 45_000_000, -3, Int64.max, Int64.min])
    func storyKey(_ story: Int64) throws {
        #expect(try DumpPartition.withStoryKey(story) { Array($0) } == Array(String(story).utf8))
    }

    @Test("one thread or two, over several batches, give the same partitions, messages in line order and counts")
    func jobsAgree() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tf-partition-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let count = DumpPartition.batchLines * 2 + 4_321
        // Bad lines at a batch's first and last line, and inside the second half of a batch.
        let bad: Set<Int> = [0, 5, DumpPartition.batchLines - 1, DumpPartition.batchLines, DumpPartition.batchLines + 9_000, count - 1]
        let path = folder.appendingPathComponent("RC_test.jsonl").path
        try Data(Self.dump(count: count, bad: bad).utf8).write(to: URL(fileURLWithPath: path))

        for lenient in [false, true] {
            let one = try Self.run(path, jobs: 1, lenient: lenient, in: folder)
            let two = try Self.run(path, jobs: 2, lenient: lenient, in: folder)
            #expect(one == two, "lenient: \(lenient)")
            let messages = lenient ? one.skipped : one.errors
            #expect(messages.map { Int($0.prefix { $0 != ":" })! } == bad.sorted().map { $0 + 1 }, "each bad line once, in order")
            #expect(one.lines == count)
            #expect(one.threads.reduce(0, +) == 97)
            #expect(one.partitions.reduce(0) { $0 + $1.count } > count * 100, "every good line was spilled")
            // Spilled without the members the importer does not read.
            let spilled = one.partitions.map { String(decoding: $0, as: UTF8.self) }.joined()
            #expect(spilled.contains("\"body\": \"comment 7\""))
            #expect(!spilled.contains("gilded") && !spilled.contains("awarders") && !spilled.contains("ups"))
        }
    }

    @Test("past the Hacker News story map's limit the pass stops with an error at the line, while streaming and while placing deferred items")
    func storyMapLimit() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tf-partition-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func items(_ lines: [(Int, Int?)]) throws -> String {
            let path = folder.appendingPathComponent("items-\(UUID().uuidString).jsonl").path
            let text =
                lines.map { id, parent in
                    "{\"id\": \(id), \"type\": \"\(parent == nil ? "story" : "comment")\", \"time\": \(1_600_000_000 + id)"
                        + (parent.map { ", \"parent\": \($0)" } ?? "") + ", \"text\": \"x\"}"
                }.joined(separator: "\n") + "\n"
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        // Five stories, each with a reply: with 3 stories holding replies, the next item (line 7) might make a fourth.
        let stories = try items((1...5).flatMap { [($0, nil), ($0 + 100, $0)] as [(Int, Int?)] })
        let within = try Self.run(stories, jobs: 1, form: .hn, storyLimit: 5, in: folder)
        #expect(within.errors.isEmpty)
        let past = try Self.run(stories, jobs: 1, form: .hn, storyLimit: 3, in: folder)
        #expect(past.errors.count == 1)
        #expect(past.errors.first?.hasPrefix("7:0") == true, "\(past.errors)")
        #expect(past.errors.first?.contains("more Hacker News items than the story map holds (3 stories") == true)

        // Replies before their parents are deferred; placing them at the end makes a story for each chain.
        let deferred = try items([(10, 9), (20, 19), (30, 29), (40, 39)])
        #expect(try Self.run(deferred, jobs: 1, form: .hn, storyLimit: 4, in: folder).errors.isEmpty)
        let tooMany = try Self.run(deferred, jobs: 2, form: .hn, storyLimit: 2, in: folder)
        #expect(tooMany.errors.count == 1 && tooMany.errors[0].hasPrefix("3:0"), "\(tooMany.errors)")
        // Two stories with replies and two deferred items fit a limit of 3 while streaming; placing the
        // deferred ones makes a story for each chain, and the second (line 6) is one too many.
        let atResolve = try Self.run(try items([(1, nil), (2, 1), (3, nil), (4, 3), (10, 9), (20, 19)]), jobs: 1, form: .hn, storyLimit: 3, in: folder)
        #expect(atResolve.errors.count == 1 && atResolve.errors[0].hasPrefix("6:0"), "\(atResolve.errors)")
    }
}
