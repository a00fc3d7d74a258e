import Testing

@testable import ThreadfoldKit

@Suite("Dump table")
struct DumpTableTests {
    static let table = DumpTable(
        settings: "s1", digests: [0, 0xFFFF_FFFF_FFFF_FFFF, 42],
        threads: [
            [.init(key: 1, hash: 9, file: 2, line: 3), .init(key: 0xABCDEF, hash: 0, file: 2, line: 1 << 40)], [],
            [.init(key: 7, hash: 0xFFFF_FFFF_FFFF_FFFF, file: 0xFFFF_FFFF_FFFF_FFFF, line: 0)],
        ])

    @Test("a table reads back as written, only with the settings it was written with")
    func roundTrip() throws {
        let bytes = Self.table.encoded()
        #expect(DumpTable(bytes: bytes, settings: "s1") == Self.table)
        #expect(DumpTable(bytes: bytes, settings: "s2") == nil)
        #expect(DumpTable(bytes: [], settings: "s1") == nil)
    }

    @Test(
        "a table not as a build writes it is not used",
        arguments: [
            ("\"digests\":[\"0000000000000000\",", "\"digests\":[\"xyz\","),
            ("\"digests\":[", "\"digests\":[\"0000000000000001\","),
            ("\"format\":5", "\"format\":4"),
            ("\"version\":", "\"version\":\"0\",\"v\":"),
            (",[],", ","),
            ("[\"0000000000000007\",\"ffffffffffffffff\",\"ffffffffffffffff\",0]", "[\"0000000000000007\",\"ffffffffffffffff\",\"ffffffffffffffff\"]"),
            ("[\"0000000000000007\",\"ffffffffffffffff\",\"ffffffffffffffff\",0]", "[\"0000000000000007\",\"ffffffffffffffff\",\"ffffffffffffffff\",-1]"),
            ("[\"0000000000000007\",\"ffffffffffffffff\",\"ffffffffffffffff\",0]", "[\"0000000000000007\",\"ffffffffffffffff\",7,0]"),
        ])
    func refused(_ found: String, _ broken: String) {
        let text = String(decoding: Self.table.encoded(), as: UTF8.self)
        #expect(text.contains(found), "\(text)")
        #expect(DumpTable(bytes: Array(text.replacingOccurrences(of: found, with: broken).utf8), settings: "s1") == nil)
    }
}
