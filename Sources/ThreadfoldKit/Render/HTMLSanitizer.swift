import Clibxml2

/// Turns untrusted HTML bodies (Hacker News `text`, Discourse `cooked`) into safe HTML.
/// The only file that touches libxml2.
///
/// The body is parsed by libxml2's HTML parser, which repairs malformed nesting the way
/// browsers do, and the tree is written out again from an allowlist: paragraphs, line breaks,
/// emphasis, code, pre, blockquote, lists, links and headings (h1 and h2 become h3, so a
/// comment cannot outrank the page's own headings). Links keep only `href`, and only when
/// `URLPolicy` allows it, and get `rel="nofollow ugc noopener"`. Script-like elements (script,
/// style, iframe, object, svg, math, form controls, …) are dropped with their content; any other
/// element is dropped but its text kept; images become their alt text. No attribute other than
/// a checked `href` survives. The tree is walked with an explicit stack.
package struct HTMLSanitizer: Sendable {
    package init() {}

    package func sanitize(_ html: String) -> HTML {
        var input = html
        var out: [UInt8] = []
        input.withUTF8 { buffer in
            guard buffer.count > 0, buffer.count < Int(Int32.max),
                  let base = buffer.baseAddress else { return }
            let options = Int32(HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NONET.rawValue
                                | HTML_PARSE_COMPACT.rawValue) | Int32(XML_PARSE_HUGE.rawValue)
            let bytes = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
            guard let document = htmlReadMemory(bytes, Int32(buffer.count), nil, "UTF-8", options) else { return }
            defer { xmlFreeDoc(document) }
            out.reserveCapacity(buffer.count + 64)
            // The parser implies <html><body>; what the body holds is the comment.
            if let body = Self.body(of: document) { write(body.pointee.children, into: &out) }
        }
        return HTML(trusted: String(decoding: out, as: UTF8.self))
    }

    /// Elements written as themselves (after renaming).
    static let kept: [String: String] = [
        "p": "p", "br": "br", "em": "em", "i": "em", "strong": "strong", "b": "strong",
        "code": "code", "pre": "pre", "blockquote": "blockquote", "ul": "ul", "ol": "ol", "li": "li",
        "a": "a", "h1": "h3", "h2": "h3", "h3": "h3", "h4": "h4", "h5": "h5", "h6": "h6",
        "del": "del", "s": "del", "sup": "sup", "sub": "sub", "hr": "hr", "aside": "blockquote",
    ]
    static let void: Set<String> = ["br", "hr"]
    /// Elements dropped with everything inside them.
    static let dropped: Set<String> = [
        "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "svg", "math",
        "template", "noscript", "head", "title", "meta", "link", "base", "audio", "video", "source",
        "track", "canvas", "select", "textarea", "input", "button", "option", "noembed", "noframes",
        "xmp", "plaintext", "portal", "dialog", "map", "area", "param",
    ]

    /// Kept elements nested deeper than this are unwrapped to their text: browsers stop nesting
    /// at a few hundred elements and a comment needs nothing like that.
    static let nestingLimit = 32

    static func body(of document: htmlDocPtr) -> xmlNodePtr? {
        var node = document.pointee.children
        while let current = node {
            if current.pointee.type == XML_ELEMENT_NODE, let name = current.pointee.name {
                let tag = String(cString: name).lowercased()
                if tag == "body" { return current }
                if tag == "html" { node = current.pointee.children; continue }
            }
            node = current.pointee.next
        }
        return nil
    }

    private func write(_ first: xmlNodePtr?, into out: inout [UInt8]) {
        var stack: [(node: xmlNodePtr, close: String?)] = []
        var keptDepth = 0
        var current = first
        while true {
            guard let node = current else {
                guard let (parent, close) = stack.popLast() else { break }
                if let close {
                    out.append(contentsOf: "</\(close)>".utf8)
                    keptDepth -= 1
                }
                current = parent.pointee.next
                continue
            }
            switch node.pointee.type {
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = node.pointee.content {
                    HTML.escape(String(cString: content), into: &out)
                }
            case XML_ELEMENT_NODE:
                let name = node.pointee.name.map { String(cString: $0).lowercased() } ?? ""
                if Self.dropped.contains(name) { break }
                if name == "img" {
                    if let alt = attribute(node, "alt"), !alt.isEmpty { HTML.escape(alt, into: &out) }
                    break
                }
                var tag = keptDepth < Self.nestingLimit ? Self.kept[name] : nil
                if tag == "a" {
                    if let href = attribute(node, "href"), URLPolicy.allowsLink(href) {
                        out.append(contentsOf: "<a rel=\"nofollow ugc noopener\" href=\"".utf8)
                        HTML.escape(href, into: &out)
                        out.append(contentsOf: "\">".utf8)
                    } else {
                        tag = nil // a link that may not be followed keeps its text only
                    }
                } else if let tag {
                    out.append(contentsOf: "<\(tag)>".utf8)
                }
                if let tag, Self.void.contains(tag) { break }
                if let children = node.pointee.children {
                    stack.append((node, tag))
                    if tag != nil { keptDepth += 1 }
                    current = children
                    continue
                }
                if let tag { out.append(contentsOf: "</\(tag)>".utf8) }
            default:
                break // comments, processing instructions, DTDs
            }
            current = node.pointee.next
        }
    }

    /// The value of attribute `name` (lower-case), read from the node's attribute list without
    /// allocating in libxml2.
    private func attribute(_ node: xmlNodePtr, _ name: String) -> String? {
        var attribute = node.pointee.properties
        while let current = attribute {
            if let attributeName = current.pointee.name, String(cString: attributeName).lowercased() == name {
                var value = ""
                var child = current.pointee.children
                while let text = child {
                    if let content = text.pointee.content { value += String(cString: content) }
                    child = text.pointee.next
                }
                return value
            }
            attribute = current.pointee.next
        }
        return nil
    }
}
