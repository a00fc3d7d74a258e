/// Nothing lost without a word: after a file is read, checks that the form it was read as
/// really fits it. A file read as the wrong form (an HNPWA thread read as Threadfold's own, with
/// `content` and `user` where the format says `body` and `author`, and its replies nested under
/// `comments`) would otherwise give a page of empty comments and exit 0.
///
/// The file is refused, with what was seen (the arrays in it with their JSON paths, sizes and
/// field names) and, where the comments sit in one list, a `--map` line to paste, when:
/// - most comments that are not deleted have no body, or no author, while their objects carry
///   other fields (the data is there under other names); or
/// - arrays of objects the form does not read hold more items than were read (at least 20); or
/// - lenient reading skipped more than `ImportOptions.maxSkipped` of the comments.
///
/// The first two are asked only of a form that was guessed (or a mapping's names): a form named
/// with `--from` is read as named. Threadfold's own format, guessed, is never refused for its
/// authors: its comments may have none (docs/thread.schema.json), while a body under another
/// name is what a misread file shows.
enum ImportAudit {
    /// An array of objects in the file: its path with indices as `[*]`, the objects in all the
    /// arrays of that path, and the field names seen on them (from the first 200).
    struct ArrayShape {
        var path: String
        var items: Int
        var fields: [String]
    }

    /// `unreadArrays`: whether to look for arrays of objects the form left unread (for forms
    /// whose lists of comments `arrays` knows, that is Threadfold's own).
    static func check(
        _ json: JSONReader, format: SourceFormat, threads: [ThreadRecord],
        skipped: [Problem], unreadArrays: Bool, guessed: Bool, options: ImportOptions
    ) throws(ThreadfoldError) {
        let file = json.file
        let read = threads.reduce(0) { $0 + $1.comments.count }
        var problems: [String] = []
        // Only comments lenient reading skipped; a form's own exclusions (private statuses) are not losses.
        let skipped = skipped.count { $0.kind == "skipped" }
        if skipped > 0, Double(skipped) > options.maxSkipped * Double(read + skipped) {
            problems.append("\(Printable.count(skipped, "comment")) of \(read + skipped) were skipped for a missing field, more than \(Int((options.maxSkipped * 100).rounded()))% of the file")
        }
        guard guessed || !problems.isEmpty else { return }
        var shown = 0, noBody = 0, noAuthor = 0
        for thread in threads where guessed {
            for comment in thread.comments where !comment.deleted && !comment.removed {
                shown += 1
                if comment.body.isEmpty { noBody += 1 }
                if comment.author?.isEmpty ?? true { noAuthor += 1 }
            }
        }
        // Counted first without field names (a file that passes never needs them), then again
        // with them when the file may be refused.
        let unreadArrays = unreadArrays && guessed
        var arrays: (read: ArrayShape?, unread: [ArrayShape]) = unreadArrays ? self.arrays(json, fields: false) : (nil, [])
        let unread = arrays.unread.reduce(0) { $0 + $1.items }
        if format == .threadfold { noAuthor = 0 }
        let fieldsMissing = shown >= 3 && (noBody * 2 > shown || noAuthor * 2 > shown)
        if unreadArrays && (fieldsMissing || (unread >= 20 && unread > read)) { arrays = self.arrays(json) }
        let shapes = (arrays.read.map { [$0] } ?? []) + arrays.unread
        if fieldsMissing && otherFields(arrays.read) {
            var missing: [String] = []
            if noBody * 2 > shown { missing.append("\(noBody) have no body") }
            if noAuthor * 2 > shown { missing.append("\(noAuthor) no author") }
            problems.append("of \(Printable.count(shown, "comment")) read, \(missing.joined(separator: " and "))")
        }
        if unread >= 20 && unread > read {
            problems.append("\(Printable.count(unread, "object")) in nested arrays were not read")
        }
        guard !problems.isEmpty else { return }

        var errors = [
            Problem(
                file: file, line: 1, column: 1, path: "$",
                message:
                    "read as \(format.described), \(problems.joined(separator: "; ")); expected a file of that form, in which most comments have a body and an author and every list of comments is read",
                hint: .otherForm)
        ]
        for shape in shapes.prefix(6) {
            errors.append(
                Problem(
                    file: file, line: 1, column: 1, path: shape.path,
                    message: "an array of \(Printable.count(shape.items, "object")), with the fields \(shape.fields.prefix(16).joined(separator: ", "))\(shape.fields.count > 16 ? ", …" : "")"))
        }
        if let list = arrays.read, let suggestion = suggestion(json, list, arrays.unread) {
            errors.append(Problem(file: file, line: 1, column: 1, path: list.path, message: suggestion))
        }
        throw ThreadfoldError.input(errors)
    }

