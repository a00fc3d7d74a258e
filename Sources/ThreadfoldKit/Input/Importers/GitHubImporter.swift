/// Reads the comments of a GitHub issue or pull request as `/repos/<owner>/<repo>/issues/<n>/comments`
/// returns them (an array), wrapped as `{"data": [...]}`, or with the issue itself as
/// `{"issue": {...}, "comments": [...]}`.
///
/// - The issue (when given) is the thread: `title`, `body` (Markdown) as the opening post, `user.login`,
///   `created_at`, `html_url` as the original link, `labels` as tags, and `comments`, GitHub's count.
///   Without it, the first comment's `issue_url` and `html_url` name the thread (its id, the
///   issue's API address, or the page's when there is none) and its link.
/// - The repository (`owner/repo`, from the links) is the category.
/// - Comments are flat, in file order; a pull request review comment's `in_reply_to_id` names its
///   parent. Each has `user.login`, `body` (GFM; else `body_html` as HTML or `body_text` as text),
///   `created_at`, `updated_at` (edited only when it differs from `created_at`),
///   `reactions` (`+1`, `-1`, `laugh`, `hooray`, `confused`, `heart`, `rocket`, `eyes`) as reactions,
///   the issue's too (GitHub has no points), and `author_association` (but NONE) and a bot account
///   as flair.
enum GitHubImporter: ImporterForm {
    static let name = "github"
    static let described = "GitHub issue or pull request comments (/repos/<owner>/<repo>/issues/<n>/comments)"

    /// An array (or `{"data": [...]}`) whose first element is a comment (a `user` object with a
    /// `login`, a body, and `html_url`, `issue_url` or `author_association`), or an object with an
    /// `issue` object that has a `number` or a `user`.
    static func detect(_ json: JSONReader) -> Bool {
        let root = json.root
        if let issue = json.member(root, "issue", is: .object) { return json.has(issue, "number") || json.has(issue, "user") }
        guard let list = json.isArray(root) ? root : json.member(root, "data", is: .array), let first = json.firstElement(list) else { return false }
        return isComment(json, first)
    }

    static func isComment(_ json: JSONReader, _ node: Int) -> Bool {
        guard let user = json.member(node, "user", is: .object), json.has(user, "login") else { return false }
        return (json.has(node, "body") || json.has(node, "body_html") || json.has(node, "body_text"))
            && (json.has(node, "html_url") || json.has(node, "issue_url") || json.has(node, "author_association"))
    }

    static func isWholeThread(_ json: JSONReader) -> Bool { json.has(json.root, "issue") }

    static func decode(_ context: inout ImportContext) throws(ThreadfoldError) -> [ThreadRecord] {
        let json = context.reader
        let root = json.root
        var record = ThreadRecord(file: context.file, source: json.bytes)
        record.info.emojiShortcodes = true
        var list: (node: Int, key: String?)?
        var expected: (count: Int, node: Int)?
        switch json.kind(root) {
        case .array:
            list = (root, nil)
        case .object:
            if let issue = context.read(root, "issue", "$", as: .object) {
                readIssue(&context, &record, issue, "$.issue")
                if let count = context.read(issue, "comments", "$.issue", as: .count) { expected = (count, context.reader.member(issue, "comments")!) }
            }
            for key in ["comments", "data"] where list == nil {
                if let array = context.read(root, key, "$", as: .array) { list = (array, "." + key) }
            }
        default:
            context.fail(root, "$", "expected an array of issue comments, or an object with the issue and its comments, found \(json.kind(root).described)")
        }
        guard let list else { return [record] }
        context.forEachObject(in: list.node, "$" + (list.key ?? ""), what: "a comment") { context, position, item, path in
            guard let id = context.requiredID(item, ["id"], path, what: "a comment id") else { return }
            let comment = self.comment(&context, item, path, id: id, origin: context.origin(item, container: -1, key: list.key, index: position))
            // Without the issue, the first comment's links name the thread.
            if position == 0 { nameThread(&context, item, path, &record.info) }
            record.comments.append(comment)
        }
        if let expected, expected.count > record.comments.count {
            record.info.unarchivedComments = expected.count - record.comments.count
            // The API gives 30 comments a page unless asked for up to 100.
            let issue = record.info.url.flatMap(apiPath) ?? "/repos/<owner>/<repo>/issues/<number>"
            context.noteMissing(
                expected.count - record.comments.count, of: expected.count, "comments", at: expected.node, "$.issue.comments",
                fetch: "page through \(issue)/comments?per_page=100&page=1, 2, … for the rest")
        }
        return [record]
    }

