import Cgumbo
import Foundation

/// Turns untrusted HTML bodies (Hacker News `text`, Discourse `cooked`, Mastodon `content`) into
/// safe HTML that is valid where a comment's body goes. The only file that touches Gumbo.
///
/// The body is parsed by Gumbo (Debian `libgumbo-dev`), whose tree construction is HTML5's, the
/// one browsers use: a `<blockquote>` inside a `<p>` closes the paragraph, misnested formatting
/// is repaired the same way. The tree is then written out again from an allowlist, keeping to
/// each element's content model, so the output passes the W3C checker whatever came in:
/// - kept: paragraphs, line breaks, emphasis, code, pre, blockquotes (and `<aside>` quotes and
///   oneboxes, as blockquotes), lists, links, headings (at their own levels: `ThreadRenderer` fits them
///   into the page's outline with `HeadingLevels`), strikethrough, superscript, subscript, rules, images and tables
///   (whole or not at all: a row or cell is kept only inside a kept table, with its alignment
///   but not its span; rows without cells go; the table scrolls in a box of its own);
/// - a block inside an element that takes phrasing content only (`<code><ol>`, `<a><p>`, a
///   heading in a heading) is unwrapped to its content; a list item outside a list is unwrapped;
///   text directly inside a list gets an item of its own; links never nest;
/// - script-like elements (script, style, iframe, object, svg, math, form controls, …) are
///   dropped with their content; any other element is dropped but its text kept, with a line
///   break's worth of white space where it was a block (table cells do not run together);
/// - links keep only `href`, and images only `src`, `alt`, `width` and `height`, when
///   `URLPolicy` allows them. Relative URLs resolve against `base`, the source's site, when it
///   is known; otherwise a relative link keeps its text only and a relative image its alt text,
///   since a root-relative `/u/name` breaks once the archive is hosted elsewhere. Links get
///   `rel="nofollow ugc noopener"` and images `loading="lazy"`;
/// - emoji images (Discourse's `<img class="emoji" alt=":heart:">`) become their emoji
///   (`EmojiShortcodes`), or their alt text for a name not in the table (a forum's own emoji);
///   Discourse's lightbox captions ("image 841×150 22.4 KB") are dropped.
///
/// The tree is walked with an explicit stack. A body with more than `tagLimit` tags, or with so
/// many formatting elements left open that HTML5's reconstruction would multiply them, is shown
/// as escaped text: Gumbo frees its tree recursively, and no body may cost more than linear time.
package struct HTMLSanitizer: Sendable {
    /// The source site's absolute URL (`https://forum.example/`), for relative links and images.
    package var base: String?

    package init(base: String? = nil) {
        self.base = base
    }

    /// A link as a body's would be written: an allowed absolute URL, or a relative one resolved
    /// against `base`; nil otherwise.
    package func link(_ reference: String) -> String? {
        Writer(base: base.flatMap { URL(string: $0) }).resolve(reference, image: false)
    }

    /// Bodies with more `<` than this are shown as text rather than parsed.
    static let tagLimit = 20_000

    /// Formatting elements left open at once past this are shown as text: HTML5 re-creates every
    /// open formatting element after each new block (`<p><b id=1>…<b id=10000>` and then 10,000
    /// `<p>x` would make 10^8 elements), so their number times the tags must stay small.
    static let unclosedFormattingLimit = 64

    static let formatting: Set<[UInt8]> = Set(
        ["a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u"]
            .map { Array($0.utf8) })

    /// One linear pass over the body: too many tags, or too many formatting elements left open.
    static func isPathological(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        var tags = 0
        var unclosed = 0
        var i = 0
        while i < buffer.count {
            guard buffer[i] == UInt8(ascii: "<") else {
                i += 1
                continue
            }
            tags += 1
            if tags > tagLimit { return true }
            var j = i + 1
            let closing = j < buffer.count && buffer[j] == UInt8(ascii: "/")
            if closing { j += 1 }
            var name: [UInt8] = []
            while j < buffer.count, name.count < 8, (buffer[j] | 0x20) >= UInt8(ascii: "a"), (buffer[j] | 0x20) <= UInt8(ascii: "z") {
                name.append(buffer[j] | 0x20)
                j += 1
            }
            if formatting.contains(name) {
                unclosed = closing ? max(0, unclosed - 1) : unclosed + 1
                if unclosed > unclosedFormattingLimit && unclosed * tags > 1_000_000 { return true }
            }
            i = j
        }
        return false
    }

    package func sanitize(_ html: String) -> HTML {
        var input = html
        var out: [UInt8] = []
        let baseURL = base.flatMap { URL(string: $0) }
        input.withUTF8 { buffer in
            guard buffer.count > 0, let start = buffer.baseAddress else { return }
            guard !Self.isPathological(buffer) else {
                HTML.escape(buffer, into: &out)
                return
            }
            var options = kGumboDefaultOptions
            options.max_errors = 0
            options.fragment_context = GUMBO_TAG_DIV
            options.fragment_namespace = GUMBO_NAMESPACE_HTML
            let bytes = UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self)
            guard let output = withUnsafePointer(to: &options, { gumbo_parse_with_options($0, bytes, buffer.count) }) else { return }
            defer { withUnsafePointer(to: &options) { gumbo_destroy_output($0, output) } }
            out.reserveCapacity(buffer.count + 64)
            var writer = Writer(base: baseURL)
            writer.write(children(of: Self.content(output.pointee.root)), into: &out)
        }
        return HTML(trusted: String(decoding: out, as: UTF8.self))
    }

    /// The node whose children are the body: the fragment's root, or `<body>` when the input
    /// was a whole document.
    static func content(_ root: UnsafeMutablePointer<GumboNode>) -> UnsafeMutablePointer<GumboNode> {
        for child in children(of: root) where child.pointee.type == GUMBO_NODE_ELEMENT && child.pointee.v.element.tag == GUMBO_TAG_BODY {
            return child
        }
        return root
    }

    // MARK: Content models

    /// Elements written as themselves (after renaming).
    static let kept: [String: String] = [
        "p": "p", "br": "br", "em": "em", "i": "em", "strong": "strong", "b": "strong",
        "code": "code", "pre": "pre", "blockquote": "blockquote", "ul": "ul", "ol": "ol", "li": "li",
        "a": "a", "h1": "h1", "h2": "h2", "h3": "h3", "h4": "h4", "h5": "h5", "h6": "h6",
        "del": "del", "s": "del", "strike": "del", "sup": "sup", "sub": "sub", "hr": "hr", "aside": "blockquote",
        "img": "img", "table": "table", "caption": "caption", "thead": "thead", "tbody": "tbody", "tfoot": "tfoot",
        "tr": "tr", "th": "th", "td": "td",
    ]
    /// Each part of a table, with the kept elements it may sit in: a part whose parent was not
    /// kept as one of these is unwrapped, so a table is written whole or not at all.
    static let tableParents: [String: Set<String>] = [
        "caption": ["table"], "thead": ["table"], "tbody": ["table"], "tfoot": ["table"],
        "tr": ["table", "thead", "tbody", "tfoot"], "th": ["tr"], "td": ["tr"],
    ]
    static let void: Set<String> = ["br", "hr", "img"]
    /// Kept elements that are blocks: never written inside an element of `phrasingOnly`.
    static let blocks: Set<String> = ["p", "pre", "blockquote", "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "table"]
    /// Kept elements whose content must be phrasing content.
    static let phrasingOnly: Set<String> = ["p", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "em", "strong", "code", "a", "del", "sup", "sub"]
    /// Elements dropped with everything inside them.
    static let dropped: Set<String> = [
        "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "svg", "math",
        "template", "noscript", "head", "title", "meta", "link", "base", "audio", "video", "source",
        "track", "canvas", "select", "textarea", "input", "button", "option", "noembed", "noframes",
        "xmp", "plaintext", "portal", "dialog", "map", "area", "param", "picture",
    ]
    /// Unkept elements that are blocks: their text is set apart from what surrounds it.
    static let unkeptBlocks: Set<String> = [
        "div", "section", "article", "header", "footer", "nav", "main", "figure", "figcaption", "table",
        "thead", "tbody", "tfoot", "tr", "td", "th", "caption", "colgroup", "dl", "dt", "dd", "details", "summary",
        "center", "address", "fieldset", "legend", "hgroup", "menu", "dir",
    ]

    /// Kept elements nested deeper than this are unwrapped to their text: browsers stop nesting
    /// at a few hundred elements and a comment needs nothing like that.
    static let nestingLimit = 32
}

