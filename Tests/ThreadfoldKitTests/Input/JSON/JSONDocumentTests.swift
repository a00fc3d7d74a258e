import Testing

@testable import ThreadfoldKit

@Suite("JSON document")
struct JSONDocumentTests {
    func parse(_ text: String) throws -> JSONDocument { try JSONDocument(bytes: Array(text.utf8)) }

    @Test("reads every kind of value and keeps their order")
    func values() throws {
        let doc = try parse(#"{"a": [1, -2.5e3, "x\ny", true, false, null, {}], "b": {"c": "d"}}"#)
        let a = try #require(doc.member(doc.root, "a"))
        #expect(doc.count(a) == 7)
        var kinds: [JSONDocument.Kind] = []
        doc.forEachElement(a) { _, element in kinds.append(doc.kind(element)) }
        #expect(kinds == [.number, .number, .string, .true, .false, .null, .object])
        #expect(doc.string(a + 3) == "x\ny")
        #expect(doc.isInteger(a + 1) && !doc.isInteger(a + 2))
        let b = try #require(doc.member(doc.root, "b"))
        #expect(doc.string(try #require(doc.member(b, "c"))) == "d")
    }

    @Test("keeps big integers exact, digit for digit")
    func bigIntegers() throws {
        let doc = try parse("[12345678901234567890123, 9007199254740993]")
        #expect(doc.numberText(1) == "12345678901234567890123")
        #expect(doc.numberText(2) == "9007199254740993")
        #expect(doc.int64(2) == 9_007_199_254_740_993)
    }

    @Test("decodes escapes, surrogate pairs, and turns lone surrogates into U+FFFD")
    func escapes() throws {
        let doc = try parse(#"["\u00e9\ud83d\ude00\"\\\/\b\f\r\t", "\ud800x", "\udc00"]"#)
        #expect(doc.string(1) == "é😀\"\\/\u{8}\u{c}\r\t")
        #expect(doc.string(2) == "\u{FFFD}x")
        #expect(doc.string(3) == "\u{FFFD}")
    }

    @Test("a duplicate key resolves to the last value")
    func duplicateKeys() throws {
        let doc = try parse(#"{"a": 1, "a": 2}"#)
        #expect(doc.numberText(try #require(doc.member(doc.root, "a"))) == "2")
    }

    @Test("only an object has members: an array, a string or a number has none, whatever it holds")
    func membersOfNonObjects() throws {
        let doc = try parse(#"[["a", "b", {"a": 1}], "a", 1, {}]"#)
        for node in [doc.root, doc.root + 1, doc.root + 2] {
            #expect(doc.member(node, "a") == nil && doc.member(node, "b") == nil && doc.member(node, "") == nil)
        }
        let empty = doc.nodes.count - 1
        #expect(doc.kind(empty) == .object && doc.member(empty, "a") == nil)
        let inner = try #require(doc.nodes.indices.first { doc.kind($0) == .object && doc.count($0) == 1 })
        #expect(doc.member(inner, "a") != nil)
    }

    @Test("integers read in place agree with the standard library's parse, at every length and at the limits")
    func integers() throws {
        var texts = [
            "0", "-0", "7", "-7", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
            "-9223372036854775809", "99999999999999999999999", "123456789012345678", "-999999999999999999",
            "1000000000000000000", "1.5", "1e3", "-0.0",
        ]
        var digits = ""
        for length in 1...20 {
            digits.append(Character(String(length % 10 == 0 ? 9 : length % 10)))
            texts += [digits, "-" + digits]
        }
        let doc = try parse("[" + texts.joined(separator: ", ") + "]")
        doc.forEachElement(doc.root) { position, element in
            let text = texts[position]
            let exact = text.contains(".") || text.contains("e") ? nil : Int64(text)
            #expect(doc.int64(element) == exact, "\(text)")
        }
    }

    @Test("a member's key is matched to a name as bytes, an escaped key once decoded, and by its place in the list")
    func memberNames() throws {
        let names = JSONMemberFilter(["id", "parent_id", "a_name_longer_than_eight", "id", "body"])
        let doc = try parse(#"{"id": 1, "b\u006fdy": 2, "parent_id": 3, "a_name_longer_than_eight": 4, "a_name_longer_than_eigh!": 5, "": 6, "idx": 7, "i": 8}"#)
        var places: [Int?] = []
        doc.forEachMemberNode(doc.root) { key, value in
            #expect(value == key + 1)
            places.append(doc.memberName(key, in: names))
        }
        #expect(places == [0, 4, 1, 2, nil, nil, nil, nil])
    }

    @Test("a dump thread's records keep only the members named, whatever the rest hold; all of it is still checked")
    func recordMembers() throws {
        let keep = JSONMemberFilter(["id", "body", "a_name_longer_than_eight"])
        let text = #"""
            [{"x": {"id": 1, "deep": [[{"body": 2}]]}, "id": "one", "skip": [1, "two", null],
              "a_name_longer_than_eigh!": 0, "a_name_longer_than_eight": true, "b\u006fdy": "kept", "body": "b", "z": "", "id": "last"},
             {}, ["id", {"skip": 1, "id": 2}], {"y": {}}, "s", {"body": {"id": {"deep": [1]}}}]
            """#
        let doc = try JSONDocument(bytes: Array(text.utf8), records: keep)
        let all = try JSONDocument(bytes: Array(text.utf8))
        var records: [Int] = []
        doc.forEachElement(doc.root) { _, element in records.append(element) }
        #expect(records.count == 6)
        // The first record: its kept members in order, a duplicate's last value, an escaped key kept.
        var keys: [String] = []
        doc.forEachMember(records[0]) { key, _ in keys.append(key) }
        #expect(keys == ["id", "a_name_longer_than_eight", "body", "body", "id"])
        #expect(doc.count(records[0]) == 5)
        #expect(doc.string(try #require(doc.member(records[0], "id"))) == "last")
        #expect(doc.member(records[0], "x") == nil && doc.member(records[0], "skip") == nil && doc.member(records[0], "z") == nil)
        #expect(doc.string(try #require(doc.member(records[0], "body"))) == "b")
        // Objects deeper down, and an array among the records, keep everything.
        #expect(doc.count(records[1]) == 0 && doc.count(records[2]) == 2 && doc.count(records[3]) == 0)
        let nested = try #require(doc.nodes.indices.first { doc.kind($0) == .object && doc.member($0, "skip") != nil })
        #expect(doc.count(nested) == 2 && doc.member(nested, "id") != nil)
        let body = try #require(doc.member(records[5], "body"))
        let inner = try #require(doc.member(body, "id"))
        #expect(doc.member(inner, "deep") != nil)
        // What is kept reads as it does with every member on the tape, at the same offsets.
        var allRecords: [Int] = []
        all.forEachElement(all.root) { _, element in allRecords.append(element) }
        for r in [0, 5] {
            for name in ["id", "body", "a_name_longer_than_eight"] {
                #expect(doc.member(records[r], name).map(doc.offset) == all.member(allRecords[r], name).map(all.offset))
            }
        }
        #expect(doc.nodes.count < all.nodes.count)
        // A root object is not a record; JSON Lines' lines are.
        let object = try JSONDocument(bytes: Array(#"{"skip": {"skip": 1}, "id": 1}"#.utf8), records: keep)
        #expect(object.count(object.root) == 2 && object.member(object.root, "skip") != nil)
        let lines = try JSONDocument(bytes: Array("{\"skip\": [1], \"id\": 1}\n{\"body\": \"b\", \"z\": {}}\n".utf8), sequence: true, records: keep)
        var kept: [Int] = []
        lines.forEachElement(lines.root) { _, line in kept.append(lines.count(line)) }
        #expect(kept == [1, 1])
        // A member left off is still parsed: its errors are the document's.
        #expect(throws: JSONError.self) { try JSONDocument(bytes: Array(#"[{"skip": [1, 2,], "id": 1}]"#.utf8), records: keep) }
        #expect(throws: JSONError.self) { try JSONDocument(bytes: Array(#"[{"skip": {"a" 1}}]"#.utf8), records: keep) }
    }

    @Test("nesting a million levels deep parses without recursion")
    func deepNesting() throws {
        let depth = 500_000
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let doc = try parse(text)
        #expect(doc.count(doc.root) == 1)
        #expect(doc.next(doc.root) == depth)
    }

    @Test("nesting past the limit is an error, not a crash")
    func depthLimit() {
        let text = String(repeating: "[", count: 11) + String(repeating: "]", count: 11)
        #expect(throws: JSONError.self) { try JSONDocument(bytes: Array(text.utf8), depthLimit: 10) }
    }

    @Test(
        "syntax errors say what was found and expected, at the right place",
        arguments: [
            ("{\"a\": 1,}", 1, 9, "found '}'; expected a member name in double quotes"),
            ("[1, 2", 1, 6, "the file ends inside an array"),
            ("{\"a\" 1}", 1, 6, "found '1'; expected ':' after the member name"),
            ("[01]", 1, 2, "leading zero"),
            ("\n  [tru]", 2, 4, "expected a JSON value"),
            ("[\"a\u{1}\"]", 1, 4, "control character U+01"),
            ("[\"\\x\"]", 1, 3, "found the escape '\\x'"),
            ("[1] 2", 1, 5, "after the end of the document"),
            ("", 1, 1, "the file is empty"),
            ("[\"\\ud8\"]", 1, 3, "broken \\u escape"),
            ("{\"a\": NaN}", 1, 7, "expected a JSON value"),
        ])
    func syntaxErrors(_ text: String, _ line: Int, _ column: Int, _ message: String) throws {
        let bytes = Array(text.utf8)
        let error = try #require(throws: JSONError.self) { try JSONDocument(bytes: bytes) }
        let location = JSONDocument.location(in: bytes, offset: error.offset)
        #expect(location.line == line && location.column == column, "\(error.message) at \(location)")
        #expect(error.message.contains(message), "\(error.message)")
    }

    @Test(
        "invalid UTF-8 inside strings is an error naming the byte",
        arguments: [
            [0x22, 0xC3, 0x28, 0x22] as [UInt8],  // bad continuation
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // encoded surrogate
            [0x22, 0xC0, 0xAF, 0x22],  // overlong
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // past U+10FFFF
            [0x22, 0xE2, 0x82, 0x22],  // truncated
        ])
    func invalidUTF8(_ bytes: [UInt8]) throws {
        let error = try #require(throws: JSONError.self) { try JSONDocument(bytes: bytes) }
        #expect(error.message.contains("invalid UTF-8"))
        #expect(error.offset == 1)
    }

    @Test("columns count characters, not bytes")
    func columnsInCharacters() {
        let bytes = Array("[\"日本\", x]".utf8)
        let offset = bytes.firstIndex(of: UInt8(ascii: "x"))!
        #expect(JSONDocument.location(in: bytes, offset: offset) == (1, 8))
    }

    @Test("a byte order mark is skipped")
    func byteOrderMark() throws {
        let doc = try JSONDocument(bytes: [0xEF, 0xBB, 0xBF] + Array("[1]".utf8))
        #expect(doc.count(doc.root) == 1)
    }

    @Test("located messages: checkpoints give the same line and column as a scan from the start, in any order")
    func checkpointedLocations() throws {
        // Lines of varied length with multi-byte characters, some far longer than a block.
        var text = "["
        for i in 0..<3_000 {
            let word = i % 7 == 0 ? String(repeating: "日本語", count: i % 2_000) : "ascii"
            text += "\"\(word)\"" + (i % 5 == 0 ? ",\n" : ", ")
        }
        text += "0]"
        let document = try JSONDocument(bytes: Array(text.utf8))
        var generator = SystemRandomNumberGenerator()
        let offsets = (0..<40).map { _ in Int.random(in: 0..<document.bytes.count, using: &generator) } + [0, document.bytes.count]
        for offset in offsets {
            let located = document.location(ofOffset: offset)
            let scanned = JSONDocument.location(in: document.bytes, offset: offset)
            #expect(located == scanned, "at byte \(offset)")
        }
    }

    @Test("strings are read eight bytes at a time: a quote, escape, control byte or non-ASCII byte is found at every offset")
    func stringSpecialsAtEveryOffset() throws {
        for length in 0..<40 {
            for at in 0..<length {
                let plain = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
                // Escapes, two-byte and four-byte characters decode wherever they stand.
                for (special, decoded) in [("\\n", "\n"), ("\\u00e9", "é"), ("é", "é"), ("😀", "😀"), ("\\\"", "\"")] {
                    let text = String(decoding: plain[..<at], as: UTF8.self) + special + String(decoding: plain[at...], as: UTF8.self)
                    let document = try parse("[\"" + text + "\"]")
                    #expect(document.string(document.root + 1) == String(decoding: plain[..<at], as: UTF8.self) + decoded + String(decoding: plain[at...], as: UTF8.self))
                }
                // A control byte and a broken UTF-8 byte are errors at their own offset.
                for bad: UInt8 in [0x0A, 0x01, 0x1F, 0xC3, 0xFF, 0x80] {
                    var bytes = [UInt8(ascii: "\"")] + plain + [UInt8(ascii: "\"")]
                    bytes[1 + at] = bad
                    let error = try #require(throws: JSONError.self) { try JSONDocument(bytes: bytes) }
                    #expect(error.offset == 1 + at, "byte 0x\(String(bad, radix: 16)) at \(at) of \(length)")
                }
            }
        }
    }

    @Test(
        "lines and columns counted newline to newline, 32 ASCII bytes and eight bytes at a time agree with a byte-by-byte count from every start to every end",
        arguments: [10, 45])
    func locatorWordsAgree(asciiRun: Int) {
        var generator = SplitMix64(seed: 7)
        let pieces: [[UInt8]] = [Array("a".utf8), Array("\n".utf8), Array("é".utf8), Array("日".utf8), Array("😀".utf8), Array("  ".utf8)]
        // Runs of ASCII shorter and longer than the 32 bytes tested at once, at every alignment.
        let run = (0..<asciiRun).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        var bytes: [UInt8] = []
        while bytes.count < 400 { bytes += pieces[Int(generator.next() % 6)] + (generator.next() % 3 == 0 ? run.prefix(Int(generator.next() % UInt64(asciiRun + 1))) : []) }
        for from in 0..<40 {
            let start = JSONDocument.location(in: bytes, offset: from)
            for to in from...bytes.count {
                let point = bytes.withUnsafeBufferPointer { TextLocator.advance(.init(line: start.line, column: start.column), $0, from: from, to: to) }
                let expected = JSONDocument.location(in: bytes, offset: to)
                #expect(point.line == expected.line && point.column == expected.column, "from \(from) to \(to)")
            }
        }
    }
}
