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

    static func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        ContentHash.hex(hash(bytes))
    }
}
