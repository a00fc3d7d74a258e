import Ccmark
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How comment bodies are rendered.
public struct MarkdownOptions: Sendable, Hashable {
    /// Curly quotes, dashes and ellipses (cmark's SMART option).
    public var smart = false
    /// Whether single newlines become line breaks, or nil (the default) for the flavour's way:
    /// yes for GFM and CommonMark, as people typing into a forum box expect; no for Reddit,
    /// whose renderer joins the lines of a paragraph.
    public var hardBreaks: Bool? = nil
    /// The dialect of every body, or nil (the default) for the one the source implies: `reddit`
    /// for Reddit exports, `gfm` for everything else.
    public var flavor: MarkdownFlavor? = nil
    /// Where Reddit's `r/sub` and `u/name` links point.
    public var redditBase = "https://www.reddit.com"
    /// Bodies longer than this many UTF-8 bytes skip cmark and are shown as plain text, which
    /// bounds the time any one body can take.
    public var maxBytes = 256 * 1024
    /// Bodies with more `![` image openers than this are shown as plain text: Debian's cmark
    /// 0.30.2 is quadratic in them (CVE-2023-22486; 40,000 took 2.7 s).
    public var maxImageOpeners = 2_000
    /// Bodies with block quotes nested deeper than this are shown as plain text: deep quotes
    /// followed by emphasis runs are quadratic in cmark 0.30.2 (CVE-2023-24824).
    public var maxQuoteDepth = 200

    public init(smart: Bool = false, hardBreaks: Bool? = nil, maxBytes: Int = 256 * 1024) {
        self.smart = smart
        self.hardBreaks = hardBreaks
        self.maxBytes = maxBytes
    }
}

