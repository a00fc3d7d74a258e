/// What one thread page shows, as flat arrays: every shown comment is an `Entry`, every reply
/// section a `ReplyBlock` that lists entries. Nothing nests, so no model walk recurses.
public struct PageModel: Sendable {
    public var thread: ThreadTree
    public var options: LayoutOptions
    /// Anchor (HTML id) of each comment, indexed like `thread.records`.
    public var anchors: [String]
    public var entries: [Entry]
    public var blocks: [ReplyBlock]
    /// Top-level entries in display order.
    public var roots: [Int32]
    /// Comments whose replies continue on a page of their own (`LayoutOptions.pageDepth`),
    /// in display order.
    public var branches: [Int32] = []

    /// One comment where it is shown.
    public struct Entry: Sendable, Equatable {
        /// Index into `thread.records`.
        public var comment: Int32
        /// 0 for top-level comments.
        public var level: Int32
        /// For a reply flattened into a level above its own: the comment it answers.
        public var replyingTo: Int32
        /// Index into `blocks` of its replies, or -1.
        public var replies: Int32
        /// Its replies continue on a page of their own.
        public var continued: Bool
    }

    /// A comment's reply section.
    public struct ReplyBlock: Sendable, Equatable {
        public var owner: Int32
        /// Entries shown at once.
        public var shown: [Int32]
        /// Entries behind "Show K more replies".
        public var hidden: [Int32]
        public var open: Bool
        /// The replies are the owner's whole subtree in one list.
        public var flattened: Bool
        /// Comments behind the "more" fold, counting their own replies.
        public var hiddenComments: Int32
        /// Distinct authors behind the "more" fold.
        public var hiddenPeople: Int32
    }
}
