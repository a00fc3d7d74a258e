/// Where bytes are appended: an array, or a page's `ByteWriter`. `HTML.escape` writes to either.
package protocol ByteSink: ~Copyable {
    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>)
}

extension Array: ByteSink where Element == UInt8 {
    @inline(__always)
    package mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) { append(contentsOf: bytes) }
}

/// An output written a few bytes at a time, as templates write a page: into a scratch block
/// first, and into the output array a block at a time. Appending a dozen bytes to an array
/// checks its uniqueness and capacity on the generic path (about 70 instructions a call); here
/// it is one test and a copy.
///
/// It owns its block, so it cannot be copied: `finish()` hands back the output, and the block is
/// freed when the writer goes, however it goes.
struct ByteWriter: ByteSink, ~Copyable {
    private let block: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private var used = 0
    /// What is written, up to the last block moved out of the scratch block.
    private var out: [UInt8]

    /// A writer that appends to `out`.
    init(appendingTo out: consuming [UInt8], blockSize: Int = 64 << 10) {
        self.out = out
        capacity = max(blockSize, 1)
        block = .allocate(capacity: capacity)
    }

    deinit { block.deallocate() }

    /// Every byte of the output so far: the array's and the block's.
    var count: Int { out.count + used }

    @inline(__always)
    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = bytes.count
        guard n > 0, let source = bytes.baseAddress else { return }
        if used + n > capacity {
            flush()
            // More than a block goes straight to the array.
            if n > capacity {
                out.append(contentsOf: bytes)
                return
            }
        }
        (block + used).update(from: source, count: n)
        used += n
    }

    /// Writes `text`'s UTF-8.
    @inline(__always)
    mutating func write(_ text: String) {
        if let done: Void = text.utf8.withContiguousStorageIfAvailable({ write($0) }) { return done }
        var text = text
        text.withUTF8 { write($0) }
    }

    private mutating func flush() {
        out.append(contentsOf: UnsafeBufferPointer(start: block, count: used))
        used = 0
    }

    /// The output, with the block's bytes moved in.
    consuming func finish() -> [UInt8] {
        flush()
        var output: [UInt8] = []
        swap(&output, &out)
        return output
    }
}
