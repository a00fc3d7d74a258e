/// Reads a Mastodon conversation: a status with its context as one file
/// (`{"status": {...}, "context": {"ancestors": [...], "descendants": [...]}}`), the context alone
/// (`/api/v1/statuses/:id/context`), or a plain array of statuses.
///
/// - The root of the conversation (the first ancestor, else the status; in an array, the first
///   status that answers none) is the opening post: its account is the thread's author, its `url`
///   the original link, its `tags` the thread's tags, and the start of its text the title
///   (statuses have none).
/// - Every other status is a comment answering `in_reply_to_id`: `content` (HTML, sanitised),
///   `account.acct` as the author (`name@host` also for the instance's own accounts, from
///   `account.url`), `display_name` and `bot` as flair, `created_at`, `edited_at`,
///   `favourites_count` (⭐) and `reblogs_count` (🔁, boosts) as reactions, and a `poll` with its
///   options, votes and `expires_at`, the root's too. `spoiler_text` is shown first, as a content warning, and
///   `media_attachments` after the text (images as images, the rest as links).
/// - `replies_count` beyond the replies in the file is counted as not archived.
/// - Statuses whose `visibility` is `private` or `direct` are left out, with a warning.
enum MastodonImporter: ImporterForm {
    static let name = "mastodon"
    static let described = "a Mastodon status and its context (/api/v1/statuses/:id/context)"

    /// `{"ancestors", "descendants"}` arrays, `{"status", "context"}` objects, or an array whose
    /// first element is a status (an object with `account`, `content` and `in_reply_to_id`).
    static func detect(_ json: JSONReader) -> Bool {
        let root = json.root
        if json.isArray(root) { return json.firstElement(root).map { isStatus(json, $0) } ?? false }
        if json.has(root, "status") && json.has(root, "context") {
            return json.member(root, "status").map { isStatus(json, $0) } == true && json.member(root, "context", is: .object) != nil
        }
        return json.member(root, "ancestors", is: .array) != nil && json.member(root, "descendants", is: .array) != nil
    }

    static func isStatus(_ json: JSONReader, _ node: Int) -> Bool {
        json.member(node, "account", is: .object) != nil && json.has(node, "content") && json.has(node, "in_reply_to_id")
    }

    static func isWholeThread(_ json: JSONReader) -> Bool { json.isObject(json.root) }

    /// A status in conversation order: its node, the path of its array (nil: the root's own
    /// `status`) and its place there.
    typealias Status = (node: Int, key: String?, index: Int)

    static func decode(_ context: inout ImportContext) throws(ThreadfoldError) -> [ThreadRecord] {
        var record = ThreadRecord(file: context.file, source: context.reader.bytes)
        guard let (statuses, opening) = conversation(&context) else { return [record] }
        var openingID: CommentID?
        var repliesCounts: [Int?] = []
        var openingReplies: Int?
        for (node, key, index) in statuses {
            guard !context.errors.isFull else { break }
            let path = key.map { "$" + $0 + "[\(index)]" } ?? "$.status"
            guard context.requireObject(node, path, what: "a status") != nil else { continue }
            guard let id = context.requiredID(node, ["id"], path, what: "a status id"), isPublic(&context, node, path) else { continue }
            let account = context.read(node, "account", path, as: .object)
            let author = account.flatMap { handle(&context, $0, path + ".account") }
            let (body, parts) = content(&context, node, path)
            if node == opening {
                openingID = id
                record.info.id = id
                record.info.author = author
                record.info.body = body.isEmpty ? nil : body
                record.info.parts = parts
                readOpening(&context, node, path, into: &record.info)
                openingReplies = context.read(node, "replies_count", path, as: .count)
                continue
            }
            var comment = CommentRecord(
                id: id,
                origin: RecordOrigin(
                    offset: Int32(context.reader.offset(node)), container: -1,
                    key: key ?? ".status", index: key == nil ? -1 : Int32(index)))
            comment.author = author
            comment.body = body
            comment.parts = parts
            readReply(&context, node, path, account: account, into: &comment)
            record.comments.append(comment)
            repliesCounts.append(context.read(node, "replies_count", path, as: .count))
        }
        countUnarchived(&record, openingID: openingID, repliesCounts: repliesCounts, openingReplies: openingReplies)
        return [record]
    }

