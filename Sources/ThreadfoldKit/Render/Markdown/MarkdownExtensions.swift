/// GitHub-flavoured extensions, found in the text cmark leaves as text: extended autolinks (bare
/// `https://…`, `www.…` and e-mail addresses) and strikethrough (`~~x~~` or `~x~`), as GitHub's
/// cmark-gfm does them (its extension examples are a test). The scans are
/// linear in the text; `InlineExtensions` turns what they find into link and `<del>` nodes of
/// cmark's tree, so the URL allowlist and escaping apply as to any other node.
///
/// Both read one byte string, which `InlineExtensions` makes of a node's inline children (every
/// child that is not text standing as one byte), so a span may hold other inline markup
/// (`~~**bold** text~~`); docs/input-format.md lists what passes of GitHub's examples.
enum MarkdownExtensions {
    /// Whether `text` could hold an extension at all, so most bodies skip the second walk of
    /// cmark's tree: a '~' before a non-space, an '@' between letters, or a scheme's "://" or a
    /// "www." that is not a Markdown link's destination (after "](") or an autolink's (after '<').
    static func mayApply(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = text.count
        func isWord(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || (byte >= 0x30 && byte <= 0x39) }
        // Not a Markdown link's destination `](…` nor an autolink `<…`.
        func bare(_ start: Int) -> Bool {
            guard start > 0 else { return true }
            if text[start - 1] == UInt8(ascii: "<") { return false }
            return !(text[start - 1] == UInt8(ascii: "(") && start > 1 && text[start - 2] == UInt8(ascii: "]"))
        }
        // Each candidate byte is found with memchr; most bodies hold no '~' or '@', and few ':'.
        return ByteSearch.any(UInt8(ascii: "~"), in: text) { i in i + 1 < n && text[i + 1] != 0x20 && text[i + 1] != 0x0A }
            || ByteSearch.any(UInt8(ascii: "@"), in: text) { i in i > 0 && i + 1 < n && isWord(text[i - 1]) && isWord(text[i + 1]) }
            || ByteSearch.any(UInt8(ascii: ":"), in: text) { i in
                guard i + 2 < n, text[i + 1] == UInt8(ascii: "/"), text[i + 2] == UInt8(ascii: "/") else { return false }
                var start = i
                while start > 0 && i - start < 5 && (text[start - 1] | 0x20) >= UInt8(ascii: "a") && (text[start - 1] | 0x20) <= UInt8(ascii: "z") { start -= 1 }
                return start < i && bare(start)
            }
            || ByteSearch.any(UInt8(ascii: "."), in: text) { i in
                i >= 3 && (text[i - 1] | 0x20) == UInt8(ascii: "w") && (text[i - 2] | 0x20) == UInt8(ascii: "w")
                    && (text[i - 3] | 0x20) == UInt8(ascii: "w") && bare(i - 3)
            }
    }

    /// A bare URL or address in text: the bytes it covers and the URL the link gets.
    struct Autolink: Equatable {
        var range: Range<Int>
        var url: String
    }