/// Renders untrusted Markdown to safe HTML with cmark. The only file that imports `Ccmark`.
///
/// Never uses `CMARK_OPT_UNSAFE`: raw HTML in bodies is omitted. Links and images are checked
/// against `URLPolicy` before rendering; a refused one keeps its text and loses its URL. Links
/// get `rel="nofollow ugc noopener"`, images `loading="lazy"`.
package struct MarkdownRenderer: Sendable {
    package let options: MarkdownOptions

    /// The version of the cmark header this was compiled against (`threadfold --version`).
    package static let cmarkVersion = CMARK_VERSION_STRING

    package init(options: MarkdownOptions = MarkdownOptions()) { self.options = options }

    /// Renders `markdown` in the flavour the options name, else `sourceFlavor` (the one its
    /// importer chose), else GFM. `spoilerLabel` is what screen readers hear before a spoiler.
    /// With `emoji`, a `:name:` shortcode in text (not in code) is shown as its emoji
    /// (`EmojiShortcodes`), as Discourse and GitHub show them.
    package func render(_ markdown: String, sourceFlavor: MarkdownFlavor? = nil, spoilerLabel: String = "Spoiler", emoji: Bool = false) -> HTML {
        if markdown.utf8.count > options.maxBytes || isPathological(markdown) { return plainText(markdown) }
        let flavor = options.flavor ?? sourceFlavor ?? .gfm
        // cmark copies control characters and noncharacters through; HTML forbids them.
        let text = HTML.scrub(markdown)
        let hardBreaks = options.hardBreaks ?? (flavor != .reddit)
        if !options.smart, let html = Self.plainParagraphs(text, flavor: flavor, hardBreaks: hardBreaks) {
            // Plain paragraphs are text, `<p>` and `<br>`: a shortcode's name holds none of `<>&;`.
            return emoji ? HTML(trusted: EmojiShortcodes.replacing(in: html.raw)) : html
        }
        return renderWithCmark(text, flavor: flavor, hardBreaks: hardBreaks, spoilerLabel: spoilerLabel, emoji: emoji) ?? plainText(markdown)
    }

    /// `text` as `PlainMarkdown` renders it, when it is plain paragraphs and none of the
    /// flavour's extensions would find anything in it; nil otherwise.
    static func plainParagraphs(_ text: String, flavor: MarkdownFlavor, hardBreaks: Bool) -> HTML? {
        var text = text
        return text.withUTF8 { PlainMarkdown.html($0, flavor: flavor, hardBreaks: hardBreaks) }
            .map { HTML(trusted: String(decoding: $0, as: UTF8.self)) }
    }

    /// `text` (scrubbed) rendered by cmark and the flavour's extensions, or nil if cmark fails.
    func renderWithCmark(_ text: String, flavor: MarkdownFlavor, hardBreaks: Bool, spoilerLabel: String, emoji: Bool = false) -> HTML? {
        var text = text
        // The extensions' delimiters typed with a backslash (`\~`, `\^`) stand as private-use
        // characters while cmark and the extensions read the text, so they stay as typed.
        var escapes = Escapes(flavor)
        if let protected = text.withUTF8({ escapes.protect($0) }) { text = String(decoding: protected, as: UTF8.self) }
        if flavor == .reddit, let prepared = text.withUTF8({ RedditMarkdown.prepare($0) }) {
            text = String(decoding: prepared, as: UTF8.self)
        }
        var parseOptions = CMARK_OPT_VALIDATE_UTF8
        if options.smart { parseOptions |= CMARK_OPT_SMART }
        var renderOptions = CMARK_OPT_DEFAULT
        if hardBreaks { renderOptions |= CMARK_OPT_HARDBREAKS }
        let inline = InlineExtensions(flavor: flavor, redditBase: options.redditBase, spoilerLabel: spoilerLabel)

        // Every node and buffer of this body (its document, the nodes the extensions add, the
        // documents of table cells) comes from one allocator: this thread's arena, reset once per
        // body instead of dozens of mallocs and frees (they were a sixth of rendering short
        // bodies). cmark frees a tree with its root's allocator, so they must never mix.
        CmarkArena.begin()
        defer { CmarkArena.end() }
        let html: HTML? = text.withUTF8 { buffer in
            guard let document = Self.parse(buffer, parseOptions) else { return nil }
            defer { cmark_node_free(document) }
            if flavor != .commonmark {
                if MarkdownTable.mayHold(buffer) {
                    applyTables(document, source: buffer, parseOptions: parseOptions, renderOptions: renderOptions, inline: inline)
                }
                let tasks = flavor == .gfm && Self.mayHoldTask(buffer)
                let spans = MarkdownExtensions.mayApply(buffer) || (flavor == .reddit && RedditMarkdown.mayApply(buffer))
                if tasks || spans { cmark_consolidate_text_nodes(document) }
                if tasks { applyTaskLists(document) }
                if spans { applyInlineExtensions(document, inline) }
                if flavor == .reddit {
                    if ByteSearch.contains(UInt8(ascii: "<"), in: buffer) { rawHTMLAsText(document) }
                    if ByteSearch.contains(UInt8(ascii: "!"), in: buffer) { applyBlockSpoilers(document, source: buffer, inline) }
                }
            }
            if escapes.used { escapes.restore(document) }
            if emoji && ByteSearch.contains(UInt8(ascii: ":"), in: buffer) { applyEmoji(document) }
            // Links and images need '[' or '<' (autolinks); without either there is nothing to check.
            if ByteSearch.contains(UInt8(ascii: "["), in: buffer) || ByteSearch.contains(UInt8(ascii: "<"), in: buffer) {
                removeRefusedURLs(document)
            }
            guard let rendered = cmark_render_html(document, renderOptions) else { return nil }
            // Allocated with the document's allocator, so freed with it.
            defer { CmarkArena.current.pointee.free(rendered) }
            let length = strlen(rendered)
            return rendered.withMemoryRebound(to: UInt8.self, capacity: length) { pointer in
                addAttributes(UnsafeBufferPointer(start: pointer, count: length))
            }
        }
        return html
    }

    /// `bytes` parsed with the allocator of the body being rendered (`CmarkArena.current`).
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ options: Int32) -> OpaquePointer? {
        guard let parser = cmark_parser_new_with_mem(options, CmarkArena.current) else { return nil }
        defer { cmark_parser_free(parser) }
        let base = UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self)
        cmark_parser_feed(parser, base, bytes.count)
        return cmark_parser_finish(parser)
    }

    /// A node made with the allocator of the body being rendered, as every node of its tree must be.
    fileprivate static func newNode(_ type: cmark_node_type) -> OpaquePointer? {
        cmark_node_new_with_mem(type, CmarkArena.current)
    }

    /// One linear pass that finds the shapes Debian's cmark handles in quadratic time: too many
    /// image openers, or block quotes nested too deep.
    func isPathological(_ markdown: String) -> Bool {
        var text = markdown
        return text.withUTF8 { bytes in
            // Image openers: each '!' found with memchr.
            var imageOpeners = 0
            if ByteSearch.any(UInt8(ascii: "!"), in: bytes, where: { i in
                if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "[") { imageOpeners += 1 }
                return imageOpeners > options.maxImageOpeners
            }) { return true }
            // Quote depth: the '>' markers at each line's start, when there is a '>' at all.
            guard ByteSearch.contains(UInt8(ascii: ">"), in: bytes) else { return false }
            var lineStart: Int? = 0
            while let start = lineStart {
                var depth = 0
                var i = start
                while i < bytes.count, bytes[i] == UInt8(ascii: ">") || bytes[i] == 0x20 || bytes[i] == 0x09 {
                    if bytes[i] == UInt8(ascii: ">") {
                        depth += 1
                        if depth > options.maxQuoteDepth { return true }
                    }
                    i += 1
                }
                lineStart = ByteSearch.first(0x0A, in: bytes, from: i).map { $0 + 1 }
            }
            return false
        }
    }

    /// What the inline extensions of one flavour need.
    struct InlineExtensions {
        var flavor: MarkdownFlavor
        var redditBase: String
        var spoilerLabel: String

        /// The words screen readers hear before a spoiler (made only when a body has one).
        var label: String { "<span class=\"tf-sr\">\(HTML(escaping: spoilerLabel).raw): </span>" }
        /// A spoiler's opening markup.
        var spoilerOpening: String { "<span class=\"tf-spoiler\" tabindex=\"0\">" + label }
        /// The same inside a link, which may hold nothing focusable.
        var spoilerOpeningInLink: String { "<span class=\"tf-spoiler\">" + label }
        /// A spoiler block's opening markup (`>!` starting a quote).
        var spoilerBlockOpening: String { "<div class=\"tf-spoiler tf-spoiler-block\" tabindex=\"0\">" + label }
    }

    /// A span an inline extension wraps: its delimiters and the element it becomes.
    private struct Span {
        enum Kind { case strikethrough, superscript, spoiler }
        var open: Range<Int>
        var close: Range<Int>
        var kind: Kind
    }

    /// Turns what the flavour's extensions find in text into nodes: bare URLs and Reddit's `r/`
    /// and `u/` names (outside links and images) into links, `~~strikethrough~~`,
    /// `^superscripts` and `>!spoilers!<` into custom inline nodes. Spans are found among the
    /// children of each node that holds inline content, so `~~**bold** text~~` strikes both; each
    /// child is looked at once.
    private func applyInlineExtensions(_ root: OpaquePointer, _ inline: InlineExtensions) {
        var containers: [(node: OpaquePointer, insideLink: Bool)] = []
        do {
            guard let iterator = cmark_iter_new(root) else { return }
            defer { cmark_iter_free(iterator) }
            var insideLink = 0
            while true {
                let event = cmark_iter_next(iterator)
                if event == CMARK_EVENT_DONE { break }
                guard let node = cmark_iter_get_node(iterator) else { continue }
                let type = cmark_node_get_type(node)
                let link = type == CMARK_NODE_LINK || type == CMARK_NODE_IMAGE
                if link { insideLink += event == CMARK_EVENT_ENTER ? 1 : -1 }
                guard event == CMARK_EVENT_ENTER else { continue }
                switch type {
                case CMARK_NODE_PARAGRAPH, CMARK_NODE_HEADING, CMARK_NODE_EMPH, CMARK_NODE_STRONG, CMARK_NODE_LINK:
                    containers.append((node, insideLink > 0))
                default: break
                }
            }
        }
        for (container, insideLink) in containers {
            // The children as one byte string: text as it is, a line break as '\n', any other node
            // as one 0x01 byte that stands for it.
            var bytes: [UInt8] = []
            var kept: [(at: Int, node: OpaquePointer)] = []
            var texts: [OpaquePointer] = []
            var child = cmark_node_first_child(container)
            while let node = child {
                child = cmark_node_next(node)
                let type = cmark_node_get_type(node)
                if type == CMARK_NODE_TEXT, let literal = cmark_node_get_literal(node) {
                    bytes.append(contentsOf: Self.buffer(literal))
                    texts.append(node)
                } else {
                    kept.append((bytes.count, node))
                    bytes.append(type == CMARK_NODE_SOFTBREAK || type == CMARK_NODE_LINEBREAK ? 0x0A : 0x01)
                }
            }
            guard !texts.isEmpty else { continue }
            var spans = MarkdownExtensions.strikethroughs(in: bytes).map { Span(open: $0.open, close: $0.close, kind: .strikethrough) }
            if inline.flavor == .reddit {
                spans += RedditMarkdown.spoilers(in: bytes).map { Span(open: $0.open, close: $0.close, kind: .spoiler) }
                spans += RedditMarkdown.superscripts(in: bytes).map { Span(open: $0.open, close: $0.close, kind: .superscript) }
            }
            let linking = !insideLink && texts.contains { node in
                guard let literal = cmark_node_get_literal(node) else { return false }
                return !links(in: Self.buffer(literal)[...], inline).isEmpty
            }
            guard !spans.isEmpty || linking else { continue }
            // A delimiter inside a bare URL is part of the URL (`https://x.example/^a`).
            if linking && !spans.isEmpty {
                let urls = links(in: bytes, inline).map(\.range)
                if !urls.isEmpty {
                    func inURL(_ range: Range<Int>) -> Bool {
                        urls.contains { $0.overlaps(range) || (range.isEmpty && $0.lowerBound < range.lowerBound && range.lowerBound < $0.upperBound) }
                    }
                    spans.removeAll { inURL($0.open) || inURL($0.close) }
                }
            }
            spans = Self.nested(spans)
            var builder = InlineBuilder(bytes: bytes, kept: kept, spans: spans, linking: linking, insideLink: insideLink, inline: inline)
            var next = 0
            let built = builder.nodes(0..<bytes.count, &next, renderer: self)
            for node in texts { cmark_node_free(node) }
            for node in built { cmark_node_append_child(container, node) }
        }
    }

    /// Builds the new children of one inline container from its byte string (see
    /// `applyInlineExtensions`): text and links, the container's other children where they
    /// stood, and spans around their content.
    private struct InlineBuilder {
        let bytes: [UInt8]
        let kept: [(at: Int, node: OpaquePointer)]
        let spans: [Span]
        let linking: Bool
        let insideLink: Bool
        let inline: InlineExtensions
        var nextKept = 0

        init(bytes: [UInt8], kept: [(at: Int, node: OpaquePointer)], spans: [Span], linking: Bool, insideLink: Bool, inline: InlineExtensions) {
            self.bytes = bytes
            self.kept = kept
            self.spans = spans
            self.linking = linking
            self.insideLink = insideLink
            self.inline = inline
        }

        /// The nodes for `range`, with the spans starting at `spans[next]` that lie in it.
        mutating func nodes(_ range: Range<Int>, _ next: inout Int, renderer: MarkdownRenderer) -> [OpaquePointer] {
            var result: [OpaquePointer] = []
            var at = range.lowerBound
            while next < spans.count, spans[next].open.lowerBound >= at, spans[next].close.upperBound <= range.upperBound {
                let span = spans[next]
                next += 1
                result += pieces(at..<span.open.lowerBound, renderer)
                guard let wrapper = MarkdownRenderer.newNode(CMARK_NODE_CUSTOM_INLINE) else { continue }
                switch span.kind {
                case .strikethrough:
                    cmark_node_set_on_enter(wrapper, "<del>")
                    cmark_node_set_on_exit(wrapper, "</del>")
                case .superscript:
                    cmark_node_set_on_enter(wrapper, "<sup>")
                    cmark_node_set_on_exit(wrapper, "</sup>")
                case .spoiler:
                    // A link holds nothing focusable: there the link's own focus shows the spoiler.
                    cmark_node_set_on_enter(wrapper, insideLink ? inline.spoilerOpeningInLink : inline.spoilerOpening)
                    cmark_node_set_on_exit(wrapper, "</span>")
                }
                for child in nodes(span.open.upperBound..<span.close.lowerBound, &next, renderer: renderer) {
                    cmark_node_append_child(wrapper, child)
                }
                result.append(wrapper)
                at = span.close.upperBound
            }
            result += pieces(at..<range.upperBound, renderer)
            return result
        }

        /// Text (with its links) and the kept nodes that stand in `range`.
        private mutating func pieces(_ range: Range<Int>, _ renderer: MarkdownRenderer) -> [OpaquePointer] {
            var result: [OpaquePointer] = []
            var at = range.lowerBound
            while nextKept < kept.count, kept[nextKept].at < range.upperBound {
                let (position, node) = kept[nextKept]
                nextKept += 1
                guard position >= at else { continue }
                result += renderer.textAndLinks(bytes[at..<position], linking ? inline : nil)
                result.append(node)
                at = position + 1
            }
            result += renderer.textAndLinks(bytes[at..<range.upperBound], linking ? inline : nil)
            return result
        }
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
    private func links<Bytes: Collection<UInt8>>(in bytes: Bytes, _ inline: InlineExtensions) -> [MarkdownExtensions.Autolink] {
        let text = Array(bytes)
        var found = MarkdownExtensions.autolinks(in: text)
        guard inline.flavor == .reddit else { return found }
        let names = RedditMarkdown.links(in: text, base: inline.redditBase)
        guard !names.isEmpty else { return found }
        let urls = found
        found += names.filter { name in !urls.contains { $0.range.overlaps(name.range) } }
        return found.sorted { $0.range.lowerBound < $1.range.lowerBound }
    }

    /// Text nodes and link nodes for `bytes`, which is text; no links when `inline` is nil.
    fileprivate func textAndLinks(_ bytes: ArraySlice<UInt8>, _ inline: InlineExtensions?) -> [OpaquePointer] {
        guard !bytes.isEmpty else { return [] }
        var result: [OpaquePointer] = []
        var at = bytes.startIndex
        func text(_ end: Int) {
            guard end > at, let node = MarkdownRenderer.newNode(CMARK_NODE_TEXT) else { return }
            setLiteral(node, Array(bytes[at..<end]))
            result.append(node)
        }
        for link in inline.map({ links(in: bytes, $0) }) ?? [] {
            let range = (link.range.lowerBound + bytes.startIndex)..<(link.range.upperBound + bytes.startIndex)
            guard URLPolicy.allowsLink(link.url), let node = MarkdownRenderer.newNode(CMARK_NODE_LINK), let label = MarkdownRenderer.newNode(CMARK_NODE_TEXT) else { continue }
            text(range.lowerBound)
            cmark_node_set_url(node, link.url)
            setLiteral(label, Array(bytes[range]))
            cmark_node_append_child(node, label)
            result.append(node)
            at = range.upperBound
        }
        text(bytes.endIndex)
        return result
    }

    private func setLiteral(_ node: OpaquePointer, _ bytes: [UInt8]) {
        var bytes = bytes
        bytes.append(0)
        bytes.withUnsafeBufferPointer { buffer in
            _ = cmark_node_set_literal(node, UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self))
        }
    }

    /// Reddit shows raw HTML as typed (`I think you forgot a <sarcasm>`): inline HTML becomes
    /// text, and an HTML block a paragraph of its lines.
    private func rawHTMLAsText(_ document: OpaquePointer) {
        var found: [OpaquePointer] = []
        do {
            guard let iterator = cmark_iter_new(document) else { return }
            defer { cmark_iter_free(iterator) }
            while true {
                let event = cmark_iter_next(iterator)
                if event == CMARK_EVENT_DONE { break }
                guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator) else { continue }
                let type = cmark_node_get_type(node)
                if type == CMARK_NODE_HTML_INLINE || type == CMARK_NODE_HTML_BLOCK { found.append(node) }
            }
        }
        for node in found {
            guard let literal = cmark_node_get_literal(node) else { continue }
            var bytes = Self.bytes(literal)
            if cmark_node_get_type(node) == CMARK_NODE_HTML_INLINE {
                guard let text = MarkdownRenderer.newNode(CMARK_NODE_TEXT) else { continue }
                setLiteral(text, bytes)
                cmark_node_insert_before(node, text)
            } else {
                guard let paragraph = MarkdownRenderer.newNode(CMARK_NODE_PARAGRAPH) else { continue }
                while bytes.last == 0x0A || bytes.last == 0x0D { bytes.removeLast() }
                for (k, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
                    if k > 0, let softbreak = MarkdownRenderer.newNode(CMARK_NODE_SOFTBREAK) { cmark_node_append_child(paragraph, softbreak) }
                    guard let text = MarkdownRenderer.newNode(CMARK_NODE_TEXT) else { continue }
                    setLiteral(text, Array(line))
                    cmark_node_append_child(paragraph, text)
                }
                cmark_node_insert_before(node, paragraph)
            }
            cmark_node_free(node)
        }
    }

    /// Reddit's spoiler blocks: a quote typed `>!…` (no space between `>` and `!`) is covered
    /// like an inline spoiler; the `!` of each line, and a closing `!<`, go.
    private func applyBlockSpoilers(_ document: OpaquePointer, source: UnsafeBufferPointer<UInt8>, _ inline: InlineExtensions) {
        var quotes: [OpaquePointer] = []
        var lineStarts: [Int] = []
        do {
            guard let iterator = cmark_iter_new(document) else { return }
            defer { cmark_iter_free(iterator) }
            while true {
                let event = cmark_iter_next(iterator)
                if event == CMARK_EVENT_DONE { break }
                guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator), cmark_node_get_type(node) == CMARK_NODE_BLOCK_QUOTE,
                      let paragraph = cmark_node_first_child(node), cmark_node_get_type(paragraph) == CMARK_NODE_PARAGRAPH,
                      let text = cmark_node_first_child(paragraph), cmark_node_get_type(text) == CMARK_NODE_TEXT,
                      let literal = cmark_node_get_literal(text), literal[0] == CChar(UInt8(ascii: "!")) else { continue }
                if lineStarts.isEmpty { lineStarts = Self.lineStarts(source) }
                // The '!' stands right after the quote's '>' in the source.
                let line = Int(cmark_node_get_start_line(paragraph)) - 1
                let column = Int(cmark_node_get_start_column(paragraph)) - 1
                guard line >= 0, line < lineStarts.count, column >= 1 else { continue }
                let at = lineStarts[line] + column
                guard at < source.count, source[at] == UInt8(ascii: "!"), source[at - 1] == UInt8(ascii: ">") else { continue }
                quotes.append(node)
            }
        }
        for quote in quotes {
            guard let block = MarkdownRenderer.newNode(CMARK_NODE_CUSTOM_BLOCK) else { continue }
            cmark_node_set_on_enter(block, inline.spoilerBlockOpening)
            cmark_node_set_on_exit(block, "</div>")
            cmark_node_insert_before(quote, block)
            guard cmark_node_append_child(block, quote) == 1 else { cmark_node_free(block); continue }
            // The '!' that starts each line of the quote's paragraphs, and a closing "!<".
            var child = cmark_node_first_child(quote)
            while let paragraph = child {
                child = cmark_node_next(paragraph)
                guard cmark_node_get_type(paragraph) == CMARK_NODE_PARAGRAPH else { continue }
                var lineStart = true
                var inlineChild = cmark_node_first_child(paragraph)
                while let node = inlineChild {
                    inlineChild = cmark_node_next(node)
                    let type = cmark_node_get_type(node)
                    if type == CMARK_NODE_SOFTBREAK || type == CMARK_NODE_LINEBREAK { lineStart = true; continue }
                    if type == CMARK_NODE_TEXT, let literal = cmark_node_get_literal(node) {
                        var bytes = Self.bytes(literal)
                        if lineStart, bytes.first == UInt8(ascii: "!") {
                            bytes.removeFirst()
                            while bytes.first == 0x20 { bytes.removeFirst() }
                        }
                        if inlineChild == nil, bytes.count >= 2, bytes[bytes.count - 2] == UInt8(ascii: "!"), bytes.last == UInt8(ascii: "<") {
                            bytes.removeLast(2)
                        }
                        setLiteral(node, bytes)
                    }
                    lineStart = false
                }
            }
        }
    }

    /// A node's C string (a literal, URL or title) as a buffer over its bytes, and as a copy.
    static func buffer(_ literal: UnsafePointer<CChar>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: UnsafeRawPointer(literal).assumingMemoryBound(to: UInt8.self), count: strlen(literal))
    }
    static func bytes(_ literal: UnsafePointer<CChar>) -> [UInt8] { Array(buffer(literal)) }

    /// Where each line of `source` starts, as cmark counts lines (`\n`, `\r\n` or `\r`).
    static func lineStarts(_ source: UnsafeBufferPointer<UInt8>) -> [Int] {
        var starts = [0]
        var i = 0
        while i < source.count {
            if source[i] == 0x0A || (source[i] == 0x0D && (i + 1 == source.count || source[i + 1] != 0x0A)) { starts.append(i + 1) }
            i += 1
        }
        return starts
    }

    /// Delimiters typed with a backslash: before cmark reads a body, `\~` (and for Reddit `\^`,
    /// `\/`, `\>`, `\!`, `\(`) become private-use characters U+E000…, which no extension reads;
    /// after the extensions they become the character again (in code, the backslash and the
    /// character, as typed). A body that already holds one of those characters is left as it is.
    struct Escapes {
        let characters: [UInt8]
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

        /// Puts the characters back in every node of `root`.
        func restore(_ root: OpaquePointer) {
            guard !characters.isEmpty, let iterator = cmark_iter_new(root) else { return }
            defer { cmark_iter_free(iterator) }
            while true {
                let event = cmark_iter_next(iterator)
                if event == CMARK_EVENT_DONE { break }
                guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator) else { continue }
                switch cmark_node_get_type(node) {
                case CMARK_NODE_TEXT:
                    if let value = replaced(cmark_node_get_literal(node), backslash: false) { _ = cmark_node_set_literal(node, value) }
                case CMARK_NODE_CODE, CMARK_NODE_CODE_BLOCK, CMARK_NODE_HTML_INLINE, CMARK_NODE_HTML_BLOCK:
                    if let value = replaced(cmark_node_get_literal(node), backslash: true) { _ = cmark_node_set_literal(node, value) }
                    if let value = replaced(cmark_node_get_fence_info(node), backslash: false) { _ = cmark_node_set_fence_info(node, value) }
                case CMARK_NODE_LINK, CMARK_NODE_IMAGE:
                    if let value = replaced(cmark_node_get_url(node), backslash: false) { _ = cmark_node_set_url(node, value) }
                    if let value = replaced(cmark_node_get_title(node), backslash: false) { _ = cmark_node_set_title(node, value) }
                default: break
                }
            }
        }

        private func replaced(_ literal: UnsafePointer<CChar>?, backslash: Bool) -> String? {
            guard let literal else { return nil }
            let bytes = MarkdownRenderer.buffer(literal)
            guard bytes.contains(0xEE) else { return nil }
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

    /// Whether a body holds `[ ]`, `[x]` or `[X]` at all.
    static func mayHoldTask(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        ByteSearch.any(UInt8(ascii: "["), in: text) { i in
            i + 2 < text.count && text[i + 2] == UInt8(ascii: "]") && (text[i + 1] == 0x20 || text[i + 1] | 0x20 == UInt8(ascii: "x"))
        }
    }

    /// GitHub's task list items: a list item whose text starts `[ ] ` or `[x] ` gets a disabled
    /// checkbox in place of the brackets.
    private func applyTaskLists(_ document: OpaquePointer) {
        var items: [(OpaquePointer, Bool)] = []
        do {
            guard let iterator = cmark_iter_new(document) else { return }
            defer { cmark_iter_free(iterator) }
            while true {
                let event = cmark_iter_next(iterator)
                if event == CMARK_EVENT_DONE { break }
                guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator), cmark_node_get_type(node) == CMARK_NODE_ITEM,
                      let paragraph = cmark_node_first_child(node), cmark_node_get_type(paragraph) == CMARK_NODE_PARAGRAPH,
                      let text = cmark_node_first_child(paragraph), cmark_node_get_type(text) == CMARK_NODE_TEXT,
                      let literal = cmark_node_get_literal(text) else { continue }
                let bytes = UnsafeRawPointer(literal).assumingMemoryBound(to: UInt8.self)
                guard bytes[0] == UInt8(ascii: "["), bytes[1] != 0, bytes[2] == UInt8(ascii: "]"),
                      bytes[3] == 0x20 || bytes[3] == 0x09 else { continue }
                switch bytes[1] {
                case 0x20: items.append((text, false))
                case UInt8(ascii: "x"), UInt8(ascii: "X"): items.append((text, true))
                default: continue
                }
            }
        }
        for (text, checked) in items {
            guard let literal = cmark_node_get_literal(text), let box = MarkdownRenderer.newNode(CMARK_NODE_CUSTOM_INLINE) else { continue }
            let rest = Array(UnsafeBufferPointer(start: UnsafeRawPointer(literal).assumingMemoryBound(to: UInt8.self) + 3, count: strlen(literal) - 3))
            setLiteral(text, rest)
            // The box is named by its item's words, as a label would name it (axe-core's `label`).
            var opening: [UInt8] = Array((checked ? "<input type=\"checkbox\" checked=\"\" disabled=\"\" aria-label=\"" : "<input type=\"checkbox\" disabled=\"\" aria-label=\"").utf8)
            HTML.escape(String(decoding: Self.words(of: cmark_node_parent(text)), as: UTF8.self), into: &opening)
            opening.append(contentsOf: "\">".utf8)
            opening.append(0)
            opening.withUnsafeBufferPointer { cmark_node_set_on_enter(box, UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self)) }
            cmark_node_set_on_exit(box, "")
            cmark_node_insert_before(text, box)
        }
    }

    /// Every text node's `:name:` shortcodes as their emoji (code spans and blocks are other
    /// node types, so they keep theirs).
    private func applyEmoji(_ document: OpaquePointer) {
        var texts: [OpaquePointer] = []
        do {
            guard let iterator = cmark_iter_new(document) else { return }
            defer { cmark_iter_free(iterator) }
            while true {
                let event = cmark_iter_next(iterator)
                if event == CMARK_EVENT_DONE { break }
                guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator), cmark_node_get_type(node) == CMARK_NODE_TEXT else { continue }
                texts.append(node)
            }
        }
        for node in texts {
            guard let literal = cmark_node_get_literal(node) else { continue }
            let text = String(decoding: Self.buffer(literal), as: UTF8.self)
            let replaced = EmojiShortcodes.replacing(in: text)
            if replaced != text { setLiteral(node, Array(replaced.utf8)) }
        }
    }

    /// The text of `node`'s inline content (its text and code spans), white space runs as one
    /// space, at most `taskNameLimit` bytes cut at a character's start: a task box's name.
    private static func words(of node: OpaquePointer?) -> [UInt8] {
        guard let node, let iterator = cmark_iter_new(node) else { return [] }
        defer { cmark_iter_free(iterator) }
        var out: [UInt8] = []
        while out.count < taskNameLimit {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard event == CMARK_EVENT_ENTER, let child = cmark_iter_get_node(iterator) else { continue }
            let type = cmark_node_get_type(child)
            if type == CMARK_NODE_SOFTBREAK || type == CMARK_NODE_LINEBREAK { out.append(0x20); continue }
            guard type == CMARK_NODE_TEXT || type == CMARK_NODE_CODE, let literal = cmark_node_get_literal(child) else { continue }
            out.append(contentsOf: buffer(literal))
        }
        var words: [UInt8] = []
        for byte in out where !(byte == 0x20 && (words.last == 0x20 || words.isEmpty)) {
            words.append(byte == 0x09 || byte == 0x0A ? 0x20 : byte)
        }
        while words.last == 0x20 { words.removeLast() }
        guard words.count > taskNameLimit else { return words }
        var end = taskNameLimit
        while end > 0, words[end] & 0xC0 == 0x80 { end -= 1 }
        return Array(words[..<end])
    }

    /// The most bytes of a task box's name.
    static let taskNameLimit = 160

    /// Replaces paragraphs that hold a pipe table (`MarkdownTable`) with the table. Its cells are
    /// parsed by cmark in one more document, one ATX heading per cell (a heading holds inline
    /// content only, as a cell does), followed by the body itself so reference links resolve.
    /// Each cell gets the inline extensions and URL checks, then is rendered; the table is a
    /// custom block of that markup.
    private func applyTables(_ document: OpaquePointer, source: UnsafeBufferPointer<UInt8>, parseOptions: Int32,
                             renderOptions: Int32, inline: InlineExtensions) {
        var lineStarts: [Int] = []
        func lines(of paragraph: OpaquePointer, quoteDepth: Int) -> [ArraySlice<UInt8>] {
            if lineStarts.isEmpty { lineStarts = Self.lineStarts(source) }
            let first = Int(cmark_node_get_start_line(paragraph)) - 1
            let last = Int(cmark_node_get_end_line(paragraph)) - 1
            guard first >= 0, last >= first, last < lineStarts.count else { return [] }
            var result: [ArraySlice<UInt8>] = []
            for line in first...last {
                var start = lineStarts[line]
                var end = line + 1 < lineStarts.count ? lineStarts[line + 1] : source.count
                while end > start, source[end - 1] == 0x0A || source[end - 1] == 0x0D { end -= 1 }
                if line == first {
                    start = min(end, start + max(0, Int(cmark_node_get_start_column(paragraph)) - 1))
                } else {
                    // A continuation line: its quote markers and indentation go.
                    var depth = quoteDepth
                    while start < end {
                        if source[start] == 0x20 || source[start] == 0x09 { start += 1 }
                        else if source[start] == UInt8(ascii: ">") && depth > 0 { start += 1; depth -= 1 }
                        else { break }
                    }
                }
                result.append(Array(source[start..<end])[...])
            }
            return result
        }

        // The paragraphs that hold a table, in document order.
        var found: [(paragraph: OpaquePointer, table: MarkdownTable.Table)] = []
        do {
            guard let iterator = cmark_iter_new(document) else { return }
            defer { cmark_iter_free(iterator) }
            var quoteDepth = 0
            while true {
                let event = cmark_iter_next(iterator)
                if event == CMARK_EVENT_DONE { break }
                guard let node = cmark_iter_get_node(iterator) else { continue }
                switch cmark_node_get_type(node) {
                case CMARK_NODE_BLOCK_QUOTE: quoteDepth += event == CMARK_EVENT_ENTER ? 1 : -1
                case CMARK_NODE_PARAGRAPH where event == CMARK_EVENT_ENTER:
                    let paragraphLines = lines(of: node, quoteDepth: quoteDepth)
                    guard let table = MarkdownTable.find(in: paragraphLines) else { break }
                    // Lines before the header stay the paragraph, cut at its line breaks; when an
                    // inline span crosses lines (or a link definition took lines), they do not
                    // match, and the paragraph stays as typed.
                    if table.headerLine > 0 {
                        var breaks = 0
                        var child = cmark_node_first_child(node)
                        while let inline = child {
                            let type = cmark_node_get_type(inline)
                            if type == CMARK_NODE_SOFTBREAK || type == CMARK_NODE_LINEBREAK { breaks += 1 }
                            child = cmark_node_next(inline)
                        }
                        guard breaks == paragraphLines.count - 1 else { break }
                    }
                    found.append((node, table))
                default: break
                }
            }
        }
        guard !found.isEmpty else { return }

        var cells: [UInt8] = []
        for (_, table) in found {
            for cell in table.header + table.rows.joined() {
                cells.append(contentsOf: "# ".utf8)
                cells.append(contentsOf: cell)
                cells.append(contentsOf: " #\n".utf8)
            }
        }
        cells.append(0x0A)
        cells.append(contentsOf: source)
        guard let parsed = cells.withUnsafeBufferPointer({ buffer in
            Self.parse(buffer, parseOptions)
        }) else { return }
        defer { cmark_node_free(parsed) }

        var heading = cmark_node_first_child(parsed)
        func nextCell() -> String? {
            guard let node = heading, cmark_node_get_type(node) == CMARK_NODE_HEADING else { return nil }
            heading = cmark_node_next(node)
            cmark_consolidate_text_nodes(node)
            applyInlineExtensions(node, inline)
            Escapes(inline.flavor).restore(node)
            removeRefusedURLs(node)
            guard let rendered = cmark_render_html(node, renderOptions) else { return nil }
            defer { CmarkArena.current.pointee.free(rendered) }
            // "<h1>" … "</h1>\n"
            let length = strlen(rendered)
            guard length >= 10 else { return "" }
            return String(decoding: UnsafeBufferPointer(start: UnsafeRawPointer(rendered).assumingMemoryBound(to: UInt8.self) + 4, count: length - 10), as: UTF8.self)
        }

        for (paragraph, table) in found {
            var html = "<div class=\"tf-table\" tabindex=\"0\"><table>\n<thead>\n<tr>\n"
            func cell(_ tag: String, _ column: Int) -> Bool {
                guard let content = nextCell() else { return false }
                switch table.alignments[column] {
                case .none: html += "<\(tag)>"
                case .left: html += "<\(tag) class=\"tf-left\">"
                case .center: html += "<\(tag) class=\"tf-center\">"
                case .right: html += "<\(tag) class=\"tf-right\">"
                }
                html += content + "</\(tag)>\n"
                return true
            }
            for column in table.header.indices where !cell("th", column) { return }
            html += "</tr>\n</thead>\n"
            if !table.rows.isEmpty {
                html += "<tbody>\n"
                for row in table.rows {
                    html += "<tr>\n"
                    for column in row.indices where !cell("td", column) { return }
                    html += "</tr>\n"
                }
                html += "</tbody>\n"
            }
            html += "</table></div>"
            guard let block = MarkdownRenderer.newNode(CMARK_NODE_CUSTOM_BLOCK) else { return }
            cmark_node_set_on_enter(block, html)
            cmark_node_set_on_exit(block, "")
            cmark_node_insert_after(paragraph, block)
            // The paragraph keeps its inline content up to the line break before the header row.
            if table.headerLine == 0 {
                cmark_node_free(paragraph)
                continue
            }
            var breaks = 0
            var child = cmark_node_first_child(paragraph)
            while let node = child, breaks < table.headerLine {
                let type = cmark_node_get_type(node)
                if type == CMARK_NODE_SOFTBREAK || type == CMARK_NODE_LINEBREAK { breaks += 1 }
                child = cmark_node_next(node)
                if breaks == table.headerLine { cmark_node_free(node) }
            }
            while let node = child {
                child = cmark_node_next(node)
                cmark_node_free(node)
            }
        }
    }

    /// Unwraps links and images whose URL the policy refuses, and links inside links: their text
    /// stays, the URL goes.
    private func removeRefusedURLs(_ document: OpaquePointer) {
        var refused: [OpaquePointer] = []
        do {
            guard let iterator = cmark_iter_new(document) else { return }
            defer { cmark_iter_free(iterator) }
            var links = 0
            while true {
                let event = cmark_iter_next(iterator)
                if event == CMARK_EVENT_DONE { break }
                guard let node = cmark_iter_get_node(iterator) else { continue }
                let type = cmark_node_get_type(node)
                guard type == CMARK_NODE_LINK || type == CMARK_NODE_IMAGE else { continue }
                if type == CMARK_NODE_LINK { links += event == CMARK_EVENT_ENTER ? 1 : -1 }
                guard event == CMARK_EVENT_ENTER else { continue }
                // The URL's bytes read where cmark keeps them, not copied into a String.
                let url = cmark_node_get_url(node).map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) }
                let bytes = UnsafeBufferPointer(start: url, count: url.map { strlen(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) } ?? 0)
                let allowed = type == CMARK_NODE_LINK ? URLPolicy.allowsLink(bytes) : URLPolicy.allowsImage(bytes)
                // A link inside a link (an autolink in a link's text) is invalid HTML: it keeps its text.
                if !allowed || (type == CMARK_NODE_LINK && links > 1) { refused.append(node) }
            }
        }
        for node in refused {
            while let child = cmark_node_first_child(node) {
                cmark_node_insert_before(node, child)
            }
            cmark_node_free(node)
        }
    }

    /// cmark writes `<a href="` and `<img src="` only for link and image nodes (text and code are
    /// escaped, raw HTML is omitted), so adding attributes there is exact. One pass over bytes.
    private func addAttributes(_ html: UnsafeBufferPointer<UInt8>) -> HTML {
        let link: StaticString = "<a href=\""
        let image: StaticString = "<img src=\""
        let linkWith: StaticString = "<a rel=\"nofollow ugc noopener\" href=\""
        let imageWith: StaticString = "<img loading=\"lazy\" src=\""
        func matches(_ at: Int, _ needle: StaticString) -> Bool {
            let count = needle.utf8CodeUnitCount
            guard at + count <= html.count, let base = html.baseAddress else { return false }
            return memcmp(base + at, needle.utf8Start, count) == 0
        }
        func append(_ text: StaticString, to out: inout [UInt8]) {
            out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        /// The next '<' from `i` that opens a link or an image, or nil: memchr from one '<' to the next.
        func nextTag(from start: Int) -> (at: Int, isLink: Bool)? {
            guard let base = html.baseAddress else { return nil }
            var i = start
            while i < html.count {
                guard let found = memchr(base + i, Int32(UInt8(ascii: "<")), html.count - i) else { return nil }
                i = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                // Most tags are neither (`<p>`, `</p>`, `<code>`): the byte after '<' tells.
                if i + 1 < html.count {
                    let next = html[i + 1]
                    if next == UInt8(ascii: "a") && matches(i, link) { return (i, true) }
                    if next == UInt8(ascii: "i") && matches(i, image) { return (i, false) }
                }
                i += 1
            }
            return nil
        }
        // Most bodies have neither: the text goes into a String as it is, read once.
        guard var tag = nextTag(from: 0) else {
            return HTML(trusted: String(decoding: html, as: UTF8.self))
        }
        var out: [UInt8] = []
        out.reserveCapacity(html.count + html.count / 8)
        var runStart = 0
        while true {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: html[runStart..<tag.at]))
            append(tag.isLink ? linkWith : imageWith, to: &out)
            runStart = tag.at + (tag.isLink ? link : image).utf8CodeUnitCount
            guard let next = nextTag(from: runStart) else { break }
            tag = next
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: html[runStart...]))
        return HTML(trusted: String(decoding: out, as: UTF8.self))
    }

    /// The fallback for oversized bodies: paragraphs (split at blank lines) of escaped text, line
    /// breaks kept. One pass over the bytes, linear in the body's length.
    package func plainText(_ text: String) -> HTML {
        var out: [UInt8] = []
        var text = text
        text.withUTF8 { bytes in
            out.reserveCapacity(bytes.count + bytes.count / 8 + 16)
            var lines: [(Int, Int)] = []
            var start = 0
            func flushParagraph() {
                guard !lines.isEmpty else { return }
                out.append(contentsOf: "<p>".utf8)
                for (k, line) in lines.enumerated() {
                    if k > 0 { out.append(contentsOf: "<br>\n".utf8) }
                    HTML.escape(UnsafeBufferPointer(rebasing: bytes[line.0..<line.1]), into: &out)
                }
                out.append(contentsOf: "</p>\n".utf8)
                lines.removeAll(keepingCapacity: true)
            }
            while start <= bytes.count {
                var end = start
                while end < bytes.count && bytes[end] != 0x0A { end += 1 }
                var lineEnd = end
                if lineEnd > start && bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                var blank = true
                for i in start..<lineEnd where bytes[i] != 0x20 && bytes[i] != 0x09 { blank = false; break }
                if blank { flushParagraph() } else { lines.append((start, lineEnd)) }
                start = end + 1
            }
            flushParagraph()
        }
        return HTML(trusted: String(decoding: out, as: UTF8.self))
    }
}

