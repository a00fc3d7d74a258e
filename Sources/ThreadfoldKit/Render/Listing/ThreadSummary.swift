/// What the index, sections, feeds and sitemap need to know of one thread, written beside its
/// pages as `thread.json` (the sidecar other tools read, and `threadfold merge` builds from).
/// Times are kept as ISO 8601 for people and Unix milliseconds for programs.
package struct ThreadSummary: Sendable, Equatable {
    /// The sidecar's format; bumped when fields change meaning.
    package var format = 1
    package var id: String
    /// The thread's folder under the site root, e.g. `t/hello-world-42`.
    package var path: String
    package var title: String?
    package var author: String?
    package var url: String?
    package var lang: String?
    package var category: String?
    package var tags: [String]
    package var created: TimePoint?
    package var stats: Stats
    /// `nested` or `flat`.
    package var layout: String
    /// Folders of the thread's pages in its main order, relative to `path` ("" is the first page).
    package var pages: [String]
    /// The orders written, the main one first.
    package var orders: [String]
    /// With author pages: every comment with a named author, in thread order, where the main
    /// order shows it. Empty otherwise (and then left out of `thread.json`).
    package var posts: [Post] = []

    /// One comment, as an author page lists it: bounded (an excerpt, never the body).
    package struct Post: Sendable, Equatable {
        package var author: String
        /// The page it is shown on, as an index into `pages`.
        package var page: Int
        /// Its anchor on that page (ASCII letters, digits, `-` and `_`).
        package var anchor: String
        package var created: TimePoint?
        /// The first `excerptLimit` characters of its text (`PageNavigation.excerpt`).
        package var excerpt: String

        package static let excerptLimit = 160

        package init(author: String, page: Int, anchor: String, created: TimePoint?, excerpt: String) {
            self.author = author
            self.page = page
            self.anchor = anchor
            self.created = created
            self.excerpt = excerpt
        }

        /// Anchors are what `Anchors` makes; anything else in a sidecar is refused.
        static func isAnchor(_ text: String) -> Bool {
            !text.isEmpty && text.utf8.count <= 96
                && text.utf8.allSatisfy { b in
                    (b >= 0x30 && b <= 0x39) || ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A) || b == 0x2D || b == 0x5F
                }
        }
    }

    /// A time as milliseconds and ISO text. The text is made from the milliseconds when asked
    /// for, and kept only when it is another (a sidecar's own): most summaries are read and
    /// written without it (`PackedSummaries`).
    package struct TimePoint: Sendable, Equatable, Comparable {
        /// Set once: the text below is kept against these milliseconds.
        package private(set) var ms: Int64
        /// The ISO text when it is not the one `ms` gives; nil when it is.
        private var text: String?

        package init(_ time: Timestamp) {
            ms = time.milliseconds
        }

        package var iso: String {
            get { text ?? Timestamp(milliseconds: ms).iso8601 }
            set { text = newValue == Timestamp(milliseconds: ms).iso8601 ? nil : newValue }
        }

        /// Whether `iso` is the text `ms` gives.
        package var isoIsDerived: Bool { text == nil }

        package var timestamp: Timestamp { Timestamp(milliseconds: ms) }
        package static func < (a: TimePoint, b: TimePoint) -> Bool { a.ms < b.ms }
    }

    package struct Stats: Sendable, Equatable {
        /// Visible comments, placeholders included.
        package var comments: Int
        package var participants: Int
        package var topLevel: Int
        package var levels: Int
        /// Comments at each depth, top level first.
        package var depthHistogram: [Int]
        package var firstActivity: TimePoint?
        package var lastActivity: TimePoint?
        /// Replies the export knew of but did not contain.
        package var unarchived: Int
    }

    /// The comments of all `summaries`, added with overflow checked: counts come from sidecars
    /// and manifests, so a sum that does not fit is an error naming the thread that tipped it.
    package static func totalComments(_ summaries: some Sequence<ThreadSummary>) throws(ThreadfoldError) -> Int {
        var total = 0
        for summary in summaries { total = try add(summary.stats.comments, to: total, path: summary.path) }
        return total
    }

    /// The same for packed summaries, whose counts are read without unpacking them.
    package static func totalComments(_ summaries: PackedSummaries) throws(ThreadfoldError) -> Int {
        var total = 0
        for i in summaries.indices { total = try add(summaries.comments(i), to: total, path: summaries.path(i)) }
        return total
    }

    private static func add(_ comments: Int, to total: Int, path: @autoclosure () -> String) throws(ThreadfoldError) -> Int {
        let (sum, overflow) = total.addingReportingOverflow(comments)
        guard !overflow, comments >= 0 else {
            throw ThreadfoldError.input(
                Problem(
                    file: path() + "/thread.json", path: "$.stats.comments",
                    message: "found \(comments), which brings the comments of all threads past \(Int.max); expected counts that add up to at most \(Int.max)"))
        }
        return sum
    }

    /// The time the index sorts by: last activity, else creation.
    package var activity: Timestamp? { (stats.lastActivity ?? created)?.timestamp }

    /// `summaries` in index order: newest activity first, threads without times last, then newest
    /// creation, then path, so the order is total.
    /// (Their times are read from the packed summaries, which are not unpacked for it.)
    package static func sortedForIndex(_ summaries: PackedSummaries) -> PackedSummaries {
        let keys = summaries.indices.map { i in
            let (last, created) = summaries.indexTimes(i)
            let activity = last ?? created
            return (activity ?? Int64.min, created ?? Int64.min, activity != nil, created != nil)
        }
        let order = summaries.indices.sorted { a, b in
            let x = keys[a], y = keys[b]
            if x.2 != y.2 { return x.2 }
            if x.0 != y.0 { return x.0 > y.0 }
            if x.3 && y.3 && x.1 != y.1 { return x.1 > y.1 }
            return summaries.path(a).utf8.lexicographicallyPrecedes(summaries.path(b).utf8)
        }
        return summaries.ordered(by: order)
    }

}

