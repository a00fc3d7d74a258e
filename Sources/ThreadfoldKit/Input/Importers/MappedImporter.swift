/// Reads any JSON list of comments through a `FieldMapping`: the array `comments` names (or a
/// JSON array, an object's first array member, JSON Lines), with replies nested under `replies`
/// walked with an explicit stack, so a chain of any depth is a loop. Comments are grouped into
/// threads by the `thread` field, in order of first appearance; nested replies are in their
/// parent's thread. Items that fail the mapping's `where` conditions are counted, with their
/// replies, in one warning.
enum MappedImporter {
    /// What the items of one array walked share beyond their container, path and parent: a
    /// thread, or being all left out (inside an item a condition left out, or one lenient reading
    /// skipped).
    private struct Shared {
        var thread: CommentID?
        var left = false
        /// Left out because an item above them was skipped, not filtered.
        var underSkipped = false
    }

    private typealias Frame = ReplyWalk<Shared>.Frame

    static func decode(
        _ context: inout ImportContext, mapping: FieldMapping, lenient: Bool,
        skipped: inout [Problem]
    ) -> [ThreadRecord] {
        guard let (list, listPath) = commentList(&context, mapping) else { return [] }
        var walk = Walk(context: context, mapping: mapping, lenient: lenient)
        walk.readDocumentThread(&context)
        walk.replies.push(list, container: -1, key: listPath == "$" ? nil : String(listPath.dropFirst()), parent: nil, extra: Shared())
        while !context.errors.isFull, let (item, top) = walk.replies.next() {
            walk.read(&context, item, in: top, skipped: &skipped)
        }
        walk.note(&context, list: list, listPath, skipped: &skipped)
        return walk.order.map { walk.threads[$0]! }
    }

    /// One reading of a document through its mapping: the threads so far, by their key's bytes
    /// (NFC and NFD spellings are different threads), and the arrays still to walk.
    private struct Walk {
        let json: JSONReader
        let mapping: FieldMapping
        /// Whether an item without an id is skipped, with a warning, rather than an error.
        let lenient: Bool
        /// The document's own thread (its id, and the fields read from its root).
        var documentThread: CommentID?
        var threadInfo: ThreadInfo
        var order: [CommentID] = []
        var threads: [CommentID: ThreadRecord] = [:]
        /// Items the mapping's conditions left out, and replies left out with a skipped item.
        var leftOut = 0
        var repliesOfSkipped = 0
        var replies: ReplyWalk<Shared>
        let repliesKey: String?

        init(context: ImportContext, mapping: FieldMapping, lenient: Bool) {
            json = context.reader
            replies = ReplyWalk(json: context.reader)
            self.mapping = mapping
            self.lenient = lenient
            threadInfo = ThreadInfo(file: context.file)
            repliesKey = mapping.replies.map { "." + FieldMapping.written($0) }
        }

        /// What the bodies are written in: the mapping's `format`, else Markdown.
        var bodyFormat: BodyFormat { mapping.bodyFormat ?? .markdown }

        func value(_ object: Int, _ field: FieldMapping.Field) -> Int? {
            guard let path = mapping.paths[field] else { return nil }
            return FieldMapping.resolve(json, object, path)
        }

        func fieldPath(_ base: String, _ field: FieldMapping.Field) -> String {
            base + "." + FieldMapping.written(mapping.paths[field] ?? [])
        }

        func idValue(_ node: Int) -> CommentID? { json.id(node).map(mapping.stripped) }

        /// Whether `parent` names no comment: the thread, the document's thread, or the mapping's
        /// top-level value.
        func isTopLevel(_ parent: CommentID, thread: CommentID?) -> Bool {
            let text = parent.string
            return text.isEmpty || text == "0" || parent == thread || parent == documentThread || text == mapping.topLevelParent
        }

