import Testing

@testable import ThreadfoldKit

@Suite("JSONWriter")
struct JSONWriterTests {
    @Test("integers are written as Swift prints them, the extremes included")
    func integers() {
        let values: [Int64] = [0, 1, 9, 10, 99, 100, -1, -9, -10, 1_234_567_890, -987_654_321_012, .max, .min, .max - 1, .min + 1]
        var writer = JSONWriter(pretty: false)
        writer.array { w in for value in values { w.int(value) } }
        #expect(String(decoding: writer.out, as: UTF8.self) == "[" + values.map { String($0) }.joined(separator: ",") + "]")
    }

    @Test("strings: quotes, backslashes and control characters escaped, everything else as it is, and read back the same")
    func strings() throws {
        let every = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self) + "é😄\u{2028}\u{FFFD}"
        var writer = JSONWriter(pretty: false)
        writer.object { w in
            w.field("every", every)
            w.field("plain", "no escapes at all")
            w.field("", "")
        }
        let text = String(decoding: writer.out, as: UTF8.self)
        #expect(text.hasPrefix(#"{"every":"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\t\n\u000b\u000c\r\u000e"#))
        #expect(text.contains(##"\u001f !\"#$%&'()*+,-./0123456789"##))
        #expect(text.contains(#"XYZ[\\]^_`abc"#))
        #expect(text.hasSuffix(#"xyz{|}~"# + "\u{7F}é😄\u{2028}\u{FFFD}\",\"plain\":\"no escapes at all\",\"\":\"\"}"))
        let document = try JSONDocument(bytes: writer.out)
        #expect(document.member(document.root, "every").map(document.string) == every)
        #expect(document.member(document.root, "plain").map(document.string) == "no escapes at all")
    }

    @Test("pretty output indents two spaces a level, however deep")
    func pretty() {
        var writer = JSONWriter(pretty: true)
        func nest(_ w: inout JSONWriter, _ depth: Int) {
            if depth == 0 {
                w.int(1)
                return
            }
            w.array { w in nest(&w, depth - 1) }
        }
        writer.object { w in
            w.field("a", 1)
            w.key("deep")
            nest(&w, 40)
            w.key("empty")
            w.array { _ in }
        }
        let lines = String(decoding: writer.out, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "{")
        #expect(lines[1] == "  \"a\": 1,")
        #expect(lines[2] == "  \"deep\": [")
        // The innermost value sits 41 levels down: 82 spaces, past the 64 one run of spaces holds.
        #expect(lines[42] == String(repeating: " ", count: 82) + "1")
        #expect(lines[43] == String(repeating: " ", count: 80) + "]")
        #expect(lines.suffix(3) == ["  ],", "  \"empty\": []", "}"])
    }
}
