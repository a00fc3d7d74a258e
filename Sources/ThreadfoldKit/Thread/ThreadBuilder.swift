/// Builds a `Thread` from records: replies are grouped by parent first, then attached.
///
/// Every pass is a loop over arrays or an explicit stack; the whole build is O(n log n).
package enum ThreadBuilder {
    package static func build(_ record: ThreadRecord, options: ThreadOptions = ThreadOptions()) throws(ThreadfoldError) -> ThreadTree {
        var builder = Builder(record: record, options: options)
        return try builder.run()
    }
}

private struct Builder {
    let record: ThreadRecord
    let options: ThreadOptions
    let n: Int
    var parent: [Int32]
    var flags: [CommentFlags]
    var diagnostics: [Diagnostic] = []

    init(record: ThreadRecord, options: ThreadOptions) {
        self.record = record
        self.options = options
        self.n = record.comments.count
        self.parent = [Int32](repeating: -1, count: n)
        self.flags = [CommentFlags](repeating: .visible, count: n)
    }

    mutating func run() throws(ThreadfoldError) -> ThreadTree {
        let records = record.comments
        let (indexByID, dropped) = try indexIDs()
        linkParents(indexByID, dropped: dropped)
        // Cycles: each comment has one parent, so walking up either ends at the top or meets the
        // walk itself. A cycle is broken at its first comment in input order.
        breakCycles()
        hideDeleted(dropped: dropped)
        let (childStart, childList, roots, timeKey) = visibleTree()

        // Depth, authors and counts.
        let order = preorder(roots: roots, start: childStart, children: childList)
        var depth = [Int32](repeating: 0, count: n)
        for i in order {
            let p = parent[Int(i)]
            if p >= 0 && flags[Int(i)].contains(.visible) && !flags[Int(i)].contains(.cycleBroken) {
                depth[Int(i)] = depth[Int(p)] + 1
            }
        }
        let (authorNames, authorID) = authors(order)
        let stats = countReplies(order: order, childStart: childStart, childList: childList, authorID: authorID, authors: authorNames.count)

        var totals = ThreadTotals()
        totals.comments = order.count
        totals.participants = authorNames.count
        totals.levels = order.isEmpty ? 0 : Int(order.map { depth[Int($0)] }.max()!) + 1
        totals.latestActivity = roots.compactMap { stats[Int($0)].latestActivity }.max()

        diagnostics.sort { $0.record < $1.record }
        return ThreadTree(
            info: record.info,
            records: records, parent: parent, childStart: childStart, childList: childList, roots: roots,
            depth: depth, flags: flags, stats: stats, authorID: authorID, authorNames: authorNames,
            totals: totals, diagnostics: diagnostics,
            notices: record.notices, noticePlaces: placeNotices(roots: roots, timeKey: timeKey))
    }

    /// Each id's comment: the first comment with an id owns it. A later one is an error, or with
    /// `allowDuplicates` a warning and the comment dropped.
    private mutating func indexIDs() throws(ThreadfoldError) -> (indexByID: [CommentID: Int32], dropped: [Bool]) {
        let records = record.comments
        var indexByID = [CommentID: Int32](minimumCapacity: n)
        var dropped = [Bool](repeating: false, count: n)
        var errors: [Problem] = []
        for i in 0..<n {
            let id = records[i].id
            // One hash a comment: the id is entered with this comment's index, and the rare
            // duplicate puts its first owner back.
            if let first = indexByID.updateValue(Int32(i), forKey: id) {
                indexByID[id] = first
                let firstUse = related(Int(first), "first used")
                if options.allowDuplicates {
                    dropped[i] = true
                    flags[i] = []
                    var warning = record.message(
                        about: i, field: "id", "found the id \(quoted(id)) again; this comment is left out",
                        severity: .warning)
                    warning.related = firstUse
                    diagnostics.append(Diagnostic(kind: .duplicate, record: i, error: warning))
                } else {
                    var error = record.message(about: i, field: "id", "found the id \(quoted(id)) again; expected unique ids")
                    error.related = firstUse
                    error.hint = .allowDuplicates
                    errors.append(error)
                }
            }
        }
        if !errors.isEmpty { throw ThreadfoldError.input(errors) }
        return (indexByID, dropped)
    }

