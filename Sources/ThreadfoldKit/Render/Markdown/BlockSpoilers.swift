/// Reddit's spoiler blocks: a quote typed `>!…` (no space between `>` and `!`) is covered
/// like an inline spoiler; the `!` that starts each line, and a closing `!<`, go.
enum BlockSpoilers {
    static func apply(to document: CmarkNode, source: UnsafeBufferPointer<UInt8>, _ inline: InlineExtensions) {
        for quote in spoilerQuotes(in: document, source: source) {
            guard let block = CmarkNode.custom(.customBlock, onEnter: inline.spoilerBlockOpening, onExit: "</div>") else { continue }
            quote.insertBefore(block)
            guard block.appendChild(quote) else {
                block.free()
                continue
            }
            var child = quote.firstChild
            while let paragraph = child {
                child = paragraph.next
                if paragraph.kind == .paragraph { removeMarkers(paragraph) }
            }
        }
    }

    /// The block quotes typed `>!`: their first paragraph starts with a `!` that stands right
    /// after the quote's `>` in the source.
    private static func spoilerQuotes(in document: CmarkNode, source: UnsafeBufferPointer<UInt8>) -> [CmarkNode] {
        var quotes: [CmarkNode] = []
        var lineStarts: [Int] = []
        var walk = document.walk()
        while let step = walk.next() {
            let node = step.node
            guard step.entering, node.kind == .blockQuote, let (paragraph, text) = node.leadingText,
                let literal = text.literal, literal.first == UInt8(ascii: "!")
            else { continue }
            if lineStarts.isEmpty { lineStarts = SourceLines.starts(in: source) }
            let line = paragraph.startLine - 1
            let column = paragraph.startColumn - 1
            guard line >= 0, line < lineStarts.count, column >= 1 else { continue }
            let at = lineStarts[line] + column
            guard at < source.count, source[at] == UInt8(ascii: "!"), source[at - 1] == UInt8(ascii: ">") else { continue }
            quotes.append(node)
        }
        return quotes
    }

    /// Takes out of `paragraph`'s text the `!` (and the spaces after it) that starts each line,
    /// and a closing `!<` at its end.
    private static func removeMarkers(_ paragraph: CmarkNode) {
        var lineStart = true
        var child = paragraph.firstChild
        while let node = child {
            child = node.next
            let kind = node.kind
            if kind == .softBreak || kind == .lineBreak {
                lineStart = true
                continue
            }
            if kind == .text, let literal = node.literal {
                var start = 0
                var end = literal.count
                if lineStart, literal.first == UInt8(ascii: "!") {
                    start = 1
                    while start < end, literal[start] == 0x20 { start += 1 }
                }
                if child == nil, end - start >= 2, literal[end - 2] == UInt8(ascii: "!"), literal[end - 1] == UInt8(ascii: "<") {
                    end -= 2
                }
                node.setLiteral(Array(literal[start..<end]))
            }
            lineStart = false
        }
    }
}
