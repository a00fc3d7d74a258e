import Ccmark
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The Markdown dialect of bodies.
public enum MarkdownFlavor: String, Sendable, CaseIterable {
    /// CommonMark as cmark implements it.
    case commonmark
    /// CommonMark with GitHub's extended autolinks and strikethrough.
    case gfm
}

/// How comment bodies are rendered.
public struct MarkdownOptions: Sendable, Hashable {
    /// Curly quotes, dashes and ellipses (cmark's SMART option).
    public var smart = false
    /// Single newlines become line breaks, as people typing into a forum box expect.
    public var hardBreaks = true
    /// The dialect: `gfm` (the default) adds GitHub's extended autolinks (bare `https://…`,
    /// `www.…` and e-mail addresses) and strikethrough to CommonMark.
    public var flavor: MarkdownFlavor = .gfm
    /// Bodies longer than this many UTF-8 bytes skip cmark and are shown as plain text, which
    /// bounds the time any one body can take.
    public var maxBytes = 256 * 1024
    /// Bodies with more `![` image openers than this are shown as plain text: Debian's cmark
    /// 0.30.2 is quadratic in them (CVE-2023-22486; 40,000 took 2.7 s).
    public var maxImageOpeners = 2_000
    /// Bodies with block quotes nested deeper than this are shown as plain text: deep quotes
    /// followed by emphasis runs are quadratic in cmark 0.30.2 (CVE-2023-24824).
    public var maxQuoteDepth = 200

    public init(smart: Bool = false, hardBreaks: Bool = true, maxBytes: Int = 256 * 1024) {
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

    package init(options: MarkdownOptions = MarkdownOptions()) { self.options = options }

    package func render(_ markdown: String) -> HTML {
        if markdown.utf8.count > options.maxBytes || isPathological(markdown) { return plainText(markdown) }
        // cmark copies control characters and noncharacters through; HTML forbids them.
        let markdown = HTML.scrub(markdown)
        var parseOptions = CMARK_OPT_VALIDATE_UTF8
        if options.smart { parseOptions |= CMARK_OPT_SMART }
        var renderOptions = CMARK_OPT_DEFAULT
        if options.hardBreaks { renderOptions |= CMARK_OPT_HARDBREAKS }

        var text = markdown
        let html: HTML? = text.withUTF8 { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self)
            guard let document = cmark_parse_document(base, buffer.count, parseOptions) else { return nil }
            defer { cmark_node_free(document) }
            if options.flavor == .gfm && MarkdownExtensions.mayApply(buffer) { applyExtensions(document) }
            // Links and images need '[' or '<' (autolinks); without either there is nothing to check.
            if buffer.contains(UInt8(ascii: "[")) || buffer.contains(UInt8(ascii: "<")) {
                removeRefusedURLs(document)
            }
            guard let rendered = cmark_render_html(document, renderOptions) else { return nil }
            defer { free(rendered) }
            let length = strlen(rendered)
            return rendered.withMemoryRebound(to: UInt8.self, capacity: length) { pointer in
                addAttributes(UnsafeBufferPointer(start: pointer, count: length))
            }
        }
        return html ?? plainText(markdown)
    }

    /// One linear pass that finds the shapes Debian's cmark handles in quadratic time: too many
    /// image openers, or block quotes nested too deep.
    func isPathological(_ markdown: String) -> Bool {
        var text = markdown
        return text.withUTF8 { bytes in
            var imageOpeners = 0
            var lineStart = true
            var depth = 0
            var previous: UInt8 = 0
            for byte in bytes {
                if previous == UInt8(ascii: "!") && byte == UInt8(ascii: "[") {
                    imageOpeners += 1
                    if imageOpeners > options.maxImageOpeners { return true }
                }
                if byte == 0x0A {
                    lineStart = true
                    depth = 0
                } else if lineStart {
                    if byte == UInt8(ascii: ">") {
                        depth += 1
                        if depth > options.maxQuoteDepth { return true }
                    } else if byte != 0x20 && byte != 0x09 {
                        lineStart = false
                    }
                }
                previous = byte
            }
            return false
        }
    }

