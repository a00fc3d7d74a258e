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
/// A writer made `into` a buffer (the new output array's, allocated to the page's estimated
/// size) writes there first, so a page within its estimate is copied once, not twice; what
/// does not fit goes the usual way, into a block and an array of its own, the overflow.
///
/// It owns its block, so it cannot be copied: `finish()` hands back the output, and the block is
/// freed when the writer goes, however it goes.
struct ByteWriter: ByteSink, ~Copyable {
    private var block: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var used = 0
    /// What is written, up to the last block moved out of the scratch block (after the bytes in
    /// the caller's buffer, for a writer made `into` one).
    private var out: [UInt8]
    /// For a writer made `into` a buffer: the bytes written into it once it is full (0 for an
    /// empty buffer, which is full from the start); -1 while it is being written, and for a
    /// writer made `appendingTo` an array.
    private var inBuffer: Int
    /// Whether `block` is the writer's own, to be freed.
    private var owned: Bool
    private let blockSize: Int
    /// Whether the writer was made `into` a buffer (`finishInto()`), not `appendingTo` an array (`finish()`).
    private let direct: Bool

    /// A writer that appends to `out`.
    init(appendingTo out: consuming [UInt8], blockSize: Int = 64 << 10) {
        self.out = out
        self.blockSize = max(blockSize, 1)
        capacity = self.blockSize
        block = .allocate(capacity: capacity)
        owned = true
        inBuffer = -1
        direct = false
    }

    /// A writer that fills `buffer` first (`finishInto()`).
    init(into buffer: UnsafeMutableBufferPointer<UInt8>, blockSize: Int = 64 << 10) {
        out = []
        direct = true
        self.blockSize = max(blockSize, 1)
        if let base = buffer.baseAddress, !buffer.isEmpty {
            block = base
            capacity = buffer.count
            owned = false
        } else {
            capacity = self.blockSize
            block = .allocate(capacity: capacity)
            owned = true
        }
        inBuffer = owned ? 0 : -1
    }

    deinit { if owned { block.deallocate() } }

    /// Every byte of the output so far: the caller's buffer's, the array's and the block's.
    var count: Int { max(inBuffer, 0) + out.count + used }

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
        if !owned {
            // The caller's buffer is full: it keeps what it holds, and a block of the writer's
            // own takes what follows.
            inBuffer = used
            capacity = blockSize
            block = .allocate(capacity: capacity)
            owned = true
            used = 0
            return
        }
        out.append(contentsOf: UnsafeBufferPointer(start: block, count: used))
        used = 0
    }

    /// The output, with the block's bytes moved in.
    consuming func finish() -> [UInt8] {
        precondition(!direct, "a writer into a buffer is finished with finishInto()")
        flush()
        var output: [UInt8] = []
        swap(&output, &out)
        return output
    }

    /// For a writer made `into` a buffer: how many of its bytes are written, and what followed
    /// them when it filled (empty when it did not).
    consuming func finishInto() -> (count: Int, overflow: [UInt8]) {
        precondition(direct, "a writer appending to an array is finished with finish()")
        guard owned, inBuffer >= 0 else { return (used, []) }
        let written = inBuffer
        flush()
        var overflow: [UInt8] = []
        swap(&overflow, &out)
        return (written, overflow)
    }
}
