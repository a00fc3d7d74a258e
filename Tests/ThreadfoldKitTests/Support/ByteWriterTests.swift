import Testing

@testable import ThreadfoldKit

@Suite("Byte writer")
struct ByteWriterTests {
    @Test("writes of every size, across the block's end and larger than a block, come out in order after what the array held", arguments: [1, 7, 64])
    func order(blockSize: Int) {
        var expected: [UInt8] = Array("kept ".utf8)
        var writer = ByteWriter(appendingTo: expected, blockSize: blockSize)
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for step in 0..<400 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let size = Int(seed >> 58) + (step % 50 == 0 ? 150 : 0)
            let chunk = (0..<size).map { UInt8(truncatingIfNeeded: step &+ $0) }
            expected += chunk
            chunk.withUnsafeBufferPointer { writer.write($0) }
            let count = writer.count
            #expect(count == expected.count)
            if step % 3 == 0 {
                let text = "é\(step)"
                expected += Array(text.utf8)
                writer.write(text)
            }
        }
        writer.write(UnsafeBufferPointer(start: nil, count: 0))
        let output = writer.finish()
        #expect(output == expected)
    }
}

@Suite("Byte writer into a buffer")
struct ByteWriterIntoTests {
    /// `count` pseudo-random writes, the same for every capacity: the bytes, and each write's size.
    static func writes(_ count: Int) -> [[UInt8]] {
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D
        return (0..<count).map { step in
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let size = Int(seed >> 58) + (step % 40 == 0 ? 150 : 0)
            return (0..<size).map { UInt8(truncatingIfNeeded: step &* 7 &+ $0) }
        }
    }

    @Test(
        "a buffer that holds the output, one it cannot (the rest overflows into blocks of every size), and none give the same bytes",
        arguments: [0, 1, 100, 5_000, 100_000], [1, 7, 64])
    func overflow(capacity: Int, blockSize: Int) {
        let writes = Self.writes(300)
        let expected = writes.flatMap { $0 }
        var counts: [Int] = []
        var overflow: [UInt8] = []
        var output = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            var writer = ByteWriter(into: buffer, blockSize: blockSize)
            var written = 0
            for chunk in writes {
                chunk.withUnsafeBufferPointer { writer.write($0) }
                written += chunk.count
                counts.append(writer.count - written)
            }
            (count, overflow) = writer.finishInto()
        }
        #expect(output.count <= capacity)
        #expect(overflow.isEmpty == (capacity > 0 && expected.count <= capacity))
        output += overflow
        #expect(output == expected)
        #expect(counts.allSatisfy { $0 == 0 }, "count is every byte written so far")
    }
}
