/// Reads a Discourse topic as the API returns it from `/t/<id>.json`.
///
/// Post 1 is the topic's opening post and becomes the thread's body. Other posts are threaded by
/// `reply_to_post_number`; a reply to post 1, or to nothing, is top level. Bodies are the `raw`
/// Markdown when the export has it, else the `cooked` HTML (sanitised). `deleted_at` makes a
/// deleted post; moderator posts (`post_type` 2) and whispers (4) are marked as such; small-action
/// posts (3: the topic closed, pinned, split) are notices, not comments (`NoticeRecord`). A
/// post with `version` above 1 is edited (at `updated_at`); `like_count` (or the `actions_summary`
/// entry with id 2) is its ❤️ reaction. `category_id` becomes the category's name when the forum's
/// categories were given (`ImportOptions.categoryNames`), else "Category N", and the thread
/// links `/t/<slug>/<id>`, which the renderer makes absolute against the forum's address.
/// Emoji shortcodes (`:confetti_ball:`) in the title and in `raw` bodies are shown as their emoji.
enum DiscourseImporter: ImporterForm {
    static let name = "discourse"
    static let described = "a Discourse topic (/t/<id>.json)"

    /// An object with `post_stream`.
    static func detect(_ document: JSONDocument) -> Bool {
        document.kind(document.root) == .object && document.member(document.root, "post_stream") != nil
    }

    static func isWholeThread(_ document: JSONDocument) -> Bool { true }

    static func decode(_ context: inout ImportContext) throws(InputErrors) -> [ThreadRecord] {
        [decodeTopic(&context)]
    }

    static func decodeTopic(_ context: inout ImportContext) -> ThreadRecord {
        let document = context.document
        var record = ThreadRecord(file: context.file, source: document.bytes)
        let root = document.root
        record.info.id = context.id(root, "id", "$")
        // Discourse shows a title's `:name:` shortcodes as emoji, as it does a body's.
        record.info.title = context.string(root, "title", "$").map(EmojiShortcodes.replacing)
        record.info.emojiShortcodes = true
        // Discourse exports name a category only by number; tags come as names.
        if let tags = document.member(root, "tags"), document.kind(tags) == .array {
            document.forEachElement(tags) { _, tag in
                if document.kind(tag) == .string, !document.string(tag).isEmpty { record.info.tags.append(document.string(tag)) }
                else if document.kind(tag) == .object, let name = document.member(tag, "name"), document.kind(name) == .string { record.info.tags.append(document.string(name)) }
            }
        }
        record.info.createdAt = context.time(root, "created_at", "$")
        // Exports name a category only by its number, which still keeps categories apart.
        if let category = context.integer(root, "category_id", "$") {
            record.info.category = context.options.categoryNames[String(category)] ?? "Category \(category)"
        }
        // The topic's own address on its forum, made absolute against the forum's when that is known.
        if let id = record.info.id {
            let slug = context.string(root, "slug", "$").map(percentEncoded) ?? ""
            record.info.url = "/t/" + (slug.isEmpty ? "" : slug + "/") + percentEncoded(id.string)
        }
        guard let stream = context.member(root, "post_stream"),
              let posts = context.array(stream, "posts", "$.post_stream") else {
            context.fail(root, "$.post_stream.posts", "expected the topic's posts, found none")
            return record
        }
        // Small-action posts (the topic closed, moved, split, pinned) are notices, not comments, and a
        // reply to one is top level.
        var smallActions: Set<CommentID> = []
        document.forEachElement(posts) { position, post in
            let path = "$.post_stream.posts[\(position)]"
            guard document.kind(post) == .object else {
                context.fail(post, path, "expected a post object, found \(document.kind(post).described)")
                return
            }
            guard let number = context.integer(post, "post_number", path) else {
                context.fail(post, path + ".post_number", "expected a post number, found none")
                return
            }
            let author = context.string(post, "username", path)
            let raw = context.string(post, "raw", path)
            let cooked = context.string(post, "cooked", path)
            let (body, format): (String, BodyFormat) = raw.map { ($0, .markdown) } ?? (cooked ?? "", .html)
            if number == 1 {
                record.info.author = author
                record.info.body = body
                record.info.bodyFormat = format
                if record.info.createdAt == nil { record.info.createdAt = context.time(post, "created_at", path) }
                return
            }
            if context.integer(post, "post_type", path) == 3 {
                smallActions.insert(CommentID(String(number)))
                guard context.member(post, "deleted_at") == nil else {
                    var warning = context.reader.error(at: post, path: path + ".deleted_at",
                                                       "is a deleted small-action post; left out of the notices", severity: .note)
                    warning.kind = "deletedNotice"
                    context.skipped.append(warning)
                    return
                }
                record.notices.append(NoticeRecord(
                    action: context.string(post, "action_code", path).flatMap { $0.isEmpty ? nil : $0 },
                    actor: author.flatMap { $0.isEmpty ? nil : $0 },
                    subject: context.string(post, "action_code_who", path).flatMap { $0.isEmpty ? nil : $0 },
                    createdAt: context.time(post, "created_at", path), body: body, bodyFormat: format))
                return
            }
            var comment = CommentRecord(id: CommentID(String(number)),
                                        origin: context.origin(post, container: -1, key: ".post_stream.posts", index: position))
            if let parent = context.integer(post, "reply_to_post_number", path), parent != 1 {
                comment.parentID = CommentID(String(parent))
            }
            comment.author = author
            comment.body = body
            comment.bodyFormat = format
            comment.createdAt = context.time(post, "created_at", path)
            if (context.integer(post, "version", path) ?? 1) > 1 {
                comment.edited = true
                comment.editedAt = context.time(post, "updated_at", path)
            }
            if context.member(post, "deleted_at") != nil { comment.deleted = true }
            switch context.integer(post, "post_type", path) {
            case 2: comment.authorFlair = "moderator notice"
            case 4: comment.authorFlair = "whisper"
            default: comment.authorFlair = context.string(post, "user_title", path).flatMap { $0.isEmpty ? nil : $0 }
            }
            // Discourse counts likes, shown under a post as a heart.
            comment.reactions = Reaction.counted([("❤️", context.integer(post, "like_count", path) ?? likes(&context, post, path))])
            record.comments.append(comment)
        }
        if !smallActions.isEmpty {
            for i in record.comments.indices where record.comments[i].parentID.map(smallActions.contains) ?? false {
                record.comments[i].parentID = nil
            }
        }
        return record
    }
}

extension DiscourseImporter {
    /// Likes from `actions_summary` (the action with id 2), for exports without `like_count`.
    static func likes(_ context: inout ImportContext, _ post: Int, _ path: String) -> Int64? {
        guard let actions = context.array(post, "actions_summary", path) else { return nil }
        var count: Int64?
        context.document.forEachElement(actions) { position, action in
            let p = path + ".actions_summary[\(position)]"
            if count == nil, context.integer(action, "id", p) == 2 { count = context.integer(action, "count", p) ?? 0 }
        }
        return count
    }

    /// Bytes outside ASCII letters, digits, `-`, `_` and `~` as `%XX`, for a path segment (so `..`
    /// cannot climb).
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if byte < 0x80, c.isLetter || c.isNumber || c == "-" || c == "_" || c == "~" {
                out.append(c)
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

extension SourceFormat {
    /// A Discourse topic as returned by `/t/<id>.json`.
    public static let discourse = DiscourseImporter.format
}