    /// The autolinks in `text` (UTF-8), in order, per GitHub's extended autolink rules: they
    /// start the text or follow white space or one of `*_~(`; `www.` and `http(s)://` need a
    /// valid domain; trailing `?!.,:*_~'"` and unbalanced `)` are not part of the link, nor is a
    /// trailing entity-like `&name;`.
    static func autolinks(in text: [UInt8]) -> [Autolink] {
        var found: [Autolink] = []
        var i = 0
        let n = text.count
        while i < n {
            // A link starts the text, or follows white space, a delimiter (`*_~(`) or a quote;
            // never the middle of a word or of another URL.
            let atBoundary =
                i == 0 || isSpace(text[i - 1])
                || [
                    UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "("),
                    UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: ":"),
                ].contains(text[i - 1])
            if atBoundary, let link = webLink(text, at: i) {
                found.append(link)
                i = link.range.upperBound
                continue
            }
            if text[i] == UInt8(ascii: "@"), let link = email(text, at: i, after: found.last?.range.upperBound ?? 0) {
                found.append(link)
                i = link.range.upperBound
                continue
            }
            i += 1
        }
        return found
    }

    private static func webLink(_ text: [UInt8], at start: Int) -> Autolink? {
        var prefix = ""
        var hostStart = start
        if hasPrefix(text, start, "https://") {
            hostStart = start + 8
        } else if hasPrefix(text, start, "http://") {
            hostStart = start + 7
        } else if hasPrefix(text, start, "www.") {
            prefix = "http://"
        } else {
            return nil
        }
        // The domain: segments of alphanumerics, '-' and '_', separated by '.'; the last two
        // without '_'; at least one '.' for www.
        var i = hostStart
        var segments: [(Int, Int)] = []
        var segmentStart = i
        while i < text.count, isDomainByte(text[i]) || text[i] == UInt8(ascii: ".") {
            if text[i] == UInt8(ascii: ".") {
                segments.append((segmentStart, i))
                segmentStart = i + 1
            }
            i += 1
        }
        segments.append((segmentStart, i))
        if segments.last.map({ $0.0 == $0.1 }) == true && segments.count > 1 {
            // A trailing '.' ends the link before it.
            segments.removeLast()
            i -= 1
        }
        // A valid domain has no '_' in its last two segments, and after `www.` at least one '.'
        // (as cmark-gfm, a scheme's host may be a single label: http://inlines).
        guard segments.count >= (prefix.isEmpty ? 1 : 2), segments.allSatisfy({ $0.0 < $0.1 }) else { return nil }
        for (a, b) in segments.suffix(2) where text[a..<b].contains(UInt8(ascii: "_")) { return nil }
        // The path: anything up to white space or '<'.
        // (0x01 stands for a node that is not text, which ends the link.)
        while i < text.count, !isSpace(text[i]), text[i] != UInt8(ascii: "<"), text[i] != 0x01 { i += 1 }
        let end = trimTrailing(text, from: hostStart, to: i)
        guard end > hostStart else { return nil }
        let linkText = String(decoding: text[start..<end], as: UTF8.self)
        return Autolink(range: start..<end, url: prefix + linkText)
    }

    /// An address around the '@' at `at`: local part of alphanumerics and `.+-_`, a domain with
    /// at least one '.', not ending in '-' or '_'.
    private static func email(_ text: [UInt8], at: Int, after floor: Int) -> Autolink? {
        var start = at
        while start > floor, isEmailLocal(text[start - 1]) { start -= 1 }
        guard start < at else { return nil }
        var i = at + 1
        var dots = 0
        while i < text.count, isDomainByte(text[i]) || (text[i] == UInt8(ascii: ".") && i + 1 < text.count && isDomainByte(text[i + 1])) {
            if text[i] == UInt8(ascii: ".") { dots += 1 }
            i += 1
        }
        guard dots > 0, i > at + 1, text[i - 1] != UInt8(ascii: "-"), text[i - 1] != UInt8(ascii: "_") else { return nil }
        let address = String(decoding: text[start..<i], as: UTF8.self)
        return Autolink(range: start..<i, url: "mailto:" + address)
    }

    /// Where a link ends once trailing punctuation, unbalanced ')' and a trailing entity-like
    /// `&name;` are taken off.
    private static func trimTrailing(_ text: [UInt8], from start: Int, to initial: Int) -> Int {
        var end = initial
        while end > start {
            let last = text[end - 1]
            if [
                UInt8(ascii: "?"), UInt8(ascii: "!"), UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ":"),
                UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "\""), UInt8(ascii: "'"),
            ].contains(last) {
                end -= 1
                continue
            }
            if last == UInt8(ascii: ")") {
                var open = 0, close = 0
                for byte in text[start..<end] {
                    if byte == UInt8(ascii: "(") { open += 1 } else if byte == UInt8(ascii: ")") { close += 1 }
                }
                if close > open {
                    end -= 1
                    continue
                }
            }
            if last == UInt8(ascii: ";") {
                var k = end - 2
                while k >= start, isAlphanumeric(text[k]) { k -= 1 }
                if k >= start, text[k] == UInt8(ascii: "&"), k < end - 2 {
                    end = k
                    continue
                }
            }
            break
        }
        return end
    }

    /// Strikethrough spans in `text`: (opening delimiter's range, closing delimiter's range).
    /// A run of one or two tildes opens when the next byte is not white space and closes a run
    /// of the same length when the previous one is not; runs of three or more are text.
    static func strikethroughs(in text: [UInt8]) -> [(open: Range<Int>, close: Range<Int>)] {
        var spans: [(open: Range<Int>, close: Range<Int>)] = []
        // Open runs of one and of two tildes, innermost last: a closer takes the innermost of its
        // length and drops the openers inside the span, so the scan stays linear.
        var openers: [[Range<Int>]] = [[], []]
        var i = 0
        while i < text.count {
            guard text[i] == UInt8(ascii: "~") else {
                i += 1
                continue
            }
            var j = i
            while j < text.count && text[j] == UInt8(ascii: "~") { j += 1 }
            let run = i..<j
            defer { i = j }
            guard run.count <= 2 else { continue }
            let before: UInt8? = i > 0 ? text[i - 1] : nil
            let after: UInt8? = j < text.count ? text[j] : nil
            let canClose = before.map { !isSpace($0) } ?? false
            let canOpen = after.map { !isSpace($0) } ?? false
            if canClose, let opener = openers[run.count - 1].popLast() {
                spans.append((opener, run))
                let other = 2 - run.count
                while let last = openers[other].last, last.lowerBound > opener.lowerBound { openers[other].removeLast() }
                continue
            }
            if canOpen { openers[run.count - 1].append(run) }
        }
        return spans.sorted { $0.open.lowerBound < $1.open.lowerBound }
    }

    private static func hasPrefix(_ text: [UInt8], _ at: Int, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard at + count <= text.count else { return false }
        for k in 0..<count {
            var byte = text[at + k]
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte += 32 }
            if byte != prefix.utf8Start[k] { return false }
        }
        return true
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
    private static func isDomainByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte >= 0x80
    }
    private static func isEmailLocal(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}

