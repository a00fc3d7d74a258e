/// Lexes and parses Mustache source into `Template.Node`s in one pass (a delimiter change
/// alters how the rest is lexed, so the two cannot be separated).
///
/// Standalone lines: a section, inverted, closing, comment, partial or delimiter tag alone on
/// its line (only spaces or tabs around it) takes the whole line with it, newline included.
struct TemplateParser {
    let source: [UInt8]
    let file: String
    var position = 0
    var open: [UInt8] = Array("{{".utf8)
    var close: [UInt8] = Array("}}".utf8)
    /// Where the last tag ended: a tag is standalone only if no other tag shares its line.
    var lastTagEnd = 0
    /// The set's names: each name a tag uses gets its key here.
    var keys: TemplateKeys

    init(source: String, file: String, keys: TemplateKeys) {
        self.source = Array(source.utf8)
        self.file = file
        self.keys = keys
    }

    private struct OpenSection {
        var name: String
        var offset: Int
        /// The section's node, whose `end` is set when it closes.
        var node: Int
    }

    /// One tag as lexed: its sigil (0 for a plain variable), its trimmed content, and where it
    /// starts and ends in the source.
    private struct Tag {
        var sigil: UInt8
        var content: ArraySlice<UInt8>
        var start: Int
        var end: Int

        /// Section, inverted, closing, comment, partial and delimiter tags may stand alone on a line.
        var canStandAlone: Bool {
            [
                UInt8(ascii: "#"), UInt8(ascii: "^"), UInt8(ascii: "/"), UInt8(ascii: ">"),
                UInt8(ascii: "!"), UInt8(ascii: "="),
            ].contains(sigil)
        }
    }

    /// The template's nodes, flat: sections are closed by setting their `end`, so each tag costs
    /// constant work and nothing is copied as sections nest.
    mutating func parse() throws(ThreadfoldError) -> [Template.Node] {
        var nodes: [Template.Node] = []
        var stack: [OpenSection] = []
        var text: [UInt8] = []

        while position < source.count {
            guard let tagStart = find(open, from: position) else {
                text.append(contentsOf: source[position...])
                position = source.count
                break
            }
            text.append(contentsOf: source[position..<tagStart])
            let tag = try readTag(at: tagStart)
            var indent: [UInt8] = []
            var nextPosition = tag.end
            if tag.canStandAlone, let lineEnd = standaloneEnd(tagStart: tag.start, tagEnd: tag.end) {
                let lineStart = self.lineStart(before: tag.start)
                indent = Array(source[lineStart..<tag.start])
                text.removeLast(tag.start - lineStart)
                nextPosition = lineEnd
            }
            try add(tag, indent: indent, to: &nodes, stack: &stack, text: &text)
            position = nextPosition
            lastTagEnd = nextPosition
        }
        Self.flush(&text, into: &nodes)
        if let section = stack.last {
            throw error(at: section.offset, "section '\(section.name)' is never closed; expected '{{/\(section.name)}}'")
        }
        return nodes
    }

    private static func flush(_ text: inout [UInt8], into nodes: inout [Template.Node]) {
        if !text.isEmpty {
            nodes.append(.text(text))
            text.removeAll(keepingCapacity: true)
        }
    }

    /// The tag whose opening delimiter is at `tagStart`: its sigil, its content, and its end.
    private func readTag(at tagStart: Int) throws(ThreadfoldError) -> Tag {
        var cursor = tagStart + open.count
        guard cursor < source.count || find(close, from: cursor) != nil else {
            throw error(at: tagStart, "unclosed tag '\(string(open))'; expected '\(string(close))'")
        }
        var sigil: UInt8 = 0
        if cursor < source.count {
            switch source[cursor] {
            case UInt8(ascii: "#"), UInt8(ascii: "^"), UInt8(ascii: "/"), UInt8(ascii: ">"),
                UInt8(ascii: "!"), UInt8(ascii: "="), UInt8(ascii: "&"), UInt8(ascii: "{"):
                sigil = source[cursor]
                cursor += 1
            default: break
            }
        }
        var closing = close
        if sigil == UInt8(ascii: "{") { closing = Array("}".utf8) + close }
        if sigil == UInt8(ascii: "=") { closing = Array("=".utf8) + close }
        guard let contentEnd = find(closing, from: cursor) else {
            throw error(at: tagStart, "unclosed tag '\(string(open))'; expected '\(string(closing))'")
        }
        return Tag(sigil: sigil, content: trimmed(source[cursor..<contentEnd]), start: tagStart, end: contentEnd + closing.count)
    }

