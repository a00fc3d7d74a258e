import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

@Suite("Precompression")
struct PrecompressionTests {
    /// A page-like text: repetitive enough to compress, long enough to pass zlib's 256 KiB output chunk.
    static let page = Array((0..<6_000).map { "<p class=\"tf-body\">Comment \($0 % 97) by u\($0 % 13)</p>\n" }.joined().utf8)

    /// Bytes that do not compress (a linear congruential sequence).
    static let noise: [UInt8] = {
        var x: UInt32 = 12345
        return (0..<300_000).map { _ in
            x = x &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: x >> 16)
        }
    }()

    @Test("HTML, XML, JSON, CSS and JS files get siblings, whatever the case of their extension; nothing else does")
    func applies() {
        for path in ["index.html", "t/a-1/atom.xml", "t/a-1/thread.json", "threadfold.css", "threadfold.js", "sitemap.xml", "x/Y.HTML"] {
            #expect(Precompression.applies(to: path), "\(path)")
        }
        for path in ["logo.png", "index.html.gz", "index.html.br", "README", "a.html/b", "font.woff2"] {
            #expect(!Precompression.applies(to: path), "\(path)")
        }
        #expect(Precompression.file(ofSibling: "t/a/index.html.gz") == "t/a/index.html")
        #expect(Precompression.file(ofSibling: "site.css.br") == "site.css")
        #expect(Precompression.file(ofSibling: "logo.png.gz") == nil && Precompression.file(ofSibling: "index.html") == nil)
    }

    @Test("gzip: level 9, no name, mtime 0 and the OS byte of Unix; decodes to the bytes; the same every time")
    func gzip() throws {
        for input in [Self.page, Self.noise, Array("x".utf8), []] {
            let packed = try #require(Gzip.encode(input))
            #expect(Array(packed.prefix(10)) == [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 2, 3], "the header gzip -9n writes")
            #expect(try Compression.decoded(packed, display: "page.gz") == input)
            #expect(Gzip.encode(input) == packed)
        }
        #expect(try #require(Gzip.encode(Self.page)).count < Self.page.count / 10)
    }

    @Test(
        "Brotli: quality 9, decoded by the brotli command to the bytes; the same every time",
        .enabled(if: ExternalTools.runs(when: SiblingCheck.hasBrotli)))
    func brotli() throws {
        try #require(SiblingCheck.hasBrotli, "the brotli command is missing: apt-get install brotli (make test-deps installs it)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tf-brotli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (k, input) in [Self.page, Self.noise, Array("x".utf8), []].enumerated() {
            let packed = try #require(Brotli.encode(input))
            #expect(Brotli.encode(input) == packed)
            let file = folder.appendingPathComponent("\(k).br")
            try Data(packed).write(to: file)
            #expect(SiblingCheck.decode(file.path, with: "/usr/bin/brotli").map { [UInt8]($0) } == input, "input \(k)")
        }
        #expect(try #require(Brotli.encode(Self.page)).count < (try #require(Gzip.encode(Self.page))).count, "Brotli beats gzip on text")
    }

    @Test("a sibling is kept only when it is smaller than its file: none for tiny, empty or incompressible files")
    func smaller() throws {
        for encoding in Precompression.Encoding.allCases {
            #expect(try Precompression.sibling(of: Self.page, encoding, path: "p.html") != nil)
            #expect(try Precompression.sibling(of: Array("{}".utf8), encoding, path: "t.json") == nil)
            #expect(try Precompression.sibling(of: [], encoding, path: "e.css") == nil)
            #expect(try Precompression.sibling(of: Self.noise, encoding, path: "n.js") == nil)
        }
    }
}
