/// Reddit shows raw HTML as typed (`I think you forgot a <sarcasm>`): inline HTML becomes
/// text, and an HTML block a paragraph of its lines.
enum RawHTMLAsText {
    static func apply(to document: CmarkNode) {
        var found: [CmarkNode] = []
        var walk = document.walk()
        while let step = walk.next() {
            let kind = step.node.kind
            if step.entering && (kind == .htmlInline || kind == .htmlBlock) { found.append(step.node) }
        }
        for node in found {
            guard let literal = node.literal else { continue }
            var bytes = Array(literal)
            if node.kind == .htmlInline {
                guard let text = CmarkNode.make(.text) else { continue }
                text.setLiteral(bytes)
                node.insertBefore(text)
            } else {
                guard let paragraph = CmarkNode.make(.paragraph) else { continue }
                while bytes.last == 0x0A || bytes.last == 0x0D { bytes.removeLast() }
                for (k, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
                    if k > 0, let softBreak = CmarkNode.make(.softBreak) { paragraph.appendChild(softBreak) }
                    guard let text = CmarkNode.make(.text) else { continue }
                    text.setLiteral(Array(line))
                    paragraph.appendChild(text)
                }
                node.insertBefore(paragraph)
            }
            node.free()
        }
    }
}
