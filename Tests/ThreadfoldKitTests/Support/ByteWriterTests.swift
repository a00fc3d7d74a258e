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
