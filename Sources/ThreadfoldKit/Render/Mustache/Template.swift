/// A parsed Mustache template: an enum AST, each tag keeping its place for messages.
public struct Template: Sendable {
    public let name: String
    /// The file named in error messages.
    public let file: String
    public let source: String
    let nodes: [Node]

    public init(name: String, source: String, file: String? = nil) throws(TemplateError) {
        self.name = name
        self.file = file ?? name
        self.source = source
        var parser = TemplateParser(source: source, file: file ?? name)
        self.nodes = try parser.parse()
    }

    /// A dotted name (`a.b.c`), or the implicit iterator `.` (no parts).
    struct Name: Sendable {
        let parts: [String]
        var isImplicit: Bool { parts.isEmpty }

        init(_ text: String) {
            parts = text == "." ? [] : text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        }
    }

    /// Nodes are one flat array. A section's children are the nodes after it up to its `end`
    /// (an index into the same array, exclusive), so however deep sections nest, nothing that
    /// parses, renders or frees a template recurses.
    enum Node: Sendable {
        case text([UInt8])
        case variable(Name, escaped: Bool)
        case section(Name, inverted: Bool, end: Int)
        /// A partial, with the indentation of its standalone tag (applied to every line).
        case partial(String, indent: String)
    }
}

/// A template error, printed as `file:line:col: error: message`.
public struct TemplateError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var message: String

    public var description: String { "\(file):\(line):\(column): error: \(message)" }
}
