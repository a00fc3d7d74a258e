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
    /// first message is located; the last line's scalars are counted eight bytes at a time.
    static func advance(_ point: Checkpoint, _ bytes: [UInt8], from: Int, to: Int) -> Checkpoint {
        var point = point
        bytes.withUnsafeBufferPointer { buffer in
            var i = from
            if let base = buffer.baseAddress {
                let upTo = UnsafeBufferPointer(rebasing: buffer[..<to])
                while let newline = ByteSearch.first(0x0A, in: upTo, from: i) {
                    i = newline + 1
                    point.line += 1
                    point.column = 1
                }
                // No newline is left: a column for each byte but UTF-8 continuation bytes.
                while i + 8 <= to {
                    point.column += 8 - ByteSearch.Word(base + i).continuationCount
                    i += 8
                }
            }
            while i < to {
                if buffer[i] & 0xC0 != 0x80 { point.column += 1 }
                i += 1
            }
        }
        return point
    }
}
