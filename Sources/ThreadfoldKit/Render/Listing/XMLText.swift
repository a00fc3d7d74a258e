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
        var hex = Array(ContentHash.hex(a) + ContentHash.hex(b))
        hex[12] = "8"
        hex[16] = ["8", "9", "a", "b"][Int(b >> 62)]
        let s = String(hex)
        func part(_ from: Int, _ to: Int) -> Substring { s[s.index(s.startIndex, offsetBy: from)..<s.index(s.startIndex, offsetBy: to)] }
        return "urn:uuid:\(part(0, 8))-\(part(8, 12))-\(part(12, 16))-\(part(16, 20))-\(part(20, 32))"
    }
}
