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

    public init(smart: Bool = false, hardBreaks: Bool = true, maxBytes: Int = 256 * 1024) {
        self.smart = smart
        self.hardBreaks = hardBreaks
        self.maxBytes = maxBytes
    }
}

/// Renders untrusted Markdown to safe HTML with cmark. The only file that touches C.
///
/// Never uses `CMARK_OPT_UNSAFE`: raw HTML in bodies is omitted. Links and images are checked
/// against `URLPolicy` before rendering; a refused one keeps its text and loses its URL. Links
/// get `rel="nofollow ugc noopener"`, images `loading="lazy"`.
public struct MarkdownRenderer: Sendable {
    public let options: MarkdownOptions

    public init(options: MarkdownOptions = MarkdownOptions()) { self.options = options }

    public func render(_ markdown: String) -> HTML {
        if markdown.utf8.count > options.maxBytes { return plainText(markdown) }
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
        var out: [UInt8] = []
        out.reserveCapacity(html.count + html.count / 8)
        var runStart = 0
        var i = 0
        while i < html.count {
            guard html[i] == UInt8(ascii: "<") else { i += 1; continue }
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

    /// The fallback for oversized bodies: paragraphs of escaped text, line breaks kept.
    func plainText(_ text: String) -> HTML {
        var out: [UInt8] = []
        let normalized = text.split(separator: "\r\n", omittingEmptySubsequences: false).joined(separator: "\n")
        for paragraph in normalized.split(separator: "\n\n", omittingEmptySubsequences: true) {
            out.append(contentsOf: "<p>".utf8)
            var first = true
            for line in paragraph.split(separator: "\n", omittingEmptySubsequences: false) {
                if !first { out.append(contentsOf: "<br>\n".utf8) }
                first = false
                HTML.escape(String(line), into: &out)
            }
            out.append(contentsOf: "</p>\n".utf8)
        }
        return HTML(trusted: String(decoding: out, as: UTF8.self))
    }
}
