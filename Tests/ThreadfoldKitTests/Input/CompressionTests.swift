import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

@Suite("Compressed input")
struct CompressionTests {
    static var plain: [UInt8] { ResourceStore.exampleThread }

    @Test(
        "a zstd file with a 2 GiB window (zstd --long=31, as dumps are) and a gzip file decode to the original bytes",
        arguments: ["compressed/thread.json.zst", "compressed/thread.json.gz"])
    func decodes(_ path: String) throws {
        let bytes = try TestData.bytes(path)
        #expect(Compression.detect(bytes) != nil)
        #expect(try Compression.decoded(bytes, display: path) == Self.plain)
    }

    @Test(
        "a stream whose output fills the decoder's buffer exactly as it ends is whole, not cut short",
        arguments: [
            ("compressed/zeros-128k.zst", 131_072), ("compressed/zeros-256k.gz", 262_144),
        ])
    func exactBuffer(_ path: String, _ size: Int) throws {
        let bytes = try TestData.bytes(path)
        #expect(try Compression.decoded(bytes, display: path) == [UInt8](repeating: 0, count: size))
        #expect(try Compression.decoded(bytes + bytes, display: path).count == 2 * size)
    }

    @Test("concatenated frames and members decode as one stream", arguments: ["compressed/thread.json.zst", "compressed/thread.json.gz"])
    func concatenated(_ path: String) throws {
        let bytes = try TestData.bytes(path)
        #expect(try Compression.decoded(bytes + bytes + bytes, display: path) == Self.plain + Self.plain + Self.plain)
    }

    @Test(
        "a file cut short is an error saying so, with the compressed bytes read",
        arguments: [
            ("compressed/thread.json.zst", "ends in the middle of a zstd frame, after"),
            ("compressed/thread.json.gz", "ends in the middle of a gzip member, after"),
        ])
    func truncated(_ path: String, _ message: String) throws {
        let bytes = try TestData.bytes(path)
        for cut in [bytes.count - 1, bytes.count / 2, 6] {
            let error = try #require(throws: ThreadfoldError.self) { try Compression.decoded(Array(bytes.prefix(cut)), display: "dump.zst") }.problems[0]
            #expect(error.file == "dump.zst")
            #expect(error.message.hasPrefix(message), "\(error.message)")
        }
    }

    @Test(
        "corrupt data is an error naming the compressed byte offset",
        arguments: [
            ("compressed/thread.json.zst", "is not valid zstd data in the frame at compressed bytes 0 to "),
            ("compressed/thread.json.gz", "is not valid gzip data at compressed byte "),
        ])
    func corrupt(_ path: String, _ message: String) throws {
        var bytes = try TestData.bytes(path)
        for i in 12..<40 { bytes[i] ^= 0x5A }
        let error = try #require(throws: ThreadfoldError.self) { try Compression.decoded(bytes, display: "dump") }.problems[0]
        #expect(error.message.hasPrefix(message), "\(error.message)")
    }

    @Test("the decompressed size is held to the document limit")
    func limit() throws {
        let bytes = try TestData.bytes("compressed/thread.json.zst")
        let error = try #require(throws: ThreadfoldError.self) { try Compression.decoded(bytes, display: "big.zst", limit: 1000) }.problems[0]
        #expect(error.message == "decompresses to more than 1000 bytes; expected at most 1000 bytes, the most Threadfold holds of one compressed document")
        #expect(error.hint == .decompressedLimit)
    }

    @Test("bytes that are not compressed pass through; magic bytes decide, not names")
    func plainBytes() throws {
        #expect(try Compression.decoded(Self.plain, display: "x.zst") == Self.plain)
        #expect(Compression.detect([0x28, 0xB5, 0x2F]) == nil)
        #expect(Compression.detect([0x5E, 0x2A, 0x4D, 0x18]) == .zstd)
        // A compressed file under another name is still read as what it is.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tf-zst-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let renamed = folder.appendingPathComponent("thread.json")
        try Data(TestData.bytes("compressed/thread.json.zst")).write(to: renamed)
        #expect(try InputFile.read(renamed.path, display: "thread.json", streams: false) == Self.plain)
    }

