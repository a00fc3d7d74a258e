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
    /// The bytes that send a body to cmark, as a table of 256 entries: 1 for such a byte, 0 for
    /// any other (bytes from 0x80 up never do). A line's entries are or-ed together without a
    /// branch, and the body is refused when the line's result is 1.
    private static let refused: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 256)
        var bytes = Array("\\`*_[]<>&|~^".utf8) + [0x7F]
        bytes += (0..<0x20).filter { $0 != 0x0A }
        for byte in bytes { table[Int(byte)] = 1 }
        return table
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

    /// Whether `text` is plain paragraphs: one pass that allocates nothing and stops at the end
    /// of the first line that may be Markdown, as most bodies that hold any do early.
    static func isPlain(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        refused.withUnsafeBufferPointer { isPlain(text, refusing: $0) }
    }

    private static func isPlain(_ text: UnsafeBufferPointer<UInt8>, refusing refused: UnsafeBufferPointer<UInt8>) -> Bool {
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
            var found: UInt8 = 0
            for i in start..<end { found |= refused[Int(text[i])] }
            if found != 0 { return false }
        }
        return true
    }
}
