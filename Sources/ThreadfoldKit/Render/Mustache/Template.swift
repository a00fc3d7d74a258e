/// A parsed Mustache template: a flat node array, each name already resolved to its key.
package struct Template: Sendable {
    package let name: String
    /// The file named in error messages.
    package let file: String
    package let source: String
    let nodes: [Node]

    /// Parses `source` on its own, with a table of names of its own (to check a template).
    package init(name: String, source: String, file: String? = nil) throws(ThreadfoldError) {
        var keys = TemplateKeys()
        try self.init(name: name, source: source, file: file, keys: &keys)
    }

    /// Parses `source`, entering its names in `keys`, the table of the set it belongs to.
    init(name: String, source: String, file: String? = nil, keys: inout TemplateKeys) throws(ThreadfoldError) {
        self.name = name
        self.file = file ?? name
        self.source = source
        // Offsets into the compiled template are 32-bit.
        guard source.utf8.count <= Template.maxSourceBytes else {
            throw ThreadfoldError.template(
                file: file ?? name, line: 1, column: 1,
                message: "the template is \(source.utf8.count) bytes; expected at most \(Template.maxSourceBytes) (256 MiB)")
        }
        var parser = TemplateParser(source: source, file: file ?? name, keys: keys)
        self.nodes = try parser.parse()
        keys = parser.keys
        program = Program(nodes)
    }

    /// The nodes compiled for rendering: plain instructions that hold no references, with the
    /// text, the keys and the partials they name in three side arrays, so the render loop copies
    /// nothing that is counted (the node enum's arrays cost a retain and a release per node).
    let program: Program

    struct Program: Sendable {
        enum Code: UInt8, Sendable {
            /// Only the op's text.
            case text
            /// A variable named by `keys[a ..< a + b]` (no keys: the implicit iterator).
            case escaped, raw
            /// A section named like a variable, whose children run to op `end`.
            case section, inverted
            /// `partials[a]`.
            case partial
        }

        /// An instruction: first write `bytes[text ..< text + textCount]` (the template's text
        /// before the tag), then do what `code` says. Text carried by the tag after it costs
        /// the render loop no turn of its own; only text that ends a section or a template
        /// stands alone, as a `.text` op.
        struct Op: Sendable {
            let code: Code
            let a, b, end: Int32
            let text, textCount: Int32
        }

        private(set) var ops: [Op] = []
        private(set) var bytes: [UInt8] = []
        private(set) var keys: [TemplateKey] = []
        /// Each partial's name, the indentation of its standalone tag, and where the tag starts
        /// in the source (for messages).
        private(set) var partials: [(name: String, indent: String, offset: Int32)] = []

        init(_ nodes: [Node]) {
            // A text node is carried by the tag after it, unless a section ends between them.
            var closes = [Bool](repeating: false, count: nodes.count + 1)
            for case .section(_, _, let end) in nodes { closes[end] = true }
            func carried(_ i: Int) -> Bool {
                guard case .text = nodes[i], i + 1 < nodes.count, !closes[i + 1] else { return false }
                if case .text = nodes[i + 1] { return false }
                return true
            }
            // Where each node's op is (a carried text node's is its tag's), for the sections' ends.
            var index = [Int32](repeating: 0, count: nodes.count + 1)
            var count: Int32 = 0
            for i in nodes.indices {
                index[i] = count
                if !carried(i) { count += 1 }
            }
            index[nodes.count] = count
            ops.reserveCapacity(Int(count))
            var text = (start: Int32(0), count: Int32(0))
            for (i, node) in nodes.enumerated() {
                switch node {
                case .text(let bytes):
                    text = (Int32(self.bytes.count), Int32(bytes.count))
                    self.bytes.append(contentsOf: bytes)
                    if carried(i) { continue }
                    ops.append(Op(code: .text, a: 0, b: 0, end: 0, text: text.start, textCount: text.count))
                case .variable(let name, let escaped):
                    let (a, b) = add(name)
                    ops.append(Op(code: escaped ? .escaped : .raw, a: a, b: b, end: 0, text: text.start, textCount: text.count))
                case .section(let name, let inverted, let end):
                    let (a, b) = add(name)
                    ops.append(Op(code: inverted ? .inverted : .section, a: a, b: b, end: index[end], text: text.start, textCount: text.count))
                case .partial(let name, let indent, let offset):
                    ops.append(Op(code: .partial, a: Int32(partials.count), b: 0, end: 0, text: text.start, textCount: text.count))
                    partials.append((name, indent, Int32(offset)))
                }
                text = (0, 0)
            }
        }

        private mutating func add(_ name: Name) -> (Int32, Int32) {
            let start = Int32(keys.count)
            keys.append(contentsOf: name.parts)
            return (start, Int32(name.parts.count))
        }
    }

    static var maxSourceBytes: Int { 256 << 20 }

    /// A dotted name (`a.b.c`), or the implicit iterator `.` (no parts).
    struct Name: Sendable {
        let parts: [TemplateKey]
        var isImplicit: Bool { parts.isEmpty }

        init(_ text: String, keys: inout TemplateKeys) {
            parts = text == "." ? [] : text.split(separator: ".", omittingEmptySubsequences: false).map { keys.key(String($0)) }
        }
    }

    /// Nodes are one flat array. A section's children are the nodes after it up to its `end`
    /// (an index into the same array, exclusive), so however deep sections nest, nothing that
    /// parses, renders or frees a template recurses.
    enum Node: Sendable {
        case text([UInt8])
        case variable(Name, escaped: Bool)
        case section(Name, inverted: Bool, end: Int)
        /// A partial, with the indentation of its standalone tag (applied to every line) and the
        /// tag's offset in the source.
        case partial(String, indent: String, offset: Int)
    }
}