extension ThreadSummary {
    /// Every shown comment with a named author (not deleted, removed or unknown), in thread order,
    /// with where the main order shows it and an excerpt of its body, for author pages.
    static func posts(_ tree: ThreadTree, anchors: [String], pageOf: [Int32], bodies: [HTML?]) -> [Post] {
        var posts: [Post] = []
        for i in 0..<min(tree.count, pageOf.count) where pageOf[i] >= 0 && tree.flags[i].contains(.visible) && !tree.flags[i].contains(.placeholder) {
            let record = tree.records[i]
            guard let author = AuthorPages.name(record.author), !record.authorDeleted else { continue }
            posts.append(
                Post(
                    author: author, page: Int(pageOf[i]), anchor: anchors[i],
                    created: record.createdAt.map(TimePoint.init),
                    excerpt: PageNavigation.excerpt(bodies[i] ?? HTML(trusted: ""), limit: Post.excerptLimit)))
        }
        return posts
    }

    /// Replies the export knew of but did not contain, in the whole thread: the importer keeps each
    /// count within `InputLimits.maxCount`, and the sum is checked.
    static func unarchived(_ tree: ThreadTree, source: String) throws(ThreadfoldError) -> Int {
        var total = tree.info.unarchivedComments
        for record in tree.records {
            let (sum, overflow) = total.addingReportingOverflow(record.unarchivedReplies)
            guard !overflow else {
                throw .input(Problem(file: source, message: "the counts of replies not archived add up past \(Int.max); expected a total of at most \(Int.max)"))
            }
            total = sum
        }
        return total
    }

    /// The summary of an archive thread from its tree (its main order): `flat` says how it was
    /// laid out, `pages` are its main order's folders (from the site root) and `orders` those
    /// written; `source` names the input in a message.
    init(
        tree: ThreadTree, id: CommentID, folder: String, flat: Bool, pages: [[String]], orders: [CommentOrder],
        source: String
    ) throws(ThreadfoldError) {
        var histogram: [Int] = []
        var firstActivity: Timestamp? = tree.info.createdAt
        for i in 0..<tree.count where tree.flags[i].contains(.visible) {
            let depth = Int(tree.depth[i])
            if depth >= histogram.count { histogram.append(contentsOf: repeatElement(0, count: depth + 1 - histogram.count)) }
            histogram[depth] += 1
            if let time = tree.records[i].createdAt, firstActivity.map({ time < $0 }) ?? true { firstActivity = time }
        }
        var last = tree.totals.latestActivity
        if let created = tree.info.createdAt, last.map({ created > $0 }) ?? true { last = created }
        let stats = Stats(
            comments: tree.totals.comments, participants: tree.totals.participants, topLevel: tree.roots.count,
            levels: tree.totals.levels, depthHistogram: histogram,
            firstActivity: firstActivity.map(TimePoint.init), lastActivity: last.map(TimePoint.init),
            unarchived: try Self.unarchived(tree, source: source))
        let info = tree.info
        self.init(
            id: id.string, path: "t/\(folder)", title: info.title, author: info.author,
            url: URLPolicy.originalLink(info.url),
            lang: info.lang, category: info.category.flatMap { $0.isEmpty ? nil : $0 }, tags: info.tags,
            created: info.createdAt.map(TimePoint.init), stats: stats, layout: flat ? "flat" : "nested",
            pages: pages.map { $0.dropFirst(2).joined(separator: "/") },
            orders: orders.map(\.rawValue))
    }
}
