import Ccmark

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The one file that imports `Ccmark`. The Markdown passes see cmark through the Swift face
// below: `Cmark` parses, `CmarkNode` reads, changes and renders a tree, `CmarkWalk` walks it,
// and every tree is made with the allocator of the body being rendered (`CmarkArena`).

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
        assert(CmarkNode.Kind.matchesHeader, "CmarkNode.Kind's numbers are not cmark's node types")
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
        mem.initialize(
            to: cmark_mem(
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

    /// What a node is: cmark's node types, declared in cmark's order with cmark's numbers
    /// (`cmark_node_type`), so a node's kind is read with one comparison: a case's number is
    /// its place in the declaration, which is how Swift stores it. `type` spells out each
    /// case's C constant, and `matchesHeader` (asserted on every parse of a debug build) checks
    /// the numbers and the reading against it.
    enum Kind: UInt8, CaseIterable {
        case unknown = 0
        case document, blockQuote, list, item, codeBlock, htmlBlock, customBlock, paragraph, heading, thematicBreak
        case text, softBreak, lineBreak, code, htmlInline, customInline, emph, strong, link, image

        @inline(__always)
        fileprivate init(_ type: cmark_node_type) {
            self = type.rawValue <= UInt32(Kind.image.rawValue) ? unsafeBitCast(UInt8(truncatingIfNeeded: type.rawValue), to: Kind.self) : .unknown
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

        /// Whether every case's number is its C constant's, and reads back as the case.
        fileprivate static let matchesHeader = allCases.allSatisfy { UInt32($0.rawValue) == $0.type.rawValue && Kind($0.type) == $0 }
    }

    /// A new node, made with the allocator of the body being rendered; nil when cmark fails.
    static func make(_ kind: Kind) -> CmarkNode? {
        cmark_node_new_with_mem(kind.type, Cmark.allocator).map(CmarkNode.init)
    }

    /// A new custom node (`.customBlock` or `.customInline`) that renders as `onEnter`, its
    /// children, then `onExit`: markup written as it is, hence `HTML` and literals only.
    static func custom(_ kind: Kind, onEnter: HTML, onExit: StaticString) -> CmarkNode? {
        guard let node = make(kind) else { return nil }
        cmark_node_set_on_enter(node.pointer, onEnter.raw)
        cmark_node_set_on_exit(node.pointer, cString(onExit))
        return node
    }

    /// The same for fixed markup, handed to cmark where the literal stands rather than copied
    /// into a C string first.
    static func custom(_ kind: Kind, onEnter: StaticString, onExit: StaticString) -> CmarkNode? {
        guard let node = make(kind) else { return nil }
        cmark_node_set_on_enter(node.pointer, cString(onEnter))
        cmark_node_set_on_exit(node.pointer, cString(onExit))
        return node
    }

    /// A string literal as a C string: the compiler stores literals NUL-terminated. (A literal
    /// of one character may be stored as a scalar instead, which `utf8Start` refuses.)
    private static func cString(_ text: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    var kind: Kind {
        @inline(__always) get { Kind(cmark_node_get_type(pointer)) }
    }

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

    /// The paragraph a container block (a quote, a list item) starts with, and the text that
    /// starts that paragraph; nil when the block starts otherwise.
    var leadingText: (paragraph: CmarkNode, text: CmarkNode)? {
        guard let paragraph = firstChild, paragraph.kind == .paragraph,
            let text = paragraph.firstChild, text.kind == .text
        else { return nil }
        return (paragraph, text)
    }

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

    /// A walk over every node from this one down, in document order (see `CmarkWalk`).
    func walk() -> CmarkWalk { CmarkWalk(self) }

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

/// A walk over a cmark tree, the one every pass uses: `next()` gives each node as it is entered
/// and, for a node that may hold children, again as it is left (a leaf is entered only).
///
///     var walk = root.walk()
///     while let step = walk.next() { … step.node, step.entering … }
///
/// cmark's iterator keeps its place in the tree, not on the stack, so a deep tree is walked in
/// constant stack. A pass may set a node's values during the walk but must not change the
/// tree's shape: it gathers the nodes it changes and changes them after. A loop rather than a
/// closure, so each pass's body is compiled into its own loop over cmark's events.
struct CmarkWalk: ~Copyable {
    /// One step: a node, entered or left.
    struct Step {
        let node: CmarkNode
        let entering: Bool
    }

    private let iterator: OpaquePointer?

    fileprivate init(_ root: CmarkNode) { iterator = cmark_iter_new(root.pointer) }

    deinit { if let iterator { cmark_iter_free(iterator) } }

    /// The next step, or nil when the walk is done.
    @inline(__always)
    mutating func next() -> Step? {
        guard let iterator else { return nil }
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { return nil }
            guard let node = cmark_iter_get_node(iterator) else { continue }
            return Step(node: CmarkNode(node), entering: event == CMARK_EVENT_ENTER)
        }
    }
}
