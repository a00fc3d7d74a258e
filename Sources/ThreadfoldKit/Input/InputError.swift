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

    public init(file: String, line: Int? = nil, column: Int? = nil, path: String? = nil,
                message: String, severity: Severity = .error) {
        self.file = file
        self.line = line
        self.column = column
        self.path = path
        self.message = message
        self.severity = severity
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
public struct InputErrors: Error, Sendable, CustomStringConvertible {
    public var errors: [InputError]
    public init(_ errors: [InputError]) { self.errors = errors }
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
