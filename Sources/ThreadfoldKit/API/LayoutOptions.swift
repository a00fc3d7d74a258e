// Layout stage: a `ThreadTree` plus options in, a `PageModel` out: which comments show where,
// where the folds are, which replies are flattened with "replying to". Pure: no I/O.

/// How a thread is laid out on its page.
public struct LayoutOptions: Sendable, Hashable {
    /// Replies shown at each level before the rest fold behind "Show K more replies".
    public var preview = 2
    /// Reply sections of comments at levels below this start open (0: all closed).
    public var openDepth = 2
    /// Replies deeper than this are flattened into this level, each saying whom it answers.
    /// 1 gives the classic two-level layout.
    public var maxDepth = 8
    /// Replies deeper than this move to a page of their own ("Continue this thread"): a comment
    /// at level `pageDepth - 1` shows a link instead of its replies. nil keeps every reply on the
    /// page (the `render` command); archives default to 8.
    public var pageDepth: Int? = nil

    /// The deepest `maxDepth` accepted: browsers stop nesting elements at a few hundred levels
    /// and each level here is several elements deep.
    public static let maxDepthLimit = 64

    public init(preview: Int = 2, openDepth: Int = 2, maxDepth: Int = 8, pageDepth: Int? = nil) {
        self.preview = preview
        self.openDepth = openDepth
        self.maxDepth = maxDepth
        self.pageDepth = pageDepth
    }
}
