/// Lays out a thread: nested reply sections down to `maxDepth`, one flat list below it, the
/// first `preview` replies of every section shown and the rest behind a fold.
package enum PageLayout {
    package static func make(_ thread: ThreadTree, options: LayoutOptions) -> PageModel {
        make(
            thread, options: options, roots: thread.roots[...], notices: thread.noticePlaces[...],
            anchors: Anchors.make(for: thread.records))
    }

    /// Lays out the comments under `roots` only: one page of a split thread, or the branch
    /// under one comment ("Continue this thread"), whose root is shown at level 0. `notices` are
    /// the places of the notices this page shows, counted in `roots`' own indices (a slice of
    /// `thread.roots` keeps its indices).
    package static func make(
        _ thread: ThreadTree, options: LayoutOptions, roots: ArraySlice<Int32>,
        notices: ArraySlice<NoticePlace> = [], anchors: [String]
    ) -> PageModel {
        // Room for every comment under these roots: a thread's branch pages each hold a part of
        // it, and all of them are kept until the thread is written.
        let shown = roots.reduce(0) { $0 + 1 + Int(thread.stats[Int($1)].totalReplies) }
        var layout = Builder(thread: thread, options: options, capacity: min(shown, thread.totals.comments))
        layout.run(roots: roots)
        let first = Int32(roots.startIndex)
        return PageModel(
            thread: thread, options: options, anchors: anchors,
            entries: layout.entries, blocks: layout.blocks, rootEntries: layout.roots,
            notices: notices.map { PageModel.Notice(notice: $0.notice, position: $0.before - first) },
            branches: layout.branches)
    }
}

private struct Builder {
    let thread: ThreadTree
    let options: LayoutOptions
    let maxDepth: Int32
    var entries: [PageModel.Entry] = []
    var blocks: [PageModel.ReplyBlock] = []
    var roots: [Int32] = []
    var branches: [Int32] = []
    /// Levels whose replies move to their own page: nil, or `pageDepth - 1` and deeper.
    let continueLevel: Int32?

    init(thread: ThreadTree, options: LayoutOptions, capacity: Int) {
        self.thread = thread
        self.options = options
        self.maxDepth = Int32(min(max(options.maxDepth, 1), LayoutOptions.maxDepthLimit))
        self.continueLevel = options.pageDepth.map { Int32(max($0, 1) - 1) }
        entries.reserveCapacity(capacity)
    }

    mutating func entry(_ comment: Int32, level: Int32, replyingTo: Int32 = -1) -> Int32 {
        entries.append(.init(comment: comment, level: level, replyingTo: replyingTo, replies: -1, continued: false))
        return Int32(entries.count - 1)
    }

    mutating func run(roots rootComments: ArraySlice<Int32>) {
        for root in rootComments { roots.append(entry(root, level: 0)) }
        var pending: [Int32] = roots.reversed()
        var subtree: [Int32] = []
        while let e = pending.popLast() {
            let comment = Int(entries[Int(e)].comment)
            let level = entries[Int(e)].level
            let kids = thread.children(of: comment)
            guard !kids.isEmpty, level < maxDepth else { continue }
            if let continueLevel, level >= continueLevel {
                // The replies go to a page of their own; this entry links to it.
                entries[Int(e)].continued = true
                branches.append(Int32(comment))
                continue
            }
            var items: [Int32] = []
            let flattened = level + 1 == maxDepth
            if flattened {
                // The whole subtree in one list, depth-first so each conversation stays together.
                subtree.removeAll(keepingCapacity: true)
                subtree.append(contentsOf: kids.reversed())
                while let d = subtree.popLast() {
                    let parent = thread.parent[Int(d)]
                    items.append(entry(d, level: level + 1, replyingTo: Int(parent) == comment ? -1 : parent))
                    subtree.append(contentsOf: thread.children(of: Int(d)).reversed())
                }
            } else {
                for kid in kids { items.append(entry(kid, level: level + 1)) }
                pending.append(contentsOf: items.reversed())
            }
            let preview = max(options.preview, 0)
            let shown = Array(items.prefix(preview))
            let hidden = Array(items.dropFirst(preview))
            let (hiddenComments, hiddenPeople) = count(hidden, flattened: flattened)
            blocks.append(
                .init(
                    owner: e, shown: shown, hidden: hidden, open: Int(level) < options.openDepth,
                    flattened: flattened, hiddenComments: hiddenComments, hiddenPeople: hiddenPeople))
            entries[Int(e)].replies = Int32(blocks.count - 1)
        }
    }

    /// Comments and distinct authors behind a fold. Nested folds walk their entries' subtrees;
    /// a comment lies under at most `maxDepth` folds, so the total work is O(n · maxDepth).
    func count(_ hidden: [Int32], flattened: Bool) -> (Int32, Int32) {
        guard !hidden.isEmpty else { return (0, 0) }
        var people = Set<Int32>()
        var comments: Int32 = 0
        var stack: [Int32] = []
        for e in hidden {
            let c = entries[Int(e)].comment
            if flattened {
                comments += 1
                if thread.authorID[Int(c)] >= 0 { people.insert(thread.authorID[Int(c)]) }
                continue
            }
            stack.append(c)
            while let d = stack.popLast() {
                comments += 1
                if thread.authorID[Int(d)] >= 0 { people.insert(thread.authorID[Int(d)]) }
                stack.append(contentsOf: thread.children(of: Int(d)))
            }
        }
        return (comments, Int32(people.count))
    }
}