/// The children of a node, as pointers.
private func children(of node: UnsafeMutablePointer<GumboNode>) -> [UnsafeMutablePointer<GumboNode>] {
    let vector: GumboVector
    switch node.pointee.type {
    case GUMBO_NODE_DOCUMENT: vector = node.pointee.v.document.children
    case GUMBO_NODE_ELEMENT, GUMBO_NODE_TEMPLATE: vector = node.pointee.v.element.children
    default: return []
    }
    guard let data = vector.data else { return [] }
    return (0..<Int(vector.length)).compactMap { data[$0]?.assumingMemoryBound(to: GumboNode.self) }
}

/// Writes a parsed tree from the allowlist, keeping to content models (see `HTMLSanitizer`).
private struct Writer {
    let base: URL?
    /// The kept elements open in the output, innermost last; `synthetic` marks a list item this
    /// writer opened for content that sat directly in a list, or a paragraph for text at the top.
    var open: [(tag: String, synthetic: Bool)] = []

    init(base: URL?) { self.base = base }

    /// Inside an element that takes phrasing content only. The paragraph given to text at the
    /// top does not count: a block closes it.
    var insidePhrasingOnly: Bool { open.contains { HTMLSanitizer.phrasingOnly.contains($0.tag) && !($0.synthetic && $0.tag == "p") } }
    var insideLink: Bool { open.contains { $0.tag == "a" } }
    var inList: Bool { open.last.map { $0.tag == "ul" || $0.tag == "ol" } ?? false }

