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
    /// Single newlines become line breaks, as people typing into a forum box expect.
    public var hardBreaks = true
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
