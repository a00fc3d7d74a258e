import Testing

@testable import ThreadfoldKit

@Suite("Printable text")
struct PrintableTests {
    @Test("controls, DEL and bidi or format characters are escaped; other text is kept")
    func escapes() {
        #expect(Printable.escape("plain ascii.json") == "plain ascii.json")
        #expect(Printable.escape("café 日本語 🙂.json") == "café 日本語 🙂.json")
        #expect(Printable.escape("a\u{1B}]0;owned\u{07}b") == #"a\x1B]0;owned\x07b"#)
        #expect(Printable.escape("line\nbreak\ttab\r\u{7F}") == #"line\x0Abreak\x09tab\x0D\x7F"#)
        #expect(Printable.escape("csi\u{9B}31m") == #"csi\u{9B}31m"#)
        #expect(Printable.escape("evil\u{202E}nosj.exe") == #"evil\u{202E}nosj.exe"#)
        #expect(Printable.escape("\u{2066}x\u{2069}\u{200B}\u{FEFF}\u{2028}") == #"\u{2066}x\u{2069}\u{200B}\u{FEFF}\u{2028}"#)
        #expect(Printable.escapeLines("one\u{1B}\ntwo\n") == "one\\x1B\ntwo\n")
    }

    @Test("bytes that are not UTF-8 show as \\xNN; the rest as text")
    func bytes() {
        #expect(Printable.escape(bytes: Array("caf".utf8) + [0xE9] + Array(".json".utf8)) == #"caf\xE9.json"#)
        #expect(Printable.escape(bytes: Array("é\u{1B}".utf8)) == #"é\x1B"#)
        #expect(Printable.escape(bytes: [0xED, 0xA0, 0x80, 0xF4, 0x90, 0x80, 0x80, 0xC0, 0xAF]) == #"\xED\xA0\x80\xF4\x90\x80\x80\xC0\xAF"#)
        #expect(Printable.escape(bytes: [0xF0, 0x9F, 0x99, 0x82]) == "🙂")
    }

    @Test("an input error escapes its file, path and message, and stays one line")
    func inputErrors() {
        let error = Problem(
            file: "in/\u{1B}[2Jx.json", line: 1, column: 2, path: "$.a\u{202E}b",
            message: "found \"\u{1B}]8;;http://x\u{1B}\\\"\nexpected a string")
        #expect(error.description == #"in/\x1B[2Jx.json:1:2: error: $.a\u{202E}b: found "\x1B]8;;http://x\x1B\"\x0Aexpected a string"#)
        #expect(ThreadfoldError.input([error, error]).description.split(separator: "\n").count == 2)
    }
}
