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
    }

    public var kind: Kind
    public var problems: [Problem]

    public init(kind: Kind, problems: [Problem]) {
        self.kind = kind
        self.problems = problems
    }

    /// Every problem on a line of its own, as `file:line:col: error: $.path: message`.
    public var description: String { problems.map(\.description).joined(separator: "\n") }

    /// Whatever a stage threw, as one error.
    init(_ error: any Error) {
        switch error {
        case let error as ThreadfoldError: self = error
        case let error as InputErrors: self.init(kind: .input, problems: error.errors)
        case let error as Problem: self.init(kind: .input, problems: [error])
        case let error as SiteError: self.init(kind: .output, problems: [error.problem])
        case let error as TemplateError:
            self.init(kind: .template, problems: [Problem(file: error.file, line: error.line, column: error.column, message: error.message)])
        case let error as ResourceError: self.init(kind: .resources, problems: [Problem(file: "resources", message: error.message)])
        default: self.init(kind: .input, problems: [Problem(file: "input", message: "\(error)")])
        }
    }
}

extension ThreadfoldError {
    /// Input problems, reported together so a user fixes them in one pass.
    package static func input(_ problems: [Problem]) -> ThreadfoldError { ThreadfoldError(kind: .input, problems: problems) }

    /// A bad option's value, as its message says it.
    package static func usage(_ message: String) -> ThreadfoldError {
        ThreadfoldError(kind: .usage, problems: [Problem(file: "options", message: message)])
    }

    /// The messages alone, one a line: what a front end prints where it names the place itself.
    package var message: String { problems.map(\.message).joined(separator: "\n") }
}
