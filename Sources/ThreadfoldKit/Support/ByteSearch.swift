#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finding one byte in a buffer with the C library's `memchr`, which looks at many bytes a step:
/// the Markdown pre-scans look for bytes most bodies lack (`|`, `~`, `[`, `\`), so a loop that
/// tests each byte would cost more than the finds.
package enum ByteSearch {
    /// The offset of the first `byte` at or after `from`, or nil.
    @inline(__always)
    package static func first(_ byte: UInt8, in buffer: UnsafeBufferPointer<UInt8>, from: Int = 0) -> Int? {
        guard let base = buffer.baseAddress, from < buffer.count,
              let found = memchr(base + from, Int32(byte), buffer.count - from) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    @inline(__always)
    package static func contains(_ byte: UInt8, in buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        first(byte, in: buffer) != nil
    }

    /// Calls `body` with the offset of each `byte` in order, until it returns true; returns
    /// whether one did.
    @inline(__always)
    package static func any(_ byte: UInt8, in buffer: UnsafeBufferPointer<UInt8>, where body: (Int) -> Bool) -> Bool {
        var at = 0
        while let i = first(byte, in: buffer, from: at) {
            if body(i) { return true }
            at = i + 1
        }
        return false
    }
}