    /// For a file no form recognised: the arrays of objects in it (largest first, at most six)
    /// and, when one of them is a list of comments, a `--map` line to read it.
    static func undetected(_ json: JSONReader) -> [Problem] {
        let file = json.file
        let shapes = arrays(json, asThreadfold: false).unread
        var errors = shapes.prefix(6).map { shape in
            Problem(
                file: file, line: 1, column: 1, path: shape.path,
                message: "an array of \(Printable.count(shape.items, "object")), with the fields \(shape.fields.prefix(16).joined(separator: ", "))\(shape.fields.count > 16 ? ", …" : "")")
        }
        // The list: the largest array at a path of its own (not one array per item of another).
        if let list = shapes.filter({ !$0.path.contains("[*]") }).max(by: { $0.items < $1.items || ($0.items == $1.items && $0.path.utf8.count > $1.path.utf8.count) }),
            let suggestion = suggestion(json, list, shapes)
        {
            errors.append(Problem(file: file, line: 1, column: 1, path: list.path, message: suggestion))
        }
        return errors
    }

    /// The read fields' names in Threadfold's format (its decoder's own list), so the other
    /// names of an object stand out.
    static let known = Set(ThreadDecoder.commentMemberNames)

    /// Whether the comments' objects carry fields Threadfold's format does not read.
    static func otherFields(_ comments: ArrayShape?) -> Bool {
        comments?.fields.contains { !known.contains($0) } ?? false
    }

    /// A `--map` line for comments in one list, from the field names on them: the list's path
    /// (`comments=$.data` when it is not the root), where replies nest (`replies=children`, when
    /// its items hold arrays of objects of the same shape), the comment fields, the field naming
    /// each comment's thread and its title (`thread=story_id,title=story_title`), the thread's
    /// fields from the root object, and `format=html` when the bodies are HTML. Nil when no id
    /// field is there.
    static func suggestion(_ json: JSONReader, _ list: ArrayShape, _ unread: [ArrayShape]) -> String? {
        var fields = list.fields
        // Replies nest one path below each item, in objects that share the list's id field.
        let prefix = list.path + "[*]."
        let nested = unread.first { shape in
            shape.path.hasPrefix(prefix) && !shape.path.dropFirst(prefix.count).contains("[") && !shape.path.hasSuffix("…")
                && Set(shape.fields).intersection(list.fields).count * 2 >= min(shape.fields.count, list.fields.count)
        }
        if let nested { fields += nested.fields.filter { !fields.contains($0) } }
        let present = Set(fields)
        func pick(_ candidates: [String]) -> String? { candidates.first(where: present.contains) }
        guard let id = pick(["id", "objectID", "short_id", "comment_id", "uuid"]) else { return nil }
        var parts: [String] = []
        if list.path != "$" { parts.append("comments=\(list.path)") }
        if let nested { parts.append("replies=\(nested.path.dropFirst(prefix.count))") }
        parts.append("id=\(id)")
        if nested == nil, let parent = pick(["parent_id", "parentID", "parent", "parent_comment", "in_reply_to_id", "reply_to", "parentId"]) { parts.append("parent=\(parent)") }
        if let author = pick(["author", "user", "username", "by", "name", "commenting_user", "user_login", "poster"]) { parts.append("author=\(author)") }
        let body = pick(["body", "content", "text", "comment", "comment_text", "message", "body_html"])
        if let body { parts.append("body=\(body)") }
        if let time = pick(["created_at", "time", "created_utc", "created", "date", "timestamp", "published", "posted"]) { parts.append("time=\(time)") }
        // Comments of many threads, each naming its thread (and its thread's title): one page a thread.
        if let thread = pick(threadKeys.filter { $0 != id }) {
            parts.append("thread=\(thread)")
            if let title = pick(threadTitles) { parts.append("title=\(title)") }
        }
        // The thread's own fields, when the list sits in an object at the root.
        let root = json.root
        if list.path.hasPrefix("$."), json.isObject(root) {
            func scalar(_ names: [String]) -> String? {
                names.first { name in json.member(root, name).map { json.kind($0) == .string || json.kind($0) == .number } ?? false }
            }
            for (field, names) in [
                ("title", ["title", "name", "subject"]), ("url", ["url", "link", "html_url", "permalink"]),
                ("author", ["author", "user", "by", "username", "submitter_user"]),
                ("created", ["created_at", "time", "created_utc", "created", "date"]),
                ("body", ["body", "content", "text", "selftext", "description"]),
            ] {
                if let name = scalar(names) { parts.append("thread.\(field)=$.\(name)") }
            }
        }
        if let body, looksLikeHTML(json, list.path, body) { parts.append("format=html") }
        return "to read these comments by their own field names, try --map \(parts.joined(separator: ","))"
    }

    /// Fields by which a comment names its thread, most telling first: Hacker News (`story_id`),
    /// Reddit (`link_id`), Discourse (`topic_id`), Lemmy (`post_id`), GitHub (`issue_url`) and others.
    static let threadKeys = [
        "story_id", "link_id", "topic_id", "thread_id", "threadId", "discussion_id", "submission_id",
        "post_id", "issue_url", "thread",
    ]