    /// Parents, by id: a reply to an id not in the thread, or to itself, is shown at top level.
    private mutating func linkParents(_ indexByID: [CommentID: Int32], dropped: [Bool]) {
        let records = record.comments
        for i in 0..<n where !dropped[i] {
            guard let parentID = records[i].parentID else { continue }
            guard let p = indexByID[parentID] else {
                flags[i].insert(.orphan)
                diagnostics.append(
                    Diagnostic(
                        kind: .orphan, record: i,
                        error: record.message(
                            about: i, "is a reply to \(quoted(parentID)), which is not in this thread; shown at top level",
                            severity: .warning)))
                continue
            }
            if Int(p) == i {
                flags[i].insert(.cycleBroken)
                diagnostics.append(
                    Diagnostic(
                        kind: .cycle, record: i,
                        error: record.message(
                            about: i, "is a reply to itself; shown at top level", severity: .warning)))
                continue
            }
            parent[i] = p
        }
    }

    /// Visibility: a deleted comment stays (as a placeholder) only for visible replies, or for
    /// replies the export counts but does not hold (Reddit's `more` stubs, "continue this
    /// thread"), whose count the placeholder carries.
    private mutating func hideDeleted(dropped: [Bool]) {
        let records = record.comments
        let (allStart, allChildren, allRoots) = group(include: { !dropped[$0] })
        let preorderAll = preorder(roots: allRoots, start: allStart, children: allChildren)
        // Records are read a field at a time here and below: a copy of one retained every string in it.
        for i in preorderAll.reversed() {
            let removed = records[Int(i)].removed
            guard records[Int(i)].deleted || removed else { continue }
            var keep = records[Int(i)].unarchivedReplies > 0 || records[Int(i)].continuation != nil
            for c in allChildren[Int(allStart[Int(i)])..<Int(allStart[Int(i) + 1])] where flags[Int(c)].contains(.visible) {
                keep = true
                break
            }
            if keep {
                flags[Int(i)].insert(.placeholder)
            } else {
                flags[Int(i)].remove(.visible)
                diagnostics.append(
                    Diagnostic(
                        kind: .omittedDeleted, record: Int(i),
                        error: record.message(
                            about: Int(i), "is \(removed ? "removed" : "deleted") and has no replies; left out of the page",
                            severity: .note)))
            }
        }
    }

    /// The visible tree, each level sorted, with each comment's time key (`Int64.min` for none).
    private func visibleTree() -> (childStart: [Int32], childList: [Int32], roots: [Int32], timeKey: [Int64]) {
        var (childStart, childList, roots) = group(include: { flags[$0].contains(.visible) })
        // Fields read through the buffer, a record at a time in place: `records.map` handed its
        // closure a copy of each whole record, retaining every string in it.
        let (timeKey, scoreKey) = record.comments.withUnsafeBufferPointer { buffer in
            (buffer.indices.map { buffer[$0].createdAt?.milliseconds ?? Int64.min }, buffer.indices.map { buffer[$0].rank })
        }
        func sort(_ slice: inout ArraySlice<Int32>, _ order: CommentOrder) {
            switch order {
            case .oldest:
                slice.sort { a, b in
                    let ta = timeKey[Int(a)], tb = timeKey[Int(b)]
                    return ta != tb ? ta < tb : a < b
                }
            case .newest:
                slice.sort { a, b in
                    let ta = timeKey[Int(a)], tb = timeKey[Int(b)]
                    return ta != tb ? ta > tb : a < b
                }
            case .input:
                slice.sort()
            case .top:
                slice.sort { a, b in
                    let sa = scoreKey[Int(a)], sb = scoreKey[Int(b)]
                    if sa != sb { return sa > sb }
                    let ta = timeKey[Int(a)], tb = timeKey[Int(b)]
                    return ta != tb ? ta < tb : a < b
                }
            }
        }
        sort(&roots[...], options.sort)
        let replyOrder = options.replySort ?? options.sort
        for i in 0..<n where childStart[i + 1] - childStart[i] > 1 {
            sort(&childList[Int(childStart[i])..<Int(childStart[i + 1])], replyOrder)
        }
        return (childStart, childList, roots, timeKey)
    }

