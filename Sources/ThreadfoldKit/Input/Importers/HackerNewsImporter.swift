/// Reads Hacker News items in either API's shape.
///
/// - Algolia (`/api/v1/items/<id>`): one story with comments nested in `children`; `author`,
///   `text`, `created_at`.
/// - Firebase (`/v0/item/<id>.json`): flat items with `by`, `text`, `time`, `kids`, `parent`,
///   `deleted`, `dead`, as one array or one item per line (JSON Lines). Each story becomes a
///   thread; comments find their story by following `parent`. Comments whose story is not in the
///   file become a thread of their own, named after the item they answer.
///
/// - HNPWA (`api.hnpwa.com/v0/item/<id>.json`): one story with comments nested in `comments`;
///   `user`, `content`, `time`, `points`, `comments_count`.
///
/// A story's points are its score (Algolia's and HNPWA's `points`, Firebase's `score`); comments
/// have none that the APIs give (Algolia's `points` is null on them).
///
/// `text` (and HNPWA's `content`) is HTML and is sanitised. `deleted` items are deleted placeholders; `dead` ones are
/// removed placeholders (flagged or killed).
enum HackerNewsImporter: ImporterForm {
    static let name = "hn"
    static let described = "Hacker News items (Firebase, Algolia or HNPWA API)"

    /// An item (`type` story, comment, job, poll or pollopt, with `by`, `kids`, `story_id`,
    /// `children` or `author`), or an array whose first element is one; or an HNPWA item.
    static func detect(_ document: JSONDocument) -> Bool {
        let root = document.root
        switch document.kind(root) {
        case .array: return document.count(root) > 0 && isHackerNewsItem(document, root + 1)
        case .object: return isHackerNewsItem(document, root) || isHNPWAItem(document, root)
        default: return false
        }
    }

    /// A story with its comments nested in it (Algolia, HNPWA); Firebase items are parts of a file.
    static func isWholeThread(_ document: JSONDocument) -> Bool {
        let root = document.root
        return document.kind(root) == .object && (isHNPWAItem(document, root) || document.member(root, "children") != nil)
    }

    static func decode(_ context: inout ImportContext) throws(ThreadfoldError) -> [ThreadRecord] {
        let document = context.document
        var items: [(node: Int, path: String)] = []
        if document.kind(document.root) == .array {
            document.forEachElement(document.root) { position, element in items.append((element, "$[\(position)]")) }
        } else {
            items = [(document.root, "$")]
        }
        return decode(&context, items: items)
    }

    /// HNPWA's item (`api.hnpwa.com/v0/item/<id>.json`): `comments` nested, and the fields only
    /// HNPWA writes (`time_ago`, `comments_count`), or `user` with `content`.
    static func isHNPWAItem(_ document: JSONDocument, _ object: Int) -> Bool {
        guard document.kind(object) == .object, let comments = document.member(object, "comments"), document.kind(comments) == .array else { return false }
        return document.member(object, "time_ago") != nil || document.member(object, "comments_count") != nil
            || (document.member(object, "user") != nil && document.member(object, "content") != nil)
    }

    static func isHackerNewsItem(_ document: JSONDocument, _ object: Int) -> Bool {
        guard document.kind(object) == .object, let type = document.member(object, "type"), document.kind(type) == .string else { return false }
        let kind = document.string(type)
        guard ["story", "comment", "job", "poll", "pollopt"].contains(kind) else { return false }
        return document.member(object, "by") != nil || document.member(object, "kids") != nil
            || document.member(object, "story_id") != nil || document.member(object, "children") != nil
            || document.member(object, "author") != nil
    }

    /// `items`: the tape index of each item object and its JSON path.
    static func decode(_ context: inout ImportContext, items: [(node: Int, path: String)]) -> [ThreadRecord] {
        let document = context.document
        if items.count == 1, isHNPWAItem(document, items[0].node) {
            return [decodeHNPWA(&context, items[0].node)]
        }
        if items.count == 1, document.member(items[0].node, "children") != nil || document.member(items[0].node, "author") != nil {
            return [decodeAlgolia(&context, items[0].node)]
        }
        return decodeFirebase(&context, items: items)
    }

    /// A story read whole (Algolia's, HNPWA's), without its comments: its id, title, author (at
    /// `author`), time (the first of `time` present), points and opening post (`text`, else a link
    /// post's URL). The original thread is the discussion on HN.
    static func story(_ context: inout ImportContext, _ story: Int, author: String, time: [String], text: String) -> ThreadRecord {
        var record = ThreadRecord(file: context.file, source: context.document.bytes)
        record.info.id = context.id(story, "id", "$")
        record.info.title = context.string(story, "title", "$")
        record.info.author = context.string(story, author, "$")
        for key in time where record.info.createdAt == nil { record.info.createdAt = context.time(story, key, "$") }
        record.info.score = context.integer(story, "points", "$")
        record.info.url = record.info.id.map { "https://news.ycombinator.com/item?id=\($0.string)" }
        context.openingPost(story, text: text, "$", into: &record.info)
        return record
    }

