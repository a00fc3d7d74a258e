// Thread stage: `ThreadRecord` in, `ThreadTree` out: the reply tree as index arrays, with every
// count a page needs computed once. Nothing here recurses, so a reply chain 100,000 long is
// just a long array.

/// A thread's reply tree as parallel arrays indexed by comment (struct of arrays).
///
/// Comment `i` is `records[i]`; only visible comments are linked into the tree. Children
/// are stored once in `childList`, comment `i`'s being `childList[childStart[i]..<childStart[i+1]]`,
/// already in display order. Every array is flat, so building, walking and freeing a tree of any
/// depth uses no recursion.
package struct ThreadTree: Sendable {
    package var info: ThreadInfo
    package var records: [CommentRecord]
    /// Parent index, or -1 for top-level comments (including orphans and broken cycles).
    package var parent: [Int32]
    package var childStart: [Int32]
    package var childList: [Int32]
    /// Top-level comments in display order.
    package var roots: [Int32]
    /// 0 for top-level comments.
    package var depth: [Int32]
    package var flags: [CommentFlags]
    /// Per-comment counts, computed ahead of rendering.
    package var stats: [CommentStats]
    /// Interned author per comment (-1 for none or deleted); `authorNames[id]` is the name.
    package var authorID: [Int32]
    package var authorNames: [String]
    package var totals: ThreadTotals
    package var diagnostics: [Diagnostic]
    /// The thread's notices (closed, pinned, split), as read: not comments, so in no count.
    package var notices: [NoticeRecord]
    /// Where notices show among the top-level comments, in display order. Empty when those are
    /// not in time order (`top`, `input`): there a notice has no place that would tell the truth.
    package var noticePlaces: [NoticePlace]

    /// The visible replies of comment `index`, in display order.
    @inline(__always)
    package func children(of index: Int) -> ArraySlice<Int32> {
        childList[Int(childStart[index])..<Int(childStart[index + 1])]
    }

    package var count: Int { records.count }
}

/// Where a notice shows: before one top-level comment, or after them all.
package struct NoticePlace: Sendable, Equatable {
    /// Index into `ThreadTree.notices`.
    package var notice: Int32
    /// Index in `ThreadTree.roots` of the comment it comes before; `roots.count` puts it last.
    package var before: Int32
}

package struct CommentFlags: OptionSet, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Shown on the page (not a deleted comment without visible replies).
    package static let visible = CommentFlags(rawValue: 1 << 0)
    /// Its parent is not in the thread.
    package static let orphan = CommentFlags(rawValue: 1 << 1)
    /// A reply cycle was broken here.
    package static let cycleBroken = CommentFlags(rawValue: 1 << 2)
    /// Deleted or removed, kept as a placeholder for its replies.
    package static let placeholder = CommentFlags(rawValue: 1 << 3)
    /// Written by the thread's author.
    package static let byThreadAuthor = CommentFlags(rawValue: 1 << 4)
}

/// Counts for one comment's replies.
package struct CommentStats: Sendable, Equatable {
    /// Visible direct replies.
    package var directReplies: Int32 = 0
    /// Visible comments below this one, at any depth.
    package var totalReplies: Int32 = 0
    /// Distinct authors among those replies.
    package var participants: Int32 = 0
    /// The latest creation or edit time in this comment and its replies.
    package var latestActivity: Timestamp?

    package init(directReplies: Int32 = 0, totalReplies: Int32 = 0, participants: Int32 = 0, latestActivity: Timestamp? = nil) {
        self.directReplies = directReplies
        self.totalReplies = totalReplies
        self.participants = participants
        self.latestActivity = latestActivity
    }
}

/// Counts for the whole thread.
package struct ThreadTotals: Sendable, Equatable {
    /// Visible comments, placeholders included.
    package var comments: Int = 0
    /// Distinct authors of visible, non-deleted comments.
    package var participants: Int = 0
    /// Levels of nesting: 1 when every comment is top level, 0 when there are none.
    package var levels: Int = 0
    package var latestActivity: Timestamp?
}
