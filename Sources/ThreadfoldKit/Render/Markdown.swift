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
        let html: String? = text.withUTF8 { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self)
            guard let document = cmark_parse_document(base, buffer.count, parseOptions) else { return nil }
            defer { cmark_node_free(document) }
            removeRefusedURLs(document)
            guard let rendered = cmark_render_html(document, renderOptions) else { return nil }
            defer { free(rendered) }
            return String(cString: rendered)
        }
        guard let html else { return plainText(markdown) }
        return HTML(trusted: addAttributes(html))
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
    /// escaped, raw HTML is omitted), so adding attributes there is exact.
    private func addAttributes(_ html: String) -> String {
        var result = html
        if result.contains("<a href=\"") {
            result = result.replacing("<a href=\"", with: "<a rel=\"nofollow ugc noopener\" href=\"")
        }
        if result.contains("<img src=\"") {
            result = result.replacing("<img src=\"", with: "<img loading=\"lazy\" src=\"")
        }
        return result
    }

    /// The fallback for oversized bodies: paragraphs of escaped text, line breaks kept.
    func plainText(_ text: String) -> HTML {
        var out: [UInt8] = []
        let normalized = text.replacing("\r\n", with: "\n")
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