/// Reddit's additions to Markdown, found in text nodes as the GFM extensions are: `^word` and
/// `^(several words)` superscripts, `>!spoiler!<` spans, and `r/sub` and `u/name` links.
/// Each scan is linear in the text.
enum RedditMarkdown {
    /// Whether `text` could hold a Reddit extension: a `^` before a non-space (other than `!` or
    /// `/`), `>!`, or `r/` or `u/`. Each candidate byte is found with memchr: most bodies hold
    /// no `^` and few `!` or `/`, and every Reddit body is asked, often twice.
    static func mayApply(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = text.count
        guard n > 1 else { return false }
        return ByteSearch.any(UInt8(ascii: "!"), in: text) { i in i > 0 && text[i - 1] == UInt8(ascii: ">") }
            // `r/` or `u/` starting a word (or after a '/'), not "your/" or "or/".
            || ByteSearch.any(UInt8(ascii: "/"), in: text) { i in
                guard i > 0, text[i - 1] | 0x20 == UInt8(ascii: "r") || text[i - 1] | 0x20 == UInt8(ascii: "u") else { return false }
                return i < 2 || !isNameByte(text[i - 2])
            }
            || ByteSearch.any(UInt8(ascii: "^"), in: text) { i in
                guard i + 1 < n else { return false }
                let next = text[i + 1]
                return !isSpace(next) && next != UInt8(ascii: "!") && next != UInt8(ascii: "/")
            }
    }

    /// Superscript spans: (opening delimiter, closing delimiter). `^(…)` closes at its balancing
    /// `)`; `^word` runs to the next white space and has an empty closing delimiter, so `^^x`
    /// nests. A `^` before white space, or at the end, is text.
    static func superscripts(in text: [UInt8]) -> [(open: Range<Int>, close: Range<Int>)] {
        var spans: [(open: Range<Int>, close: Range<Int>)] = []
        let n = text.count
        // Balancing parentheses, found once with a stack, so `^(` never scans ahead: for each `(`,
        // the offset of its `)`, or -1. An array, not a dictionary: with many groups a dictionary's
        // lookups miss the cache, and the time would grow faster than the text.
        var closing: [Int32] = []
        if text.contains(UInt8(ascii: "(")) {
            closing = [Int32](repeating: -1, count: n)
            var opened: [Int32] = []
            for i in 0..<n where text[i] == UInt8(ascii: "(") || text[i] == UInt8(ascii: ")") {
                if text[i] == UInt8(ascii: "(") { opened.append(Int32(i)) } else if let open = opened.popLast() { closing[Int(open)] = Int32(i) }
            }
        }
        // The end of the word the scan is in: every `^` of one word shares it.
        var wordEnd = 0
        // The closing parentheses of the `^(…)` groups the scan is in, innermost last: a `^word`
        // inside one ends at its `)` at the latest.
        var groups: [Int] = []
        var i = 0
        while i < n {
            while let last = groups.last, last <= i { groups.removeLast() }
            guard text[i] == UInt8(ascii: "^"), i + 1 < n, !isSpace(text[i + 1]) else {
                i += 1
                continue
            }
            if text[i + 1] == UInt8(ascii: "("), !closing.isEmpty, closing[i + 1] >= 0 {
                let close = Int(closing[i + 1])
                // Superscripts inside the parentheses are found as the scan goes on.
                if close > i + 2 {
                    spans.append((i..<(i + 2), close..<(close + 1)))
                    groups.append(close)
                }
                i += 2
                continue
            }
            if wordEnd <= i {
                wordEnd = i + 1
                while wordEnd < n, !isSpace(text[wordEnd]) { wordEnd += 1 }
            }
            let end = min(wordEnd, groups.last ?? wordEnd)
            if end > i + 1 { spans.append((i..<(i + 1), end..<end)) }
            i += 1
        }
        return spans
    }

