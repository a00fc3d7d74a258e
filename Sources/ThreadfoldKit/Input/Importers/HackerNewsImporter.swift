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
    static func detect(_ json: JSONReader) -> Bool {
        guard let item = json.rootItem else { return false }
        return isHackerNewsItem(json, item) || (item == json.root && isHNPWAItem(json, item))
    }

    /// A story with its comments nested in it (Algolia, HNPWA); Firebase items are parts of a file.
    static func isWholeThread(_ json: JSONReader) -> Bool {
        isHNPWAItem(json, json.root) || json.has(json.root, "children")
    }

    static func decode(_ context: inout ImportContext) throws(ThreadfoldError) -> [ThreadRecord] {
        let root = context.reader.root
        var items: [(node: Int, path: String)] = []
        if context.reader.isArray(root) {
            for (position, element) in context.reader.elements(of: root) { items.append((element, "$[\(position)]")) }
        } else {
            items = [(root, "$")]
        }
        return decode(&context, items: items)
    }

    /// HNPWA's item (`api.hnpwa.com/v0/item/<id>.json`): `comments` nested, and the fields only
    /// HNPWA writes (`time_ago`, `comments_count`), or `user` with `content`.
    static func isHNPWAItem(_ json: JSONReader, _ object: Int) -> Bool {
        guard json.member(object, "comments", is: .array) != nil else { return false }
        return json.has(object, "time_ago") || json.has(object, "comments_count") || (json.has(object, "user") && json.has(object, "content"))
    }

    static func isHackerNewsItem(_ json: JSONReader, _ object: Int) -> Bool {
        guard let type = json.text(object, "type"), ["story", "comment", "job", "poll", "pollopt"].contains(type) else { return false }
        return json.has(object, "by") || json.has(object, "kids") || json.has(object, "story_id") || json.has(object, "children")
            || json.has(object, "author")
    }

    /// `items`: the tape index of each item object and its JSON path.
    static func decode(_ context: inout ImportContext, items: [(node: Int, path: String)]) -> [ThreadRecord] {
        if items.count == 1, isHNPWAItem(context.reader, items[0].node) {
            return [decodeHNPWA(&context, items[0].node)]
        }
        if items.count == 1, context.reader.has(items[0].node, "children") || context.reader.has(items[0].node, "author") {
            return [decodeAlgolia(&context, items[0].node)]
        }
        return decodeFirebase(&context, items: items)
    }

    /// A story read whole (Algolia's, HNPWA's), without its comments: its id, title, author (at
    /// `author`), time (the first of `time` present), points and opening post (`text`, else a link
    /// post's URL). The original thread is the discussion on HN.
    static func story(_ context: inout ImportContext, _ story: Int, author: String, time: [String], text: String) -> ThreadRecord {
        var record = ThreadRecord(file: context.file, source: context.reader.bytes)
        record.info.id = context.read(story, "id", "$", as: .id)
        record.info.title = context.read(story, "title", "$", as: .string)
        record.info.author = context.read(story, author, "$", as: .string)
        for key in time where record.info.createdAt == nil { record.info.createdAt = context.read(story, key, "$", as: .time) }
        record.info.score = context.read(story, "points", "$", as: .integer)
        record.info.url = record.info.id.map { "https://news.ycombinator.com/item?id=\($0.string)" }
        context.openingPost(story, text: text, "$", into: &record.info)
        return record
    }

    static func decodeAlgolia(_ context: inout ImportContext, _ story: Int) -> ThreadRecord {
        var record = self.story(&context, story, author: "author", time: ["created_at_i", "created_at"], text: "text")
        guard let top = context.read(story, "children", "$", as: .array) else { return record }
        readNested(&context, &record, top, key: "children") { context, item, path, comment in
            comment.author = context.read(item, "author", path(), as: .string)
            comment.body = context.read(item, "text", path(), as: .string) ?? ""
            comment.createdAt = context.read(item, "created_at_i", path(), as: .time) ?? context.read(item, "created_at", path(), as: .time)
            comment.score = context.read(item, "points", path(), as: .integer)
            comment.deleted = comment.author == nil && comment.body.isEmpty
        }
        return record
    }

    /// HNPWA's item: the story, its comments nested in `comments`. A link post's URL becomes the
    /// opening post's text when the story has none, and the thread links its discussion on HN.
    static func decodeHNPWA(_ context: inout ImportContext, _ story: Int) -> ThreadRecord {
        var record = self.story(&context, story, author: "user", time: ["time"], text: "content")
        if let top = context.read(story, "comments", "$", as: .array) {
            readNested(&context, &record, top, key: "comments") { context, item, path, comment in
                comment.author = context.read(item, "user", path(), as: .string)
                comment.body = context.read(item, "content", path(), as: .string) ?? ""
                comment.createdAt = context.read(item, "time", path(), as: .time)
                comment.score = context.read(item, "points", path(), as: .integer)
                comment.deleted = context.read(item, "deleted", path(), as: .bool) == true || (comment.author == nil && comment.body.isEmpty)
                comment.removed = context.read(item, "dead", path(), as: .bool) == true
            }
        }
        // Comments HN counted that the file does not hold.
        if let count = context.read(story, "comments_count", "$", as: .integer), count > Int64(record.comments.count) {
            record.info.unarchivedComments = Int(clamping: min(count - Int64(record.comments.count), Int64(InputLimits.maxCount)))
        }
        return record
    }

    /// Reads comments nested under `key` (Algolia's `children`, HNPWA's `comments`) from `top`
    /// into `record`, in thread order with an explicit stack; `read` fills in each comment's
    /// fields from its object. Bodies are HTML.
    static func readNested(
        _ context: inout ImportContext, _ record: inout ThreadRecord, _ top: Int, key: String,
        _ read: (inout ImportContext, Int, () -> String, inout CommentRecord) -> Void
    ) {
        var walk = ReplyWalk<Void>(json: context.reader)
        walk.push(top, container: -1, key: "." + key, parent: nil)
        while !context.errors.isFull, let (item, frame) = walk.next() {
            let origin = context.origin(item, container: frame.container, key: frame.key, index: frame.position)
            // Its path is built only for a message: a chain of replies n deep would otherwise cost
            // n steps a comment.
            func path() -> String { record.path(for: origin) }
            guard context.requireObject(item, path(), what: "a comment") != nil else { continue }
            guard let id = context.requiredID(item, ["id"], path(), what: "a comment id") else { continue }
            var comment = CommentRecord(id: id, parentID: frame.parent, origin: origin)
            comment.bodyFormat = .html
            read(&context, item, path, &comment)
            let index = record.comments.count
            record.comments.append(comment)
            if let children = context.read(item, key, path(), as: .array) {
                walk.push(children, container: Int32(index), key: "." + key, parent: id)
            }
        }
    }

    static func decodeFirebase(_ context: inout ImportContext, items: [(node: Int, path: String)]) -> [ThreadRecord] {
        var all: [FirebaseItem] = []
        var byID: [CommentID: Int] = [:]
        for (node, path) in items {
            guard context.requireObject(node, path, what: "a Hacker News item") != nil else { continue }
            guard let id = context.requiredID(node, ["id"], path, what: "an item id") else { continue }
            let type = context.read(node, "type", path, as: .string) ?? "comment"
            let item = FirebaseItem(
                node: node, path: path, id: id, parent: context.read(node, "parent", path, as: .id),
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
                var record = ThreadRecord(id: key, file: context.file, source: context.reader.bytes)
                record.info.url = "https://news.ycombinator.com/item?id=\(key.string)"
                record.info.title = "Hacker News item \(key.string)"
                threads[key] = record
                order.append(key)
            }
            let node = item.node
            if item.isStory {
                threads[key]!.info.title = context.read(node, "title", item.path, as: .string) ?? threads[key]!.info.title
                threads[key]!.info.author = context.read(node, "by", item.path, as: .string)
                threads[key]!.info.createdAt = context.read(node, "time", item.path, as: .time)
                threads[key]!.info.score = context.read(node, "score", item.path, as: .integer)
                // The thread links its discussion on HN; a link post's URL is its opening post.
                context.openingPost(node, text: "text", item.path, into: &threads[key]!.info)
                if let descendants = context.read(node, "descendants", item.path, as: .integer), descendants > 0 {
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
                    offset: Int32(context.reader.offset(node)), container: -1,
                    key: String(item.path.dropFirst()), index: -1))
            comment.author = context.read(node, "by", item.path, as: .string)
            comment.body = context.read(node, "text", item.path, as: .string) ?? ""
            comment.bodyFormat = .html
            comment.createdAt = context.read(node, "time", item.path, as: .time)
            comment.deleted = context.read(node, "deleted", item.path, as: .bool) == true
            comment.removed = context.read(node, "dead", item.path, as: .bool) == true
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
    /// A Firebase item as `decodeFirebase` first reads it: where it is, its id, the id it
    /// answers, and whether it is a thread of its own (a story, job or poll).
    struct FirebaseItem {
        var node: Int
        var path: String
        var id: CommentID
        var parent: CommentID?
        var isStory: Bool
    }

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
