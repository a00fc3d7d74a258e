/// A problem with an input file, located by line and column and, where it helps, a JSON path.
///
/// Prints as `file:line:col: error: $.comments[3].parent_id: message`, with the message saying
/// what was found and what was expected. The file name, path and message are escaped for the
/// terminal (`Printable.escape`): they carry input strings and file names.
public struct InputError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable { case error, warning }

    public var file: String
    public var line: Int?
    public var column: Int?
    public var path: String?
    public var message: String
    public var severity: Severity
    /// What a front end can suggest for the problem. The library's messages name no
    /// command-line flag; the CLI turns the hint into one.
    public var hint: Hint?
    /// The kind of a warning that many comments can share (`orphan`, `cycle`, `duplicate`,
    /// `omittedDeleted`, `skipped`), so a front end can count them rather than list each.
    public var kind: String?

    /// A way around a problem that a front end may offer.
    public enum Hint: String, Sendable {
        /// Comments without a required field can be skipped instead.
        case lenient
        /// The comment was skipped because skipping was asked for.
        case skipped
        /// The file can be read as another form.
        case otherForm
        /// The file's form can be named, or its fields mapped.
        case nameForm
        /// Duplicate ids can be allowed, keeping the first.
        case allowDuplicates
        /// A sharded build writes the folders a merge takes.
        case shard
    }

    public init(file: String, line: Int? = nil, column: Int? = nil, path: String? = nil,
                message: String, severity: Severity = .error, hint: Hint? = nil) {
        self.file = file
        self.line = line
        self.column = column
        self.path = path
        self.message = message
        self.severity = severity
        self.hint = hint
    }

    public var description: String {
        var text = Printable.escape(file)
        if let line, let column { text += ":\(line):\(column)" }
        text += ": \(severity.rawValue): "
        if let path { text += "\(Printable.escape(path)): " }
        return text + Printable.escape(message)
    }
}

/// One or more input errors, reported together so a user fixes them in one pass.
package struct InputErrors: Error, Sendable, CustomStringConvertible {
    package var errors: [InputError]
    package init(_ errors: [InputError]) { self.errors = errors }
    package var description: String { errors.map(\.description).joined(separator: "\n") }
}
