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
    static func detect(_ json: JSONReader) -> Bool {
        let story = json.root
        guard json.has(story, "short_id") else { return false }
        if json.has(story, "submitter_user") { return true }
        guard let comments = json.member(story, "comments", is: .array), let first = json.firstElement(comments) else { return false }
        return json.has(first, "commenting_user")
    }

    static func isWholeThread(_ json: JSONReader) -> Bool { true }

    static func decode(_ context: inout ImportContext) throws(ThreadfoldError) -> [ThreadRecord] {
        [decodeStory(&context)]
    }

    static func decodeStory(_ context: inout ImportContext) -> ThreadRecord {
        let root = context.reader.root
        var record = ThreadRecord(file: context.file, source: context.reader.bytes)
        record.info.id = context.read(root, "short_id", "$", as: .id)
        record.info.title = context.read(root, "title", "$", as: .string)
        record.info.author = user(&context, root, "submitter_user", "$")
        record.info.createdAt = context.read(root, "created_at", "$", as: .time)
        record.info.score = context.read(root, "score", "$", as: .integer)
        record.info.url = context.read(root, "short_id_url", "$", as: .string) ?? context.read(root, "comments_url", "$", as: .string)
        if let tags = context.read(root, "tags", "$", as: .array) {
            for (_, tag) in context.reader.elements(of: tags) {
                if let name = context.reader.text(tag), !name.isEmpty { record.info.tags.append(name) }
            }
        }
        context.openingPost(root, text: "description", "$", into: &record.info)
        guard let comments = context.read(root, "comments", "$", as: .array) else { return record }
        context.forEachObject(in: comments, "$.comments", what: "a comment") { context, position, item, path in
            guard let id = context.requiredID(item, ["short_id", "id"], path, what: "a comment id (short_id)") else { return }
            var comment = CommentRecord(
                id: id, parentID: context.read(item, "parent_comment", path, as: .id),
                origin: context.origin(item, container: -1, key: ".comments", index: position))
            comment.author = user(&context, item, "commenting_user", path)
            comment.body = context.read(item, "comment", path, as: .string) ?? ""
            comment.bodyFormat = .html
            comment.createdAt = context.read(item, "created_at", path, as: .time)
            if let updated = context.read(item, "updated_at", path, as: .time), updated != comment.createdAt {
                comment.editedAt = updated
                comment.edited = true
            }
            comment.score = context.read(item, "score", path, as: .integer)
            comment.deleted = context.read(item, "is_deleted", path, as: .bool) == true
            comment.removed = context.read(item, "is_moderated", path, as: .bool) == true
            if comment.deleted || comment.removed { comment.body = "" }
            record.comments.append(comment)
        }
        if let count = context.read(root, "comment_count", "$", as: .count), count > record.comments.count {
            record.info.unarchivedComments = count - record.comments.count
            context.noteMissing(
                count - record.comments.count, of: count, "comments", at: context.reader.member(root, "comment_count")!, "$.comment_count",
                fetch: "fetch /s/\(record.info.id?.string ?? "<short_id>").json again for the rest")
        }
        return record
    }

    /// A user: a name, or an object with `username` (the API has written both).
    static func user(_ context: inout ImportContext, _ object: Int, _ key: String, _ path: String) -> String? {
        guard let value = context.reader.member(object, key) else { return nil }
        if context.reader.isObject(value) { return context.read(value, "username", path + "." + key, as: .string) }
        return context.read(object, key, path, as: .string)
    }
}
