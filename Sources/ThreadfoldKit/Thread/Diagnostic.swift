/// Something the thread builder noticed in the data and handled, or refused.
public struct Diagnostic: Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// A reply whose parent is not in the thread; it is shown at top level.
        case orphan
        /// A comment in a reply cycle; the cycle is broken at this comment, shown at top level.
        case cycle
        /// A second comment with an id already used.
        case duplicate
        /// A deleted comment with no visible replies, left out of the page.
        case omittedDeleted
    }

    public var kind: Kind
    /// Index into `ThreadRecord.comments` of the comment concerned.
    public var record: Int
    /// The located message, ready to print.
    public var error: InputError

    public var description: String { error.description }
}
