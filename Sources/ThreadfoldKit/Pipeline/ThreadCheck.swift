/// One thread checked as a build takes it, with nothing rendered: its tree built (which throws
/// what a build would stop on, such as duplicate ids) and counted. Every `check` of a thread,
/// in a file or a dump, is made here.
package struct ThreadCheck: Sendable {
    package var tree: ThreadTree
    package var counts: ThreadCounts
    /// What the tree handled: orphans, cycles broken, duplicates and deleted comments left out.
    package var diagnostics: [Diagnostic] { tree.diagnostics }

    package init(_ record: ThreadRecord, options: ThreadOptions) throws(ThreadfoldError) {
        tree = try ThreadBuilder.build(record, options: options)
        counts = ThreadCounts(record, tree)
    }

    /// The warning a build gives a thread with nothing to show (`ThreadTree.showsNothing`),
    /// about `file`; nil for any other thread.
    package func emptyWarning(file: String) -> Problem? {
        tree.showsNothing ? tree.emptyThread(file: file, severity: .warning) : nil
    }
}