    /// Each shown comment's author as an index into the names, in the order `order` meets them
    /// (-1 for none, deleted or removed), comments by the thread's author flagged.
    private mutating func authors(_ order: [Int32]) -> (names: [String], ids: [Int32]) {
        let records = record.comments
        // Room for every comment to have an author of its own, so the table never grows.
        var authorIndex: [CommentID: Int32] = Dictionary(minimumCapacity: order.count)
        var authorNames: [String] = []
        var authorID = [Int32](repeating: -1, count: n)
        let threadAuthor = record.info.author.map(CommentID.init)
        for i in order {
            guard !records[Int(i)].deleted, !records[Int(i)].removed, let name = records[Int(i)].author, !name.isEmpty else { continue }
            let key = CommentID(name)
            // One hash a comment: a name not met yet is given the next index in the same lookup.
            let id = Self.index(of: &authorIndex[key, default: -1], next: Int32(authorNames.count))
            if id == authorNames.count { authorNames.append(name) }
            authorID[Int(i)] = id
            if key == threadAuthor { flags[Int(i)].insert(.byThreadAuthor) }
        }
        return (authorNames, authorID)
    }

    /// The index `slot` holds, or `next` put in it when it holds none yet (-1).
    private static func index(of slot: inout Int32, next: Int32) -> Int32 {
        if slot < 0 { slot = next }
        return slot
    }

    /// Notices among the top-level comments by time, when those are in time order: oldest
    /// first, a notice comes after the comments of its own millisecond; newest first, the mirror,
    /// before them. Notices of one time keep input order; one without a time counts as oldest, as
    /// comments do. A merge of two sorted lists: O(n + k log k).
    func placeNotices(roots: [Int32], timeKey: [Int64]) -> [NoticePlace] {
        let notices = record.notices
        let newest: Bool
        switch options.sort {
        case .oldest: newest = false
        case .newest: newest = true
        case .top, .input: return []
        }
        let key = notices.map { $0.createdAt?.milliseconds ?? Int64.min }
        let order = (0..<notices.count).sorted { a, b in
            key[a] != key[b] ? (newest ? key[a] > key[b] : key[a] < key[b]) : a < b
        }
        var places: [NoticePlace] = []
        places.reserveCapacity(order.count)
        var r = 0
        for n in order {
            while r < roots.count, newest ? timeKey[Int(roots[r])] > key[n] : timeKey[Int(roots[r])] <= key[n] { r += 1 }
            places.append(NoticePlace(notice: Int32(n), before: Int32(r)))
        }
        return places
    }

    /// Breaks every reply cycle at its member that comes first in the input.
    mutating func breakCycles() {
        var state = [UInt8](repeating: 0, count: n)  // 0 unseen, 1 on the current walk, 2 done
        var walk: [Int32] = []
        for start in 0..<n where state[start] == 0 {
            walk.removeAll(keepingCapacity: true)
            var v = Int32(start)
            while v >= 0 && state[Int(v)] == 0 {
                state[Int(v)] = 1
                walk.append(v)
                v = parent[Int(v)]
            }
            if v >= 0 && state[Int(v)] == 1, let from = walk.lastIndex(of: v) {
                let cycle = walk[from...]
                let breakAt = Int(cycle.min()!)
                let members = cycle.prefix(5).map { quoted(record.comments[Int($0)].id) }.joined(separator: " → ")
                parent[breakAt] = -1
                flags[breakAt].insert(.cycleBroken)
                diagnostics.append(
                    Diagnostic(
                        kind: .cycle, record: breakAt,
                        error: record.message(
                            about: breakAt,
                            "is in a reply cycle of \(cycle.count) comments (\(members)\(cycle.count > 5 ? " → …" : "")); the cycle is broken here and this comment shown at top level",
                            severity: .warning)))
            }
            for u in walk { state[Int(u)] = 2 }
        }
    }

    /// Groups the included comments by parent: CSR offsets, children in input order, and roots.
    func group(include: (Int) -> Bool) -> ([Int32], [Int32], [Int32]) {
        var start = [Int32](repeating: 0, count: n + 1)
        var roots: [Int32] = []
        for i in 0..<n where include(i) {
            let p = parent[i]
            if p >= 0 { start[Int(p) + 1] += 1 } else { roots.append(Int32(i)) }
        }
        for i in 0..<n { start[i + 1] += start[i] }
        var fill = start
        var children = [Int32](repeating: 0, count: Int(start[n]))
        for i in 0..<n where include(i) {
            let p = parent[i]
            guard p >= 0 else { continue }
            children[Int(fill[Int(p)])] = Int32(i)
            fill[Int(p)] += 1
        }
        return (start, children, roots)
    }

