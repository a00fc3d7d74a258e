/// GitHub's task list items: a list item whose text starts `[ ] ` or `[x] ` gets a disabled
/// checkbox in place of the brackets, named by the item's words as a label would name it
/// (axe-core's `label` rule).
enum TaskLists {
    /// The most bytes of a task box's name.
    static let nameLimit = 160

    /// Whether a body holds `[ ]`, `[x]` or `[X]` at all.
    static func mayHold(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        ByteSearch.any(UInt8(ascii: "["), in: text) { i in
            i + 2 < text.count && text[i + 2] == UInt8(ascii: "]") && (text[i + 1] == 0x20 || text[i + 1] | 0x20 == UInt8(ascii: "x"))
        }
    }

    static func apply(to document: CmarkNode) {
        var items: [(paragraph: CmarkNode, text: CmarkNode, checked: Bool)] = []
        var walk = document.walk()
        while let step = walk.next() {
            let node = step.node
            guard step.entering, node.kind == .item, let (paragraph, text) = node.leadingText,
                let bytes = text.literal, bytes.count >= 4,
                bytes[0] == UInt8(ascii: "["), bytes[2] == UInt8(ascii: "]"),
                bytes[3] == 0x20 || bytes[3] == 0x09
            else { continue }
            switch bytes[1] {
            case 0x20: items.append((paragraph, text, false))
            case UInt8(ascii: "x"), UInt8(ascii: "X"): items.append((paragraph, text, true))
            default: continue
            }
        }
        for (paragraph, text, checked) in items {
            guard let literal = text.literal else { continue }
            text.setLiteral(Array(literal[3...]))
            var opening = Array((checked ? #"<input type="checkbox" checked="" disabled="" aria-label=""# : #"<input type="checkbox" disabled="" aria-label=""#).utf8)
            HTML.escape(String(decoding: words(of: paragraph), as: UTF8.self), into: &opening)
            opening.append(contentsOf: "\">".utf8)
            guard let box = CmarkNode.custom(.customInline, onEnter: HTML(trusted: String(decoding: opening, as: UTF8.self)), onExit: "") else { continue }
            text.insertBefore(box)
        }
    }

    /// The text of `paragraph`'s inline content (its text and code spans), white space runs as
    /// one space, at most `nameLimit` bytes cut at a character's start: a task box's name.
    private static func words(of paragraph: CmarkNode) -> [UInt8] {
        var out: [UInt8] = []
        var walk = paragraph.walk()
        while out.count < nameLimit, let step = walk.next() {
            guard step.entering else { continue }
            let node = step.node, kind = node.kind
            if kind == .softBreak || kind == .lineBreak {
                out.append(0x20)
                continue
            }
            guard kind == .text || kind == .code, let literal = node.literal else { continue }
            out.append(contentsOf: literal)
        }
        var words: [UInt8] = []
        for byte in out where !(byte == 0x20 && (words.last == 0x20 || words.isEmpty)) {
            words.append(byte == 0x09 || byte == 0x0A ? 0x20 : byte)
        }
        while words.last == 0x20 { words.removeLast() }
        guard words.count > nameLimit else { return words }
        var end = nameLimit
        while end > 0, words[end] & 0xC0 == 0x80 { end -= 1 }
        return Array(words[..<end])
    }
}
