/// The JSON layer's one error: a syntax error at a byte offset (the parser's), or a typed read
/// that found something other than what it expected, at a tape node with its JSON path.
/// `JSONReader` turns either into a located `Problem`: the file, `line:column`, the path.
package struct JSONError: Error, Sendable {
    /// The byte offset of a syntax error; -1 for a mismatch, which `node` locates.
    package var offset: Int
    /// The tape node a mismatch is about; -1 for a syntax error.
    package var node: Int
    /// A mismatch's JSON path; "" for a syntax error.
    package var path: String
    /// What a mismatch expected and what it found instead.
    package var expected: String
    package var found: String
    /// A flag or form that might read the file, for a mismatch's message.
    package var hint: Problem.Hint?
    /// A syntax error after a complete value: the file may be JSON Lines.
    package var isTrailingContent = false
    /// A syntax error's message, whole ("found …; expected …"); nil for a mismatch.
    private var syntax: String?

    /// A syntax error at byte `offset`.
    package init(offset: Int, message: String, isTrailingContent: Bool = false) {
        self.offset = offset
        self.node = -1
        self.path = ""
        self.expected = ""
        self.found = ""
        self.isTrailingContent = isTrailingContent
        self.syntax = message
    }

    /// A typed read's mismatch: what it found at `node` (at `path`) instead of what it expected.
    package init(node: Int, path: String, expected: String, found: String, hint: Problem.Hint? = nil) {
        self.offset = -1
        self.node = node
        self.path = path
        self.expected = expected
        self.found = found
        self.hint = hint
    }

    /// Whether this is a syntax error (located by `offset`) rather than a mismatch.
    package var isSyntax: Bool { syntax != nil }

    /// What went wrong, in words: a syntax error's message, or "expected …, found …".
    package var message: String { syntax ?? "expected \(expected), found \(found)" }
}
