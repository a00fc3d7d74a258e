/// How comment bodies are rendered.
public struct MarkdownOptions: Sendable, Hashable {
    /// Curly quotes, dashes and ellipses (cmark's SMART option).
    public var smart = false
    /// Whether single newlines become line breaks, or nil (the default) for the flavour's way:
    /// yes for GFM and CommonMark, as people typing into a forum box expect; no for Reddit,
    /// whose renderer joins the lines of a paragraph.
    public var hardBreaks: Bool? = nil
    /// The dialect of every body, or nil (the default) for the one the source implies: `reddit`
    /// for Reddit exports, `gfm` for everything else.
    public var flavor: MarkdownFlavor? = nil
    /// Where Reddit's `r/sub` and `u/name` links point.
    public var redditBase = "https://www.reddit.com"
    /// Bodies longer than this many UTF-8 bytes skip cmark and are shown as plain text, which
    /// bounds the time any one body can take.
    public var maxBytes = 256 * 1024
    /// Bodies with more `![` image openers than this are shown as plain text: Debian's cmark
    /// 0.30.2 is quadratic in them (CVE-2023-22486; 40,000 took 2.7 s).
    public var maxImageOpeners = 2_000
    /// Bodies with block quotes nested deeper than this are shown as plain text: deep quotes
    /// followed by emphasis runs are quadratic in cmark 0.30.2 (CVE-2023-24824).
    public var maxQuoteDepth = 200

    public init(smart: Bool = false, hardBreaks: Bool? = nil, maxBytes: Int = 256 * 1024) {
        self.smart = smart
        self.hardBreaks = hardBreaks
        self.maxBytes = maxBytes
    }
}
