/// The inline extensions of one flavour, turned from what they find in text into nodes: bare
/// URLs and Reddit's `r/` and `u/` names (outside links and images) into links,
/// `~~strikethrough~~`, `^superscripts` and `>!spoilers!<` into custom inline nodes. The scans
/// themselves are `MarkdownExtensions` and `RedditMarkdown`.
///
/// Spans are found among the children of each node that holds inline content, as one byte
/// string in which every other child stands as one byte, so `~~**bold** text~~` strikes both;
/// each child is looked at once.
struct InlineExtensions {
    var flavor: MarkdownFlavor
    var redditBase: String
    var spoilerLabel: String

    /// The words screen readers hear before a spoiler (made only when a body has one).
    var label: String { "<span class=\"tf-sr\">\(HTML(escaping: spoilerLabel).raw): </span>" }
    /// A spoiler's opening markup.
    var spoilerOpening: HTML { HTML(trusted: "<span class=\"tf-spoiler\" tabindex=\"0\">" + label) }
    /// The same inside a link, which may hold nothing focusable.
    var spoilerOpeningInLink: HTML { HTML(trusted: "<span class=\"tf-spoiler\">" + label) }
    /// A spoiler block's opening markup (`>!` starting a quote).
    var spoilerBlockOpening: HTML { HTML(trusted: "<div class=\"tf-spoiler tf-spoiler-block\" tabindex=\"0\">" + label) }

    /// A span an inline extension wraps: its delimiters and the element it becomes.
    struct Span {
        enum Kind { case strikethrough, superscript, spoiler }
        var open: Range<Int>
        var close: Range<Int>
        var kind: Kind
    }

    /// Applies the extensions under `root`.
    func apply(to root: CmarkNode) {
        for (container, insideLink) in containers(in: root) {
            apply(to: container, insideLink: insideLink)
        }
    }

    /// The nodes that hold inline content (paragraphs, headings, emphasis, links), in document
    /// order, each with whether it lies inside a link or an image.
    private func containers(in root: CmarkNode) -> [(node: CmarkNode, insideLink: Bool)] {
        var containers: [(node: CmarkNode, insideLink: Bool)] = []
        var insideLink = 0
        var walk = root.walk()
        while let step = walk.next() {
            let kind = step.node.kind
            if kind == .link || kind == .image { insideLink += step.entering ? 1 : -1 }
            guard step.entering else { continue }
            switch kind {
            case .paragraph, .heading, .emph, .strong, .link: containers.append((step.node, insideLink > 0))
            default: break
            }
        }
        return containers
    }

    /// Rebuilds the children of one container when the extensions find something in them.
    private func apply(to container: CmarkNode, insideLink: Bool) {
        // The children as one byte string: text as it is, a line break as '\n', any other node
        // as one 0x01 byte that stands for it.
        var bytes: [UInt8] = []
        var kept: [(at: Int, node: CmarkNode)] = []
        var texts: [CmarkNode] = []
        var child = container.firstChild
        while let node = child {
            child = node.next
            let kind = node.kind
            if kind == .text, let literal = node.literal {
                bytes.append(contentsOf: literal)
                texts.append(node)
            } else {
                kept.append((bytes.count, node))
                bytes.append(kind == .softBreak || kind == .lineBreak ? 0x0A : 0x01)
            }
        }
        guard !texts.isEmpty else { return }
        var spans = self.spans(in: bytes)
        let linking =
            !insideLink
            && texts.contains { node in
                guard let literal = node.literal else { return false }
                return !links(in: literal[...]).isEmpty
            }
        guard !spans.isEmpty || linking else { return }
        // A delimiter inside a bare URL is part of the URL (`https://x.example/^a`).
        if linking && !spans.isEmpty {
            let urls = links(in: bytes).map(\.range)
            if !urls.isEmpty {
                func inURL(_ range: Range<Int>) -> Bool {
                    urls.contains { $0.overlaps(range) || (range.isEmpty && $0.lowerBound < range.lowerBound && range.lowerBound < $0.upperBound) }
                }
                spans.removeAll { inURL($0.open) || inURL($0.close) }
            }
        }
        var builder = InlineBuilder(bytes: bytes, kept: kept, spans: Self.nested(spans), linking: linking, insideLink: insideLink, inline: self)
        var next = 0
        let built = builder.nodes(0..<bytes.count, &next)
        for node in texts { node.free() }
        for node in built { container.appendChild(node) }
    }

    /// The spans the flavour's scans find in `bytes`, strikethroughs first.
    private func spans(in bytes: [UInt8]) -> [Span] {
        var spans = MarkdownExtensions.strikethroughs(in: bytes).map { Span(open: $0.open, close: $0.close, kind: .strikethrough) }
        if flavor == .reddit {
            spans += RedditMarkdown.spoilers(in: bytes).map { Span(open: $0.open, close: $0.close, kind: .spoiler) }
            spans += RedditMarkdown.superscripts(in: bytes).map { Span(open: $0.open, close: $0.close, kind: .superscript) }
        }
        return spans
    }

    /// The spans that nest: sorted by start (outer first), each kept only when it lies inside the
    /// content of the kept span around it or after it, at most 16 deep; crossing spans are
    /// dropped. Linear after the sort.
    private static func nested(_ spans: [Span]) -> [Span] {
        guard spans.count > 1 else { return spans }
        // Deeper spans stay text, which bounds the builder's recursion.
        let maxDepth = 16
        let sorted = spans.sorted { ($0.open.lowerBound, -$0.close.upperBound) < ($1.open.lowerBound, -$1.close.upperBound) }
        var kept: [Span] = []
        var open: [Span] = []
        for span in sorted {
            while let top = open.last, top.close.upperBound <= span.open.lowerBound { open.removeLast() }
            if let top = open.last, !(span.open.lowerBound >= top.open.upperBound && span.close.upperBound <= top.close.lowerBound) { continue }
            if open.count >= maxDepth { continue }
            kept.append(span)
            open.append(span)
        }
        return kept
    }

    /// The links in `bytes`: GitHub's autolinks, and for Reddit its `r/` and `u/` names outside them.
    func links<Bytes: Collection<UInt8>>(in bytes: Bytes) -> [MarkdownExtensions.Autolink] {
        let text = Array(bytes)
        var found = MarkdownExtensions.autolinks(in: text)
        guard flavor == .reddit else { return found }
        let names = RedditMarkdown.links(in: text, base: redditBase)
        guard !names.isEmpty else { return found }
        let urls = found
        found += names.filter { name in !urls.contains { $0.range.overlaps(name.range) } }
        return found.sorted { $0.range.lowerBound < $1.range.lowerBound }
    }
}