    /// An issue comment: its author (a bot's flagged), association, body (Markdown, else HTML,
    /// else text), times and reactions.
    static func comment(_ context: inout ImportContext, _ item: Int, _ path: String, id: CommentID, origin: RecordOrigin) -> CommentRecord {
        var comment = CommentRecord(id: id, parentID: context.read(item, "in_reply_to_id", path, as: .id), origin: origin)
        var flair: [String] = []
        if let user = context.read(item, "user", path, as: .object) {
            comment.author = context.read(user, "login", path + ".user", as: .string)
            if context.read(user, "type", path + ".user", as: .string) == "Bot" { flair.append("bot") }
        }
        if let role = context.read(item, "author_association", path, as: .string), !role.isEmpty, role != "NONE" {
            flair.append(role.lowercased().replacingOccurrences(of: "_", with: " "))
        }
        comment.authorFlair = flair.isEmpty ? nil : flair.joined(separator: " · ")
        if let body = context.read(item, "body", path, as: .string) {
            comment.body = body
        } else if let html = context.read(item, "body_html", path, as: .string) {
            comment.body = html
            comment.bodyFormat = .html
        } else if let text = context.read(item, "body_text", path, as: .string) {
            comment.body = text
            comment.bodyFormat = .text
        }
        comment.createdAt = context.read(item, "created_at", path, as: .time)
        if let updated = context.read(item, "updated_at", path, as: .time), updated != comment.createdAt {
            comment.editedAt = updated
            comment.edited = true
        }
        comment.reactions = reactions(&context, item, path)
        return comment
    }

    /// A thread read without its issue, named from its first comment: its id is the issue's
    /// address (the API's `issue_url`, else the page), the same whoever saved the file where,
    /// with the page as its link, the repository as its category and `owner/repo#number` as
    /// its title.
    static func nameThread(_ context: inout ImportContext, _ item: Int, _ path: String, _ info: inout ThreadInfo) {
        if info.id == nil, let issue = context.read(item, "issue_url", path, as: .string), !issue.isEmpty {
            info.id = CommentID(issue)
        }
        guard info.url == nil, let link = context.read(item, "html_url", path, as: .string) else { return }
        let page = String(link.prefix { $0 != "#" })
        if info.id == nil, !page.isEmpty { info.id = CommentID(page) }
        info.url = page
        info.category = repository(page)
        if info.title == nil, let issue = context.read(item, "issue_url", path, as: .string) ?? Optional(page),
            let repo = repository(issue), let number = issue.split(separator: "/").last, number.allSatisfy(\.isNumber)
        {
            info.title = "\(repo)#\(number)"
        }
    }

    static func readIssue(_ context: inout ImportContext, _ record: inout ThreadRecord, _ issue: Int, _ path: String) {
        record.info.id = context.read(issue, "id", path, as: .id)
        record.info.title = context.read(issue, "title", path, as: .string)
        if let user = context.read(issue, "user", path, as: .object) { record.info.author = context.read(user, "login", path + ".user", as: .string) }
        record.info.createdAt = context.read(issue, "created_at", path, as: .time)
        record.info.url = context.read(issue, "html_url", path, as: .string)
        record.info.category = record.info.url.flatMap(repository)
        if let body = context.read(issue, "body", path, as: .string), !body.isEmpty { record.info.body = body }
        record.info.reactions = reactions(&context, issue, path)
        if let labels = context.read(issue, "labels", path, as: .array) {
            for (position, label) in context.reader.elements(of: labels) {
                let name = context.reader.text(label) ?? context.read(label, "name", path + ".labels[\(position)]", as: .string)
                if let name, !name.isEmpty { record.info.tags.append(name) }
            }
        }
    }

    /// The API's path of the issue or pull request a web link names
    /// (`https://github.com/o/r/pull/3` → `/repos/o/r/issues/3`); nil for anything else.
    static func apiPath(_ url: String) -> String? {
        guard let repo = repository(url) else { return nil }
        let parts = url.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count >= 2, let number = parts.last, number.allSatisfy(\.isNumber),
            ["issues", "pull", "pulls"].contains(parts[parts.count - 2])
        else { return nil }
        return "/repos/\(repo)/issues/\(number)"
    }

    /// GitHub's reactions, by their names in the `reactions` object, and the emoji GitHub shows.
    static let reactionEmoji: [(name: String, emoji: String)] = [
        ("+1", "👍"), ("-1", "👎"), ("laugh", "😄"), ("hooray", "🎉"), ("confused", "😕"), ("heart", "❤️"), ("rocket", "🚀"), ("eyes", "👀"),
    ]

    /// An issue's or comment's `reactions`, in GitHub's order, those counted 0 left out.
    static func reactions(_ context: inout ImportContext, _ item: Int, _ path: String) -> [Reaction] {
        guard let reactions = context.read(item, "reactions", path, as: .object) else { return [] }
        return Reaction.counted(reactionEmoji.map { ($0.emoji, context.read(reactions, $0.name, path + ".reactions", as: .integer)) })
    }

    /// `owner/repo` from a GitHub link, web (`https://github.com/o/r/issues/1`) or API
    /// (`https://api.github.com/repos/o/r/issues/1`); nil for anything else.
    static func repository(_ url: String) -> String? {
        guard ImportContext.host(of: url) != nil else { return nil }
        var parts = url.split(separator: "/", omittingEmptySubsequences: true).dropFirst(2)
        if parts.first == "repos" { parts = parts.dropFirst() }
        guard parts.count >= 2 else { return nil }
        return "\(parts[parts.startIndex])/\(parts[parts.startIndex + 1])"
    }
}
