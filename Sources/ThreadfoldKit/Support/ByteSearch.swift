#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finding one byte in a buffer with the C library's `memchr`, which looks at many bytes a step:
/// the Markdown pre-scans look for bytes most bodies lack (`|`, `~`, `[`, `\`), so a loop that
/// tests each byte would cost more than the finds. For several kinds of byte at once (a JSON
/// string's end, what HTML escaping changes), `Word` tests eight bytes a step.
package enum ByteSearch {
    /// The offset of the first `byte` at or after `from`, or nil.
    @inline(__always)
    package static func first(_ byte: UInt8, in buffer: UnsafeBufferPointer<UInt8>, from: Int = 0) -> Int? {
        guard let base = buffer.baseAddress, from < buffer.count,
            let found = memchr(base + from, Int32(byte), buffer.count - from)
        else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// The offset of the first run of bytes equal to `pattern` at or after `from`, or nil: each
    /// of its first byte found with `memchr`, then compared.
    package static func first(_ pattern: [UInt8], in bytes: [UInt8], from: Int = 0) -> Int? {
        guard let lead = pattern.first, from >= 0 else { return nil }
        return bytes.withUnsafeBufferPointer { b in
            pattern.withUnsafeBufferPointer { p in
                var at = from
                while let i = first(lead, in: b, from: at) {
                    guard i + p.count <= b.count else { return nil }
                    if memcmp(b.baseAddress! + i, p.baseAddress!, p.count) == 0 { return i }
                    at = i + 1
                }
                return nil
            }
        }
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

    /// Eight bytes tested at once (SWAR): each test gives a mask with the high bit of every byte
    /// that matches. A borrow can also flag bytes after a real match, never before one, so the
    /// lowest flag of any mix of tests is exact (`first`).
    package struct Word {
        private static let ones: UInt64 = 0x0101_0101_0101_0101
        private static let highs: UInt64 = 0x8080_8080_8080_8080
        package let bits: UInt64

        /// The eight bytes at `address`, in memory order (little-endian: byte 0 is the lowest).
        @inline(__always)
        package init(_ address: UnsafePointer<UInt8>) {
            bits = UnsafeRawPointer(address).loadUnaligned(as: UInt64.self)
        }

        /// Bytes equal to `byte`.
        @inline(__always)
        package func equal(_ byte: UInt8) -> UInt64 {
            let x = bits ^ (Self.ones &* UInt64(byte))
            return (x &- Self.ones) & ~x & Self.highs
        }

        /// Bytes under `byte` (at most 0x80), among the ASCII ones.
        @inline(__always)
        package func below(_ byte: UInt8) -> UInt64 { (bits &- Self.ones &* UInt64(byte)) & ~bits & Self.highs }

        /// Bytes of 0x80 or more.
        @inline(__always)
        package var nonASCII: UInt64 { bits & Self.highs }

        /// UTF-8 continuation bytes (10xxxxxx: bit 7 set, bit 6, shifted up to 7, clear). Exact.
        @inline(__always)
        package var continuations: UInt64 { bits & ~(bits << 1) & Self.highs }

        /// How many of the word's bytes are UTF-8 continuation bytes: their flags, one a byte,
        /// summed by a multiply. A population count is a loop of its own on the baseline x86-64
        /// this is built for: counting columns across a 44 MB one-line document that way took 9%
        /// of an unchanged incremental build's instructions.
        @inline(__always)
        package var continuationCount: Int { Int(((continuations >> 7) &* 0x0101_0101_0101_0101) >> 56) }

        /// The offset in the word of the first byte `mask` flags (`mask` not zero).
        @inline(__always)
        package static func first(_ mask: UInt64) -> Int { mask.trailingZeroBitCount >> 3 }
    }
}