    /// Fields that carry, on each comment, its thread's title.
    static let threadTitles = ["story_title", "link_title", "topic_title", "thread_title", "post_title", "issue_title", "title"]

    /// Whether most of the first 20 bodies in the list at `path` (a path without `[*]`) look like
    /// HTML: they start with a tag or hold a paragraph or line break.
    static func looksLikeHTML(_ json: JSONReader, _ path: String, _ field: String) -> Bool {
        let steps = (try? FieldMapping.splitPath(path, root: true)) ?? []
        guard !path.contains("[*]"), let list = FieldMapping.resolve(json, json.root, steps), json.isArray(list) else { return false }
        var seen = 0, html = 0
        for (position, element) in json.elements(of: list) {
            guard position < 20 else { break }
            guard let text = json.text(element, field) else { continue }
            seen += 1
            if text.hasPrefix("<") || text.contains("<p>") || text.contains("<br") || text.contains("</a>") { html += 1 }
        }
        return seen > 0 && html * 2 > seen
    }

    /// What a value is to Threadfold's format, as `arrays` walks the file.
    private enum Role { case thread, threadList, commentList, comment, other }

    /// Where `arrays` starts: the root as Threadfold's format reads it (a thread, a list of
    /// threads or a list of comments), or as nothing it reads; nil for a scalar root.
    private static func start(_ json: JSONReader, asThreadfold: Bool) -> (node: Int, role: Role, path: String)? {
        let root = json.root
        switch json.kind(root) {
        case _ where !asThreadfold:
            return (root, .other, "$")
        case .object:
            if !json.has(root, "comments"), let threads = json.member(root, "threads", is: .array) {
                return (threads, .threadList, "$.threads")
            }
            return (root, .thread, "$")
        case .array:
            let threadsFirst = json.firstElement(root).map { json.has($0, "comments") } ?? false
            return (root, threadsFirst ? .threadList : .commentList, "$")
        default:
            return nil
        }
    }

    /// The first list of comments Threadfold's format reads in the file, and the arrays of
    /// objects it does not read, largest first. Reads only the tape, once.
    /// With `asThreadfold` false, every array of objects counts as unread (for files no form
    /// recognised); with `fields` false, shapes are counted and their field names left empty.
    static func arrays(_ json: JSONReader, asThreadfold: Bool = true, fields: Bool = true) -> (read: ArrayShape?, unread: [ArrayShape]) {
        guard let start = start(json, asThreadfold: asThreadfold) else { return (nil, []) }
        var stack: [(node: Int, role: Role, path: String)] = [start]
        // Paths stop growing past 160 bytes ("…" stands for the rest), so a reply chain 100,000
        // deep costs linear time and memory, and its deep arrays count under one path.
        func child(_ path: String, _ segment: String) -> String {
            guard path.utf8.count > 160 else { return path + segment }
            return path.hasSuffix("…") ? path : path + "…"
        }
        var read: [String: ArrayShape] = [:]
        var unread: [String: ArrayShape] = [:]
        var order: [String] = []
        func note(_ array: Int, path: String, into table: inout [String: ArrayShape]) {
            var shape = table[path] ?? ArrayShape(path: path, items: 0, fields: [])
            if table[path] == nil { order.append(path) }
            for (_, element) in json.elements(of: array) where json.isObject(element) {
                shape.items += 1
                if fields && shape.items <= 200 {
                    for (key, _) in json.members(of: element) {
                        let name = json.key(key)
                        if !shape.fields.contains(name) { shape.fields.append(name) }
                    }
                }
            }
            table[path] = shape
        }
        while let (node, role, path) = stack.popLast() {
            switch json.kind(node) {
            case .object:
                // Only a member holding an array or an object has its name decoded: strings,
                // numbers and the rest hold no arrays.
                for (keyNode, value) in json.members(of: node) where json.isArray(value) || json.isObject(value) {
                    let key = json.key(keyNode)
                    let child = child(path, "." + key)
                    switch (role, key) {
                    case (.thread, "comments"): stack.append((value, .commentList, child))
                    case (.comment, "replies"), (.comment, "children"): stack.append((value, .commentList, child))
                    default: stack.append((value, .other, child))
                    }
                }
            case .array:
                guard json.firstElement(node) != nil else { continue }
                let elementRole: Role
                switch role {
                case .threadList: elementRole = .thread
                case .commentList:
                    note(node, path: path, into: &read)
                    elementRole = .comment
                default:
                    note(node, path: path, into: &unread)
                    elementRole = .other
                }
                let elementPath = child(path, "[*]")
                for (_, element) in json.elements(of: node) where json.isArray(element) || json.isObject(element) {
                    stack.append((element, elementRole, elementPath))
                }
            default:
                continue
            }
        }
        // Threads' comment lists share a path pattern: the first read is the one to show.
        let first = order.lazy.compactMap { read[$0] }.first { $0.items > 0 }
        return (first, order.compactMap { unread[$0] }.filter { $0.items > 0 }.sorted { $0.items > $1.items || ($0.items == $1.items && $0.path < $1.path) })
    }
}