    static func decodeAlgolia(_ context: inout ImportContext, _ story: Int) -> ThreadRecord {
        var record = self.story(&context, story, author: "author", time: ["created_at_i", "created_at"], text: "text")
        guard let top = context.array(story, "children", "$") else { return record }
        readNested(&context, &record, top, key: "children") { context, item, path, comment in
            comment.author = context.string(item, "author", path)
            comment.body = context.string(item, "text", path) ?? ""
            comment.createdAt = context.time(item, "created_at_i", path) ?? context.time(item, "created_at", path)
            comment.score = context.integer(item, "points", path)
            comment.deleted = comment.author == nil && comment.body.isEmpty
        }
        return record
    }

    /// HNPWA's item: the story, its comments nested in `comments`. A link post's URL becomes the
    /// opening post's text when the story has none, and the thread links its discussion on HN.
    static func decodeHNPWA(_ context: inout ImportContext, _ story: Int) -> ThreadRecord {
        var record = self.story(&context, story, author: "user", time: ["time"], text: "content")
        if let top = context.array(story, "comments", "$") {
            readNested(&context, &record, top, key: "comments") { context, item, path, comment in
                comment.author = context.string(item, "user", path)
                comment.body = context.string(item, "content", path) ?? ""
                comment.createdAt = context.time(item, "time", path)
                comment.score = context.integer(item, "points", path)
                comment.deleted = context.bool(item, "deleted", path) || (comment.author == nil && comment.body.isEmpty)
                comment.removed = context.bool(item, "dead", path)
            }
        }
        // Comments HN counted that the file does not hold.
        if let count = context.integer(story, "comments_count", "$"), count > Int64(record.comments.count) {
            record.info.unarchivedComments = Int(clamping: min(count - Int64(record.comments.count), Int64(InputLimits.maxCount)))
        }
        return record
    }

    /// Reads comments nested under `key` (Algolia's `children`, HNPWA's `comments`) from `top`
    /// into `record`, in thread order with an explicit stack; `read` fills in each comment's
    /// fields from its object. Bodies are HTML.
    static func readNested(
        _ context: inout ImportContext, _ record: inout ThreadRecord, _ top: Int, key: String,
        _ read: (inout ImportContext, Int, String, inout CommentRecord) -> Void
    ) {
        let document = context.document
        var walk = ReplyWalk(document: document)
        walk.push(top, container: -1, key: "." + key, parent: nil)
        while !context.errors.isFull, let (item, frame) = walk.next() {
            let origin = context.origin(item, container: frame.container, key: frame.key, index: frame.position)
            let path = record.path(for: origin)
            guard context.requireObject(item, path, what: "a comment") != nil else { continue }
            guard let id = context.requiredID(item, ["id"], path, what: "a comment id") else { continue }
            var comment = CommentRecord(id: id, parentID: frame.parent, origin: origin)
            comment.bodyFormat = .html
            read(&context, item, path, &comment)
            let index = record.comments.count
            record.comments.append(comment)
            if let children = context.array(item, key, path) {
                walk.push(children, container: Int32(index), key: "." + key, parent: id)
            }
        }
    }

