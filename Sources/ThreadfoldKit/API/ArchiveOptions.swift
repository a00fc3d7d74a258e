/// How an archive is built (`threadfold build`).
public struct ArchiveOptions: Sendable {
    public enum Sections: String, Sendable, CaseIterable {
        case none, category, month
    }

    public enum Layout: String, Sendable, CaseIterable {
        case nested, flat, auto
    }

    /// How readers find things in the site (docs/archives.md, "Search").
    public enum Search: String, Sendable, CaseIterable {
        /// No search.
        case none
        /// A title index as script files (`search/index-N.js`), searched in the page: works from `file://`.
        case titles
        /// Pages marked up for Pagefind, whose index is built after the pages: full text, served over HTTP.
        case pagefind
    }

    /// Reading, threading, layout and Markdown options of every thread.
    public var render = RenderOptions()
    /// Threads per index or section page.
    public var perPage = 50
    public var sections: Sections = .none
    /// Replies deeper than this continue on a page of their own.
    public var pageDepth = 8
    /// Top-level comments per page of a thread.
    public var pageSize = 200
    public var layout: Layout = .nested
    /// `auto` picks flat for threads whose top-level comments average more than this many replies.
    public var flatThreshold = 10.0
    /// One page per order, with a switcher; the first is the thread's main page. Empty means
    /// the order of `render.thread.sort` alone.
    public var orders: [CommentOrder] = []
    /// Absolute URL of the site's root, for canonical links, feeds and the sitemap.
    public var baseURL: String?
    /// The site's title (the index's heading and the site feed's title).
    public var title: String?
    /// Entries in each Atom feed.
    public var feedEntries = 50
    /// Threads on the index for each section, before "All N threads in …".
    public var sectionPreview = 10
    /// Title search, full-text search with Pagefind, or none.
    public var search: Search = .none
    /// A page per participant (`u/<slug>-<hash>/`), linked wherever their name is shown.
    public var authors = false

    public init(render: RenderOptions = RenderOptions()) {
        self.render = render
    }

    /// The orders pages are written in, the main one first.
    public var effectiveOrders: [CommentOrder] {
        orders.isEmpty ? [render.thread.sort] : orders
    }

    /// The base URL with exactly one trailing slash.
    var base: String? {
        guard var url = baseURL, !url.isEmpty else { return nil }
        while url.hasSuffix("/") { url.removeLast() }
        return url + "/"
    }
}