    /// What `tag` does: a node (the text before it flushed first), a section opened or closed, or
    /// new delimiters.
    private mutating func add(
        _ tag: Tag, indent: [UInt8], to nodes: inout [Template.Node], stack: inout [OpenSection], text: inout [UInt8]
    ) throws(ThreadfoldError) {
        let (sigil, content, tagStart) = (tag.sigil, tag.content, tag.start)
        switch sigil {
        case UInt8(ascii: "!"):
            break
        case UInt8(ascii: "="):
            let parts = content.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
            guard parts.count == 2, !parts[0].contains(UInt8(ascii: "=")), !parts[1].contains(UInt8(ascii: "=")) else {
                throw error(at: tagStart, "found '\(string(content))' in a delimiter tag; expected two delimiters separated by a space, like {{=<% %>=}}")
            }
            open = Array(parts[0])
            close = Array(parts[1])
        case UInt8(ascii: "#"), UInt8(ascii: "^"):
            let name = try validName(content, tagStart)
            Self.flush(&text, into: &nodes)
            stack.append(OpenSection(name: name, offset: tagStart, node: nodes.count))
            nodes.append(.section(Template.Name(name, keys: &keys), inverted: sigil == UInt8(ascii: "^"), end: nodes.count + 1))
        case UInt8(ascii: "/"):
            let name = try validName(content, tagStart)
            guard let open = stack.last else {
                throw error(at: tagStart, "found '{{/\(name)}}' but no section is open; expected a matching '{{#\(name)}}' before it")
            }
            guard open.name == name else {
                let (line, column) = location(open.offset)
                throw error(at: tagStart, "found '{{/\(name)}}'; expected '{{/\(open.name)}}' to close the section opened at \(line):\(column)")
            }
            Self.flush(&text, into: &nodes)
            stack.removeLast()
            if case .section(let sectionName, let inverted, _) = nodes[open.node] {
                nodes[open.node] = .section(sectionName, inverted: inverted, end: nodes.count)
            }
        case UInt8(ascii: ">"):
            let name = try validName(content, tagStart)
            Self.flush(&text, into: &nodes)
            nodes.append(.partial(name, indent: String(decoding: indent, as: UTF8.self), offset: tagStart))
        default:
            let name = try validName(content, tagStart)
            Self.flush(&text, into: &nodes)
            nodes.append(.variable(Template.Name(name, keys: &keys), escaped: sigil == 0))
        }
    }

    /// If the tag at `tagStart..<tagEnd` is alone on its line, the offset just past that line.
    ///
    /// Looks back from the tag only as far as the previous tag's end (or the first byte that is
    /// not a space or tab), never to the start of a long line: each byte is looked at a bounded
    /// number of times, so a line of 16,000 tags parses in linear time, not quadratic.
    private func standaloneEnd(tagStart: Int, tagEnd: Int) -> Int? {
        var start = tagStart
        while start > lastTagEnd && (source[start - 1] == 0x20 || source[start - 1] == 0x09) { start -= 1 }
        // Standalone needs the line to start at `start`: the source's start or just after a
        // newline, with no tag of this line before it (`lastTagEnd <= start`, which the loop keeps).
        guard start == 0 || source[start - 1] == 0x0A else { return nil }
        var i = tagEnd
        while i < source.count && (source[i] == 0x20 || source[i] == 0x09) { i += 1 }
        if i == source.count { return i }
        if source[i] == 0x0A { return i + 1 }
        if source[i] == 0x0D && i + 1 < source.count && source[i + 1] == 0x0A { return i + 2 }
        return nil
    }

    /// The start of the line holding `offset`, for a tag already known to be standalone (so
    /// only spaces and tabs lie between).
    private func lineStart(before offset: Int) -> Int {
        var i = offset
        while i > 0 && source[i - 1] != 0x0A { i -= 1 }
        return i
    }

    private func find(_ needle: [UInt8], from start: Int) -> Int? { ByteSearch.first(needle, in: source, from: start) }

    private func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 || last == 0x0A || last == 0x0D { slice = slice.dropLast() }
        return slice
    }

    private func validName(_ content: ArraySlice<UInt8>, _ offset: Int) throws(ThreadfoldError) -> String {
        guard !content.isEmpty else { throw error(at: offset, "found an empty tag; expected a name") }
        for byte in content where byte == 0x20 || byte == 0x09 || byte == 0x0A {
            throw error(at: offset, "found '\(string(content))'; expected a name without spaces")
        }
        return String(decoding: content, as: UTF8.self)
    }

    private func string<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        String(decoding: bytes, as: UTF8.self)
    }

    private func location(_ offset: Int) -> (Int, Int) {
        JSONDocument.location(in: source, offset: offset)
    }

    private func error(at offset: Int, _ message: String) -> ThreadfoldError {
        let (line, column) = location(offset)
        return ThreadfoldError.template(file: file, line: line, column: column, message: message)
    }
}