    /// Every status of the file in conversation order, and the opening post's node; nil (after an
    /// error) for a status without its context.
    static func conversation(_ context: inout ImportContext) -> (statuses: [Status], opening: Int?)? {
        let json = context.reader
        let root = json.root
        var statuses: [Status] = []
        func add(_ array: Int?, _ key: String) {
            guard let array else { return }
            for (position, node) in json.elements(of: array) { statuses.append((node, key, position)) }
        }
        if json.isArray(root) {
            add(root, "")
            let opening = statuses.first { json.isObject($0.node) && json.member($0.node, "in_reply_to_id") == nil }?.node
            return (statuses, opening)
        }
        var status: Int?
        var thread = root, threadPath = ""
        if context.reader.member(root, "status") != nil || context.reader.member(root, "context") != nil {
            status = context.read(root, "status", "$", as: .object)
            guard let inner = context.read(root, "context", "$", as: .object) else {
                context.fail(root, "$.context", "expected the status's context (ancestors and descendants), found none")
                return nil
            }
            thread = inner
            threadPath = ".context"
        }
        let ancestors = context.read(thread, "ancestors", "$" + threadPath, as: .array)
        add(ancestors, threadPath + ".ancestors")
        if let status { statuses.append((status, nil, -1)) }
        add(context.read(thread, "descendants", "$" + threadPath, as: .array), threadPath + ".descendants")
        return (statuses, ancestors.flatMap { json.firstElement($0) } ?? status)
    }

    /// Whether the status is public or unlisted; a private or direct one is left out, with a warning.
    static func isPublic(_ context: inout ImportContext, _ node: Int, _ path: String) -> Bool {
        guard let visibility = context.read(node, "visibility", path, as: .string), visibility == "private" || visibility == "direct" else { return true }
        var warning = context.reader.error(
            at: node, path: path + ".visibility",
            "is a \(visibility == "direct" ? "direct message" : "followers-only status"); left out, as only public and unlisted statuses are archived",
            severity: .warning)
        warning.kind = "notPublic"
        context.skipped.append(warning)
        return false
    }

    /// The opening post's own fields: its time, link, title (the start of its content warning or
    /// text), tags, reactions and poll.
    static func readOpening(_ context: inout ImportContext, _ node: Int, _ path: String, into info: inout ThreadInfo) {
        info.createdAt = context.read(node, "created_at", path, as: .time)
        info.url = context.read(node, "url", path, as: .string) ?? context.read(node, "uri", path, as: .string)
        info.title = excerpt(
            context.read(node, "spoiler_text", path, as: .string).flatMap { $0.isEmpty ? nil : $0 }
                ?? context.read(node, "content", path, as: .string) ?? "")
        info.bodyFormat = .html
        if let tags = context.read(node, "tags", path, as: .array) {
            for (position, tag) in context.reader.elements(of: tags) {
                if let name = context.read(tag, "name", path + ".tags[\(position)]", as: .string), !name.isEmpty { info.tags.append(name) }
            }
        }
        info.reactions = reactions(&context, node, path)
        info.poll = poll(&context, node, path)
    }

    /// A reply's own fields: its parent, times, reactions, poll, and its account's name and bot
    /// flag as flair.
    static func readReply(_ context: inout ImportContext, _ node: Int, _ path: String, account: Int?, into comment: inout CommentRecord) {
        comment.parentID = context.read(node, "in_reply_to_id", path, as: .id)
        comment.bodyFormat = .html
        comment.createdAt = context.read(node, "created_at", path, as: .time)
        if let edited = context.read(node, "edited_at", path, as: .time) {
            comment.editedAt = edited
            comment.edited = true
        }
        comment.reactions = reactions(&context, node, path)
        comment.poll = poll(&context, node, path)
        var flair: [String] = []
        if let account, let name = context.read(account, "display_name", path + ".account", as: .string), !name.isEmpty { flair.append(name) }
        if let account, context.read(account, "bot", path + ".account", as: .bool) == true { flair.append("bot") }
        comment.authorFlair = flair.isEmpty ? nil : flair.joined(separator: " · ")
    }

    /// Replies to the opening post are top level; replies counted but not in the file are not archived.
    static func countUnarchived(_ record: inout ThreadRecord, openingID: CommentID?, repliesCounts: [Int?], openingReplies: Int?) {
        var index: [CommentID: Int] = [:]
        for (i, comment) in record.comments.enumerated() where index[comment.id] == nil { index[comment.id] = i }
        var present = [Int](repeating: 0, count: record.comments.count)
        var topLevel = 0
        for i in record.comments.indices {
            if let parent = record.comments[i].parentID, parent == openingID {
                record.comments[i].parentID = nil
                topLevel += 1
            } else if let parent = record.comments[i].parentID, let j = index[parent] {
                present[j] += 1
            }
        }
        for i in record.comments.indices { record.comments[i].unarchivedReplies = max(0, (repliesCounts[i] ?? 0) - present[i]) }
        record.info.unarchivedComments = max(0, (openingReplies ?? 0) - topLevel)
    }