/// A bump allocator for the cmark trees of one body, one per thread: allocations are carved
/// from 64 KiB blocks, `free` does nothing, and everything the body held is released at once
/// when it is done (`end`). The first block is kept for the next body; others go back.
///
/// cmark's allocator hooks take no context, so the arena is found through a thread-local key.
/// `begin` and `end` bracket one body and keep a stack of the allocators in use: a body begun
/// while another is rendering on the same thread (nothing does that today) gets cmark's default
/// allocator, so an inner reset can never free an outer body's memory, and `current` always
/// names the allocator of the innermost body, which every node and document of it must use.
///
/// The arena is a plain struct behind a pointer, not an object: the hooks run for every node and
/// buffer, and reaching an object from them cost a retain and a release each time.
private struct CmarkArena {
    private static let blockBytes = 64 << 10
    /// Bytes before each allocation: its size, for `realloc`; keeps allocations 16-aligned.
    private static let headerBytes = 16

    /// The block being carved, its size and how much of it is used.
    private var base: UnsafeMutableRawPointer
    private var bytes: Int
    private var used = 0
    /// The first block, kept from body to body.
    private let first: UnsafeMutableRawPointer
    /// Blocks taken after the first, released when the body is done.
    private var more: [UnsafeMutableRawPointer] = []
    /// The most recent allocation, which `realloc` can grow in place.
    private var last: UnsafeMutableRawPointer?
    /// The allocators of the bodies being rendered on this thread, innermost last.
    private var stack: [UnsafeMutablePointer<cmark_mem>] = []
    /// Whether the arena's memory belongs to a body (the outermost one).
    private var active = false

