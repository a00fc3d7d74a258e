import Testing

@testable import ThreadfoldKit

@Suite("Byte search")
struct ByteSearchTests {
    @Test("a word's continuation count is the number of its bytes 10xxxxxx: every byte value in every place, and mixed words")
    func continuationCount() {
        func check(_ bytes: [UInt8]) {
            let expected = bytes.count { $0 & 0xC0 == 0x80 }
            let counted = bytes.withUnsafeBufferPointer { ByteSearch.Word($0.baseAddress!).continuationCount }
            #expect(counted == expected, "\(bytes)")
        }
        for value in 0...255 {
            for place in 0..<8 {
                var bytes = [UInt8](repeating: 0x41, count: 8)
                bytes[place] = UInt8(value)
                check(bytes)
            }
            check([UInt8](repeating: UInt8(value), count: 8))
        }
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2_000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            check((0..<8).map { UInt8(truncatingIfNeeded: seed >> ($0 * 8)) })
        }
        // UTF-8 text, eight bytes at a time: "aé€" and the first byte of "😀", then the rest of it
        // and "ab".
        let text = Array("aé€😀ab".utf8)
        check(Array(text[0..<8]))
        check(Array(text[4..<12]))
    }
}
