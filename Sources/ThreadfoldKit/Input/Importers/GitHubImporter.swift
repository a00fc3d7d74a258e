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
    static func detect(_ document: JSONDocument) -> Bool {
        let root = document.root
        switch document.kind(root) {
        case .array:
            return document.count(root) > 0 && isComment(document, root + 1)
        case .object:
            if let issue = document.member(root, "issue"), document.kind(issue) == .object {
                return document.member(issue, "number") != nil || document.member(issue, "user") != nil
            }
            guard let data = document.member(root, "data"), document.kind(data) == .array, document.count(data) > 0 else { return false }
            return isComment(document, data + 1)
        default:
            return false
        }
    }

    static func isComment(_ document: JSONDocument, _ node: Int) -> Bool {
        guard document.kind(node) == .object, let user = document.member(node, "user"), document.kind(user) == .object,
            document.member(user, "login") != nil
        else { return false }
        let body = document.member(node, "body") != nil || document.member(node, "body_html") != nil || document.member(node, "body_text") != nil
        return body
            && (document.member(node, "html_url") != nil || document.member(node, "issue_url") != nil
                || document.member(node, "author_association") != nil)
    }

    static func isWholeThread(_ document: JSONDocument) -> Bool {
        document.kind(document.root) == .object && document.member(document.root, "issue") != nil
    }

    static func decode(_ context: inout ImportContext) throws(ThreadfoldError) -> [ThreadRecord] {
        let document = context.document
        let root = document.root
        var record = ThreadRecord(file: context.file, source: document.bytes)
        record.info.emojiShortcodes = true
        var list: (node: Int, key: String?)?
        var expected: (count: Int, node: Int)?
        switch document.kind(root) {
        case .array:
            list = (root, nil)
        case .object:
            if let issue = context.object(root, "issue", "$") {
                readIssue(&context, &record, issue, "$.issue")
                if let count = context.count(issue, "comments", "$.issue") { expected = (count, context.member(issue, "comments")!) }
            }
            for key in ["comments", "data"] where list == nil {
                if let array = context.array(root, key, "$") { list = (array, "." + key) }
            }
        default:
            context.fail(root, "$", "expected an array of issue comments, or an object with the issue and its comments, found \(document.kind(root).described)")
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
        var comment = CommentRecord(id: id, parentID: context.id(item, "in_reply_to_id", path), origin: origin)
        var flair: [String] = []
        if let user = context.object(item, "user", path) {
            comment.author = context.string(user, "login", path + ".user")
            if context.string(user, "type", path + ".user") == "Bot" { flair.append("bot") }
        }
        if let role = context.string(item, "author_association", path), !role.isEmpty, role != "NONE" {
            flair.append(role.lowercased().replacingOccurrences(of: "_", with: " "))
        }
        comment.authorFlair = flair.isEmpty ? nil : flair.joined(separator: " · ")
        if let body = context.string(item, "body", path) {
            comment.body = body
        } else if let html = context.string(item, "body_html", path) {
            comment.body = html
            comment.bodyFormat = .html
        } else if let text = context.string(item, "body_text", path) {
            comment.body = text
            comment.bodyFormat = .text
        }
        comment.createdAt = context.time(item, "created_at", path)
        if let updated = context.time(item, "updated_at", path), updated != comment.createdAt {
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
        if info.id == nil, let issue = context.string(item, "issue_url", path), !issue.isEmpty {
            info.id = CommentID(issue)
        }
        guard info.url == nil, let link = context.string(item, "html_url", path) else { return }
        let page = String(link.prefix { $0 != "#" })
        if info.id == nil, !page.isEmpty { info.id = CommentID(page) }
        info.url = page
        info.category = repository(page)
        if info.title == nil, let issue = context.string(item, "issue_url", path) ?? Optional(page),
            let repo = repository(issue), let number = issue.split(separator: "/").last, number.allSatisfy(\.isNumber)
        {
            info.title = "\(repo)#\(number)"
        }
    }

    static func readIssue(_ context: inout ImportContext, _ record: inout ThreadRecord, _ issue: Int, _ path: String) {
        record.info.id = context.id(issue, "id", path)
        record.info.title = context.string(issue, "title", path)
        if let user = context.object(issue, "user", path) { record.info.author = context.string(user, "login", path + ".user") }
        record.info.createdAt = context.time(issue, "created_at", path)
        record.info.url = context.string(issue, "html_url", path)
        record.info.category = record.info.url.flatMap(repository)
        if let body = context.string(issue, "body", path), !body.isEmpty { record.info.body = body }
        record.info.reactions = reactions(&context, issue, path)
        if let labels = context.array(issue, "labels", path) {
            context.document.forEachElement(labels) { position, label in
                let name =
                    context.document.kind(label) == .string
                    ? context.document.string(label)
                    : context.string(label, "name", path + ".labels[\(position)]")
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
        guard let reactions = context.object(item, "reactions", path) else { return [] }
        return Reaction.counted(reactionEmoji.map { ($0.emoji, context.integer(reactions, $0.name, path + ".reactions")) })
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
