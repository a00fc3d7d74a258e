import Foundation
import Testing

@testable import ThreadfoldKit

/// A check's spill has no staging folder: it makes a temporary folder of its own, which goes
/// with it however the work ends.
@Suite("Temporary spills")
struct SpillTests {
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tf-spill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func names(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test("a temporary spill lives in a private folder of its own, registered for removal on a signal, and goes with remove() or its release")
    func lifetime() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var spill: Spill? = try Spill.temporary(in: folder.path, count: 3, bufferBytes: 16)
        let made = try Self.names(folder)
        #expect(made.count == 1 && made[0].hasPrefix("threadfold-spill-\(getpid())-"), "\(made)")
        let mode = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(made[0]).path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
        let registered = { SiteWriter.Staging.active.withLock { $0.values.contains { $0.name == made[0] } } }
        #expect(registered())
        let line = Array(#"{"id": "a"}"#.utf8)
        try line.withUnsafeBufferPointer { line in try [UInt8(3)].withUnsafeBufferPointer { try spill!.append(1, [1, 2], $0, line) } }
        try spill!.finishWriting()
        #expect(try spill!.read(1) == [1, 2, 3] + line)
        spill!.remove()
        #expect(try Self.names(folder).isEmpty)
        #expect(!registered())

        spill = try Spill.temporary(in: folder.path, count: 3, bufferBytes: 16)
        #expect(try Self.names(folder).count == 1)
        spill = nil
        #expect(try Self.names(folder).isEmpty, "released without remove(): the folder goes too")
    }

    @Test("a temporary spill removes what killed processes left, and nothing of a running one")
    func abandoned() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A process that has ended: its id is free.
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let gone = "threadfold-spill-\(ended.processIdentifier)-abc"
        let running = "threadfold-spill-1-abc"
        let mine = "threadfold-spill-\(getpid())-abc"
        let other = "threadfold-spill-notes"
        for name in [gone, running, mine, other] {
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent(name).appendingPathComponent(".threadfold-spill"),
                withIntermediateDirectories: true)
        }
        let spill = try Spill.temporary(in: folder.path, count: 2, bufferBytes: 16)
        let left = try Self.names(folder)
        #expect(!left.contains(gone))
        #expect([running, mine, other].allSatisfy(left.contains), "\(left)")
        spill.remove()
        #expect(try Self.names(folder) == [running, mine, other].sorted())
    }

    @Test("a kept spill is continued by a spill of its records' format: a partition whose records it holds is its very file; one of another format is removed at once")
    func continued() throws {
        let url = try Self.folder()
        defer { try? FileManager.default.removeItem(at: url) }
        let parent = try Folder.open(url.path)
        let records: [[UInt8]] = [Array("first".utf8), Array("second".utf8), Array("third".utf8)]
        func write(_ spill: Spill, _ records: [[UInt8]]) throws {
            var digest: UInt64 = 7
            for (k, record) in records.enumerated() {
                digest = StableHash.content(record, seed: digest)
                try record.withUnsafeBufferPointer { line in
                    try [UInt8(k)].withUnsafeBufferPointer { key in try spill.append(k % 2, digest: digest, [0xAA], key, line) }
                }
            }
            try spill.finishWriting()
        }
        let kept = try Spill(in: parent, count: 2, bufferBytes: 4, format: "f1", keep: true)
        try write(kept, records)
        let expected = [try kept.read(0), try kept.read(1)]
        try kept.keep(as: Spill.previousName, in: parent)
        let inodes = (0..<2).map { ArchiveFixture.inode(url.appendingPathComponent(Spill.previousName).appendingPathComponent("p\($0)").path) }

        // The same records: both partitions are the kept files, taken whole.
        let same = try Spill(in: parent, count: 2, bufferBytes: 4, format: "f1", continuing: Spill.previousName, keep: true)
        try write(same, records)
        #expect([try same.read(0), try same.read(1)] == expected)
        #expect((0..<2).map { ArchiveFixture.inode(url.appendingPathComponent(Spill.folderName).appendingPathComponent("p\($0)").path) } == inodes)
        #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent(Spill.previousName).path))
        try same.keep(as: Spill.previousName, in: parent)

        // Another format: the kept spill goes before anything is appended.
        let other = try Spill(in: parent, count: 2, bufferBytes: 4, format: "f2", continuing: Spill.previousName, keep: true)
        #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent(Spill.previousName).path))
        try write(other, records)
        #expect([try other.read(0), try other.read(1)] == expected)
        other.remove()
    }

    @Test("a temporary folder that cannot be made is an error naming it")
    func unwritable() throws {
        #expect(throws: ThreadfoldError.self) { try Spill.temporary(in: "/nonexistent-\(UUID().uuidString)", count: 2, bufferBytes: 16) }
    }
}
