/// What Pagefind indexes of one page, read from the page as Threadfold wrote it, in the form of
/// Pagefind's own reading of HTML (its `fossick` parser), so a record sent through its service
/// (`AddRecord`) gives the fragment a crawl of the page would: the text of the element marked
/// `data-pagefind-body`, without `data-pagefind-ignore` subtrees and the elements Pagefind
/// drops (`nav`, `script`, …); ` ___PAGEFIND_ANCHOR___tag:n:id ` where an element with an `id`
/// opens, so a result can link to the comment; headings weighted as Pagefind weights them;
/// block elements ended as sentences; `data-pagefind-filter` and `data-pagefind-meta` values
/// anywhere in the page, ignored parts too.
///
/// The pages are Threadfold's own (attributes in double quotes, entities its escaper and cmark
/// write), so a scan of tags suffices where Pagefind needs an HTML parser. Text that would read
/// as one of Pagefind's markers (`___PAGEFIND_…`) is broken up, so no comment can add anchors or
/// weights of its own.
struct PagefindRecord: Equatable {
    var content = ""
    var language = "unknown"
    var title: String?
    var filters: [(name: String, values: [String])] = []

    static func == (a: PagefindRecord, b: PagefindRecord) -> Bool {
        a.content == b.content && a.language == b.language && a.title == b.title
            && a.filters.map(\.name) == b.filters.map(\.name) && a.filters.map(\.values) == b.filters.map(\.values)
    }

    /// The record of `page`, or nil when nothing in it is marked `data-pagefind-body` (Pagefind
    /// leaves such a page out when any page has the mark).
    static func read(_ page: [UInt8]) -> PagefindRecord? {
        var reader = Reader(page: page)
        reader.scan()
        guard reader.sawBody else { return nil }
        var record = reader.record
        record.content = Self.collapse(reader.text)
        return record
    }

