/// Reads a Lobsters story as the site returns it from `/s/<short_id>.json`.
///
/// The story is the thread: `title`, `url`, `description` (HTML) as the opening post (a link
/// post without one shows its URL), `submitter_user`, `created_at`, `score`, `tags`, and `short_id_url`
/// as the original link. `comments` is one flat list in thread order, each naming its
/// `parent_comment` by short id: `commenting_user` (a name, or an object with `username`),
/// `comment` (HTML, sanitised), `score`, `created_at`, and `updated_at`, which makes a comment
/// edited only when it differs from `created_at`. `is_deleted` comments are deleted
/// placeholders, `is_moderated` ones removed. When `comment_count` is larger than the list, the
/// rest are counted as not archived.
enum LobstersImporter: ImporterForm {
    static let name = "lobsters"
    static let described = "a Lobsters story (/s/<short_id>.json)"

    /// A `short_id`, and `submitter_user` or comments with `commenting_user`.
    static func detect(_ document: JSONDocument) -> Bool {
        let object = document.root
        guard document.kind(object) == .object, document.member(object, "short_id") != nil else { return false }
        if document.member(object, "submitter_user") != nil { return true }
        guard let comments = document.member(object, "comments"), document.kind(comments) == .array, document.count(comments) > 0 else { return false }
        return document.kind(comments + 1) == .object && document.member(comments + 1, "commenting_user") != nil
    }

    static func isWholeThread(_ document: JSONDocument) -> Bool { true }

    static func decode(_ context: inout ImportContext) throws(ThreadfoldError) -> [ThreadRecord] {
        [decodeStory(&context)]
    }

    static func decodeStory(_ context: inout ImportContext) -> ThreadRecord {
        let document = context.document
        let root = document.root
        var record = ThreadRecord(file: context.file, source: document.bytes)
        record.info.id = context.id(root, "short_id", "$")
        record.info.title = context.string(root, "title", "$")
        record.info.author = user(&context, root, "submitter_user", "$")
        record.info.createdAt = context.time(root, "created_at", "$")
        record.info.score = context.integer(root, "score", "$")
        record.info.url = context.string(root, "short_id_url", "$") ?? context.string(root, "comments_url", "$")
        if let tags = context.array(root, "tags", "$") {
            document.forEachElement(tags) { _, tag in
                if document.kind(tag) == .string, !document.string(tag).isEmpty { record.info.tags.append(document.string(tag)) }
            }
        }
        context.openingPost(root, text: "description", "$", into: &record.info)
        guard let comments = context.array(root, "comments", "$") else { return record }
        context.forEachObject(in: comments, "$.comments", what: "a comment") { context, position, item, path in
            guard let id = context.requiredID(item, ["short_id", "id"], path, what: "a comment id (short_id)") else { return }
            var comment = CommentRecord(
                id: id, parentID: context.id(item, "parent_comment", path),
                origin: context.origin(item, container: -1, key: ".comments", index: position))
            comment.author = user(&context, item, "commenting_user", path)
            comment.body = context.string(item, "comment", path) ?? ""
            comment.bodyFormat = .html
            comment.createdAt = context.time(item, "created_at", path)
            if let updated = context.time(item, "updated_at", path), updated != comment.createdAt {
                comment.editedAt = updated
                comment.edited = true
            }
            comment.score = context.integer(item, "score", path)
            comment.deleted = context.bool(item, "is_deleted", path)
            comment.removed = context.bool(item, "is_moderated", path)
            if comment.deleted || comment.removed { comment.body = "" }
            record.comments.append(comment)
        }
        if let count = context.count(root, "comment_count", "$"), count > record.comments.count {
            record.info.unarchivedComments = count - record.comments.count
            context.noteMissing(
                count - record.comments.count, of: count, "comments", at: context.member(root, "comment_count")!, "$.comment_count",
                fetch: "fetch /s/\(record.info.id?.string ?? "<short_id>").json again for the rest")
        }
        return record
    }

    /// A user: a name, or an object with `username` (the API has written both).
    static func user(_ context: inout ImportContext, _ object: Int, _ key: String, _ path: String) -> String? {
        guard let value = context.member(object, key) else { return nil }
        if context.document.kind(value) == .object { return context.string(value, "username", path + "." + key) }
        return context.string(object, key, path)
    }
}
