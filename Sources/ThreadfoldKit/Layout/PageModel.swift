/// What one thread page shows, as flat arrays: every shown comment is an `Entry`, every reply
/// section a `ReplyBlock` that lists entries, and every notice shown among the top-level entries
/// a `Notice`. Nothing nests, so no model walk recurses.
package struct PageModel: Sendable {
    package var thread: ThreadTree
    package var options: LayoutOptions
    /// Anchor (HTML id) of each comment, indexed like `thread.records`.
    package var anchors: [String]
    package var entries: [Entry]
    package var blocks: [ReplyBlock]
    /// Top-level entries in display order.
    package var rootEntries: [Int32]
    /// Notices shown between the top-level entries, in display order.
    package var notices: [Notice] = []
    /// Comments whose replies continue on a page of their own (`LayoutOptions.pageDepth`),
    /// in display order.
    package var branches: [Int32] = []

    /// One comment where it is shown.
    package struct Entry: Sendable, Equatable {
        /// Index into `thread.records`.
        package var comment: Int32
        /// 0 for top-level comments.
        package var level: Int32
        /// For a reply flattened into a level above its own: the comment it answers.
        package var replyingTo: Int32
        /// Index into `blocks` of its replies, or -1.
        package var replies: Int32
        /// Its replies continue on a page of their own.
        package var continued: Bool
    }

    /// A notice where it is shown: at the top level, never in a reply section, and not an entry,
    /// so nothing that counts entries counts it.
    package struct Notice: Sendable, Equatable {
        /// Index into `thread.notices`.
        package var notice: Int32
        /// How many of `rootEntries` are shown before it.
        package var position: Int32
    }

    /// A comment's reply section.
    package struct ReplyBlock: Sendable, Equatable {
        package var owner: Int32
        /// Entries shown at once.
        package var shown: [Int32]
        /// Entries behind "Show K more replies".
        package var hidden: [Int32]
        package var open: Bool
        /// The replies are the owner's whole subtree in one list.
        package var flattened: Bool
        /// Comments behind the "more" fold, counting their own replies.
        package var hiddenComments: Int32
        /// Distinct authors behind the "more" fold.
        package var hiddenPeople: Int32
    }
}
