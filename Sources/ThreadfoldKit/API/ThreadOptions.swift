/// Options that shape the tree itself (not how it is shown).
public struct ThreadOptions: Sendable {
    /// Order of top-level comments.
    public var sort: CommentOrder = .oldest
    /// Order of replies; nil means the same as `sort`.
    public var replySort: CommentOrder?
    /// Keep the first of several comments with one id and report the rest, instead of failing.
    public var allowDuplicates = false

    public init(sort: CommentOrder = .oldest, replySort: CommentOrder? = nil, allowDuplicates: Bool = false) {
        self.sort = sort
        self.replySort = replySort
        self.allowDuplicates = allowDuplicates
    }
}