    enum Content { case listItem, block, phrasing }

    /// Makes room for content about to be written: inside a list, anything but an item gets an
    /// item of its own; at the top, phrasing content (text, links, emphasis) gets a paragraph,
    /// as HN's "First paragraph<p>Second" means, and a block ends that paragraph.
    mutating func prepare(_ content: Content, into out: inout [UInt8]) {
        switch content {
        case .listItem:
            if let last = open.last, last.synthetic, last.tag == "li" { close(into: &out) }
        case .block:
            closeTopParagraph(into: &out)
            if inList {
                out.append(contentsOf: "<li>".utf8)
                open.append(("li", true))
            }
        case .phrasing:
            if open.isEmpty {
                out.append(contentsOf: "<p>".utf8)
                open.append(("p", true))
            } else if inList {
                out.append(contentsOf: "<li>".utf8)
                open.append(("li", true))
            }
        }
    }

    /// Ends the paragraph this writer gave to text at the top, if one is open.
    mutating func closeTopParagraph(into out: inout [UInt8]) {
        if open.count == 1, open[0].synthetic, open[0].tag == "p" { close(into: &out) }
    }

    mutating func close(into out: inout [UInt8]) {
        guard let last = open.popLast() else { return }
        out.append(contentsOf: "</\(last.tag)>".utf8)
        if last.tag == "table" { out.append(contentsOf: "</div>".utf8) }
    }

