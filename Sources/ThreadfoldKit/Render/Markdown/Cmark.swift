import Ccmark
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The one file that imports `Ccmark`. The Markdown passes see cmark through the Swift face
// below: `Cmark` parses, `CmarkNode` reads, changes, walks and renders a tree, and every tree
// is made with the allocator of the body being rendered (`CmarkArena`).

/// cmark's parser and version.
enum Cmark {
    /// The version of the cmark header this was compiled against.
    static let version = CMARK_VERSION_STRING

    /// The document cmark parses from `bytes` (UTF-8, validated by cmark as it reads), made with
    /// the allocator of the body being rendered; nil when cmark fails. `smart` turns straight
    /// quotes, dashes and ellipses into typographic ones. The caller frees the document
    /// (`CmarkNode.free`).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, smart: Bool) -> CmarkNode? {
        var options = CMARK_OPT_VALIDATE_UTF8
        if smart { options |= CMARK_OPT_SMART }
        guard let parser = cmark_parser_new_with_mem(options, allocator) else { return nil }
        defer { cmark_parser_free(parser) }
        let base = UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self)
        cmark_parser_feed(parser, base, bytes.count)
        return cmark_parser_finish(parser).map(CmarkNode.init)
    }

    /// The allocator of the body being rendered on this thread: the arena's hooks while the
    /// outermost body holds the arena, else cmark's default. A tree is freed with its root's
    /// allocator, so every node of one tree must come from the same one.
    fileprivate static var allocator: UnsafeMutablePointer<cmark_mem> {
        CmarkArena.bodyUsesArena ? arenaHooks : cmark_get_default_mem_allocator()
    }

    /// The arena's hooks, handed to cmark only while a body holds the arena (`CmarkArena.begin`
    /// to `end`); called outside that, they fall back to the C library. `free` does nothing: the
    /// arena releases a body's memory at once, at `end`.
    nonisolated(unsafe) private static let arenaHooks: UnsafeMutablePointer<cmark_mem> = {
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

/// One node of a cmark tree: a pointer, not an owner. It is valid while its tree is, and only
/// the root of a tree (or a node taken out of one) is freed, with `free`.
///
/// Strings read from a node (`literal`, `url`, `title`, `fenceInfo`) are its bytes where cmark
/// keeps them, valid until that value is set again or the node is freed.
struct CmarkNode {
    fileprivate let pointer: OpaquePointer

    fileprivate init(_ pointer: OpaquePointer) { self.pointer = pointer }

    /// What a node is: cmark's node types.
    enum Kind {
        case unknown
        case document, blockQuote, list, item, codeBlock, htmlBlock, customBlock, paragraph, heading, thematicBreak
        case text, softBreak, lineBreak, code, htmlInline, customInline, emph, strong, link, image

        fileprivate init(_ type: cmark_node_type) {
            switch type {
            case CMARK_NODE_DOCUMENT: self = .document
            case CMARK_NODE_BLOCK_QUOTE: self = .blockQuote
            case CMARK_NODE_LIST: self = .list
            case CMARK_NODE_ITEM: self = .item
            case CMARK_NODE_CODE_BLOCK: self = .codeBlock
            case CMARK_NODE_HTML_BLOCK: self = .htmlBlock
            case CMARK_NODE_CUSTOM_BLOCK: self = .customBlock
            case CMARK_NODE_PARAGRAPH: self = .paragraph
            case CMARK_NODE_HEADING: self = .heading
            case CMARK_NODE_THEMATIC_BREAK: self = .thematicBreak
            case CMARK_NODE_TEXT: self = .text
            case CMARK_NODE_SOFTBREAK: self = .softBreak
            case CMARK_NODE_LINEBREAK: self = .lineBreak
            case CMARK_NODE_CODE: self = .code
            case CMARK_NODE_HTML_INLINE: self = .htmlInline
            case CMARK_NODE_CUSTOM_INLINE: self = .customInline
            case CMARK_NODE_EMPH: self = .emph
            case CMARK_NODE_STRONG: self = .strong
            case CMARK_NODE_LINK: self = .link
            case CMARK_NODE_IMAGE: self = .image
            default: self = .unknown
            }
        }

        fileprivate var type: cmark_node_type {
            switch self {
            case .unknown: CMARK_NODE_NONE
            case .document: CMARK_NODE_DOCUMENT
            case .blockQuote: CMARK_NODE_BLOCK_QUOTE
            case .list: CMARK_NODE_LIST
            case .item: CMARK_NODE_ITEM
            case .codeBlock: CMARK_NODE_CODE_BLOCK
            case .htmlBlock: CMARK_NODE_HTML_BLOCK
            case .customBlock: CMARK_NODE_CUSTOM_BLOCK
            case .paragraph: CMARK_NODE_PARAGRAPH
            case .heading: CMARK_NODE_HEADING
            case .thematicBreak: CMARK_NODE_THEMATIC_BREAK
            case .text: CMARK_NODE_TEXT
            case .softBreak: CMARK_NODE_SOFTBREAK
            case .lineBreak: CMARK_NODE_LINEBREAK
            case .code: CMARK_NODE_CODE
            case .htmlInline: CMARK_NODE_HTML_INLINE
            case .customInline: CMARK_NODE_CUSTOM_INLINE
            case .emph: CMARK_NODE_EMPH
            case .strong: CMARK_NODE_STRONG
            case .link: CMARK_NODE_LINK
            case .image: CMARK_NODE_IMAGE
            }
        }
    }

    /// A new node, made with the allocator of the body being rendered; nil when cmark fails.
    static func make(_ kind: Kind) -> CmarkNode? {
        cmark_node_new_with_mem(kind.type, Cmark.allocator).map(CmarkNode.init)
    }

    /// A new custom node (`.customBlock` or `.customInline`) that renders as `onEnter`, its
    /// children, then `onExit`: markup written as it is, so only ever markup made here.
    static func custom(_ kind: Kind, onEnter: String, onExit: String) -> CmarkNode? {
        guard let node = make(kind) else { return nil }
        cmark_node_set_on_enter(node.pointer, onEnter)
        cmark_node_set_on_exit(node.pointer, onExit)
        return node
    }

    var kind: Kind { Kind(cmark_node_get_type(pointer)) }

    // MARK: Values

    var literal: UnsafeBufferPointer<UInt8>? { Self.bytes(cmark_node_get_literal(pointer)) }
    var url: UnsafeBufferPointer<UInt8>? { Self.bytes(cmark_node_get_url(pointer)) }
    var title: UnsafeBufferPointer<UInt8>? { Self.bytes(cmark_node_get_title(pointer)) }
    var fenceInfo: UnsafeBufferPointer<UInt8>? { Self.bytes(cmark_node_get_fence_info(pointer)) }

    private static func bytes(_ string: UnsafePointer<CChar>?) -> UnsafeBufferPointer<UInt8>? {
        guard let string else { return nil }
        return UnsafeBufferPointer(start: UnsafeRawPointer(string).assumingMemoryBound(to: UInt8.self), count: strlen(string))
    }

    /// Sets the literal to `bytes`, which hold no NUL.
    @discardableResult
    func setLiteral(_ bytes: [UInt8]) -> Bool {
        var bytes = bytes
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { buffer in
            cmark_node_set_literal(pointer, UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)) == 1
        }
    }

    @discardableResult func setLiteral(_ value: String) -> Bool { cmark_node_set_literal(pointer, value) == 1 }
    @discardableResult func setURL(_ value: String) -> Bool { cmark_node_set_url(pointer, value) == 1 }
    @discardableResult func setTitle(_ value: String) -> Bool { cmark_node_set_title(pointer, value) == 1 }
    @discardableResult func setFenceInfo(_ value: String) -> Bool { cmark_node_set_fence_info(pointer, value) == 1 }

    /// Where the node starts and ends in the source cmark parsed: lines and columns from 1.
    var startLine: Int { Int(cmark_node_get_start_line(pointer)) }
    var startColumn: Int { Int(cmark_node_get_start_column(pointer)) }
    var endLine: Int { Int(cmark_node_get_end_line(pointer)) }

    // MARK: The tree

    var firstChild: CmarkNode? { cmark_node_first_child(pointer).map(CmarkNode.init) }
    var next: CmarkNode? { cmark_node_next(pointer).map(CmarkNode.init) }

    /// Puts `sibling` (taken out of where it was) right before this node.
    @discardableResult
    func insertBefore(_ sibling: CmarkNode) -> Bool { cmark_node_insert_before(pointer, sibling.pointer) == 1 }

    /// Puts `sibling` (taken out of where it was) right after this node.
    @discardableResult
    func insertAfter(_ sibling: CmarkNode) -> Bool { cmark_node_insert_after(pointer, sibling.pointer) == 1 }

    /// Makes `child` (taken out of where it was) this node's last child; false when cmark
    /// refuses, as for a child of a kind this node cannot hold.
    @discardableResult
    func appendChild(_ child: CmarkNode) -> Bool { cmark_node_append_child(pointer, child.pointer) == 1 }

    /// Takes the node out of its tree and frees it with everything under it.
    func free() { cmark_node_free(pointer) }

    /// Joins adjacent text nodes under this node into one.
    func consolidateTextNodes() { cmark_consolidate_text_nodes(pointer) }

    /// Every node from this one down, in document order: `body(node, true)` as each is
    /// entered and, for a node that may hold children, `body(node, false)` as it is left (a
    /// leaf is entered only). cmark's iterator keeps its place in the tree, not on the stack,
    /// so a deep tree is walked in constant stack. `body` may set a node's values but must not
    /// change the tree's shape: a pass gathers the nodes it changes and changes them after.
    func walk(_ body: (_ node: CmarkNode, _ entering: Bool) -> Void) {
        guard let iterator = cmark_iter_new(pointer) else { return }
        defer { cmark_iter_free(iterator) }
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard let node = cmark_iter_get_node(iterator) else { continue }
            body(CmarkNode(node), event == CMARK_EVENT_ENTER)
        }
    }

    // MARK: Rendering

    /// `body` over the HTML cmark renders for this node and what is under it (raw HTML omitted:
    /// never `CMARK_OPT_UNSAFE`); `hardBreaks` renders soft breaks as `<br />`. The bytes are
    /// freed when `body` returns. Nil when cmark fails.
    func withHTML<Result>(hardBreaks: Bool, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        var options = CMARK_OPT_DEFAULT
        if hardBreaks { options |= CMARK_OPT_HARDBREAKS }
        guard let rendered = cmark_render_html(pointer, options) else { return nil }
        // Allocated with the node's allocator, so freed with it.
        defer { Cmark.allocator.pointee.free(rendered) }
        let length = strlen(rendered)
        return rendered.withMemoryRebound(to: UInt8.self, capacity: length) { start in
            body(UnsafeBufferPointer(start: start, count: length))
        }
    }
}
