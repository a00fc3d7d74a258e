/// Something the thread builder noticed in the data and handled, or refused.
package struct Diagnostic: Sendable, CustomStringConvertible {
    package enum Kind: String, Sendable {
        /// A reply whose parent is not in the thread; it is shown at top level.
        case orphan
        /// A comment in a reply cycle; the cycle is broken at this comment, shown at top level.
        case cycle
        /// A second comment with an id already used.
        case duplicate
        /// A deleted comment with no visible replies, left out of the page.
        case omittedDeleted
    }

    package var kind: Kind
    /// Index into `ThreadRecord.comments` of the comment concerned.
    package var record: Int
    /// The located message, ready to print.
    package var error: Problem

    package var description: String { error.description }

    /// The error carries the kind too, so it can be counted wherever it travels (a build's report,
    /// the manifest).
    package init(kind: Kind, record: Int, error: Problem) {
        self.kind = kind
        self.record = record
        self.error = error
        self.error.kind = kind.rawValue
    }
}
