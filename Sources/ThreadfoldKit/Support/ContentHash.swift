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

    package static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