    @Test("a compressed thread renders the same page as the plain file")
    func samePage() throws {
        let renderer = try ThreadPipeline(options: ArchiveOptions())
        let compressed = try InputFile.read(TestData.url("compressed/thread.json.gz").path, display: "thread.json", streams: false)
        #expect(try renderer.page(bytes: compressed, file: "thread.json").html == renderer.page(bytes: Self.plain, file: "thread.json").html)
    }

    @Test("blankBomb: a few kilobytes of zstd holding 8 MiB of blank lines are the empty file they are, at their last line")
    func blankBomb() throws {
        let bomb = ZstdFrame.repeated(0x0A, count: 8 << 20)
        #expect(bomb.count < 2_000)
        let error = try #require(throws: ThreadfoldError.self) { try Compression.decoded(bomb, display: "bomb.zst") }.problems[0]
        #expect(error.message == "the file is empty (8388608 bytes of blank lines once decompressed); expected a JSON value")
        #expect(error.line == (8 << 20) + 1 && error.column == 1)
        // Too many of them for the limit: said as soon as they pass it.
        let over = try #require(throws: ThreadfoldError.self) { try Compression.decoded(bomb, display: "bomb.zst", limit: 1 << 20) }.problems[0]
        #expect(over.hint == .decompressedLimit)
    }

    @Test("white space before a compressed document is held as line breaks and spaces: lines and columns stay the file's")
    func leadingWhiteSpace() throws {
        let text = Array("\r\n \t\r\n   {\"a\": tru}".utf8)
        let decoded = try Compression.decoded(ZstdFrame.stored(text, blockBytes: 3), display: "x.zst")
        #expect(decoded == Array("\n\n   {\"a\": tru}".utf8))
        let error = try #require(throws: JSONError.self) { try JSONDocument(bytes: decoded) }
        let plain = try #require(throws: JSONError.self) { try JSONDocument(bytes: text) }
        #expect(JSONDocument.location(in: decoded, offset: error.offset) == JSONDocument.location(in: text, offset: plain.offset))
    }

    @Test("a zstd frame whose checksum fails says so, with the frame's compressed bytes")
    func checksum() throws {
        let frame = ZstdFrame.repeated(0x20, count: 1_000, checksum: true)
        let error = try #require(throws: ThreadfoldError.self) { try Compression.decoded(frame + [0x7B], display: "x.zst") }.problems[0]
        #expect(error.message.hasPrefix("holds a zstd frame (compressed bytes 0 to "), "\(error.message)")
        #expect(error.message.contains("whose checksum does not match what it decodes to"))
    }

    @Test("a zstd window past --max-window is refused before it is allocated, naming the frame and the limit")
    func window() throws {
        let frame = ZstdFrame.repeated(0x20, count: 1_000, windowLog: 28)
        var out = 0
        let error = try #require(throws: ThreadfoldError.self) {
            var sent = false
            try Zstd.decode(
                display: "x.zst", windowLog: 27,
                next: { () throws(ThreadfoldError) -> ArraySlice<UInt8>? in
                    defer { sent = true }
                    return sent ? nil : frame[...]
                }, write: { out += $0.count })
        }.problems[0]
        #expect(error.message == "is a zstd stream whose frame at compressed byte 0 asks for a window larger than 128 MiB; expected a window of at most 128 MiB")
        #expect(error.hint == .windowLimit && out == 0)
    }

    @Test("leadingBlankBomb: more than 64 MiB of white space before a compressed document's first value is refused at that value, not held")
    func leadingBlankBomb() throws {
        let bomb = ZstdFrame.repeated(0x0A, count: (64 << 20) + 1) + ZstdFrame.stored(Array(#"{"comments": []}"#.utf8))
        let error = try #require(throws: ThreadfoldError.self) { try Compression.decoded(bomb, display: "late.zst") }.problems[0]
        #expect(error.line == (64 << 20) + 2 && error.column == 1)
        #expect(error.message.hasPrefix("starts with 67108865 bytes of white space once decompressed before its first value; expected at most 64 MiB of it"), "\(error.message)")
        // Just under it, the document is read, its lines the file's own.
        let fine = ZstdFrame.repeated(0x0A, count: 3) + ZstdFrame.stored(Array(#"{"a": 1}"#.utf8))
        #expect(try Compression.decoded(fine, display: "ok.zst") == Array(#"\#n\#n\#n{"a": 1}"#.utf8))
    }
}
