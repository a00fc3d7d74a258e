// Archive stage: many threads in, one site out: thread pages (split, branched, in several
// orders), their sidecars and feeds, then the index, sections, feeds and sitemap over all of
// them. It drives the other stages; only the Site stage writes.

/// How an archive is built (`threadfold build`).
public struct ArchiveOptions: Sendable {
    public enum Sections: String, Sendable, CaseIterable {
        case none, category, month
    }

    public enum Layout: String, Sendable, CaseIterable {
        case nested, flat, auto
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

    public init() {}

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

/// `--shard K/N`: this build renders the threads whose folder hashes to K (1-based) of N.
public struct Shard: Sendable, Equatable {
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Parses `K/N` with 1 ≤ K ≤ N.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(k) else { return nil }
        self.init(index: k, count: n)
    }

    /// Whether the thread in `folder` belongs to this shard. The hash is of the folder name, so
    /// the split is the same on every machine and in every run.
    public func contains(folder: String) -> Bool {
        Int(FNV1a.hash(folder.utf8) % UInt64(count)) == index - 1
    }
}