    /// How one element is written: its tag (nil: unwrapped to its content), and the opening
    /// tag's bytes.
    func decide(_ node: UnsafeMutablePointer<GumboNode>, name: String) -> (tag: String?, opening: String) {
        guard let tag = HTMLSanitizer.kept[name] else { return (nil, "") }
        if let parents = HTMLSanitizer.tableParents[tag] {
            // The table reserved room for its parts under the nesting limit.
            guard let parent = open.last?.tag, parents.contains(parent) else { return (nil, "") }
            // A row without cells is invalid; its white space goes with it.
            if tag == "tr"
                && !children(of: node).contains(where: {
                    $0.pointee.type == GUMBO_NODE_ELEMENT
                        && ($0.pointee.v.element.tag == GUMBO_TAG_TD || $0.pointee.v.element.tag == GUMBO_TAG_TH)
                })
            {
                return (nil, "")
            }
            guard tag == "th" || tag == "td" else { return (tag, "<\(tag)>") }
            return (tag, cell(node, tag))
        }
        // A table needs room for itself, a row group, a row and a cell.
        guard open.count + (tag == "table" ? 4 : 0) < HTMLSanitizer.nestingLimit else { return (nil, "") }
        if HTMLSanitizer.blocks.contains(tag) && insidePhrasingOnly { return (nil, "") }
        // A header cell holds no headings.
        if ["h1", "h2", "h3", "h4", "h5", "h6"].contains(name) && open.contains(where: { $0.tag == "th" }) { return (nil, "") }
        if tag == "li" && !(inList || open.last.map { $0.synthetic && $0.tag == "li" } == true) { return (nil, "") }
        switch tag {
        case "a":
            guard !insideLink, let href = attribute(node, "href"), let url = resolve(href, image: false) else { return (nil, "") }
            var opening: [UInt8] = Array("<a rel=\"nofollow ugc noopener\" href=\"".utf8)
            HTML.escape(url, into: &opening)
            opening.append(contentsOf: "\">".utf8)
            return ("a", String(decoding: opening, as: UTF8.self))
        case "img":
            return ("img", image(node))
        case "table":
            // In a box that scrolls sideways on its own, as Markdown tables are.
            return ("table", "<div class=\"tf-table\" tabindex=\"0\"><table>")
        case "pre":
            // Gumbo took off a newline right after <pre>, and a browser takes off one more: write
            // one, so a body's leading blank line survives.
            return ("pre", "<pre>\n")
        default:
            return (tag, "<\(tag)>")
        }
    }

    /// A table cell's opening tag, with its alignment (from `align` or a `text-align` style) as a
    /// class, since the page's policy forbids styles. Spans are dropped: a span past the other
    /// rows' cells makes a column no cell begins in, which is invalid.
    func cell(_ node: UnsafeMutablePointer<GumboNode>, _ tag: String) -> String {
        var opening = "<\(tag)"
        var align = attribute(node, "align")?.lowercased()
        if let style = attribute(node, "style")?.lowercased().replacingOccurrences(of: " ", with: ""), let range = style.range(of: "text-align:") {
            align = String(style[range.upperBound...].prefix { $0.isLetter })
        }
        switch align {
        case "left": opening += " class=\"tf-left\""
        case "center": opening += " class=\"tf-center\""
        case "right": opening += " class=\"tf-right\""
        default: break
        }
        return opening + ">"
    }

