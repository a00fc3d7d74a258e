/// The Markdown dialect of bodies: an importer names its source's, and Render reads bodies in it.
public enum MarkdownFlavor: String, Sendable, CaseIterable {
    /// CommonMark as cmark implements it.
    case commonmark
    /// CommonMark with GitHub's extensions: bare URLs linked, strikethrough, pipe tables and
    /// task lists.
    case gfm
    /// Reddit's Markdown: GitHub's extensions but task lists, plus `^superscript`,
    /// `>!spoilers!<` and `r/sub` and `u/name` links.
    case reddit
}
