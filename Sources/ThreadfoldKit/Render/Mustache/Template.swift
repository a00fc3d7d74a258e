/// A parsed Mustache template: a flat node array, each name already resolved to its key.
package struct Template: Sendable {
    package let name: String
    /// The file named in error messages.
    package let file: String
    package let source: String
    let nodes: [Node]

    /// Parses `source` on its own, with a table of names of its own (to check a template).
    package init(name: String, source: String, file: String? = nil) throws(TemplateError) {
        var keys = TemplateKeys()
        try self.init(name: name, source: source, file: file, keys: &keys)
    }

    /// Parses `source`, entering its names in `keys`, the table of the set it belongs to.
    init(name: String, source: String, file: String? = nil, keys: inout TemplateKeys) throws(TemplateError) {
        self.name = name
        self.file = file ?? name
        self.source = source
        var parser = TemplateParser(source: source, file: file ?? name, keys: keys)
        self.nodes = try parser.parse()
        keys = parser.keys
    }

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
        /// A partial, with the indentation of its standalone tag (applied to every line).
        case partial(String, indent: String)
    }
}

/// A template error, printed as `file:line:col: error: message`.
package struct TemplateError: Error, Sendable, CustomStringConvertible {
    package var file: String
    package var line: Int
    package var column: Int
    package var message: String

    package var description: String { "\(file):\(line):\(column): error: \(message)" }
}
