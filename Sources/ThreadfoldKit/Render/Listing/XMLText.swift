/// Atom feeds and sitemaps, written as text: every value from the input is escaped, and dates
/// outside RFC 3339's years (0001 to 9999) are left out rather than written wrongly.
enum XMLText {
    static func escape(_ text: String) -> String { HTML(escaping: text).raw }

    /// An RFC 3339 date, or nil for years RFC 3339 cannot write.
    static func date(_ time: Timestamp?) -> String? {
        guard let time, rfc3339Years.contains(time.components.year) else { return nil }
        return time.iso8601
    }

    /// Appends `date(time)` to `out`, or returns false (writing nothing) where `date` is nil.
    static func write(date time: Timestamp?, into out: inout [UInt8]) -> Bool {
        time?.writeISO8601(into: &out, years: rfc3339Years) ?? false
    }

    /// The years RFC 3339 can write: 0001 to 9999.
    private static let rfc3339Years: ClosedRange<Int64> = 1...9999

    /// A stable `urn:uuid:` from a name: two seeded `StableHash.content`es of it, shaped as a version-8 UUID.
    static func uuid(_ name: String) -> String {
        var name = name
        let (a, b) = name.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            return (StableHash.content(raw, seed: 0x5EED_0001), StableHash.content(raw, seed: 0x5EED_0002))
        }
        let prefix: StaticString = "urn:uuid:", digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 45) { out in
            let hex = digits.utf8Start
            var at = 0
            for k in 0..<prefix.utf8CodeUnitCount {
                out[at] = prefix.utf8Start[k]
                at += 1
            }
            for i in 0..<32 {
                if i == 8 || i == 12 || i == 16 || i == 20 {
                    out[at] = UInt8(ascii: "-")
                    at += 1
                }
                let word = i < 16 ? a : b
                var nibble = Int((word >> UInt64(60 - 4 * (i % 16))) & 0xF)
                if i == 12 { nibble = 8 }  // version 8
                if i == 16 { nibble = 8 + Int(b >> 62) }  // the variant: 8, 9, a or b
                out[at] = hex[nibble]
                at += 1
            }
            return at
        }
    }
}