    /// Spoiler spans `>!…!<` with some text between; they do not nest.
    static func spoilers(in text: [UInt8]) -> [(open: Range<Int>, close: Range<Int>)] {
        var spans: [(open: Range<Int>, close: Range<Int>)] = []
        var i = 0
        let n = text.count
        while i + 1 < n {
            guard text[i] == UInt8(ascii: ">"), text[i + 1] == UInt8(ascii: "!") else {
                i += 1
                continue
            }
            var j = i + 3
            var close: Int? = nil
            while j + 1 < n {
                if text[j] == UInt8(ascii: "!") && text[j + 1] == UInt8(ascii: "<") {
                    close = j
                    break
                }
                j += 1
            }
            guard let close else { break }  // no later opener can close either
            spans.append((i..<(i + 2), close..<(close + 2)))
            i = close + 2
        }
        return spans
    }

    /// `r/sub`, `/r/sub`, `u/name` and `/u/name` (lower-case `r` and `u`, as Reddit) at a
    /// word's start, as links under `base`, with any path after the name (`/r/sub/wiki/faq`):
    /// names of 2–64 letters, digits, `_` and `-` (subreddits joined by `+` for a multireddit).
    static func links(in text: [UInt8], base: String) -> [MarkdownExtensions.Autolink] {
        var found: [MarkdownExtensions.Autolink] = []
        var i = 0
        let n = text.count
        while i + 2 < n {
            let byte = text[i]
            guard byte == UInt8(ascii: "r") || byte == UInt8(ascii: "u"), text[i + 1] == UInt8(ascii: "/") else {
                i += 1
                continue
            }
            var start = i
            if i > 0 && text[i - 1] == UInt8(ascii: "/") { start = i - 1 }
            guard start == 0 || !isNameByte(text[start - 1]) && text[start - 1] != UInt8(ascii: "/") && text[start - 1] != UInt8(ascii: "@") else {
                i += 1
                continue
            }
            // Nor after an escaped slash (`\/u/name`), which stands as U+E002 here (see `EscapedDelimiters`).
            if start >= 3, text[start - 3] == 0xEE, text[start - 2] == 0x80, text[start - 1] == 0x82 {
                i += 1
                continue
            }
            let subreddit = byte == UInt8(ascii: "r")
            var end = i + 2
            var nameStart = end
            var valid = true
            while true {
                while end < n, isNameByte(text[end]) || text[end] == UInt8(ascii: "-") { end += 1 }
                if !(2...64).contains(end - nameStart) {
                    valid = false
                    break
                }
                guard subreddit, end + 1 < n, text[end] == UInt8(ascii: "+"), isNameByte(text[end + 1]) else { break }
                end += 1
                nameStart = end
            }
            guard valid else {
                i = max(end, i + 1)
                continue
            }
            let nameEnd = end
            // A path after the name, up to white space, without trailing punctuation.
            if end < n, text[end] == UInt8(ascii: "/") {
                while end < n, isPathByte(text[end]) { end += 1 }
                while end > nameEnd,
                    [
                        UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: ";"), UInt8(ascii: "!"),
                        UInt8(ascii: "?"), UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: ")"),
                    ].contains(text[end - 1])
                { end -= 1 }
            } else if end < n, text[end] == UInt8(ascii: "."), end + 1 < n, isNameByte(text[end + 1]) {
                // `r/reddit.com`: a dotted name, as Reddit links it.
                end += 1
                while end < n, isNameByte(text[end]) || text[end] == UInt8(ascii: ".") { end += 1 }
                while end > nameEnd, text[end - 1] == UInt8(ascii: ".") { end -= 1 }
            }
            let path = String(decoding: text[(i + 2)..<end], as: UTF8.self)
            found.append(MarkdownExtensions.Autolink(range: start..<end, url: base + (subreddit ? "/r/" : "/user/") + path))
            i = end
        }
        return found
    }

    /// Reddit's line rules, applied to the text before cmark reads it (outside fenced code):
    /// - a line that starts (after quote markers) with `>!` and holds a closing `!<` is a spoiler,
    ///   not a quote: its `>` is escaped;
    /// - `#heading` needs no space after the `#`s: one is added;
    /// - `1)` does not start a list (Reddit knows only `1.`): its `)` is escaped.
    /// Returns nil when nothing changes.
    static func prepare(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        var copied = 0
        var changed = false
        var lineStart = 0
        var fence: UInt8 = 0
        let n = text.count
        func insert(_ byte: UInt8, at position: Int) {
            out.append(contentsOf: text[copied..<position])
            out.append(byte)
            copied = position
            changed = true
        }
        while lineStart < n {
            var lineEnd = lineStart
            while lineEnd < n, text[lineEnd] != 0x0A { lineEnd += 1 }
            defer { lineStart = lineEnd + 1 }
            var i = lineStart
            while i < lineEnd, text[i] == 0x20 { i += 1 }
            if i + 2 < lineEnd, text[i] == UInt8(ascii: "`") || text[i] == UInt8(ascii: "~"), text[i + 1] == text[i], text[i + 2] == text[i] {
                fence = fence == 0 ? text[i] : (fence == text[i] ? 0 : fence)
                continue
            }
            // A last line of one to three spaces ends at the text's end: nothing to read there.
            guard fence == 0, i < lineEnd, i - lineStart < 4 else { continue }
            // `#heading`: one to six '#' and then text.
            if text[i] == UInt8(ascii: "#") {
                var j = i
                while j < lineEnd, text[j] == UInt8(ascii: "#") { j += 1 }
                if j - i <= 6, j < lineEnd, text[j] != 0x20, text[j] != 0x09, text[j] != 0x0D { insert(0x20, at: j) }
                continue
            }
            // `1)`: digits, ')' and a space or the line's end.
            if text[i] >= 0x30 && text[i] <= 0x39 {
                var j = i
                while j < lineEnd, j - i < 9, text[j] >= 0x30 && text[j] <= 0x39 { j += 1 }
                if j < lineEnd, text[j] == UInt8(ascii: ")"), j + 1 == lineEnd || text[j + 1] == 0x20 || text[j + 1] == 0x09 || text[j + 1] == 0x0D {
                    insert(UInt8(ascii: "\\"), at: j)
                }
                continue
            }
            // Quote markers, each with its spaces; the last one right before '!'.
            var marker = -1
            while i < lineEnd, text[i] == UInt8(ascii: ">") {
                marker = i
                i += 1
                if i < lineEnd, text[i] == UInt8(ascii: "!") { break }
                while i < lineEnd, text[i] == 0x20 { i += 1 }
            }
            guard marker >= 0, i == marker + 1, i < lineEnd, text[i] == UInt8(ascii: "!") else { continue }
            var j = i + 1
            while j + 1 < lineEnd, !(text[j] == UInt8(ascii: "!") && text[j + 1] == UInt8(ascii: "<")) { j += 1 }
            guard j + 1 < lineEnd else { continue }
            insert(UInt8(ascii: "\\"), at: marker)
        }
        guard changed else { return nil }
        out.append(contentsOf: text[copied...])
        return out
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    private static func isPathByte(_ byte: UInt8) -> Bool {
        isNameByte(byte)
            || [
                UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "%"),
                UInt8(ascii: "?"), UInt8(ascii: "="), UInt8(ascii: "&"), UInt8(ascii: "#"), UInt8(ascii: ":"), UInt8(ascii: "~"),
            ].contains(byte)
    }
    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "_")
    }
}
