/// Text that is safe to print on a terminal: every character that could move the cursor,
/// change colours, retitle the window or reorder what follows (C0 and C1 controls, DEL, and
/// format characters such as the bidi overrides) is shown as an escape instead, so a file name
/// or an input string in a message cannot drive the terminal.
///
/// - C0 controls and DEL become `\x1B`, `\x0A`, `\x7F`;
/// - C1 controls, format characters (Unicode category Cf: bidi embeddings, overrides and
///   isolates, zero-width characters, the byte order mark) and line and paragraph separators
///   become `\u{9B}`, `\u{202E}`, `\u{2028}`;
/// - bytes that are not UTF-8 (from `escape(bytes:)`) become `\xFF`.
package enum Printable {
    /// `text` with controls escaped; printable text comes back unchanged.
    package static func escape(_ text: String) -> String {
        // Fast path: printable ASCII only.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars { append(scalar, to: &out) }
        return out
    }

    /// Each line of `text` escaped, the newlines between them kept: for text that is already
    /// several messages, one a line.
    package static func escapeLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { escape(String($0)) }.joined(separator: "\n")
    }

    /// Bytes that should be UTF-8 (a file name from the file system), escaped: invalid bytes as
    /// `\xNN`, the rest as `escape(_:)` does.
    package static func escape(bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        var out = ""
        var i = 0
        while i < bytes.count {
            let length = sequenceLength(bytes, at: i)
            if length == 0 {
                out += "\\x" + hex(bytes[i])
                i += 1
                continue
            }
            let scalars = String(decoding: bytes[i..<i + length], as: UTF8.self).unicodeScalars
            for scalar in scalars { append(scalar, to: &out) }
            i += length
        }
        return out
    }

    /// The length of the well-formed UTF-8 sequence at `i`, or 0 when there is none.
    static func sequenceLength(_ bytes: [UInt8], at i: Int) -> Int {
        let b = bytes[i]
        if b < 0x80 { return 1 }
        func continuation(_ k: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            i + k < bytes.count && range.contains(bytes[i + k])
        }
        switch b {
        case 0xC2...0xDF: return continuation(1) ? 2 : 0
        case 0xE0: return continuation(1, 0xA0...0xBF) && continuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return continuation(1) && continuation(2) ? 3 : 0
        case 0xED: return continuation(1, 0x80...0x9F) && continuation(2) ? 3 : 0
        case 0xF0: return continuation(1, 0x90...0xBF) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4: return continuation(1, 0x80...0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default: return 0
        }
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x20 || scalar.value == 0x7F { return true }
        if scalar.value < 0x7F { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    private static func append(_ scalar: Unicode.Scalar, to out: inout String) {
        guard needsEscape(scalar) else {
            out.unicodeScalars.append(scalar)
            return
        }
        if scalar.value < 0x80 {
            out += "\\x" + hex(UInt8(scalar.value))
        } else {
            out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
    }
}

extension Printable {
    /// `1 comment`, `3 comments`: a count in an English message of the tool's own (page words
    /// come from the locale's plural rules instead).
    package static func count(_ n: Int, _ one: String, _ many: String? = nil) -> String {
        n == 1 ? "1 \(one)" : "\(n) \(many ?? one + "s")"
    }
}