    /// Turns bare URLs and `~~strikethrough~~` in text nodes (outside links, images and code)
    /// into link nodes and `<del>` nodes. Each text node is scanned once.
    private func applyExtensions(_ document: OpaquePointer) {
        var texts: [OpaquePointer] = []
        do {
            guard let iterator = cmark_iter_new(document) else { return }
            defer { cmark_iter_free(iterator) }
            var insideLink = 0
            while true {
                let event = cmark_iter_next(iterator)
                if event == CMARK_EVENT_DONE { break }
                guard let node = cmark_iter_get_node(iterator) else { continue }
                let type = cmark_node_get_type(node)
                if type == CMARK_NODE_LINK || type == CMARK_NODE_IMAGE {
                    insideLink += event == CMARK_EVENT_ENTER ? 1 : -1
                } else if type == CMARK_NODE_TEXT, insideLink == 0 {
                    texts.append(node)
                }
            }
        }
        for node in texts {
            guard let literal = cmark_node_get_literal(node) else { continue }
            let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(literal).assumingMemoryBound(to: UInt8.self), count: strlen(literal)))
            let strikes = MarkdownExtensions.strikethroughs(in: bytes)
            if strikes.isEmpty {
                _ = splitAutolinks(node, bytes)
                continue
            }
            // Text, then <del>text</del>, and so on; each piece of text may hold autolinks.
            var pieces: [(range: Range<Int>, struck: Bool)] = []
            var at = 0
            for span in strikes where span.open.lowerBound >= at {
                pieces.append((at..<span.open.lowerBound, false))
                pieces.append((span.open.upperBound..<span.close.lowerBound, true))
                at = span.close.upperBound
            }
            pieces.append((at..<bytes.count, false))
            var previous = node
            for (k, piece) in pieces.enumerated() {
                let text = Array(bytes[piece.range])
                let target: OpaquePointer
                if k == 0 {
                    target = node
                    setLiteral(node, text)
                } else {
                    guard let created = cmark_node_new(CMARK_NODE_TEXT) else { continue }
                    setLiteral(created, text)
                    target = created
                }
                if piece.struck, let del = cmark_node_new(CMARK_NODE_CUSTOM_INLINE) {
                    cmark_node_set_on_enter(del, "<del>")
                    cmark_node_set_on_exit(del, "</del>")
                    if k == 0 { cmark_node_insert_before(node, del) } else { cmark_node_insert_after(previous, del) }
                    cmark_node_append_child(del, target)
                    _ = splitAutolinks(target, text)
                    previous = del
                } else {
                    if k > 0 { cmark_node_insert_after(previous, target) }
                    previous = splitAutolinks(target, text)
                }
            }
        }
    }

    private func setLiteral(_ node: OpaquePointer, _ bytes: [UInt8]) {
        var bytes = bytes
        bytes.append(0)
        bytes.withUnsafeBufferPointer { buffer in
            _ = cmark_node_set_literal(node, UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self))
        }
    }

    /// Splits text node `node` (whose literal is `bytes`) around its autolinks; returns the last
    /// node of what it became.
    private func splitAutolinks(_ node: OpaquePointer, _ bytes: [UInt8]) -> OpaquePointer {
        let links = MarkdownExtensions.autolinks(in: bytes)
        guard !links.isEmpty else { return node }
        setLiteral(node, Array(bytes[0..<links[0].range.lowerBound]))
        var previous = node
        for (k, link) in links.enumerated() {
            guard URLPolicy.allowsLink(link.url), let linkNode = cmark_node_new(CMARK_NODE_LINK),
                  let label = cmark_node_new(CMARK_NODE_TEXT) else { continue }
            cmark_node_set_url(linkNode, link.url)
            setLiteral(label, Array(bytes[link.range]))
            cmark_node_append_child(linkNode, label)
            cmark_node_insert_after(previous, linkNode)
            previous = linkNode
            let next = k + 1 < links.count ? links[k + 1].range.lowerBound : bytes.count
            if next > link.range.upperBound, let rest = cmark_node_new(CMARK_NODE_TEXT) {
                setLiteral(rest, Array(bytes[link.range.upperBound..<next]))
                cmark_node_insert_after(previous, rest)
                previous = rest
            }
        }
        return previous
    }

    /// Unwraps links and images whose URL the policy refuses: their text stays, the URL goes.
    private func removeRefusedURLs(_ document: OpaquePointer) {
        var refused: [OpaquePointer] = []
        do {
            guard let iterator = cmark_iter_new(document) else { return }
            defer { cmark_iter_free(iterator) }
            while true {
                let event = cmark_iter_next(iterator)
                if event == CMARK_EVENT_DONE { break }
                guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator) else { continue }
                let type = cmark_node_get_type(node)
                guard type == CMARK_NODE_LINK || type == CMARK_NODE_IMAGE else { continue }
                let url = cmark_node_get_url(node).map { String(cString: $0) } ?? ""
                let allowed = type == CMARK_NODE_LINK ? URLPolicy.allowsLink(url) : URLPolicy.allowsImage(url)
                if !allowed { refused.append(node) }
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
            guard at + count <= html.count else { return false }
            let bytes = needle.utf8Start
            for k in 0..<count where html[at + k] != bytes[k] { return false }
            return true
        }
        func append(_ text: StaticString, to out: inout [UInt8]) {
            out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        func occurs(_ needle: StaticString) -> Bool {
            guard let base = html.baseAddress else { return false }
            var i = 0
            let count = needle.utf8CodeUnitCount
            while i + count <= html.count {
                guard let found = memchr(base + i, Int32(needle.utf8Start[0]), html.count - i - count + 1) else { return false }
                i = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                if memcmp(base + i, needle.utf8Start, count) == 0 { return true }
                i += 1
            }
            return false
        }
        guard let base = html.baseAddress, occurs(link) || occurs(image) else {
            return HTML(trusted: String(decoding: html, as: UTF8.self))
        }
        var out: [UInt8] = []
        out.reserveCapacity(html.count + html.count / 8)
        var runStart = 0
        var i = 0
        while i < html.count {
            // Jump to the next '<' with memchr rather than looking at every byte.
            guard let found = memchr(base + i, Int32(UInt8(ascii: "<")), html.count - i) else { break }
            i = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            if matches(i, link) {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: html[runStart..<i]))
                append(linkWith, to: &out)
                i += link.utf8CodeUnitCount
                runStart = i
            } else if matches(i, image) {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: html[runStart..<i]))
                append(imageWith, to: &out)
                i += image.utf8CodeUnitCount
                runStart = i
            } else {
                i += 1
            }
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
