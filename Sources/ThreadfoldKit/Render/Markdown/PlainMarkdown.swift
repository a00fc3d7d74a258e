/// Bodies that are plain paragraphs, as most forum comments are, rendered without cmark to the
/// bytes cmark would give them.
///
/// Parsing a short body costs cmark far more than the body's length: a parser, a tree and a
/// renderer for a few hundred bytes. A body qualifies only when nothing in it can start Markdown:
/// - no byte that opens inline markup, an entity, raw HTML or an extension's span:
///   `\` `` ` `` `*` `_` `[` `]` `<` `>` `&` `|` `~` `^`;
/// - no control byte but the line feed (so no tab and no carriage return), and no DEL;
/// - no line that could open a block: one that starts with a space (unless it is blank), `#`,
///   `-`, `+`, `=`, or digits followed by `.` or `)`;
/// - no byte-order mark (U+FEFF) first: cmark drops it as it reads, and then reads what follows
///   as a line's start.
///
/// Whether the flavour's extensions would link something (bare URLs, addresses, Reddit's `r/` and
/// `u/` names) is for their own `mayApply` to say, asked only of text that passes the checks
/// above, so a body with Markdown (which goes on to cmark, and is asked again there) is not. What
/// is left is what cmark
/// makes of such text: paragraphs split at blank lines; each line without its trailing spaces;
/// a line ending in two spaces or more, inside a paragraph, a hard break; other line ends soft
/// breaks; `"` escaped as `&quot;` (cmark's escaping leaves `'` alone, and `<`, `>`, `&` are not
/// there). The test compares it with cmark's own output for every body it accepts.
enum PlainMarkdown {
    /// The bytes that send a body to cmark, as a 128-bit set (bytes from 0x80 up never do).
    private static let refused: (low: UInt64, high: UInt64) = {
        var low: UInt64 = 0, high: UInt64 = 0
        var bytes = Array("\\`*_[]<>&|~^".utf8) + [0x7F]
        bytes += (0..<0x20).filter { $0 != 0x0A }
        for byte in bytes {
            if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
        }
        return (low, high)
    }()

    /// cmark's HTML for `text` (UTF-8, already scrubbed of what HTML forbids), or nil when the
    /// text may hold Markdown or something the flavour's extensions find. `hardBreaks` renders
    /// soft breaks as `<br />`, as cmark's HARDBREAKS option does.
    static func html(_ text: UnsafeBufferPointer<UInt8>, flavor: MarkdownFlavor, hardBreaks: Bool) -> [UInt8]? {
        guard isPlain(text), !extensionsMayApply(text, flavor) else { return nil }
        let n = text.count
        var out: [UInt8] = []
        out.reserveCapacity(n + n / 16 + 16)
        var open = false
        var hardBreak = false
        var start = 0
        while start < n {
            let end = ByteSearch.first(0x0A, in: text, from: start) ?? n
            defer { start = end + 1 }
            // Only a blank line starts with a space here: it ends the paragraph.
            guard text[start..<end].contains(where: { $0 != 0x20 }) else {
                if open { out.append(contentsOf: "</p>\n".utf8) }
                open = false
                continue
            }
            var last = end
            while text[last - 1] == 0x20 { last -= 1 }
            if open {
                out.append(contentsOf: hardBreak || hardBreaks ? "<br />\n".utf8 : "\n".utf8)
            } else {
                out.append(contentsOf: "<p>".utf8)
                open = true
            }
            hardBreak = end - last >= 2
            // The line, with each '"' escaped; each search stops at the line's end.
            var copied = start
            while let quote = ByteSearch.first(UInt8(ascii: "\""), in: UnsafeBufferPointer(rebasing: text[copied..<last])) {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: text[copied..<(copied + quote)]))
                out.append(contentsOf: "&quot;".utf8)
                copied += quote + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: text[copied..<last]))
        }
        if open { out.append(contentsOf: "</p>\n".utf8) }
        return out
    }

    /// Whether `flavor`'s extensions may find something in `text`.
    private static func extensionsMayApply(_ text: UnsafeBufferPointer<UInt8>, _ flavor: MarkdownFlavor) -> Bool {
        switch flavor {
        case .commonmark: return false
        case .gfm: return MarkdownExtensions.mayApply(text)
        case .reddit: return MarkdownExtensions.mayApply(text) || RedditMarkdown.mayApply(text)
        }
    }

    /// Whether `text` is plain paragraphs: one pass that allocates nothing and stops at the first
    /// byte or line start that may be Markdown, as most bodies that hold any do early.
    static func isPlain(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let (low, high) = refused
        let n = text.count
        if n >= 3, text[0] == 0xEF, text[1] == 0xBB, text[2] == 0xBF { return false }
        var start = 0
        while start < n {
            let end = ByteSearch.first(0x0A, in: text, from: start) ?? n
            defer { start = end + 1 }
            // A line starting with a space is blank (all spaces), or may be indented code or a
            // list's or quote's content, which is cmark's to read.
            var first = start
            while first < end, text[first] == 0x20 { first += 1 }
            if first == end { continue }
            guard first == start else { return false }
            switch text[start] {
            case UInt8(ascii: "#"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "="):
                return false
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                var i = start + 1
                while i < end, text[i] >= UInt8(ascii: "0"), text[i] <= UInt8(ascii: "9") { i += 1 }
                if i < end, text[i] == UInt8(ascii: ".") || text[i] == UInt8(ascii: ")") { return false }
            default:
                break
            }
            for i in start..<end {
                let byte = text[i]
                if byte < 64 {
                    if low >> UInt64(byte) & 1 != 0 { return false }
                } else if byte < 128, high >> UInt64(byte - 64) & 1 != 0 {
                    return false
                }
            }
        }
        return true
    }
}
