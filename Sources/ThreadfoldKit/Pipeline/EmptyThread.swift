extension ThreadTree {
    /// Whether the thread has nothing a page would show: no comment left (every one deleted
    /// without replies, not public, or none at all), no opening post and no notice. Such a thread
    /// is not published: an empty page would pass for a thread nobody answered.
    package var showsNothing: Bool {
        totals.comments == 0 && (PostMarkup.openingPost(info) ?? "").isEmpty && notices.isEmpty
    }

    /// The message for a thread that `showsNothing`, about `file` (kind `emptyThread`).
    package func emptyThread(file: String, severity: Problem.Severity) -> Problem {
        let read = records.count
        let comments = read == 0 ? "no comments" : "none of its \(Printable.count(read, "comment")) left to show"
        // At the thread's start: line 1 of its document, which a dump's thread or a line of JSON Lines puts at its own line.
        var problem = Problem(
            file: file, line: 1, column: 1, path: "$",
            message: "the thread\(info.id.map { " \"\($0.string)\"" } ?? "") has \(comments) and no opening post; "
                + (severity == .error ? "expected a thread with something to show (nothing was written)" : "left out of the site, as an empty page would pass for a thread nobody answered"),
            severity: severity)
        problem.kind = "emptyThread"
        return problem
    }
}
