/// FNV-1a, 64 bits: a small stable hash for derived names. Not for security; Swift's `Hasher`
/// is seeded per process, so it cannot name anything that must be the same tomorrow.
enum FNV1a {
    static func hash<S: Sequence>(_ bytes: S) -> UInt64 where S.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// The hash with its bits mixed (SplitMix64's finaliser), for splitting by `%`: FNV-1a's low
    /// bits are weak, so `hash % n` alone is lopsided for even `n`.
    static func spread<S: Sequence>(_ bytes: S) -> UInt64 where S.Element == UInt8 {
        var z = hash(bytes)
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    static func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        ContentHash.hex(hash(bytes))
    }

    /// The hash's top `bits` (a multiple of 4, at most 64) as hex digits.
    static func hex<S: Sequence>(_ bytes: S, bits: Int) -> String where S.Element == UInt8 {
        String(hex(bytes).prefix(bits / 4))
    }
}