        /// The fields the mapping reads from the document's root, which every thread starts from.
        mutating func readDocumentThread(_ context: inout ImportContext) {
            let root = json.root
            documentThread = mapping.thread[.id].flatMap { FieldMapping.resolve(json, root, $0) }.flatMap(idValue)
            for field in FieldMapping.ThreadField.allCases {
                guard let path = mapping.thread[field] else { continue }
                let where_ = FieldMapping.rooted(path)
                guard let node = FieldMapping.resolve(json, root, path) else { continue }
                switch field {
                case .id: threadInfo.id = documentThread
                case .title: threadInfo.title = text(&context, node, where_)
                case .url: threadInfo.url = text(&context, node, where_)
                case .author: threadInfo.author = text(&context, node, where_)
                case .category: threadInfo.category = text(&context, node, where_)
                case .created: threadInfo.createdAt = time(&context, node, where_)
                case .body:
                    threadInfo.body = text(&context, node, where_)
                    threadInfo.bodyFormat = bodyFormat
                }
            }
        }

        /// Pushes `replies` (when an array that is not empty) as left out with their item.
        mutating func leaveOut(_ replies: Int?, underSkipped: Bool) {
            guard let replies else { return }
            self.replies.push(replies, container: -1, key: nil, parent: nil, extra: Shared(left: true, underSkipped: underSkipped))
        }

        /// Reads one item: left out, skipped, or a comment of its thread, with its replies pushed.
        mutating func read(_ context: inout ImportContext, _ item: Int, in top: Frame, skipped: inout [Problem]) {
            let replies = mapping.replies.flatMap { FieldMapping.resolve(json, item, $0) }
            if top.extra.left || !mapping.admits(json, item) {
                if top.extra.underSkipped { repliesOfSkipped += 1 } else { leftOut += 1 }
                leaveOut(replies, underSkipped: top.extra.underSkipped)
                return
            }
            let origin = RecordOrigin(
                offset: Int32(json.offset(item)), container: top.container, key: top.key,
                index: Int32(top.position))
            func path() -> String { self.path(of: origin, in: top) }
            guard context.requireObject(item, path(), what: "a comment") != nil else { return }
            guard let idNode = value(item, .id) else {
                missingID(&context, item, path(), skipped: &skipped)
                // Its nested replies go with it, counted.
                if lenient { leaveOut(replies, underSkipped: true) }
                return
            }
            guard let id = idValue(idNode) else {
                context.fail(idNode, fieldPath(path(), .id), "expected a string or an integer id, found \(json.kind(idNode).described)")
                return
            }
            // A nested reply is in its parent's thread; a listed comment in its own thread field's.
            let nested = top.container >= 0 || top.extra.left
            let threadKey = nested ? top.extra.thread : (value(item, .thread).flatMap(idValue) ?? documentThread)
            let key = threadKey ?? CommentID("")
            if self.threads[key] == nil { startThread(key, threadKey) }
            var comment = CommentRecord(id: id, origin: origin)
            comment.bodyFormat = bodyFormat
            if nested {
                comment.parentID = top.parent
            } else {
                guard readParent(&context, item, path(), thread: threadKey, into: &comment) else { return }
            }
            readFields(&context, item, path(), into: &comment)
            let (title, url, category) = threadFields(&context, item, path(), missingFrom: threads[key]!.info)
            if let title { threads[key]!.info.title = title }
            if let url { threads[key]!.info.url = url }
            if let category { threads[key]!.info.category = category }
            let index = threads[key]!.comments.count
            threads[key]!.comments.append(comment)
            if let replies, let repliesKey, walksReplies(&context, replies, at: path() + repliesKey) {
                self.replies.push(replies, container: Int32(index), key: repliesKey, parent: id, extra: Shared(thread: threadKey))
            }
        }

        /// An item's JSON path, for messages only: containers are records of the thread the frame is in.
        func path(of origin: RecordOrigin, in top: Frame) -> String {
            if let thread = threads[top.extra.thread ?? CommentID("")], top.container >= 0 { return thread.path(for: origin) }
            return ThreadRecord().path(for: origin)
        }

