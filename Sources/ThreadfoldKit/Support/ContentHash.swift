/// A fast 64-bit content hash for change detection (not for security): eight bytes a step,
/// multiply-xorshift mixing. Stable across runs and machines.
package enum ContentHash {
    package static func hash(_ bytes: [UInt8], seed: UInt64 = 0) -> UInt64 {
        bytes.withUnsafeBytes { raw in hash(raw, seed: seed) }
    }

    package static func hash(_ raw: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        let m: UInt64 = 0x9E37_79B9_7F4A_7C15
        var h = seed ^ (UInt64(raw.count) &* m)
        var i = 0
        while i + 8 <= raw.count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            h = (h ^ (word &* m)) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 31
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < raw.count {
            tail |= UInt64(raw[i]) << shift
            shift += 8
            i += 1
        }
        h = (h ^ (tail &* m)) &* 0x94D0_49BB_1331_11EB
        h ^= h >> 29
        return h
    }

    /// Another hash of the same strength for long runs of bytes, about twice as fast: four lanes
    /// of eight bytes each step, independent of each other, then `hash` of the lanes and the
    /// tail. Its values differ from `hash`'s, so a value stored by one is never compared with
    /// the other's.
    package static func wide(_ raw: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        let m: UInt64 = 0x9E37_79B9_7F4A_7C15, k: UInt64 = 0xBF58_476D_1CE4_E5B9
        var a = seed ^ (UInt64(raw.count) &* m), b = a ^ 0x2545_F491_4F6C_DD1D, c = a ^ 0x94D0_49BB_1331_11EB, d = a ^ k
        var i = 0
        @inline(__always) func word(_ at: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) &* m }
        while i + 32 <= raw.count {
            a = (a ^ word(i)) &* k
            b = (b ^ word(i + 8)) &* k
            c = (c ^ word(i + 16)) &* k
            d = (d ^ word(i + 24)) &* k
            a ^= a >> 31
            b ^= b >> 31
            c ^= c >> 31
            d ^= d >> 31
            i += 32
        }
        // Little-endian, as the words were read: the same value on every machine.
        let lanes = withUnsafeBytes(of: (a.littleEndian, b.littleEndian, c.littleEndian, d.littleEndian)) { hash($0) }
        return hash(UnsafeRawBufferPointer(rebasing: raw[i...]), seed: lanes)
    }

    package static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
