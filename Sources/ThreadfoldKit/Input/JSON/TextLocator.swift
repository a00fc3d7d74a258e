import Synchronization

/// Where lines and columns stand at every `block`-th byte of a text, computed once as far as
/// messages need, so locating a byte costs at most one block's scan. Thread-safe: the documents
/// of a build may be read from several workers.
package final class TextLocator: Sendable {
    static let block = 4096

    struct Checkpoint: Equatable {
        var line: Int
        var column: Int
    }

    /// Checkpoint k is the position at byte k × block. Empty until a message asks: a document is
    /// made for every line of a dump, and most are never asked.
    private let checkpoints = Mutex<[Checkpoint]>([])

    package init() {}

    package func location(in bytes: [UInt8], offset: Int) -> (line: Int, column: Int) {
        bytes.withUnsafeBufferPointer { location(in: $0, offset: offset) }
    }

    /// `location(in:offset:)` in bytes not in an array (a mapped file's).
    package func location(in bytes: UnsafeBufferPointer<UInt8>, offset: Int) -> (line: Int, column: Int) {
        let end = max(0, min(offset, bytes.count))
        let wanted = end / Self.block
        let start: Checkpoint = checkpoints.withLock { points in
            if points.isEmpty { points.append(Checkpoint(line: 1, column: 1)) }
            while points.count <= wanted {
                let k = points.count - 1
                points.append(Self.advance(points[k], bytes, from: k * Self.block, to: min((k + 1) * Self.block, bytes.count)))
            }
            return points[wanted]
        }
        let point = Self.advance(start, bytes, from: wanted * Self.block, to: end)
        return (point.line, point.column)
    }

    /// The position at `to`, from `point` at `from`: a line per newline, a column per scalar
    /// (every byte but UTF-8 continuation bytes). Lines before the last are passed newline to
    /// newline (`memchr`), their scalars uncounted, as a dump's thread is scanned whole once its
    /// first message is located; the last line's scalars are counted (`scalars`).
    static func advance(_ point: Checkpoint, _ buffer: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Checkpoint {
        var point = point
        guard let base = buffer.baseAddress, from < to else { return point }
        var i = from
        let upTo = UnsafeBufferPointer(rebasing: buffer[..<to])
        while let newline = ByteSearch.first(0x0A, in: upTo, from: i) {
            i = newline + 1
            point.line += 1
            point.column = 1
        }
        point.column += scalars(base, from: i, to: to)
        return point
    }

    /// The UTF-8 scalars from `from` to `to`: every byte but continuation bytes. Thirty-two bytes
    /// at a time while they are ASCII (one test of four words), which is most of a document's
    /// text; continuation bytes are counted eight at a time where they are not.
    @inline(__always)
    static func scalars(_ base: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        var i = from
        var continuations = 0
        while i + 32 <= to {
            let words = (ByteSearch.Word(base + i), ByteSearch.Word(base + i + 8), ByteSearch.Word(base + i + 16), ByteSearch.Word(base + i + 24))
            if words.0.nonASCII | words.1.nonASCII | words.2.nonASCII | words.3.nonASCII != 0 {
                continuations +=
                    words.0.continuationCount + words.1.continuationCount + words.2.continuationCount + words.3.continuationCount
            }
            i += 32
        }
        while i + 8 <= to {
            continuations += ByteSearch.Word(base + i).continuationCount
            i += 8
        }
        while i < to {
            if base[i] & 0xC0 == 0x80 { continuations += 1 }
            i += 1
        }
        return to - from - continuations
    }
}
