/// Links and images whose URL `URLPolicy` refuses, and links inside links (invalid HTML: an
/// autolink in a link's text), are unwrapped: their text stays, the URL goes.
enum RefusedURLs {
    static func remove(from root: CmarkNode) {
        var refused: [CmarkNode] = []
        var links = 0
        var walk = root.walk()
        while let step = walk.next() {
            let node = step.node, kind = node.kind
            guard kind == .link || kind == .image else { continue }
            if kind == .link { links += step.entering ? 1 : -1 }
            guard step.entering else { continue }
            // The URL's bytes read where cmark keeps them, not copied into a String.
            let url = node.url ?? UnsafeBufferPointer(start: nil, count: 0)
            let allowed = kind == .link ? URLPolicy.allowsLink(url) : URLPolicy.allowsImage(url)
            if !allowed || (kind == .link && links > 1) { refused.append(node) }
        }
        for node in refused {
            while let child = node.firstChild { node.insertBefore(child) }
            node.free()
        }
    }
}