    static func decodeFirebase(_ context: inout ImportContext, items: [(node: Int, path: String)]) -> [ThreadRecord] {
        let document = context.document
        struct Item {
            var node: Int
            var path: String
            var id: CommentID
            var parent: CommentID?
            var isStory: Bool
        }
        var all: [Item] = []
        var byID: [CommentID: Int] = [:]
        for (node, path) in items {
            guard context.requireObject(node, path, what: "a Hacker News item") != nil else { continue }
            guard let id = context.requiredID(node, ["id"], path, what: "an item id") else { continue }
            let type = context.string(node, "type", path) ?? "comment"
            let item = Item(
                node: node, path: path, id: id, parent: context.id(node, "parent", path),
                isStory: type == "story" || type == "job" || type == "poll")
            if byID[id] == nil { byID[id] = all.count }
            all.append(item)
        }
        let keys = threadKeys(
            all.map { ParentLink(isStory: $0.isStory, parent: $0.parent.flatMap { byID[$0] }) },
            ids: all.map(\.id), parents: all.map(\.parent))
        var order: [CommentID] = []
        var threads: [CommentID: ThreadRecord] = [:]
        // Each story's `descendants`: HN's count of its comments, whether or not the file holds them.
        var descendantCounts: [CommentID: Int64] = [:]
        for (index, item) in all.enumerated() {
            let key = keys[index].id
            if threads[key] == nil {
                var record = ThreadRecord(id: key, file: context.file, source: document.bytes)
                record.info.url = "https://news.ycombinator.com/item?id=\(key.string)"
                record.info.title = "Hacker News item \(key.string)"
                threads[key] = record
                order.append(key)
            }
            let node = item.node
            if item.isStory {
                threads[key]!.info.title = context.string(node, "title", item.path) ?? threads[key]!.info.title
                threads[key]!.info.author = context.string(node, "by", item.path)
                threads[key]!.info.createdAt = context.time(node, "time", item.path)
                threads[key]!.info.score = context.integer(node, "score", item.path)
                // The thread links its discussion on HN; a link post's URL is its opening post.
                context.openingPost(node, text: "text", item.path, into: &threads[key]!.info)
                if let descendants = context.integer(node, "descendants", item.path), descendants > 0 {
                    descendantCounts[key] = min(descendants, Int64(InputLimits.maxCount))
                }
                continue
            }
            // A reply to the story, or to the missing item the thread is named after, is top level;
            // a thread named after a comment of its own (a cycle's) keeps every parent, so the
            // tree finds the cycle and reports it.
            let topLevel = item.parent == key && !keys[index].isComment
            // The item's own path ("$[3]") is its whole origin.
            var comment = CommentRecord(
                id: item.id, parentID: topLevel ? nil : item.parent,
                origin: RecordOrigin(
                    offset: Int32(document.offset(node)), container: -1,
                    key: String(item.path.dropFirst()), index: -1))
            comment.author = context.string(node, "by", item.path)
            comment.body = context.string(node, "text", item.path) ?? ""
            comment.bodyFormat = .html
            comment.createdAt = context.time(node, "time", item.path)
            comment.deleted = context.bool(node, "deleted", item.path)
            comment.removed = context.bool(node, "dead", item.path)
            threads[key]!.comments.append(comment)
        }
        // Comments HN counted that the file does not hold are said to be not archived.
        for (key, count) in descendantCounts where count > Int64(threads[key]!.comments.count) {
            threads[key]!.info.unarchivedComments = Int(count) - threads[key]!.comments.count
        }
        return order.map { threads[$0]! }
    }
}

extension HackerNewsImporter {
    /// An item's place in the parent graph: whether it is a story (a thread of its own), and the
    /// index of its parent's item when the file holds one.
    struct ParentLink {
        var isStory: Bool
        var parent: Int?
    }

    /// The thread an item belongs to: `id` names it; `isComment` when that is the id of a
    /// comment in the file (a parent cycle's, or a comment with no parent at all), not of a
    /// story or of a missing item the thread's top-level comments answer.
    struct ThreadKey {
        var id: CommentID
        var isComment: Bool
    }

    /// Each item's thread, in one pass over the parent graph: the story at the top of its parent
    /// chain; else the item the chain answers that the file does not hold; else, for a chain that
    /// ends in a parent cycle, the cycle's member that comes first in the file. Each walk stops at
    /// the first item whose thread is known and then gives its thread to every item it passed, so
    /// every item is walked once: O(n) in all, with no recursion however deep the chains.
    static func threadKeys(_ links: [ParentLink], ids: [CommentID], parents: [CommentID?]) -> [ThreadKey] {
        let unknown = -1, walking = -2
        // Each item's key, as an index into `found`, once known; `walking` while on the current walk.
        var keyOf = [Int](repeating: unknown, count: links.count)
        var found: [ThreadKey] = []
        var walk: [Int] = []
        for start in links.indices where keyOf[start] == unknown {
            walk.removeAll(keepingCapacity: true)
            var current = start
            var key: Int
            while true {
                if keyOf[current] >= 0 {
                    key = keyOf[current]
                    break
                }
                if keyOf[current] == walking {
                    // The walk met itself: the items from `current` on are a cycle.
                    let from = walk.lastIndex(of: current)!
                    found.append(ThreadKey(id: ids[walk[from...].min()!], isComment: true))
                    key = found.count - 1
                    break
                }
                keyOf[current] = walking
                walk.append(current)
                let link = links[current]
                if link.isStory {
                    found.append(ThreadKey(id: ids[current], isComment: false))
                } else if let parent = link.parent {
                    current = parent
                    continue
                } else if let missing = parents[current] {
                    found.append(ThreadKey(id: missing, isComment: false))
                } else {
                    found.append(ThreadKey(id: ids[current], isComment: true))
                }
                key = found.count - 1
                break
            }
            for item in walk { keyOf[item] = key }
        }
        return keyOf.map { found[$0] }
    }
}
