import Testing

@testable import ThreadfoldKit

@Suite("Stable hashes")
struct StableHashTests {
    /// Bytes that vary with their place, so no two windows are alike.
    static let text: [UInt8] = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 167 &+ 13) }

    static func wide(_ bytes: [UInt8], seed: UInt64 = 0) -> UInt64 {
        bytes.withUnsafeBytes { StableHash.wide($0, seed: seed) }
    }

    @Test("wide: every length to 300 bytes, every byte changed in turn, gives a value of its own")
    func wideSeesEveryByte() {
        var seen: Set<UInt64> = []
        for length in 0...Self.text.count {
            let bytes = Array(Self.text.prefix(length))
            #expect(seen.insert(Self.wide(bytes)).inserted, "length \(length)")
        }
        for k in Self.text.indices {
            var bytes = Self.text
            bytes[k] ^= 0x01
            #expect(seen.insert(Self.wide(bytes)).inserted, "byte \(k)")
        }
        // Lanes are not interchangeable: the same words in another order hash apart.
        let swapped = Array(Self.text[8..<16] + Self.text[0..<8] + Self.text[16..<64])
        #expect(Self.wide(swapped) != Self.wide(Array(Self.text.prefix(64))))
        #expect(Self.wide(Self.text, seed: 1) != Self.wide(Self.text))
    }

    @Test("wide taken a piece at a time, in pieces of every size and none, is wide of the whole", arguments: [0, 1, 31, 32, 33, 100, 300])
    func widePieces(length: Int) {
        let bytes = Array(Self.text.prefix(length))
        for seed: UInt64 in [0, 7] {
            for piece in [1, 3, 8, 31, 32, 33, 64, 301] {
                var hash = StableHash.Wide(count: bytes.count, seed: seed)
                var at = 0
                bytes.withUnsafeBytes { raw in
                    while at < raw.count {
                        hash.update(UnsafeRawBufferPointer(rebasing: raw[at..<min(at + piece, raw.count)]))
                        // An empty piece between two changes nothing.
                        hash.update(UnsafeRawBufferPointer(rebasing: raw[at..<at]))
                        at += piece
                    }
                }
                #expect(hash.finish() == Self.wide(bytes, seed: seed), "length \(length), pieces of \(piece), seed \(seed)")
            }
        }
    }

    @Test("every stable hash is the same on every machine and every run")
    func stable() {
        #expect(StableHash.content(Self.text) == 0xAC8E_E5DA_07F1_99F1, "manifests of earlier builds hold its values")
        #expect(StableHash.name(Array("a".utf8)) == 0xAF63_DC4C_8601_EC8C, "FNV-1a's published value: sites of earlier builds are named with it")
        #expect(StableHash.nameHex(Array("a".utf8), bits: 32) == "af63dc4c")
        #expect(Self.wide(Self.text) == 0x5158_6FF3_A7A4_6F95, "the dump tables of earlier builds hold digests made with it")
    }
}