    private init() {
        first = UnsafeMutableRawPointer.allocate(byteCount: Self.blockBytes, alignment: 16)
        base = first
        bytes = Self.blockBytes
    }

    /// This thread's arena, made on first use.
    private static var mine: UnsafeMutablePointer<CmarkArena> {
        if let existing = pthread_getspecific(key) { return existing.assumingMemoryBound(to: CmarkArena.self) }
        let arena = UnsafeMutablePointer<CmarkArena>.allocate(capacity: 1)
        arena.initialize(to: CmarkArena())
        pthread_setspecific(key, arena)
        return arena
    }

    /// A body starts: the arena when it is free, else cmark's default allocator.
    static func begin() {
        let arena = mine
        if arena.pointee.active {
            arena.pointee.stack.append(cmark_get_default_mem_allocator())
        } else {
            arena.pointee.active = true
            arena.pointee.stack.append(allocator)
        }
    }

    /// The body begun last is done; when it held the arena, its memory is released.
    static func end() {
        let arena = mine
        guard arena.pointee.stack.popLast() == allocator else { return }
        arena.pointee.releaseMore()
        arena.pointee.base = arena.pointee.first
        arena.pointee.bytes = Self.blockBytes
        arena.pointee.used = 0
        arena.pointee.last = nil
        arena.pointee.active = false
    }

