/// How a thread's error is told: the problems of what reading or rendering threw, each put where
/// the reader finds it, and a broken template's error told once for all the threads it fails.
extension ThreadfoldError {
    /// What reading or rendering threw, as problems put in place by `locate` (a dump's thread back
    /// on its file's lines): a template's error as the template's own (`templateProblem`), an
    /// output error where it is, and an error without a place as one of `display`.
    func problems(display: String, locate: (Problem) -> Problem) -> [Problem] {
        switch kind {
        case .input: return problems.map(locate)
        case .output, .busy: return problems
        case .template: return problems.map(\.templateProblem)
        case .resources, .usage: return [Problem(file: display, message: message)]
        }
    }
}

extension Problem {
    /// The kind of a template's error (`templateProblem`).
    static let templateKind = "template"

    /// A template's error as a problem of the template's file, not of the input being rendered:
    /// every thread meets it, and it is reported once (`once`).
    var templateProblem: Problem {
        var problem = self
        problem.kind = Self.templateKind
        return problem
    }

    /// `errors` less the template errors already in `earlier` or repeated among them: a broken
    /// template fails every thread the same way.
    static func once(_ errors: [Problem], after earlier: [Problem]) -> [Problem] {
        var kept: [Problem] = []
        for error in errors {
            if error.kind == templateKind, earlier.contains(error) || kept.contains(error) { continue }
            kept.append(error)
        }
        return kept
    }
}
