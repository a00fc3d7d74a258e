/// Builds the new children of one inline container from its byte string (see
/// `InlineExtensions`): text and links, the container's other children where they stood, and
/// spans around their content. Spans nest at most 16 deep (`InlineExtensions.nested`), which
/// bounds the recursion of `nodes`.
struct InlineBuilder {
    typealias Span = InlineExtensions.Span

    let bytes: [UInt8]
    /// The container's children that are not text, with where each stands in `bytes`.
    let kept: [(at: Int, node: CmarkNode)]
    let spans: [Span]
    /// Whether bare URLs (and Reddit's names) become links: not inside a link.
    let linking: Bool
    let insideLink: Bool
    let inline: InlineExtensions
    /// The next of `kept` that `nodes` has not yet placed.
    var nextKept = 0

    /// The nodes for `range`, with the spans starting at `spans[next]` that lie in it.
    mutating func nodes(_ range: Range<Int>, _ next: inout Int) -> [CmarkNode] {
        var result: [CmarkNode] = []
        var at = range.lowerBound
        while next < spans.count, spans[next].open.lowerBound >= at, spans[next].close.upperBound <= range.upperBound {
            let span = spans[next]
            next += 1
            result += pieces(at..<span.open.lowerBound)
            guard let wrapper = wrapper(span.kind) else { continue }
            for child in nodes(span.open.upperBound..<span.close.lowerBound, &next) {
                wrapper.appendChild(child)
            }
            result.append(wrapper)
            at = span.close.upperBound
        }
        result += pieces(at..<range.upperBound)
        return result
    }

    /// The custom inline node a span of `kind` becomes.
    private func wrapper(_ kind: Span.Kind) -> CmarkNode? {
        switch kind {
        case .strikethrough:
            return CmarkNode.custom(.customInline, onEnter: "<del>", onExit: "</del>")
        case .superscript:
            return CmarkNode.custom(.customInline, onEnter: "<sup>", onExit: "</sup>")
        case .spoiler:
            // A link holds nothing focusable: there the link's own focus shows the spoiler.
            return CmarkNode.custom(.customInline, onEnter: insideLink ? inline.spoilerOpeningInLink : inline.spoilerOpening, onExit: "</span>")
        }
    }

    /// Text (with its links) and the kept nodes that stand in `range`.
    private mutating func pieces(_ range: Range<Int>) -> [CmarkNode] {
        var result: [CmarkNode] = []
        var at = range.lowerBound
        while nextKept < kept.count, kept[nextKept].at < range.upperBound {
            let (position, node) = kept[nextKept]
            nextKept += 1
            guard position >= at else { continue }
            result += textAndLinks(bytes[at..<position])
            result.append(node)
            at = position + 1
        }
        result += textAndLinks(bytes[at..<range.upperBound])
        return result
    }

    /// Text nodes, and link nodes when `linking`, for `bytes`, which is text.
    private func textAndLinks(_ bytes: ArraySlice<UInt8>) -> [CmarkNode] {
        guard !bytes.isEmpty else { return [] }
        var result: [CmarkNode] = []
        var at = bytes.startIndex
        func text(_ end: Int) {
            guard end > at, let node = CmarkNode.make(.text) else { return }
            node.setLiteral(Array(bytes[at..<end]))
            result.append(node)
        }
        for link in linking ? inline.links(in: bytes) : [] {
            let range = (link.range.lowerBound + bytes.startIndex)..<(link.range.upperBound + bytes.startIndex)
            guard URLPolicy.allowsLink(link.url), let node = CmarkNode.make(.link), let label = CmarkNode.make(.text) else { continue }
            text(range.lowerBound)
            node.setURL(link.url)
            label.setLiteral(Array(bytes[range]))
            node.appendChild(label)
            result.append(node)
            at = range.upperBound
        }
        text(bytes.endIndex)
        return result
    }
}
