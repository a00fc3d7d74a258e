/// Author pages (`--authors`): one folder per participant, `u/<slug>-<hash>/` (`ThreadPaths.authorFolder`),
/// listing the threads they started and their comments, newest first, paginated, each comment
/// with its excerpt and a link to its anchor on the page where the thread shows it.
///
/// Built from the threads' summaries alone (the thread's author and `ThreadSummary.posts`), so
/// `merge` builds them from sidecars exactly as `build` does. Names are grouped by their bytes,
/// so names that differ only by case or Unicode normalisation are different people, as in the data.
/// Deleted, removed and unknown authors have no page: the summaries never name them.
struct AuthorPages {
    /// The name an author page is made for: a non-empty name, else nil (unknown authors get none).
    static func name(_ author: String?) -> String? {
        guard let author, !author.isEmpty else { return nil }
        return author
    }

    /// One participant: their name, folder, and what they wrote, newest first.
    struct Author {
        var name: String
        var folder: String
        var refs: [Ref]
        var threads = 0
        var comments = 0
    }

    /// A thread started (`post` -1) or a comment (`post` indexes `ThreadSummary.posts`).
    struct Ref {
        var thread: Int32
        var post: Int32
        var ms: Int64?
    }

    /// What an author page shows of one item.
    struct Item {
        var started: Bool
        var title: String
        /// The thread's first page, relative to the site root.
        var threadHref: String
        /// The comment where it is shown (or the thread), relative to the site root.
        var href: String
        var excerpt: String
        var created: ThreadSummary.TimePoint?
    }

    let summaries: [ThreadSummary]
    let authors: [Author]

    /// Groups `summaries` (in index order) by author, in one pass plus one sort per author.
    init(_ summaries: [ThreadSummary]) {
        self.summaries = summaries
        var groups = Groups<[UInt8], Author>()
        var folders = ThreadPaths.AuthorFolders()
        func add(_ name: String, _ ref: Ref, started: Bool) {
            let a = groups.slot(Array(name.utf8)) { Author(name: name, folder: folders.folder(name), refs: []) }
            groups[a].refs.append(ref)
            if started { groups[a].threads += 1 } else { groups[a].comments += 1 }
        }
        for (t, summary) in summaries.enumerated() {
            if let name = AuthorPages.name(summary.author) {
                add(name, Ref(thread: Int32(t), post: -1, ms: summary.created?.ms), started: true)
            }
            for (p, post) in summary.posts.enumerated() {
                add(post.author, Ref(thread: Int32(t), post: Int32(p), ms: post.created?.ms), started: false)
            }
        }
        var authors = groups.values
        groups = Groups()
        // Newest first, undated last; then index order, the thread before its comments: a total order.
        for a in authors.indices {
            authors[a].refs.sort { x, y in
                if (x.ms != nil) != (y.ms != nil) { return x.ms != nil }
                if let mx = x.ms, let my = y.ms, mx != my { return mx > my }
                if x.thread != y.thread { return x.thread < y.thread }
                return x.post < y.post
            }
        }
        self.authors = authors.sorted { a, b in
            a.folder != b.folder ? a.folder.utf8.lexicographicallyPrecedes(b.folder.utf8) : a.name.utf8.lexicographicallyPrecedes(b.name.utf8)
        }
    }

    /// The item `ref` stands for; `untitled` names a thread without a title.
    func item(_ ref: Ref, untitled: String) -> Item {
        let summary = summaries[Int(ref.thread)]
        let title = summary.title.flatMap { $0.isEmpty ? nil : $0 } ?? untitled
        let threadHref = summary.path + "/index.html"
        guard ref.post >= 0 else {
            return Item(started: true, title: title, threadHref: threadHref, href: threadHref, excerpt: "", created: summary.created)
        }
        let post = summary.posts[Int(ref.post)]
        let page = summary.pages[post.page]
        return Item(
            started: false, title: title, threadHref: threadHref,
            href: summary.path + "/" + (page.isEmpty ? "" : page + "/") + "index.html#" + post.anchor,
            excerpt: post.excerpt, created: post.created)
    }
}
