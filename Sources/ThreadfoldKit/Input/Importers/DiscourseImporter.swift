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
/// links `/t/<slug>/<id>`, which the renderer makes absolute against the forum's address. Posts
/// `post_stream.stream` (or `posts_count`) counts that the export lacks are noted and counted as
/// not archived.
/// Emoji shortcodes (`:confetti_ball:`) in the title and in `raw` bodies are shown as their emoji.
enum DiscourseImporter: ImporterForm {
    static let name = "discourse"
    static let described = "a Discourse topic (/t/<id>.json)"

    /// An object with `post_stream`.
    static func detect(_ json: JSONReader) -> Bool { json.has(json.root, "post_stream") }

    static func isWholeThread(_ json: JSONReader) -> Bool { true }

    static func decode(_ context: inout ImportContext) throws(ThreadfoldError) -> [ThreadRecord] {
        [decodeTopic(&context)]
    }

    static func decodeTopic(_ context: inout ImportContext) -> ThreadRecord {
        var record = ThreadRecord(file: context.file, source: context.reader.bytes)
        let root = context.reader.root
        readTopic(&context, root, into: &record.info)
        guard let stream = context.reader.member(root, "post_stream"),
            let posts = context.read(stream, "posts", "$.post_stream", as: .array)
        else {
            context.fail(root, "$.post_stream.posts", "expected the topic's posts, found none")
            return record
        }
        // Small-action posts (the topic closed, moved, split, pinned) are notices, not comments, and a
        // reply to one is top level.
        var smallActions: Set<CommentID> = []
        // The posts present, by their ids (`stream` lists every post's id) and of the kinds `posts_count` counts.
        var present: Set<CommentID> = []
        var counted = 0
        context.forEachObject(in: posts, "$.post_stream.posts", what: "a post") { context, position, post, path in
            if let id = context.read(post, "id", path, as: .id) { present.insert(id) }
            if context.read(post, "post_type", path, as: .integer) != 3 { counted += 1 }
            guard let number = context.read(post, "post_number", path, as: .integer) else {
                context.fail(post, path + ".post_number", "expected a post number, found none")
                return
            }
            let author = context.read(post, "username", path, as: .string)
            let raw = context.read(post, "raw", path, as: .string)
            let cooked = context.read(post, "cooked", path, as: .string)
            let (body, format): (String, BodyFormat) = raw.map { ($0, .markdown) } ?? (cooked ?? "", .html)
            if number == 1 {
                record.info.author = author
                record.info.body = body
                record.info.bodyFormat = format
                if record.info.createdAt == nil { record.info.createdAt = context.read(post, "created_at", path, as: .time) }
            } else if context.read(post, "post_type", path, as: .integer) == 3 {
                smallActions.insert(CommentID(String(number)))
                if let notice = notice(&context, post, path, actor: author, body: body, format) { record.notices.append(notice) }
            } else {
                var comment = CommentRecord(
                    id: CommentID(String(number)),
                    origin: context.origin(post, container: -1, key: ".post_stream.posts", index: position))
                comment.author = author
                comment.body = body
                comment.bodyFormat = format
                readReply(&context, post, path, into: &comment)
                record.comments.append(comment)
            }
        }
        if !smallActions.isEmpty {
            for i in record.comments.indices where record.comments[i].parentID.map(smallActions.contains) ?? false {
                record.comments[i].parentID = nil
            }
        }
        countMissing(&context, &record, stream: stream, present: present, counted: counted)
        return record
    }

    /// The topic's own fields: its id, title, tags, time, category and address.
    static func readTopic(_ context: inout ImportContext, _ root: Int, into info: inout ThreadInfo) {
        let json = context.reader
        info.id = context.read(root, "id", "$", as: .id)
        // Discourse shows a title's `:name:` shortcodes as emoji, as it does a body's.
        info.title = context.read(root, "title", "$", as: .string).map(EmojiShortcodes.replacing)
        info.emojiShortcodes = true
        // Discourse exports name a category only by number; tags come as names.
        if let tags = json.member(root, "tags", is: .array) {
            for (_, tag) in json.elements(of: tags) {
                if let name = json.text(tag) {
                    if !name.isEmpty { info.tags.append(name) }
                } else if let name = json.member(tag, "name", is: .string).flatMap({ json.text($0) }) {
                    info.tags.append(name)
                }
            }
        }
        info.createdAt = context.read(root, "created_at", "$", as: .time)
        // Exports name a category only by its number, which still keeps categories apart.
        if let category = context.read(root, "category_id", "$", as: .integer) {
            info.category = context.options.categoryNames[String(category)] ?? "Category \(category)"
        }
        // The topic's own address on its forum, made absolute against the forum's when that is known.
        if let id = info.id {
            let slug = context.read(root, "slug", "$", as: .string).map(percentEncoded) ?? ""
            info.url = "/t/" + (slug.isEmpty ? "" : slug + "/") + percentEncoded(id.string)
        }
    }