    private mutating func releaseMore() {
        for block in more { block.deallocate() }
        more.removeAll(keepingCapacity: true)
    }

    /// The allocator of the body being rendered on this thread (cmark's default outside one).
    static var current: UnsafeMutablePointer<cmark_mem> {
        mine.pointee.stack.last ?? cmark_get_default_mem_allocator()
    }

    /// The arena, for the hooks: only while a body holds it.
    @inline(__always)
    private static var active: UnsafeMutablePointer<CmarkArena>? {
        guard let pointer = pthread_getspecific(hookKey) else { return nil }
        let arena = pointer.assumingMemoryBound(to: CmarkArena.self)
        return arena.pointee.active ? arena : nil
    }

    private mutating func allocate(_ size: Int) -> UnsafeMutableRawPointer? {
        guard size >= 0, size <= Int.max / 2 - Self.blockBytes else { return nil }
        let needed = Self.headerBytes + ((size + 15) & ~15)
        if used + needed > bytes {
            // A large request gets a block of its own; otherwise a fresh standard block.
            let size = max(Self.blockBytes, needed)
            base = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
            bytes = size
            more.append(base)
            used = 0
        }
        let start = base + used
        start.storeBytes(of: size, as: Int.self)
        used += needed
        let pointer = start + Self.headerBytes
        last = pointer
        return pointer
    }