    /// Runs of white space as one space, none at the ends (Pagefind's `normalize_content`).
    static func collapse(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var space = false
        for byte in bytes {
            if byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D || byte == 0x0C {
                space = !out.isEmpty
            } else {
                if space { out.append(0x20) }
                space = false
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// One open element: its name, where its text began (in `captured` for a filter or meta
    /// element, else in `text`), and what it is to Pagefind.
    private struct Open {
        var name: String, start: Int
        /// Left out of the text (`data-pagefind-ignore`, or an element Pagefind drops), or the body.
        var skipped: Bool, body: Bool
        /// Its `data-pagefind-filter` and `data-pagefind-meta` names.
        var filter: String?, meta: String?
    }

    private struct Reader {
        let page: [UInt8]
        var i = 0
        var stack: [Open] = []
        /// The indexed text, and the text of the open elements that give a filter or meta value
        /// (ignored ones too).
        var text: [UInt8] = []
        var captured: [UInt8] = []
        var capturing = 0
        var record = PagefindRecord()
        /// Each of `record.filters`' values as a set, so a page with many authors lists each once in linear time.
        var seenValues: [Set<String>] = []
        var sawBody = false
        var inBody = 0
        var skipping = 0
        var anchors = 0

        init(page: [UInt8]) { self.page = page }

        mutating func scan() {
            while i < page.count {
                if page[i] == UInt8(ascii: "<") {
                    tag()
                } else {
                    let end = page[i...].firstIndex(of: UInt8(ascii: "<")) ?? page.count
                    let indexed = inBody > 0 && skipping == 0
                    if capturing > 0 || indexed {
                        let run = page[i..<end]
                        if run.contains(UInt8(ascii: "&")) {
                            let decoded = PagefindRecord.decode(run)
                            if capturing > 0 { captured += decoded }
                            if indexed { addText(decoded) }
                        } else {
                            if capturing > 0 { captured += run }
                            if indexed { addText(run) }
                        }
                    }
                    i = end
                }
            }
        }

        /// A tag at `i`: a comment, a doctype, a start tag or an end tag.
        mutating func tag() {
            if page[i...].starts(with: "<!--".utf8) {
                i = ByteSearch.first(Array("-->".utf8), in: page, from: i + 4).map { $0 + 3 } ?? page.count
                return
            }
            guard let close = PagefindRecord.tagEnd(page, from: i) else {
                i = page.count
                return
            }
            let inside = page[(i + 1)..<close]
            i = close + 1
            if inside.first == UInt8(ascii: "/") {
                end(PagefindRecord.name(inside.dropFirst()))
            } else if inside.first != UInt8(ascii: "!") && inside.first != UInt8(ascii: "?") {
                start(inside)
            }
        }

        /// Appends the page's own text, with any `___PAGEFIND` it spells broken up, also where it
        /// is spelt across an inline tag (`__<em>_PAGEFIND…`). Markers this reader writes end in
        /// a space, so a spelling that reaches back into the last ten bytes is the page's own.
        mutating func addText<C: Collection<UInt8>>(_ run: C) {
            let from = max(0, text.count - 10)
            text += run
            let marker = PagefindRecord.marker
            var k = from
            while k + marker.count <= text.count && !(text[k] == marker[0] && text[k..<(k + marker.count)].elementsEqual(marker)) { k += 1 }
            guard k + marker.count <= text.count else { return }
            let tail = PagefindRecord.defused(Array(text[from...]))
            text.removeSubrange(from...)
            text += tail
        }

        mutating func start(_ inside: ArraySlice<UInt8>) {
            let name = PagefindRecord.name(inside)
            let attributes = PagefindRecord.attributes(inside.dropFirst(name.utf8.count))
            func value(_ key: Attribute) -> String? { attributes[key.rawValue] }
            if name == "html", let lang = value(.lang), !lang.isEmpty { record.language = lang }
            let body = value(.body) != nil
            if body { sawBody = true }
            let skipped = PagefindRecord.removed.contains(name) || value(.ignore) != nil
            var open = Open(name: name, start: 0, skipped: skipped, body: body, filter: value(.filter), meta: value(.meta))
            if inBody > 0 && skipping == 0 && !skipped {
                if let id = value(.id) {
                    text += " ___PAGEFIND_ANCHOR___\(name):\(anchors):\(id) ".utf8
                    anchors += 1
                }
                if let weight = PagefindRecord.headingWeight(name) { text += " ___PAGEFIND_AUTO_WEIGHT___\(weight) ".utf8 }
                if PagefindRecord.sentences.contains(name) || name == "br" { text.append(0x20) }
            }
            open.start = text.count
            if open.filter != nil || open.meta != nil {
                open.start = captured.count
                capturing += 1
            }
            guard !PagefindRecord.void.contains(name) else {
                finish(open, indexed: inBody > 0 && skipping == 0 && !skipped)
                return
            }
            if body { inBody += 1 }
            if skipped { skipping += 1 }
            stack.append(open)
        }

        /// The end tag `name`: closes the innermost open element of that name and any left open
        /// inside it (as a browser does with well-formed pages; a stray end tag is ignored).
        mutating func end(_ name: String) {
            guard let at = stack.lastIndex(where: { $0.name == name }) else { return }
            while stack.count > at {
                let open = stack.removeLast()
                if open.body { inBody -= 1 }
                if open.skipped { skipping -= 1 }
                finish(open, indexed: inBody > 0 && skipping == 0 && !open.skipped)
            }
        }

        /// What an element adds when it ends: its sentence end and weight in the indexed text,
        /// its filter or meta value from all of its text.
        mutating func finish(_ open: Open, indexed: Bool) {
            if open.filter != nil || open.meta != nil {
                capturing -= 1
                let found = PagefindRecord.collapse(Array(captured[open.start...]))
                if capturing == 0 { captured.removeAll(keepingCapacity: true) }
                add(filter: open.filter, meta: open.meta, found)
                return
            }
            guard indexed else { return }
            if PagefindRecord.sentences.contains(open.name) {
                if text.count > open.start, PagefindRecord.endsSentence(text[open.start...]) { text.append(UInt8(ascii: ".")) }
                text.append(0x20)
            }
            if PagefindRecord.headingWeight(open.name) != nil { text += " ___END_PAGEFIND_WEIGHT___ ".utf8 }
        }

        mutating func add(filter: String?, meta: String?, _ found: String) {
            if let filter, !filter.isEmpty, !found.isEmpty {
                if let k = record.filters.firstIndex(where: { $0.name == filter }) {
                    if seenValues[k].insert(found).inserted { record.filters[k].values.append(found) }
                } else {
                    record.filters.append((filter, [found]))
                    seenValues.append([found])
                }
            }
            if meta == "title" && record.title == nil { record.title = found }
        }
    }

    static let sentences: Set<String> = ["h1", "h2", "h3", "h4", "h5", "h6", "p", "td", "div", "ul", "li", "article", "section"]
    static let removed: Set<String> = ["head", "style", "script", "noscript", "label", "form", "svg", "footer", "nav", "iframe", "template"]
    static let void: Set<String> = ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]

    static func headingWeight(_ name: String) -> Int? {
        switch name {
        case "h1": return 7
        case "h2": return 6
        case "h3": return 5
        case "h4": return 4
        case "h5": return 3
        case "h6": return 2
        default: return nil
        }
    }

    /// The tag name at the start of `bytes`, lower-cased.
    static func name(_ bytes: ArraySlice<UInt8>) -> String {
        let name = bytes.prefix { isNameByte($0) }
        guard name.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return String(decoding: name, as: UTF8.self) }
        return String(decoding: lowercase(name), as: UTF8.self)
    }

    /// Whether Pagefind ends a block whose text is `text` with a full stop: when its last
    /// character is a word character (Unicode's, as Rust's `\w`), a quote, `)`, `$` or `*`.
    static func endsSentence(_ text: ArraySlice<UInt8>) -> Bool {
        if let last = text.last, last < 0x80 {
            switch last {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
            default: return "'\")$*_".utf8.contains(last)
            }
        }
        var start = text.endIndex - 1
        while start > text.startIndex && text[start] & 0xC0 == 0x80 { start -= 1 }
        guard let scalar = String(decoding: text[start...], as: UTF8.self).unicodeScalars.last else { return false }
        if "'\")$*_".unicodeScalars.contains(scalar) || scalar.properties.isAlphabetic || scalar.properties.isJoinControl { return true }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .connectorPunctuation: return true
        default: return false
        }
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09, 0x0A, 0x0C, 0x0D, 0x20, UInt8(ascii: "/"), UInt8(ascii: ">"): return false
        default: return true
        }
    }

    static func lowercase<S: Sequence<UInt8>>(_ bytes: S) -> [UInt8] {
        bytes.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }
    }

    /// The `>` that ends the tag opened at `from`, outside quoted attribute values.
    static func tagEnd(_ page: [UInt8], from: Int) -> Int? {
        var quote: UInt8 = 0
        var k = from + 1
        while k < page.count {
            let byte = page[k]
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                return k
            }
            k += 1
        }
        return nil
    }

    /// The attributes Pagefind's reading needs, by their index in `Attribute`.
    enum Attribute: Int, CaseIterable {
        case body, ignore, filter, meta, id, lang

        var name: String {
            switch self {
            case .body: return "data-pagefind-body"
            case .ignore: return "data-pagefind-ignore"
            case .filter: return "data-pagefind-filter"
            case .meta: return "data-pagefind-meta"
            case .id: return "id"
            case .lang: return "lang"
            }
        }

        static func of(_ name: ArraySlice<UInt8>) -> Attribute? {
            guard name.count == 2 || name.count == 4 || name.count >= 17 else { return nil }
            let text = name.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) ? String(decoding: lowercase(name), as: UTF8.self) : String(decoding: name, as: UTF8.self)
            return allCases.first { $0.name == text }
        }
    }

    /// The values of the attributes in `Attribute` of a start tag's inside after its name
    /// (decoded; the first of a name counts, as in HTML), by their index.
    static func attributes(_ bytes: ArraySlice<UInt8>) -> [String?] {
        var found = [String?](repeating: nil, count: Attribute.allCases.count)
        var k = bytes.startIndex
        let end = bytes.endIndex
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D || b == 0x0C || b == UInt8(ascii: "/") }
        while k < end {
            while k < end && isSpace(bytes[k]) { k += 1 }
            let nameStart = k
            while k < end && !isSpace(bytes[k]) && bytes[k] != UInt8(ascii: "=") { k += 1 }
            guard k > nameStart else { break }
            let attribute = Attribute.of(bytes[nameStart..<k])
            var value = bytes[k..<k]
            if k < end && bytes[k] == UInt8(ascii: "=") {
                k += 1
                if k < end && (bytes[k] == UInt8(ascii: "\"") || bytes[k] == UInt8(ascii: "'")) {
                    let quote = bytes[k]
                    let valueStart = k + 1
                    k = valueStart
                    while k < end && bytes[k] != quote { k += 1 }
                    value = bytes[valueStart..<k]
                    k += 1
                } else {
                    let valueStart = k
                    while k < end && !isSpace(bytes[k]) { k += 1 }
                    value = bytes[valueStart..<k]
                }
            }
            if let attribute, found[attribute.rawValue] == nil { found[attribute.rawValue] = String(decoding: decode(value), as: UTF8.self) }
        }
        return found
    }

    /// Text with its character references decoded: numeric ones, and the named ones
    /// Threadfold's escaper, cmark and the sanitizer write (others are left as they are).
    static func decode(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        guard bytes.contains(UInt8(ascii: "&")) else { return Array(bytes) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var k = bytes.startIndex
        while k < bytes.endIndex {
            guard bytes[k] == UInt8(ascii: "&"), let semi = bytes[k..<min(k + 12, bytes.endIndex)].firstIndex(of: UInt8(ascii: ";")),
                let decoded = entity(bytes[(k + 1)..<semi])
            else {
                out.append(bytes[k])
                k += 1
                continue
            }
            out += decoded
            k = semi + 1
        }
        return out
    }

    static func entity(_ name: ArraySlice<UInt8>) -> [UInt8]? {
        switch String(decoding: name, as: UTF8.self) {
        case "amp": return [UInt8(ascii: "&")]
        case "lt": return [UInt8(ascii: "<")]
        case "gt": return [UInt8(ascii: ">")]
        case "quot": return [UInt8(ascii: "\"")]
        case "apos": return [UInt8(ascii: "'")]
        case "nbsp": return [0xC2, 0xA0]
        case let text where text.hasPrefix("#"):
            let digits = text.dropFirst()
            let code = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            guard let code, let scalar = Unicode.Scalar(code), code != 0 else { return nil }
            return Array(String(Character(scalar)).utf8)
        default: return nil
        }
    }

    /// `text` with every `___PAGEFIND` broken up (`_ __PAGEFIND`), so it cannot be read as one
    /// of Pagefind's markers.
    static let marker = Array("___PAGEFIND".utf8)

    static func defused(_ text: [UInt8]) -> [UInt8] {
        guard text.count >= marker.count, ByteSearch.first(marker, in: text) != nil else { return text }
        var out: [UInt8] = []
        var k = 0
        while k < text.count {
            if text[k] == UInt8(ascii: "_") && text[k...].starts(with: marker) {
                out += Array("_ __PAGEFIND".utf8)
                k += marker.count
            } else {
                out.append(text[k])
                k += 1
            }
        }
        return out
    }
}
