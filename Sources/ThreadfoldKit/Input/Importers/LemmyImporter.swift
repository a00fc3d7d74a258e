/// Reads a Lemmy post and its comments: `{"post_view": {...}, "comments": [...]}` (what
/// `/api/v3/post` returns, with the `comments` of `/api/v3/comment/list` added), or the comment
/// list alone (`{"comments": [...]}`, whose views each carry their post).
///
/// - The post: `name` the title, `body` (Markdown) the opening post, a link post's `url` a link
///   above it, `ap_id` the original link, `published`; the view's `creator` is the author and its
///   `community` the category (`c/name`). `counts.comments` is Lemmy's own count, `counts.score`
///   the post's points.
/// - A comment view: `comment.id`; `comment.path` ("0.12.34", the chain of ids from the post, so
///   the parent is the second-to-last id and "0.x" is top level); `content` (Markdown);
///   `published`; `updated` (edited); `deleted` and `removed` (placeholders); `creator` (its
///   `name`, `name@host` for an account of another instance); `counts.score`; and
///   `counts.child_count`, all its descendants, so those the file lacks are counted as not archived
///   under the comment they hang from, and the post's count says how many more are missing.
enum LemmyImporter: ImporterForm {
    static let name = "lemmy"
    static let described = "a Lemmy post and its comments (/api/v3/post, /api/v3/comment/list)"

    /// An object with `post_view` holding a `post`, or with `comments` whose first holds a
    /// `comment` object with a `path`.
    static func detect(_ json: JSONReader) -> Bool {
        let root = json.root
        if let view = json.member(root, "post_view", is: .object), json.has(view, "post") { return true }
        guard let comments = json.member(root, "comments", is: .array), let first = json.firstElement(comments),
            let comment = json.member(first, "comment", is: .object)
        else { return false }
        return json.has(comment, "path")
    }

    static func isWholeThread(_ json: JSONReader) -> Bool { true }

    static func decode(_ context: inout ImportContext) throws(ThreadfoldError) -> [ThreadRecord] {
        let root = context.reader.root
        var record = ThreadRecord(file: context.file, source: context.reader.bytes)
        guard context.reader.isObject(root) else {
            context.fail(root, "$", "expected a Lemmy post view with its comments, found \(context.reader.kind(root).described)")
            return [record]
        }
        var expected: Int?
        var expectedAt = root
        if let view = context.read(root, "post_view", "$", as: .object) {
            readPost(&context, &record, view, "$.post_view")
            if let counts = context.read(view, "counts", "$.post_view", as: .object) {
                expected = context.read(counts, "comments", "$.post_view.counts", as: .count)
                expectedAt = context.reader.member(counts, "comments") ?? root
                record.info.score = context.read(counts, "score", "$.post_view.counts", as: .integer)
            }
        }
        guard let list = context.read(root, "comments", "$", as: .array) else { return [record] }
        // Each comment's ancestors in the file's order, for the counts of descendants not archived.
        var ancestors: [[CommentID]] = []
        var descendants: [Int?] = []
        context.forEachObject(in: list, "$.comments", what: "a comment view") { context, position, view, path in
            guard let comment = context.read(view, "comment", path, as: .object) else {
                if context.reader.member(view, "comment") == nil { context.fail(view, path + ".comment", "expected the comment (comment), found none") }
                return
            }
            // A list without its post: the post comes with each comment view.
            if position == 0, record.info.title == nil, let post = context.read(view, "post", path, as: .object) {
                readPost(&context, &record, view, path, post: post)
            }
            let cpath = path + ".comment"
            guard let id = context.requiredID(comment, ["id"], cpath, what: "a comment id") else { return }
            var item = CommentRecord(id: id, origin: context.origin(view, container: -1, key: ".comments", index: position))
            var chain: [CommentID] = []
            if let text = context.read(comment, "path", cpath, as: .string) {
                guard let parts = chainOf(text, id: id) else {
                    context.fail(
                        context.reader.member(comment, "path")!, cpath + ".path",
                        "found the path \"\(text.quotedForMessage)\"; expected the chain of ids from the post to the comment, like 0.12.\(id.string.quotedForMessage)")
                    return
                }
                chain = parts
            }
            item.parentID = chain.last
            let childCount = readComment(&context, view, path, comment, cpath, into: &item)
            record.comments.append(item)
            ancestors.append(chain)
            descendants.append(childCount)
        }
        countUnarchived(&record, ancestors: ancestors, descendants: descendants, expected: expected)
        if let expected {
            let post = record.info.id?.string ?? "<id>"
            context.noteMissing(
                expected - record.comments.count, of: expected, "comments", at: expectedAt, "$.post_view.counts.comments",
                fetch: "page through /api/v3/comment/list?post_id=\(post)&type_=All&limit=50&page=1, 2, … for the rest")
        }
        return [record]
    }