    fileprivate mutating func calloc(_ count: Int, _ size: Int) -> UnsafeMutableRawPointer? {
        let (total, overflow) = count.multipliedReportingOverflow(by: size)
        guard !overflow, let pointer = allocate(total) else { return nil }
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: total)
        return pointer
    }

    fileprivate mutating func realloc(_ old: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer? {
        guard let old else { return allocate(size) }
        let start = old - Self.headerBytes
        let oldSize = start.load(as: Int.self)
        // The last allocation grows (or shrinks) where it stands when its block has room.
        if old == last, size >= 0, start >= base, start < base + bytes {
            let needed = Self.headerBytes + ((size + 15) & ~15)
            if (start - base) + needed <= bytes {
                used = (start - base) + needed
                start.storeBytes(of: size, as: Int.self)
                return old
            }
        }
        guard let pointer = allocate(size) else { return nil }
        pointer.copyMemory(from: old, byteCount: min(oldSize, size))
        return pointer
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        // A thread's arena goes when the thread ends.
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            let arena = pointer.assumingMemoryBound(to: CmarkArena.self)
            arena.pointee.releaseMore()
            arena.pointee.first.deallocate()
            arena.deinitialize(count: 1)
            arena.deallocate()
        }
        hookKey = key
        return key
    }()

    /// `key`, as the hooks read it: a plain load, where `key`'s lazy initialization cost each of
    /// the million hook calls of 200 threads a call to `swift_once`. Written once, by `key`'s
    /// initializer, which every thread passes through (`begin`, through `mine`) before cmark
    /// calls a hook on it.
    @exclusivity(unchecked) nonisolated(unsafe) private static var hookKey = pthread_key_t()

    /// The arena's hooks. They are handed to cmark only while the arena is active (`begin` to
    /// `end`); outside that they fall back to the C library, and `free` of arena memory waits
    /// for `end`.
    nonisolated(unsafe) static let allocator: UnsafeMutablePointer<cmark_mem> = {
        let mem = UnsafeMutablePointer<cmark_mem>.allocate(capacity: 1)
        mem.initialize(to: cmark_mem(
            calloc: { count, size in
                if let arena = CmarkArena.active { return arena.pointee.calloc(count, size) }
                return Glibc.calloc(count, size)
            },
            realloc: { pointer, size in
                if let arena = CmarkArena.active { return arena.pointee.realloc(pointer, size) }
                return Glibc.realloc(pointer, size)
            },
            free: { _ in }))
        return mem
    }()
}
