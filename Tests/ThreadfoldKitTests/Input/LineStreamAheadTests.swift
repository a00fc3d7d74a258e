import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

/// `LineStream.forEachPartAhead` reads a file on a thread of its own: the caller sees the bytes
/// `forEachPart` gives, in order, then its end, its stop or its error.
@Suite("Line stream read ahead")
struct LineStreamAheadTests {
    static func file(_ bytes: [UInt8], _ name: String) throws -> String {
        let folder = try TemporaryFolders.make("tf-ahead")
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// 3 MB of numbered lines, in blocks that do not divide it.
    static let lines: [UInt8] = Array((0..<120_000).map { "{\"line\": \($0), \"text\": \"abcdef\"}\n" }.joined().utf8)

    @Test(
        "plain and compressed files come whole and in order, with the hash and size of the bytes on disk",
        arguments: [("plain", 1 << 20), ("plain", 65_537), ("compressed", 1 << 20), ("compressed", 1000), ("gzip", 1000), ("gzip", 1 << 20)])
    func whole(_ kind: String, _ blockBytes: Int) throws {
        let (expected, path) =
            kind == "plain"
            ? (Self.lines, try Self.file(Self.lines, "lines.jsonl"))
            : kind == "gzip"
                ? (Self.lines, try Self.file(try #require(Gzip.encode(Self.lines)), "lines.jsonl.gz"))
                : (try Compression.decoded(try TestData.bytes("dumps/RC_sample.zst"), display: "RC"), TestData.url("dumps/RC_sample.zst").path)
        var stream = LineStream(path: path, display: "f")
        stream.chunkBytes = 4096
        var seen: [UInt8] = []
        var reads: [Int64] = []
        let found = try stream.forEachPartAhead(blockBytes: blockBytes, depth: 2, read: { reads.append($0) }) { part in
            seen += part
            return true
        }
        let disk = try stream.contentHash(), size = try stream.probe().size
        #expect(seen == expected)
        #expect(found == disk && disk.size == size)
        #expect(reads == reads.sorted() && reads.last == size)
    }

    @Test("a stop ends the reading at once, whatever is still to read")
    func stop() throws {
        let path = try Self.file(Self.lines, "lines.jsonl")
        var stream = LineStream(path: path, display: "f")
        stream.chunkBytes = 1000
        var blocks = 0
        let found = try stream.forEachPartAhead(blockBytes: 4096, depth: 1) { _ in
            blocks += 1
            return blocks < 3
        }
        #expect(blocks == 3 && found == (0, 0))
    }

    @Test("a file cut short gives the bytes before the cut, then the error forEachPart gives", arguments: ["cut.jsonl.gz", "cut.jsonl.zst"])
    func cutShort(_ name: String) throws {
        // Four zstd frames, one stream, cut in the third.
        let whole = name.hasSuffix(".gz") ? try #require(Gzip.encode(Self.lines)) : Array(repeating: try TestData.bytes("dumps/RC_sample.zst"), count: 4).flatMap { $0 }
        let path = try Self.file(Array(whole.prefix(whole.count * 5 / 8)), name)
        var stream = LineStream(path: path, display: name)
        stream.chunkBytes = 4096
        var plain: [UInt8] = []
        let expected = #expect(throws: ThreadfoldError.self) {
            try stream.forEachPart { part in
                plain += part
                return true
            }
        }
        var ahead: [UInt8] = []
        let error = #expect(throws: ThreadfoldError.self) {
            _ = try stream.forEachPartAhead(blockBytes: 512) { part in
                ahead += part
                return true
            }
        }
        #expect(!plain.isEmpty && ahead == plain)
        #expect(error?.problems.map(\.description) == expected?.problems.map(\.description))
    }
}
