// Render stage: page models in, HTML bytes out. Markdown goes through cmark (Markdown/, where
// Cmark.swift is the one file that imports it) and HTML bodies through Gumbo (HTMLSanitizer.swift), pages through the
// compiled Mustache engine, and every string from the input is escaped unless it is already `HTML`.

/// Markup that is already safe to write as is: cmark's output, a template's own text, or text
/// that was escaped on the way in. Plain `String`s are always escaped; only this type is not.
package struct HTML: Sendable, Equatable, CustomStringConvertible {
    package let raw: String

    /// Wraps markup the caller vouches for. Never pass input text here; use `init(escaping:)`.
    package init(trusted raw: String) { self.raw = raw }

    /// Escapes `text` for use in element content and in quoted attribute values alike.
    package init(escaping text: String) {
        var bytes: [UInt8] = []
        HTML.escape(text, into: &bytes)
        self.raw = String(decoding: bytes, as: UTF8.self)
    }

    package var description: String { raw }

    /// Appends `text` with `& < > " '` escaped. Safe in text and in single- or double-quoted
    /// attributes.
    @inline(__always)
    package static func escape<Sink: ByteSink & ~Copyable>(_ text: String, into out: inout Sink) {
        var text = text
        text.withUTF8 { escape($0, into: &out) }
    }

    /// Appends UTF-8 `buffer` with `& < > " '` escaped, and every code point HTML forbids (NUL and
    /// other controls, C1 controls, noncharacters) replaced by U+FFFD.
    @inline(__always)
    package static func escape<Sink: ByteSink & ~Copyable>(_ buffer: UnsafeBufferPointer<UInt8>, into out: inout Sink) {
        var runStart = 0
        var i = 0
        let count = buffer.count
        while i < count {
            i = firstSpecial(buffer, from: i)
            guard i < count else { break }
            let replacement: StaticString
            var length = 1
            switch buffer[i] {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: ">"): replacement = "&gt;"
            case UInt8(ascii: "\""): replacement = "&quot;"
            case UInt8(ascii: "'"): replacement = "&#39;"
            case 0x00...0x1F, 0x7F, 0xC2, 0xEF, 0xF0...0xF4:
                length = forbiddenLength(buffer, i)
                if length == 0 {
                    i += 1
                    continue
                }
                replacement = "\u{FFFD}"
            default:
                i += 1
                continue
            }
            if runStart < i { out.write(UnsafeBufferPointer(rebasing: buffer[runStart..<i])) }
            out.write(UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
            i += length
            runStart = i
        }
        if runStart < count { out.write(UnsafeBufferPointer(rebasing: buffer[runStart...])) }
    }

    /// The first byte at or after `from` that `escape` may change (`& < > " '`, a control, DEL, or
    /// any byte outside ASCII), or where fewer than eight bytes are left: eight bytes at a time
    /// while they are plain printable ASCII.
    @inline(__always)
    static func firstSpecial(_ buffer: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
        var i = from
        guard let base = buffer.baseAddress else { return i }
        while i + 8 <= buffer.count {
            let word = ByteSearch.Word(base + i)
            let special =
                word.nonASCII | word.below(0x20) | word.equal(0x7F)
                | word.equal(UInt8(ascii: "&")) | word.equal(UInt8(ascii: "<")) | word.equal(UInt8(ascii: ">"))
                | word.equal(UInt8(ascii: "\"")) | word.equal(UInt8(ascii: "'"))
            if special != 0 { return i + ByteSearch.Word.first(special) }
            i += 8
        }
        return i
    }

    /// The byte length of a code point HTML forbids at `i` (0 when it is allowed): controls other
    /// than tab, line feed, form feed and carriage return; DEL; C1 controls; noncharacters.
    @inline(__always)
    static func forbiddenLength(_ buffer: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        let byte = buffer[i]
        switch byte {
        case 0x09, 0x0A, 0x0C, 0x0D: return 0
        case 0x00...0x1F, 0x7F: return 1
        case 0xC2:
            return i + 1 < buffer.count && (0x80...0x9F).contains(buffer[i + 1]) ? 2 : 0
        case 0xEF:
            guard i + 2 < buffer.count else { return 0 }
            let (b1, b2) = (buffer[i + 1], buffer[i + 2])
            if b1 == 0xB7 && (0x90...0xAF).contains(b2) { return 3 }  // U+FDD0…U+FDEF
            if b1 == 0xBF && (b2 == 0xBE || b2 == 0xBF) { return 3 }  // U+FFFE, U+FFFF
            return 0
        case 0xF0...0xF4:
            guard i + 3 < buffer.count else { return 0 }
            // U+1FFFE, U+1FFFF, … U+10FFFF: the last two bytes BF BE or BF BF, the second xF.
            return buffer[i + 1] & 0x0F == 0x0F && buffer[i + 2] == 0xBF && (buffer[i + 3] == 0xBE || buffer[i + 3] == 0xBF) ? 4 : 0
        default:
            return 0
        }
    }

    /// The offset of the first byte at or after `from` that is not printable ASCII (a control,
    /// DEL, or any byte of a non-ASCII code point), or `buffer.count`. Eight bytes are looked at
    /// a time: bodies are mostly printable ASCII.
    @inline(__always)
    static func firstNonPrintable(_ buffer: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
        var i = from
        if let base = buffer.baseAddress {
            while i + 8 <= buffer.count {
                let word = ByteSearch.Word(base + i)
                if word.nonASCII | word.below(0x20) | word.equal(0x7F) != 0 { break }
                i += 8
            }
        }
        while i < buffer.count {
            let byte = buffer[i]
            if byte < 0x20 || byte >= 0x7F { return i }
            i += 1
        }
        return i
    }

    /// `text` with every code point HTML forbids replaced by U+FFFD; the same string when it has none.
    package static func scrub(_ text: String) -> String {
        var text = text
        let needed = text.withUTF8 { buffer -> Bool in
            var i = firstNonPrintable(buffer, from: 0)
            while i < buffer.count {
                if forbiddenLength(buffer, i) > 0 { return true }
                i = firstNonPrintable(buffer, from: i + 1)
            }
            return false
        }
        guard needed else { return text }
        return text.withUTF8 { buffer in
            var out: [UInt8] = []
            out.reserveCapacity(buffer.count + 16)
            var i = 0
            while i < buffer.count {
                let length = forbiddenLength(buffer, i)
                if length > 0 {
                    out.append(contentsOf: [0xEF, 0xBF, 0xBD])
                    i += length
                } else {
                    out.append(buffer[i])
                    i += 1
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}
