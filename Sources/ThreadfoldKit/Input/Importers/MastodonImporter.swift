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
    static func detect(_ document: JSONDocument) -> Bool {
        let root = document.root
        switch document.kind(root) {
        case .object:
            if let status = document.member(root, "status"), let context = document.member(root, "context") {
                return isStatus(document, status) && document.kind(context) == .object
            }
            guard let ancestors = document.member(root, "ancestors"), let descendants = document.member(root, "descendants") else { return false }
            return document.kind(ancestors) == .array && document.kind(descendants) == .array
        case .array:
            return document.count(root) > 0 && isStatus(document, root + 1)
        default:
            return false
        }
    }

    static func isStatus(_ document: JSONDocument, _ node: Int) -> Bool {
        guard document.kind(node) == .object, let account = document.member(node, "account"), document.kind(account) == .object else { return false }
        return document.member(node, "content") != nil && document.member(node, "in_reply_to_id") != nil
    }

    static func isWholeThread(_ document: JSONDocument) -> Bool { document.kind(document.root) == .object }

    /// A status in conversation order: its node, the path of its array (nil: the root's own
    /// `status`) and its place there.
    typealias Status = (node: Int, key: String?, index: Int)

    static func decode(_ context: inout ImportContext) throws(ThreadfoldError) -> [ThreadRecord] {
        var record = ThreadRecord(file: context.file, source: context.document.bytes)
        guard let (statuses, opening) = conversation(&context) else { return [record] }
        var openingID: CommentID?
        var repliesCounts: [Int?] = []
        var openingReplies: Int?
        for (node, key, index) in statuses {
            guard !context.errors.isFull else { break }
            let path = key.map { "$" + $0 + "[\(index)]" } ?? "$.status"
            guard context.requireObject(node, path, what: "a status") != nil else { continue }
            guard let id = context.requiredID(node, ["id"], path, what: "a status id"), isPublic(&context, node, path) else { continue }
            let account = context.object(node, "account", path)
            let author = account.flatMap { handle(&context, $0, path + ".account") }
            let (body, parts) = content(&context, node, path)
            if node == opening {
                openingID = id
                record.info.id = id
                record.info.author = author
                record.info.body = body.isEmpty ? nil : body
                record.info.parts = parts
                readOpening(&context, node, path, into: &record.info)
                openingReplies = context.count(node, "replies_count", path)
                continue
            }
            var comment = CommentRecord(
                id: id,
                origin: RecordOrigin(
                    offset: Int32(context.document.offset(node)), container: -1,
                    key: key ?? ".status", index: key == nil ? -1 : Int32(index)))
            comment.author = author
            comment.body = body
            comment.parts = parts
            readReply(&context, node, path, account: account, into: &comment)
            record.comments.append(comment)
            repliesCounts.append(context.count(node, "replies_count", path))
        }
        countUnarchived(&record, openingID: openingID, repliesCounts: repliesCounts, openingReplies: openingReplies)
        return [record]
    }

    /// Every status of the file in conversation order, and the opening post's node; nil (after an
    /// error) for a status without its context.
    static func conversation(_ context: inout ImportContext) -> (statuses: [Status], opening: Int?)? {
        let document = context.document
        let root = document.root
        var statuses: [Status] = []
        func add(_ array: Int?, _ key: String) {
            guard let array else { return }
            document.forEachElement(array) { position, node in statuses.append((node, key, position)) }
        }
        if document.kind(root) == .array {
            add(root, "")
            let opening = statuses.first { document.kind($0.node) == .object && context.member($0.node, "in_reply_to_id") == nil }?.node
            return (statuses, opening)
        }
        var status: Int?
        var thread = root, threadPath = ""
        if context.member(root, "status") != nil || context.member(root, "context") != nil {
            status = context.object(root, "status", "$")
            guard let inner = context.object(root, "context", "$") else {
                context.fail(root, "$.context", "expected the status's context (ancestors and descendants), found none")
                return nil
            }
            thread = inner
            threadPath = ".context"
        }
        let ancestors = context.array(thread, "ancestors", "$" + threadPath)
        add(ancestors, threadPath + ".ancestors")
        if let status { statuses.append((status, nil, -1)) }
        add(context.array(thread, "descendants", "$" + threadPath), threadPath + ".descendants")
        return (statuses, ancestors.flatMap { document.count($0) > 0 ? $0 + 1 : nil } ?? status)
    }

    /// Whether the status is public or unlisted; a private or direct one is left out, with a warning.
    static func isPublic(_ context: inout ImportContext, _ node: Int, _ path: String) -> Bool {
        guard let visibility = context.string(node, "visibility", path), visibility == "private" || visibility == "direct" else { return true }
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
        info.createdAt = context.time(node, "created_at", path)
        info.url = context.string(node, "url", path) ?? context.string(node, "uri", path)
        info.title = excerpt(
            context.string(node, "spoiler_text", path).flatMap { $0.isEmpty ? nil : $0 }
                ?? context.string(node, "content", path) ?? "")
        info.bodyFormat = .html
        if let tags = context.array(node, "tags", path) {
            context.document.forEachElement(tags) { position, tag in
                if let name = context.string(tag, "name", path + ".tags[\(position)]"), !name.isEmpty { info.tags.append(name) }
            }
        }
        info.reactions = reactions(&context, node, path)
        info.poll = poll(&context, node, path)
    }

    /// A reply's own fields: its parent, times, reactions, poll, and its account's name and bot
    /// flag as flair.
    static func readReply(_ context: inout ImportContext, _ node: Int, _ path: String, account: Int?, into comment: inout CommentRecord) {
        comment.parentID = context.id(node, "in_reply_to_id", path)
        comment.bodyFormat = .html
        comment.createdAt = context.time(node, "created_at", path)
        if let edited = context.time(node, "edited_at", path) {
            comment.editedAt = edited
            comment.edited = true
        }
        comment.reactions = reactions(&context, node, path)
        comment.poll = poll(&context, node, path)
        var flair: [String] = []
        if let account, let name = context.string(account, "display_name", path + ".account"), !name.isEmpty { flair.append(name) }
        if let account, context.bool(account, "bot", path + ".account") { flair.append("bot") }
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
        guard let acct = context.string(account, "acct", path) ?? context.string(account, "username", path), !acct.isEmpty else { return nil }
        if acct.contains("@") { return acct }
        guard let url = context.string(account, "url", path), let host = ImportContext.host(of: url) else { return acct }
        return acct + "@" + host
    }

    /// The status's text and what is shown around it: its content warning, then its media
    /// (images with their description, other media as links).
    static func content(_ context: inout ImportContext, _ status: Int, _ path: String) -> (body: String, parts: [BodyPart]) {
        var parts: [BodyPart] = []
        if let warning = context.string(status, "spoiler_text", path), !warning.isEmpty { parts.append(.warning(warning)) }
        let body = context.string(status, "content", path) ?? ""
        if let media = context.array(status, "media_attachments", path) {
            context.document.forEachElement(media) { position, item in
                let p = path + ".media_attachments[\(position)]"
                guard let url = context.string(item, "url", p) ?? context.string(item, "remote_url", p) else { return }
                let description = context.string(item, "description", p).flatMap { $0.isEmpty ? nil : $0 }
                if context.string(item, "type", p) == "image" {
                    parts.append(.image(url: context.string(item, "preview_url", p) ?? url, description: description ?? ""))
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
        Reaction.counted([("⭐", context.integer(status, "favourites_count", path)), ("🔁", context.integer(status, "reblogs_count", path))])
    }

    /// A status's `poll`: `options` (`title`, `votes_count`), `votes_count` and `expires_at`.
    static func poll(_ context: inout ImportContext, _ status: Int, _ path: String) -> Poll? {
        guard let poll = context.object(status, "poll", path) else { return nil }
        let p = path + ".poll"
        let options = context.pollOptions(poll, p, text: "title", votes: "votes_count")
        guard !options.isEmpty else { return nil }
        return Poll(options: options, total: context.integer(poll, "votes_count", p), endsAt: context.time(poll, "expires_at", p))
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