        /// An item without an id: with `lenient`, skipped with a warning; otherwise an error.
        func missingID(_ context: inout ImportContext, _ item: Int, _ path: String, skipped: inout [Problem]) {
            let mapped = FieldMapping.written(mapping.paths[.id] ?? [])
            var error = json.error(
                at: item, path: fieldPath(path, .id),
                lenient
                    ? "has no id (mapped as id=\(mapped)); skipped"
                    : "expected an id here (mapped as id=\(mapped)), found none",
                severity: lenient ? .warning : .error)
            error.hint = lenient ? .skipped : .lenient
            if lenient { error.kind = "skipped" }
            if lenient { skipped.append(error) } else { context.errors.appendUnlessFull(error) }
        }

        /// A new thread, keyed `key`, with the document thread's fields.
        mutating func startThread(_ key: CommentID, _ threadKey: CommentID?) {
            var record = ThreadRecord(id: threadKey, file: json.file, source: json.bytes)
            record.info.title = threadInfo.title
            record.info.url = threadInfo.url
            record.info.author = threadInfo.author
            record.info.category = threadInfo.category
            record.info.createdAt = threadInfo.createdAt
            record.info.body = threadInfo.body
            record.info.bodyFormat = threadInfo.bodyFormat
            record.info.sourceFormat = "mapped"
            threads[key] = record
            order.append(key)
        }

        /// A listed comment's parent: its parent field, else (Lemmy's chain `0.12.34`) the id
        /// before its own in its path. False, after an error, for a parent of the wrong type.
        func readParent(_ context: inout ImportContext, _ item: Int, _ path: @autoclosure () -> String, thread: CommentID?, into comment: inout CommentRecord) -> Bool {
            if let parentNode = value(item, .parent) {
                guard let parent = idValue(parentNode) else {
                    context.fail(parentNode, fieldPath(path(), .parent), "expected a string or an integer, found \(json.kind(parentNode).described)")
                    return false
                }
                if !isTopLevel(parent, thread: thread) { comment.parentID = parent }
            }
            guard comment.parentID == nil, let node = value(item, .path) else { return true }
            guard let text = json.text(node) else {
                context.fail(node, fieldPath(path(), .path), "expected a chain of ids joined by dots, found \(json.kind(node).described)")
                return false
            }
            let chain = text.split(separator: ".", omittingEmptySubsequences: false)
            if chain.count >= 2 {
                let parent = mapping.stripped(CommentID(String(chain[chain.count - 2])))
                if !isTopLevel(parent, thread: thread) { comment.parentID = parent }
            }
            return true
        }

        /// A comment's own fields: author, body, time, edit, score, and whether it was deleted or removed.
        func readFields(_ context: inout ImportContext, _ item: Int, _ path: @autoclosure () -> String, into comment: inout CommentRecord) {
            if let node = value(item, .author) { comment.author = text(&context, node, fieldPath(path(), .author)) }
            if let node = value(item, .body) { comment.body = text(&context, node, fieldPath(path(), .body)) ?? "" }
            if let node = value(item, .time) { comment.createdAt = time(&context, node, fieldPath(path(), .time)) }
            if let node = value(item, .edited) {
                switch json.kind(node) {
                case .true: comment.edited = true
                case .false: break
                default:
                    // An edit time equal to the creation time is no edit (GitHub's updated_at).
                    let edited = time(&context, node, fieldPath(path(), .edited))
                    if let edited, edited != comment.createdAt {
                        comment.editedAt = edited
                        comment.edited = true
                    }
                }
            }
            if let node = value(item, .score) {
                do throws(JSONError) { comment.score = try json.rounded(node, "") } catch {
                    context.fail(node, fieldPath(path(), .score), "expected a number, found \(json.kind(node).described)")
                }
            }
            for field in [FieldMapping.Field.deleted, .removed] {
                guard let node = value(item, field) else { continue }
                switch json.kind(node) {
                case .true: if field == .deleted { comment.deleted = true } else { comment.removed = true }
                case .false: break
                default: context.fail(node, fieldPath(path(), field), "expected true or false, found \(json.kind(node).described)")
                }
            }
        }

