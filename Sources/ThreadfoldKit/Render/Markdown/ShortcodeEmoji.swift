/// Discourse's and GitHub's `:name:` shortcodes shown as their emoji (`EmojiShortcodes`), in
/// text nodes only: code spans and blocks are other node types, so they keep theirs.
enum ShortcodeEmoji {
    static func apply(to document: CmarkNode) {
        var texts: [CmarkNode] = []
        var walk = document.walk()
        while let step = walk.next() {
            if step.entering && step.node.kind == .text { texts.append(step.node) }
        }
        for node in texts {
            guard let literal = node.literal else { continue }
            let text = String(decoding: literal, as: UTF8.self)
            let replaced = EmojiShortcodes.replacing(in: text)
            if replaced != text { node.setLiteral(Array(replaced.utf8)) }
        }
    }
}
