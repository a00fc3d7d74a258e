// Thread stage: `ThreadRecord` in, `Thread` out: the reply tree as index arrays, with every
// count a page needs computed once. Nothing here recurses, so a reply chain 100,000 long is
// just a long array.

/// A thread's reply tree as parallel arrays indexed by comment (struct of arrays).
///
/// Comment `i` is `records[i]`; only visible comments are linked into the tree. Children
/// are stored once in `childList`, comment `i`'s being `childList[childStart[i]..<childStart[i+1]]`,
/// already in display order. Every array is flat, so building, walking and freeing a tree of any
/// depth uses no recursion.
public struct ThreadTree: Sendable {
    public var info: ThreadInfo
    public var records: [CommentRecord]
    /// Parent index, or -1 for top-level comments (including orphans and broken cycles).
    public var parent: [Int32]
    public var childStart: [Int32]
    public var childList: [Int32]
    /// Top-level comments in display order.
    public var roots: [Int32]
    /// 0 for top-level comments.
    public var depth: [Int32]
    public var flags: [CommentFlags]
    /// Per-comment counts, computed ahead of rendering.
    public var stats: [CommentStats]
    /// Interned author per comment (-1 for none or deleted); `authorNames[id]` is the name.
    public var authorID: [Int32]
    public var authorNames: [String]
    public var totals: ThreadTotals
    public var diagnostics: [Diagnostic]

    /// The visible replies of comment `index`, in display order.
    @inline(__always)
    public func children(of index: Int) -> ArraySlice<Int32> {
        childList[Int(childStart[index])..<Int(childStart[index + 1])]
    }

    public var count: Int { records.count }
}


public struct CommentFlags: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Shown on the page (not a deleted comment without visible replies).
    public static let visible = CommentFlags(rawValue: 1 << 0)
    /// Its parent is not in the thread.
    public static let orphan = CommentFlags(rawValue: 1 << 1)
    /// A reply cycle was broken here.
    public static let cycleBroken = CommentFlags(rawValue: 1 << 2)
    /// Deleted or removed, kept as a placeholder for its replies.
    public static let placeholder = CommentFlags(rawValue: 1 << 3)
    /// Written by the thread's author.
    public static let byThreadAuthor = CommentFlags(rawValue: 1 << 4)
}

/// Counts for one comment's replies.
public struct CommentStats: Sendable, Equatable {
    /// Visible direct replies.
    public var directReplies: Int32 = 0
    /// Visible comments below this one, at any depth.
    public var totalReplies: Int32 = 0
    /// Distinct authors among those replies.
    public var participants: Int32 = 0
    /// The latest creation or edit time in this comment and its replies.
    public var latestActivity: Timestamp?

    public init(directReplies: Int32 = 0, totalReplies: Int32 = 0, participants: Int32 = 0, latestActivity: Timestamp? = nil) {
        self.directReplies = directReplies
        self.totalReplies = totalReplies
        self.participants = participants
        self.latestActivity = latestActivity
    }
}

/// Counts for the whole thread.
public struct ThreadTotals: Sendable, Equatable {
    /// Visible comments, placeholders included.
    public var comments: Int = 0
    /// Distinct authors of visible, non-deleted comments.
    public var participants: Int = 0
    /// Levels of nesting: 1 when every comment is top level, 0 when there are none.
    public var levels: Int = 0
    public var latestActivity: Timestamp?
}