    /// Depth-first pre-order with an explicit stack.
    func preorder(roots: [Int32], start: [Int32], children: [Int32]) -> [Int32] {
        var order: [Int32] = []
        order.reserveCapacity(n)
        var stack: [Int32] = roots.reversed()
        while let i = stack.popLast() {
            order.append(i)
            let range = Int(start[Int(i)])..<Int(start[Int(i) + 1])
            for k in range.reversed() { stack.append(children[k]) }
        }
        return order
    }

    /// Counts replies bottom-up over `order`, the preorder of the visible tree, where each
    /// comment's replies are the run of positions that follows it. A comment's participants are
    /// the distinct authors (`authorID`, below `authors`) in its run, counted for all runs in one
    /// pass by where they end: a Fenwick tree over positions holds a 1 at each author's latest
    /// position so far, so the sum over a run that ends here counts each author in it once.
    /// O(n log n) with no hashing or sets, even on a chain 100,000 deep.
    func countReplies(order: [Int32], childStart: [Int32], childList: [Int32], authorID: [Int32], authors: Int) -> [CommentStats] {
        var stats = [CommentStats](repeating: CommentStats(), count: n)
        for i in order.reversed().map(Int.init) {
            var latest = record.comments[i].createdAt
            if let edited = record.comments[i].editedAt, latest.map({ edited > $0 }) ?? true { latest = edited }
            let kids = childList[Int(childStart[i])..<Int(childStart[i + 1])]
            var total: Int32 = 0
            for c in kids {
                let c = Int(c)
                total += 1 + stats[c].totalReplies
                if let l = stats[c].latestActivity, latest.map({ l > $0 }) ?? true { latest = l }
            }
            stats[i] = CommentStats(directReplies: Int32(kids.count), totalReplies: total, participants: 0, latestActivity: latest)
        }

        // The runs with replies, by their last position: for each position, a list of the runs
        // that end there (the first one's start, then each start's next), chained through arrays.
        let m = order.count
        var firstEnding = [Int32](repeating: -1, count: m)
        var nextEnding = [Int32](repeating: -1, count: m)
        for p in 0..<m {
            let total = Int(stats[Int(order[p])].totalReplies)
            guard total > 0 else { continue }
            nextEnding[p] = firstEnding[p + total]
            firstEnding[p + total] = Int32(p)
        }

        // Fenwick tree over positions 0..<m (1-based inside).
        var tree = [Int32](repeating: 0, count: m + 1)
        func add(_ position: Int, _ delta: Int32) {
            var k = position + 1
            while k <= m {
                tree[k] += delta
                k += k & -k
            }
        }
        /// The sum over positions 0...position.
        func prefix(_ position: Int) -> Int32 {
            var sum: Int32 = 0
            var k = position + 1
            while k > 0 {
                sum += tree[k]
                k -= k & -k
            }
            return sum
        }
        var latestAt = [Int32](repeating: -1, count: authors)
        for r in 0..<m {
            let author = Int(authorID[Int(order[r])])
            if author >= 0 {
                if latestAt[author] >= 0 { add(Int(latestAt[author]), -1) }
                add(r, 1)
                latestAt[author] = Int32(r)
            }
            let upTo = prefix(r)
            var p = Int(firstEnding[r])
            while p >= 0 {
                // The run after position p is p + 1 ... r.
                stats[Int(order[p])].participants = upTo - prefix(p)
                p = Int(nextEnding[p])
            }
        }
        return stats
    }

    /// Comment `index`'s place, as a message's second place.
    func related(_ index: Int, _ label: String) -> Problem.Related {
        let error = record.message(about: index, "")
        return Problem.Related(label: label, line: error.line, column: error.column, path: error.path)
    }
}

/// An id in double quotes, with control and invisible format characters made visible.
func quoted(_ id: CommentID) -> String {
    var out = "\""
    for scalar in id.string.unicodeScalars.prefix(80) {
        if scalar.value < 0x20 || scalar.value == 0x7F || scalar.properties.generalCategory == .format || scalar == "\"" || scalar == "\\" {
            out += "\\u{\(String(scalar.value, radix: 16))}"
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    if id.string.unicodeScalars.count > 80 { out += "…" }
    return out + "\""
}