    /// A comment view's fields: the comment's text, times and state, its creator and their
    /// roles as flair, its score; returns its count of descendants.
    static func readComment(
        _ context: inout ImportContext, _ view: Int, _ path: String, _ comment: Int, _ cpath: String, into item: inout CommentRecord
    ) -> Int? {
        item.body = context.read(comment, "content", cpath, as: .string) ?? ""
        item.createdAt = context.read(comment, "published", cpath, as: .time)
        if let updated = context.read(comment, "updated", cpath, as: .time) {
            item.editedAt = updated
            item.edited = true
        }
        item.deleted = context.read(comment, "deleted", cpath, as: .bool) == true
        item.removed = context.read(comment, "removed", cpath, as: .bool) == true
        if item.deleted || item.removed { item.body = "" }
        item.author = user(&context, view, path)
        var flair: [String] = []
        if context.read(view, "creator_is_admin", path, as: .bool) == true { flair.append("admin") }
        if context.read(view, "creator_is_moderator", path, as: .bool) == true { flair.append("moderator") }
        if let creator = context.read(view, "creator", path, as: .object), context.read(creator, "bot_account", path + ".creator", as: .bool) == true { flair.append("bot") }
        item.authorFlair = flair.isEmpty ? nil : flair.joined(separator: " · ")
        var childCount: Int?
        if let counts = context.read(view, "counts", path, as: .object) {
            item.score = context.read(counts, "score", path + ".counts", as: .integer)
            childCount = context.read(counts, "child_count", path + ".counts", as: .count)
        }
        return childCount
    }

    /// The post's fields, from a post view (or a comment view, which carries its post, creator
    /// and community: then `post` is given and the creator is the comment's, not the post's).
    static func readPost(_ context: inout ImportContext, _ record: inout ThreadRecord, _ view: Int, _ path: String, post given: Int? = nil) {
        if let community = context.read(view, "community", path, as: .object),
            let name = context.read(community, "name", path + ".community", as: .string), !name.isEmpty
        {
            record.info.category = "c/" + name
        }
        guard let post = given ?? context.read(view, "post", path, as: .object) else { return }
        let p = path + ".post"
        if given == nil { record.info.author = user(&context, view, path) }
        record.info.id = context.read(post, "id", p, as: .id)
        record.info.title = context.read(post, "name", p, as: .string)
        record.info.createdAt = context.read(post, "published", p, as: .time)
        record.info.url = context.read(post, "ap_id", p, as: .string)
        let body = context.read(post, "body", p, as: .string) ?? ""
        let link = context.read(post, "url", p, as: .string)
        guard context.read(post, "deleted", p, as: .bool) != true && context.read(post, "removed", p, as: .bool) != true else { return }
        record.info.body = body.isEmpty ? nil : body
        record.info.link = link
    }

    /// The view's `creator`: its `name`, with `@host` when the account lives on another instance
    /// (`local` false; the host of its `actor_id`).
    static func user(_ context: inout ImportContext, _ view: Int, _ path: String) -> String? {
        guard let creator = context.read(view, "creator", path, as: .object) else { return nil }
        let p = path + ".creator"
        guard let name = context.read(creator, "name", p, as: .string), !name.isEmpty else { return nil }
        if context.reader.member(creator, "local", is: .false) != nil,
            let actor = context.read(creator, "actor_id", p, as: .string), let host = ImportContext.host(of: actor)
        {
            return name + "@" + host
        }
        return name
    }

    /// The ancestors named by a path "0.12.34" of comment 34: [12]. Nil unless the path is ids
    /// joined by dots, starting at 0 (the post) and ending with the comment's own id.
    static func chainOf(_ text: String, id: CommentID) -> [CommentID]? {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count >= 2, parts.first!.elementsEqual("0".utf8), parts.last!.elementsEqual(id.string.utf8),
            parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } })
        else { return nil }
        return parts.dropFirst().dropLast().map { CommentID(String(decoding: $0, as: UTF8.self)) }
    }

    /// Lemmy counts every comment's descendants (`child_count`) and the post's comments. Those the
    /// file lacks are said to be not archived: under the comment they hang from (what a comment is
    /// missing, less what its replies in the file are missing), and the rest under the post.
    static func countUnarchived(_ record: inout ThreadRecord, ancestors: [[CommentID]], descendants: [Int?], expected: Int?) {
        let n = record.comments.count
        var index: [CommentID: Int] = [:]
        for (i, comment) in record.comments.enumerated() where index[comment.id] == nil { index[comment.id] = i }
        var inFile = [Int](repeating: 0, count: n)
        for chain in ancestors {
            for ancestor in chain { if let j = index[ancestor] { inFile[j] += 1 } }
        }
        let missing = (0..<n).map { max(0, (descendants[$0] ?? 0) - inFile[$0]) }
        var underReplies = [Int](repeating: 0, count: n)
        for i in 0..<n {
            if let parent = record.comments[i].parentID, let j = index[parent] { underReplies[j] = min(underReplies[j] + missing[i], InputLimits.maxCount) }
        }
        var attributed = 0
        for i in 0..<n {
            let own = max(0, missing[i] - underReplies[i])
            record.comments[i].unarchivedReplies = own
            attributed = min(attributed + own, InputLimits.maxCount)
        }
        if let expected, expected > n + attributed {
            record.info.unarchivedComments = min(expected - n - attributed, InputLimits.maxCount)
        }
    }
}