    /// An image: kept with its checked source, or its emoji, or its alt text.
    func image(_ node: UnsafeMutablePointer<GumboNode>) -> String {
        let alt = attribute(node, "alt") ?? ""
        let classes = (attribute(node, "class") ?? "").split(separator: " ")
        var text: [UInt8] = []
        if classes.contains("emoji") {
            HTML.escape(EmojiShortcodes.emoji(shortcode: alt) ?? alt, into: &text)
            return String(decoding: text, as: UTF8.self)
        }
        guard let src = attribute(node, "src"), let url = resolve(src, image: true) else {
            HTML.escape(alt, into: &text)
            return String(decoding: text, as: UTF8.self)
        }
        text.append(contentsOf: "<img src=\"".utf8)
        HTML.escape(url, into: &text)
        text.append(contentsOf: "\" alt=\"".utf8)
        HTML.escape(alt, into: &text)
        text.append(contentsOf: "\"".utf8)
        for dimension in ["width", "height"] {
            if let value = attribute(node, dimension), (1...5).contains(value.count), value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber) {
                text.append(contentsOf: " \(dimension)=\"\(value)\"".utf8)
            }
        }
        text.append(contentsOf: " loading=\"lazy\">".utf8)
        return String(decoding: text, as: UTF8.self)
    }

    /// An allowed absolute URL for `reference`: as it is when it has an allowed scheme, resolved
    /// against the source's site when relative and the site is known, else nil.
    func resolve(_ reference: String, image: Bool) -> String? {
        let allowed: (String) -> Bool = image ? { URLPolicy.allowsImage($0) } : { URLPolicy.allowsLink($0) }
        if URLPolicy.scheme(of: reference) != nil { return allowed(reference) ? reference : nil }
        let trimmed = reference.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let base, !trimmed.isEmpty, !trimmed.hasPrefix("#"),
            let url = URL(string: trimmed, relativeTo: base)?.absoluteString,
            URLPolicy.scheme(of: url) != nil, allowed(url)
        else { return nil }
        return url
    }

    mutating func write(_ first: [UnsafeMutablePointer<GumboNode>], into out: inout [UInt8]) {
        // Each frame: the siblings being written, the next one, and whether the element they
        // belong to was written (and so must be closed) or unwrapped as a block.
        var frames: [(nodes: [UnsafeMutablePointer<GumboNode>], next: Int, written: Bool, block: Bool)] = [(first, 0, false, false)]
        while !frames.isEmpty {
            let top = frames.count - 1
            guard frames[top].next < frames[top].nodes.count else {
                let frame = frames.removeLast()
                if frame.written {
                    // Close any item this writer opened inside it, then the element itself.
                    while let last = open.last, last.synthetic { close(into: &out) }
                    close(into: &out)
                } else if frame.block && !frames.isEmpty {
                    // An unwrapped block ends the paragraph its text was given at the top.
                    closeTopParagraph(into: &out)
                    if !open.isEmpty { out.append(0x0A) }
                }
                continue
            }
            let node = frames[top].nodes[frames[top].next]
            frames[top].next += 1
            switch node.pointee.type {
            case GUMBO_NODE_TEXT, GUMBO_NODE_CDATA:
                guard let text = node.pointee.v.text.text else { continue }
                prepare(.phrasing, into: &out)
                HTML.escape(String(cString: text), into: &out)
            case GUMBO_NODE_WHITESPACE:
                // White space between blocks at the top says nothing.
                guard let text = node.pointee.v.text.text, !open.isEmpty else { continue }
                HTML.escape(String(cString: text), into: &out)
            case GUMBO_NODE_ELEMENT, GUMBO_NODE_TEMPLATE:
                let element = node.pointee.v.element
                guard element.tag_namespace == GUMBO_NAMESPACE_HTML else { continue }  // svg and math content
                // Custom and unknown elements are unwrapped to their text.
                let name = element.tag == GUMBO_TAG_UNKNOWN ? "unknown" : String(cString: gumbo_normalized_tagname(element.tag))
                if HTMLSanitizer.dropped.contains(name) || isLightboxCaption(node) { continue }
                let (tag, opening) = decide(node, name: name)
                if let tag {
                    prepare(tag == "li" ? .listItem : HTMLSanitizer.blocks.contains(tag) ? .block : .phrasing, into: &out)
                    out.append(contentsOf: opening.utf8)
                    if tag == "img" && !opening.hasPrefix("<") { continue }  // emoji or alt text
                    if HTMLSanitizer.void.contains(tag) { continue }
                    open.append((tag, false))
                    frames.append((children(of: node), 0, true, false))
                } else {
                    let block = HTMLSanitizer.unkeptBlocks.contains(name) || HTMLSanitizer.kept[name].map(HTMLSanitizer.blocks.contains) == true
                    if block {
                        closeTopParagraph(into: &out)
                        if !open.isEmpty { out.append(0x0A) }
                    }
                    frames.append((children(of: node), 0, false, block))
                }
            default:
                continue  // comments, the document node
            }
        }
        while !open.isEmpty { close(into: &out) }
    }

    /// Discourse's caption inside an image's lightbox link ("image 841×150 22.4 KB").
    func isLightboxCaption(_ node: UnsafeMutablePointer<GumboNode>) -> Bool {
        guard (attribute(node, "class") ?? "").split(separator: " ").contains("meta"),
            let parent = node.pointee.parent, parent.pointee.type == GUMBO_NODE_ELEMENT
        else { return false }
        return (attribute(parent, "class") ?? "").split(separator: " ").contains("lightbox")
    }

    /// The value of attribute `name` (lower-case; Gumbo lower-cases attribute names).
    func attribute(_ node: UnsafeMutablePointer<GumboNode>, _ name: String) -> String? {
        guard node.pointee.type == GUMBO_NODE_ELEMENT else { return nil }
        return withUnsafePointer(to: &node.pointee.v.element.attributes) { vector in
            gumbo_get_attribute(vector, name).flatMap { $0.pointee.value.map { String(cString: $0) } }
        }
    }
}
