/// A notice about the thread, not a comment: someone closed, pinned, split or listed it (a
/// Discourse small-action post). It answers nobody, has no replies and counts as no comment; the
/// page shows it among the top-level comments at its time.
package struct NoticeRecord: Sendable, Equatable {
    /// What was done, as the source names it (Discourse's `action_code`: `closed.enabled`,
    /// `split_topic`, …), or nil when the source gives none. Untrusted text.
    package var action: String?
    /// Who did it (a username), when known.
    package var actor: String?
    /// Whom it was done to, for actions that name someone (Discourse's `action_code_who`:
    /// `invited_user`, `removed_user`).
    package var subject: String?
    package var createdAt: Timestamp?
    /// The notice's own text, in `bodyFormat`, or "" (Discourse's `cooked` of a split: "3 posts were
    /// split to a new topic: …").
    package var body = ""
    package var bodyFormat = BodyFormat.markdown
}
