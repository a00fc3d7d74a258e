/// Everything that decides how a thread becomes a page.
public struct RenderOptions: Sendable {
    public var importing = ImportOptions()
    public var thread = ThreadOptions()
    public var layout = LayoutOptions()
    public var markdown = MarkdownOptions()
    /// The locale of the words on the page; nil means the input's `lang` if there is a locale
    /// for it, else English.
    public var locale: String?
    /// The source forum's absolute URL: relative links and images in HTML bodies resolve against
    /// it. Without it they keep their text (or alt text) only.
    public var sourceURL: String?

    public init(
        thread: ThreadOptions = ThreadOptions(), layout: LayoutOptions = LayoutOptions(),
        markdown: MarkdownOptions = MarkdownOptions(), locale: String? = nil
    ) {
        self.thread = thread
        self.layout = layout
        self.markdown = markdown
        self.locale = locale
    }
}
