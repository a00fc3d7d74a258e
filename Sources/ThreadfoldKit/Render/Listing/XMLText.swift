/// Atom feeds and sitemaps, written as text: every value from the input is escaped, and dates
/// outside RFC 3339's years (0001 to 9999) are left out rather than written wrongly.
enum XMLText {
    static func escape(_ text: String) -> String { HTML(escaping: text).raw }

    /// An RFC 3339 date, or nil for years RFC 3339 cannot write.
    static func date(_ time: Timestamp?) -> String? {
        guard let time else { return nil }
        let year = time.components.year
        guard (1...9999).contains(year) else { return nil }
        return time.iso8601
    }

    /// A stable `urn:uuid:` from a name: two FNV-1a hashes, shaped as a version-8 UUID.
    static func uuid(_ name: String) -> String {
        let bytes = Array(name.utf8)
        let a = ContentHash.hash(bytes, seed: 0x5EED_0001), b = ContentHash.hash(bytes, seed: 0x5EED_0002)
        let digits = Array("0123456789abcdef".utf8)
        var out = Array("urn:uuid:".utf8)
        out.reserveCapacity(45)
        for i in 0..<32 {
            if i == 8 || i == 12 || i == 16 || i == 20 { out.append(UInt8(ascii: "-")) }
            let word = i < 16 ? a : b
            var nibble = Int((word >> UInt64(60 - 4 * (i % 16))) & 0xF)
            if i == 12 { nibble = 8 } // version 8
            if i == 16 { nibble = 8 + Int(b >> 62) } // the variant: 8, 9, a or b
            out.append(digits[nibble])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
