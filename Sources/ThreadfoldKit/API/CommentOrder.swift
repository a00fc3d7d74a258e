/// How comments at one level are ordered. Ties keep input order.
public enum CommentOrder: String, Sendable, CaseIterable {
    /// Oldest first; comments without a time count as oldest.
    case oldest
    /// Newest first; comments without a time count as oldest, so they come last.
    case newest
    /// Highest score first (a source with reactions instead: most reactions), then oldest;
    /// comments with neither count as 0.
    case top
    /// The file's own order (Reddit's "best", a forum's display order), as the comments were read.
    case input
}