    /// `acct` with the instance's host when it has none (a local account): `alice@mastodon.social`.
    static func handle(_ context: inout ImportContext, _ account: Int, _ path: String) -> String? {
        guard let acct = context.read(account, "acct", path, as: .string) ?? context.read(account, "username", path, as: .string), !acct.isEmpty else { return nil }
        if acct.contains("@") { return acct }
        guard let url = context.read(account, "url", path, as: .string), let host = ImportContext.host(of: url) else { return acct }
        return acct + "@" + host
    }

    /// The status's text and what is shown around it: its content warning, then its media
    /// (images with their description, other media as links).
    static func content(_ context: inout ImportContext, _ status: Int, _ path: String) -> (body: String, parts: [BodyPart]) {
        var parts: [BodyPart] = []
        if let warning = context.read(status, "spoiler_text", path, as: .string), !warning.isEmpty { parts.append(.warning(warning)) }
        let body = context.read(status, "content", path, as: .string) ?? ""
        if let media = context.read(status, "media_attachments", path, as: .array) {
            for (position, item) in context.reader.elements(of: media) {
                let p = path + ".media_attachments[\(position)]"
                guard let url = context.read(item, "url", p, as: .string) ?? context.read(item, "remote_url", p, as: .string) else { continue }
                let description = context.read(item, "description", p, as: .string).flatMap { $0.isEmpty ? nil : $0 }
                if context.read(item, "type", p, as: .string) == "image" {
                    parts.append(.image(url: context.read(item, "preview_url", p, as: .string) ?? url, description: description ?? ""))
                } else {
                    parts.append(.media(url: url, description: description))
                }
            }
        }
        return (body, parts)
    }

    /// The text of an HTML fragment (tags as spaces; `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&#39;`
    /// and `&nbsp;` decoded; white space collapsed), cut to 80 characters at a word, for a title.
    /// A status's favourites and boosts, as Mastodon shows them.
    static func reactions(_ context: inout ImportContext, _ status: Int, _ path: String) -> [Reaction] {
        Reaction.counted([("⭐", context.read(status, "favourites_count", path, as: .integer)), ("🔁", context.read(status, "reblogs_count", path, as: .integer))])
    }

    /// A status's `poll`: `options` (`title`, `votes_count`), `votes_count` and `expires_at`.
    static func poll(_ context: inout ImportContext, _ status: Int, _ path: String) -> Poll? {
        guard let poll = context.read(status, "poll", path, as: .object) else { return nil }
        let p = path + ".poll"
        let options = context.pollOptions(poll, p, text: "title", votes: "votes_count")
        guard !options.isEmpty else { return nil }
        return Poll(options: options, total: context.read(poll, "votes_count", p, as: .integer), endsAt: context.read(poll, "expires_at", p, as: .time))
    }

    static func excerpt(_ html: String, limit: Int = 80) -> String? {
        var text = ""
        var count = 0
        var inTag = false
        var space = false
        var rest = Substring(html)
        while let c = rest.first, count <= limit {
            rest = rest.dropFirst()
            if inTag {
                inTag = c != ">"
                continue
            }
            var char = c
            if c == "<" {
                inTag = true
                char = " "
            } else if c == "&" {
                for (entity, value) in [("amp;", "&"), ("lt;", "<"), ("gt;", ">"), ("quot;", "\""), ("#39;", "'"), ("nbsp;", " ")] where rest.hasPrefix(entity) {
                    char = Character(value)
                    rest = rest.dropFirst(entity.count)
                    break
                }
            }
            if char.isWhitespace {
                space = count > 0
                continue
            }
            if space {
                text.append(" ")
                count += 1
                space = false
            }
            text.append(char)
            count += 1
        }
        guard count > 0 else { return nil }
        guard count > limit else { return text }
        var cut = text.prefix(limit)
        if let lastSpace = cut.lastIndex(of: " "), cut.distance(from: cut.startIndex, to: lastSpace) > limit / 2 { cut = cut[..<lastSpace] }
        return cut + "…"
    }
}
