/// Delimiters typed with a backslash: before cmark reads a body, `\~` (and for Reddit `\^`,
/// `\/`, `\>`, `\!`, `\(`) become private-use characters U+E000…, which neither cmark nor an
/// extension reads as a delimiter; after the extensions, `restore` makes them the character
/// again (in code, the backslash and the character, as typed). A body that already holds one
/// of those private-use characters is left as it is.
struct EscapedDelimiters {
    let characters: [UInt8]
    /// Whether `protect` replaced anything, so there is something to restore.
    private(set) var used = false

    init(_ flavor: MarkdownFlavor) {
        switch flavor {
        case .commonmark: characters = []
        case .gfm: characters = Array("~".utf8)
        case .reddit: characters = Array("~^/>!(".utf8)
        }
    }

    /// The sentinel of `characters[k]`: U+E000 + k in UTF-8.
    static func sentinel(_ k: Int) -> [UInt8] { [0xEE, 0x80, 0x80 + UInt8(k)] }

    /// `text` with each escaped delimiter as its sentinel, or nil when there is none (or the
    /// text holds sentinels of its own).
    mutating func protect(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard !characters.isEmpty, ByteSearch.contains(UInt8(ascii: "\\"), in: text) else { return nil }
        // A body with the sentinels of its own is left alone.
        for i in 0..<max(0, text.count - 2) where text[i] == 0xEE && text[i + 1] == 0x80 && text[i + 2] >= 0x80 && text[i + 2] < 0x88 { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = 0
        while i < text.count {
            let byte = text[i]
            if byte == UInt8(ascii: "\\"), i + 1 < text.count {
                if let k = characters.firstIndex(of: text[i + 1]) {
                    out.append(contentsOf: Self.sentinel(k))
                    used = true
                    i += 2
                    continue
                }
                out.append(byte)
                out.append(text[i + 1])
                i += 2
                continue
            }
            out.append(byte)
            i += 1
        }
        return used ? out : nil
    }

    /// Puts the characters back in every node of `root`: in text, links' URLs and titles and
    /// code blocks' info strings as the character, in code and raw HTML as typed.
    func restore(in root: CmarkNode) {
        guard !characters.isEmpty else { return }
        var walk = root.walk()
        while let step = walk.next() {
            guard step.entering else { continue }
            let node = step.node
            switch node.kind {
            case .text:
                if let value = replaced(node.literal, backslash: false) { node.setLiteral(value) }
            case .code, .codeBlock, .htmlInline, .htmlBlock:
                if let value = replaced(node.literal, backslash: true) { node.setLiteral(value) }
                if let value = replaced(node.fenceInfo, backslash: false) { node.setFenceInfo(value) }
            case .link, .image:
                if let value = replaced(node.url, backslash: false) { node.setURL(value) }
                if let value = replaced(node.title, backslash: false) { node.setTitle(value) }
            default: break
            }
        }
    }

    /// `bytes` with each sentinel back as its character (after a backslash when `backslash`),
    /// or nil when there is none.
    private func replaced(_ bytes: UnsafeBufferPointer<UInt8>?, backslash: Bool) -> String? {
        guard let bytes, bytes.contains(0xEE) else { return nil }
        var out: [UInt8] = []
        var changed = false
        var i = 0
        while i < bytes.count {
            if i + 2 < bytes.count, bytes[i] == 0xEE, bytes[i + 1] == 0x80, bytes[i + 2] >= 0x80, Int(bytes[i + 2] - 0x80) < characters.count {
                if backslash { out.append(UInt8(ascii: "\\")) }
                out.append(characters[Int(bytes[i + 2] - 0x80)])
                changed = true
                i += 3
                continue
            }
            out.append(bytes[i])
            i += 1
        }
        return changed ? String(decoding: out, as: UTF8.self) : nil
    }
}