        /// The thread's title, link and category, those `info` lacks, from the item: the first of
        /// a thread's items that has them names it.
        func threadFields(
            _ context: inout ImportContext, _ item: Int, _ path: @autoclosure () -> String, missingFrom info: borrowing ThreadInfo
        ) -> (title: String?, url: String?, category: String?) {
            var found: (title: String?, url: String?, category: String?)
            if info.title == nil, let node = value(item, .title) { found.title = text(&context, node, fieldPath(path(), .title)) }
            if info.url == nil, let node = value(item, .url) { found.url = text(&context, node, fieldPath(path(), .url)) }
            if info.category == nil, let node = value(item, .category) { found.category = text(&context, node, fieldPath(path(), .category)) }
            return found
        }

        /// Whether a comment's `replies` are an array to walk; "" (as Reddit writes for none) is
        /// not, and anything else is an error at `path`.
        func walksReplies(_ context: inout ImportContext, _ replies: Int, at path: @autoclosure () -> String) -> Bool {
            if json.isArray(replies) { return true }
            if json.text(replies)?.isEmpty == true { return false }  // Reddit writes "" for no replies.
            context.fail(
                replies, path(), "expected an array of replies (mapped as replies=\(repliesKey?.dropFirst() ?? "")), found \(json.kind(replies).described)")
            return false
        }

        /// The warning and note for what was left out: replies of skipped items, and items the
        /// mapping's conditions filtered.
        func note(_ context: inout ImportContext, list: Int, _ listPath: String, skipped: inout [Problem]) {
            if repliesOfSkipped > 0 {
                var note = json.error(
                    at: list, path: listPath,
                    "\(Printable.count(repliesOfSkipped, "reply", "replies")) nested in skipped comments were left out with them",
                    severity: .warning)
                note.kind = "skipped"
                note.hint = .skipped
                skipped.append(note)
            }
            if leftOut > 0 {
                let conditions = mapping.conditions.map(\.described).joined(separator: ", ")
                var note = json.error(
                    at: list, path: listPath,
                    "\(Printable.count(leftOut, "item")) left out by \(conditions) (with any replies nested in them)",
                    severity: .note)
                note.kind = "filtered"
                context.skipped.append(note)
            }
        }
    }

    /// The array of comments and its JSON path: `comments`'s, else the root array, else the
    /// root object's first array member.
    private static func commentList(_ context: inout ImportContext, _ mapping: FieldMapping) -> (Int, String)? {
        let json = context.reader
        let root = json.root
        if let path = mapping.comments {
            let written = FieldMapping.rooted(path)
            guard let list = FieldMapping.resolve(json, root, path) else {
                context.fail(root, written, "expected the array of comments here (mapped as comments=\(written)), found nothing")
                return nil
            }
            guard json.isArray(list) else {
                context.fail(list, written, "expected the array of comments (mapped as comments=\(written)), found \(json.kind(list).described)")
                return nil
            }
            return (list, written)
        }
        if json.isObject(root) {
            let found = json.members(of: root).first { json.isArray($0.value) }.map { ($0.value, "$." + json.key($0.key)) }
            guard let found else {
                context.fail(root, "$", "found an object without an array of comments; expected an array, an object holding one (or comments=<path>), or JSON Lines")
                return nil
            }
            return found
        }
        guard json.isArray(root) else {
            context.fail(root, "$", "expected an array of comments, found \(json.kind(root).described)")
            return nil
        }
        return (root, "$")
    }

    private static func text(_ context: inout ImportContext, _ node: Int, _ path: @autoclosure () -> String) -> String? {
        if let text = context.reader.scalarText(node) { return text }
        context.fail(node, path(), "expected a string, found \(context.reader.kind(node).described)")
        return nil
    }

    private static func time(_ context: inout ImportContext, _ node: Int, _ path: @autoclosure () -> String) -> Timestamp? {
        if let value = context.reader.timestamp(node) { return value }
        context.fail(node, path(), "expected an ISO 8601 date or Unix seconds or milliseconds, found \(context.reader.kind(node).described)")
        return nil
    }
}
