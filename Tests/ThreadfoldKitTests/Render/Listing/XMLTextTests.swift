import Foundation
import Testing

@testable import ThreadfoldKit

@Suite("XML text: feed ids and dates")
struct XMLTextTests {
    /// The UUID as it was first written (an array of bytes, a digit at a time): a feed's ids must
    /// never change between versions, or every reader shows every entry again as new.
    static func reference(_ name: String) -> String {
        let bytes = Array(name.utf8)
        let a = StableHash.content(bytes, seed: 0x5EED_0001), b = StableHash.content(bytes, seed: 0x5EED_0002)
        let digits = Array("0123456789abcdef".utf8)
        var out = Array("urn:uuid:".utf8)
        for i in 0..<32 {
            if i == 8 || i == 12 || i == 16 || i == 20 { out.append(UInt8(ascii: "-")) }
            let word = i < 16 ? a : b
            var nibble = Int((word >> UInt64(60 - 4 * (i % 16))) & 0xF)
            if i == 12 { nibble = 8 }
            if i == 16 { nibble = 8 + Int(b >> 62) }
            out.append(digits[nibble])
        }
        return String(decoding: out, as: UTF8.self)
    }

    @Test("a name's UUID is the one it always was, a version-8 UUID, for empty, short, long and non-ASCII names")
    func uuid() throws {
        let shape = try Regex("^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        var names = ["", "t", "thread:1", "comment:1:2", "site:Threadfold", "thread:" + String(repeating: "x", count: 1_000), "comment:é:💬", "a\u{0}b"]
        for n in 0..<200 { names.append("comment:\(n * 7919):\(n)") }
        var seen: Set<String> = []
        for name in names {
            let id = XMLText.uuid(name)
            #expect(id == Self.reference(name), "\(name.debugDescription)")
            #expect(id.wholeMatch(of: shape) != nil, "\(id)")
            seen.insert(id)
        }
        #expect(seen.count == names.count)
        // As published: the feed id of the vendored Reddit thread, from a site built before this test.
        #expect(XMLText.uuid("thread:t3_2tpycj") == "urn:uuid:e7ca1f73-c103-8c40-9251-f9b145009085")
    }

    @Test("dates are written for years 1 to 9999 only, the same as text and as bytes")
    func dates() {
        let year10000 = Timestamp.daysFromCivil(year: 10_000, month: 1, day: 1) * 86_400_000
        let year1 = Timestamp.daysFromCivil(year: 1, month: 1, day: 1) * 86_400_000
        for ms: Int64 in [0, 1_709_461_200_123, year1, year1 - 1, year10000 - 1, year10000] {
            let time = Timestamp(milliseconds: ms)
            var out: [UInt8] = []
            let written = XMLText.write(date: time, into: &out)
            #expect(written == (XMLText.date(time) != nil), "\(ms)")
            #expect(String(decoding: out, as: UTF8.self) == (XMLText.date(time) ?? ""), "\(ms)")
        }
        #expect(XMLText.date(Timestamp(milliseconds: year1 - 1)) == nil)
        #expect(XMLText.date(Timestamp(milliseconds: year10000)) == nil)
        var out: [UInt8] = []
        #expect(!XMLText.write(date: nil, into: &out) && out.isEmpty)
    }
}