    /// A small-action post as a notice; nil, with a note, for a deleted one.
    static func notice(
        _ context: inout ImportContext, _ post: Int, _ path: String, actor: String?, body: String, _ format: BodyFormat
    ) -> NoticeRecord? {
        guard context.reader.member(post, "deleted_at") == nil else {
            var warning = context.reader.error(
                at: post, path: path + ".deleted_at",
                "is a deleted small-action post; left out of the notices", severity: .note)
            warning.kind = "deletedNotice"
            context.skipped.append(warning)
            return nil
        }
        return NoticeRecord(
            action: context.read(post, "action_code", path, as: .string).flatMap { $0.isEmpty ? nil : $0 },
            actor: actor.flatMap { $0.isEmpty ? nil : $0 },
            subject: context.read(post, "action_code_who", path, as: .string).flatMap { $0.isEmpty ? nil : $0 },
            createdAt: context.read(post, "created_at", path, as: .time), body: body, bodyFormat: format)
    }

    /// A reply's own fields: its parent (none for a reply to the first post), time, edits,
    /// deletion, flair (a moderator notice, a whisper, else the user's title) and likes.
    static func readReply(_ context: inout ImportContext, _ post: Int, _ path: String, into comment: inout CommentRecord) {
        if let parent = context.read(post, "reply_to_post_number", path, as: .integer), parent != 1 {
            comment.parentID = CommentID(String(parent))
        }
        comment.createdAt = context.read(post, "created_at", path, as: .time)
        if (context.read(post, "version", path, as: .integer) ?? 1) > 1 {
            comment.edited = true
            comment.editedAt = context.read(post, "updated_at", path, as: .time)
        }
        if context.reader.member(post, "deleted_at") != nil { comment.deleted = true }
        switch context.read(post, "post_type", path, as: .integer) {
        case 2: comment.authorFlair = "moderator notice"
        case 4: comment.authorFlair = "whisper"
        default: comment.authorFlair = context.read(post, "user_title", path, as: .string).flatMap { $0.isEmpty ? nil : $0 }
        }
        // Discourse counts likes, shown under a post as a heart.
        comment.reactions = Reaction.counted([("❤️", context.read(post, "like_count", path, as: .integer) ?? likes(&context, post, path))])
    }

    /// Posts the topic has that the export lacks: `post_stream.stream` lists the id of every post
    /// (a plain `/t/<id>.json` holds only the first 20 or so), else `posts_count` counts its posts
    /// but small actions. They are noted at that member and counted as replies not archived.
    static func countMissing(_ context: inout ImportContext, _ record: inout ThreadRecord, stream: Int, present: Set<CommentID>, counted: Int) {
        let root = context.reader.root
        let id = record.info.id?.string ?? "<id>"
        let fetch = "fetch /t/\(id).json?print=true, or page through /t/\(id)/posts.json, for the rest"
        var missing = 0, total = 0
        if let ids = context.read(stream, "stream", "$.post_stream", as: .array) {
            total = context.reader.size(ids)
            var seen: Set<CommentID> = []
            var matched = 0
            for (_, element) in context.reader.elements(of: ids) {
                guard let postID = context.reader.id(element), seen.insert(postID).inserted else { continue }
                if present.contains(postID) { matched += 1 } else { missing += 1 }
            }
            // A stream that names none of the posts present (rewritten ids, as some test data has)
            // still counts them: what it lists beyond the posts in the file is missing.
            if matched == 0, !present.isEmpty { missing = max(0, total - present.count) }
            context.noteMissing(missing, of: total, "posts", at: ids, "$.post_stream.stream", fetch: fetch)
        } else if let count = context.read(root, "posts_count", "$", as: .count), count > counted {
            (missing, total) = (count - counted, count)
            context.noteMissing(missing, of: total, "posts", at: context.reader.member(root, "posts_count")!, "$.posts_count", fetch: fetch)
        }
        record.info.unarchivedComments = min(record.info.unarchivedComments + missing, InputLimits.maxCount)
    }
}

extension DiscourseImporter {
    /// Likes from `actions_summary` (the action with id 2), for exports without `like_count`.
    static func likes(_ context: inout ImportContext, _ post: Int, _ path: String) -> Int64? {
        guard let actions = context.read(post, "actions_summary", path, as: .array) else { return nil }
        var count: Int64?
        for (position, action) in context.reader.elements(of: actions) {
            let p = path + ".actions_summary[\(position)]"
            if count == nil, context.read(action, "id", p, as: .integer) == 2 { count = context.read(action, "count", p, as: .integer) ?? 0 }
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
