/// Threadfold: forum comment JSON in, static HTML out, through the stages in their own folders
/// (Input, Thread, Layout, Render, Site, with Archive orchestrating).
public enum Threadfold {
    public static let version = "0.1.0"
}

/// Everything that decides how a thread becomes a page.
public struct RenderOptions: Sendable {
    public var importing = ImportOptions()
    public var thread = ThreadOptions()
    public var layout = LayoutOptions()
    public var markdown = MarkdownOptions()
    /// The locale of the words on the page; nil means the input's `lang` if there is a locale
    /// for it, else English.
    public var locale: String?

    public init(thread: ThreadOptions = ThreadOptions(), layout: LayoutOptions = LayoutOptions(),
                markdown: MarkdownOptions = MarkdownOptions(), locale: String? = nil) {
        self.thread = thread
        self.layout = layout
        self.markdown = markdown
        self.locale = locale
    }
}
