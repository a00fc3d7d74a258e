/// The one error the library throws: what kind of thing went wrong, and every problem found,
/// each naming its file and, where there is one, the line and column or JSON path, what was
/// found and what was expected.
public struct ThreadfoldError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// An input file is missing, unreadable or not valid input; nothing was published.
        case input
        /// The output folder could not be written (or is not one Threadfold wrote); nothing was published.
        case output
        /// A custom template does not parse or render.
        case template
        /// A locale, template folder or asset folder could not be used.
        case resources
        /// An option's value is not one the library takes (a field mapping, an exclude glob, a
        /// locale); the problem's message says what was found and what is expected.
        case usage
        /// Another build held the output folder (its lock, or a race to create it): nothing is
        /// wrong with the input, and the same build may succeed when run again. Nothing was published.
        case busy
    }

    public var kind: Kind
    public var problems: [Problem]
    /// The system's error number, when a call on the output failed.
    package var errno: Int32?

    public init(kind: Kind, problems: [Problem]) {
        self.kind = kind
        self.problems = problems
    }

    /// Every problem on a line of its own, as `file:line:col: error: $.path: message`; for a
    /// `usage` or `resources` error, whose message names its place itself, the messages alone.
    public var description: String {
        switch kind {
        case .usage, .resources: message
        case .input, .output, .template, .busy: problems.map(\.description).joined(separator: "\n")
        }
    }
}

extension ThreadfoldError {
    /// Input problems, reported together so a user fixes them in one pass.
    package static func input(_ problems: [Problem]) -> ThreadfoldError { ThreadfoldError(kind: .input, problems: problems) }

    /// One input problem.
    package static func input(_ problem: Problem) -> ThreadfoldError { ThreadfoldError(kind: .input, problems: [problem]) }

    /// A bad option's value, as its message says it.
    package static func usage(_ message: String) -> ThreadfoldError {
        ThreadfoldError(kind: .usage, problems: [Problem(file: "options", message: message)])
    }

    /// A template folder, asset folder or locale that cannot be used, as its message says it.
    package static func resources(_ message: String) -> ThreadfoldError {
        ThreadfoldError(kind: .resources, problems: [Problem(file: "resources", message: message)])
    }

    /// A template that does not parse or render, at its place in the template's file.
    package static func template(file: String, line: Int, column: Int, message: String) -> ThreadfoldError {
        ThreadfoldError(kind: .template, problems: [Problem(file: file, line: line, column: column, message: message)])
    }

    /// The output (or a file of it) that cannot be written: `busy` when another build held it.
    package static func output(path: String, message: String, errno: Int32? = nil, temporary: Bool = false) -> ThreadfoldError {
        var error = ThreadfoldError(kind: temporary ? .busy : .output, problems: [Problem(file: path, message: message)])
        error.errno = errno
        return error
    }

    /// The messages alone, one a line: what a front end prints where it names the place itself.
    package var message: String { problems.map(\.message).joined(separator: "\n") }

    /// The first problem's file: the output path of an output error.
    package var path: String { problems.first?.file ?? "" }

    /// Another build held the output: the same build may succeed when run again.
    package var temporary: Bool { kind == .busy }
}
