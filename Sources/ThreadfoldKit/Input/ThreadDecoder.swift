/// Reads Threadfold's own thread format (docs/input-format.md) into a `ThreadRecord`.
///
/// Accepts an object `{ "id", "title", "author", "created_at", "url", "lang", "comments": [...] }`
/// or a bare array of comments; comments may be flat (each naming its parent) or nested
/// (`replies` / `children` arrays), or both. Nesting is walked with an explicit stack.
package enum ThreadDecoder {
    /// The names of the comment members this format reads, which `ImportAudit` counts as read.
    static var commentMemberNames: [String] { Decoder.memberNames }
    /// At most this many errors are collected before decoding stops.
    package static let errorLimit = 50

    package static func decode(bytes: [UInt8], file: String) throws(ThreadfoldError) -> ThreadRecord {
        try decode(document: try JSONReader(bytes: bytes, file: file).document, file: file)
    }

    package static func decode(document: JSONDocument, file: String) throws(ThreadfoldError) -> ThreadRecord {
        var skipped: [Problem] = []
        let json = JSONReader(document: document, file: file)
        return try decode(json, at: json.root, path: "", lenient: false, skipped: &skipped)
    }

    /// Decodes the thread at `node`, whose JSON path is `"$" + path` (`.threads[3]` for one
    /// thread of a `{"threads": [...]}` document). With `lenient`, a comment without an id is
    /// skipped and reported in `skipped`.
    package static func decode(
        _ json: JSONReader, at node: Int, path: String, lenient: Bool,
        skipped: inout [Problem]
    ) throws(ThreadfoldError) -> ThreadRecord {
        var decoder = Decoder(reader: json, root: node, prefix: path)
        decoder.lenient = lenient
        let record = decoder.run()
        if !decoder.errors.isEmpty { throw ThreadfoldError.input(decoder.errors) }
        skipped.append(contentsOf: decoder.skipped)
        return record
    }
}

private struct Decoder {
    let reader: JSONReader
    var document: JSONDocument { reader.document }
    var errors: [Problem] = []
    var skipped: [Problem] = []
    var lenient = false
    var record: ThreadRecord
    /// The thread's node and its JSON path after `$`.
    let root: Int
    let prefix: String

    init(reader: JSONReader, root: Int, prefix: String) {
        self.reader = reader
        self.root = root
        self.prefix = prefix
        self.record = ThreadRecord(file: reader.file, source: reader.bytes)
    }

    mutating func fail(_ node: Int, _ path: String, _ message: String) {
        errors.appendUnlessFull(reader.error(at: node, path: path, message))
    }

    mutating func fail(_ mismatch: JSONError) {
        errors.appendUnlessFull(reader.error(mismatch))
    }

    mutating func run() -> ThreadRecord {
        var comments: Int?
        var commentsKey: String? = prefix.isEmpty ? nil : prefix
        switch document.kind(root) {
        case .array:
            comments = root
        case .object:
            readThreadFields(root)
            if let list = document.member(root, "comments") {
                if document.kind(list) == .array {
                    comments = list
                    commentsKey = prefix + ".comments"
                } else if document.kind(list) != .null {
                    fail(list, "$\(prefix).comments", "expected an array of comments, found \(document.kind(list).described)")
                }
            } else if document.member(root, "threads") != nil {
                fail(root, "$\(prefix)", "found a document of many threads (\"threads\"); expected one thread per file (its \"comments\" array); 'threadfold build' reads many")
            } else {
                fail(root, "$\(prefix)", "found an object without \"comments\"; expected a thread object with a \"comments\" array, or an array of comments")
            }
        default:
            fail(root, "$\(prefix)", "found \(document.kind(root).described); expected a thread object or an array of comments")
        }
        if let comments { readComments(comments, key: commentsKey) }
        return record
    }

    mutating func readThreadFields(_ object: Int) {
        let r = reader
        let prefix = prefix
        var info = record.info
        var failures: [JSONError] = []
        document.forEachMember(object) { key, value in
            guard !r.isNull(value) else { return }
            do throws(JSONError) {
                let path = "$\(prefix).\(key)"
                switch key {
                case "id": info.id = try r.id(value, path)
                case "title": info.title = try r.string(value, path, expected: "a string or null")
                case "author": info.author = try r.string(value, path, expected: "a string or null")
                case "created_at": info.createdAt = try r.time(value, path)
                case "url": info.url = try r.string(value, path, expected: "a string or null")
                case "lang": info.lang = try r.string(value, path, expected: "a string or null")
                case "body": info.body = try r.string(value, path, expected: "a string or null")
                case "category": info.category = try r.string(value, path, expected: "a string or null")
                case "tags":
                    let tags = try r.array(value, path, expected: "an array of strings")
                    for (position, tag) in tags.enumerated() {
                        do throws(JSONError) {
                            if let text = try r.optionalString(tag, "\(path)[\(position)]"), !text.isEmpty { info.tags.append(text) }
                        } catch { failures.append(error) }
                    }
                default: break
                }
            } catch { failures.append(error) }
        }
        record.info = info
        for failure in failures { fail(failure) }
    }

    mutating func readComments(_ list: Int, key: String?) {
        var walk = ReplyWalk<Void>(json: reader)
        walk.push(list, container: -1, key: key, parent: nil)
        record.comments.reserveCapacity(document.count(list))
        while !errors.isFull, let (element, frame) = walk.next() {
            let index = record.comments.count
            let origin = RecordOrigin(
                offset: Int32(document.offset(element)), container: frame.container,
                key: frame.key, index: Int32(frame.position))
            guard document.kind(element) == .object else {
                fail(element, record.path(for: origin), "expected a comment object, found \(document.kind(element).described)")
                continue
            }
            if case .read(let replies?) = readComment(element, origin: origin, parent: frame.parent) {
                walk.push(replies.array, container: Int32(index), key: "." + replies.key, parent: record.comments[index].id)
            }
        }
    }

    /// The comment members this format reads, by their place in `Self.commentMembers`.
    private enum Member: String, CaseIterable {
        case id, parentUnderscored = "parent_id", parentCamel = "parentID", parent, author, body
        case createdAt = "created_at", created, time, editedAt = "edited_at", edited, score, deleted, removed
        case authorFlair = "author_flair", replies, children
    }

    /// Matches a key against every name of `Member` as bytes: only a key with an escape is
    /// made into a `String` first.
    private static let commentMembers = JSONMemberFilter(Member.allCases.map(\.rawValue))
    private static let members = Member.allCases
    /// The names of the comment members this format reads (`ImportAudit.known` is made of them).
    static let memberNames = Member.allCases.map(\.rawValue)

    /// What reading one comment object came to.
    enum CommentRead {
        /// Unusable: its errors are recorded.
        case skipped
        /// Appended to `record.comments`, with the array of its nested replies and that array's
        /// key, if it has one.
        case read(replies: (array: Int, key: String)?)
    }

    /// Decodes one comment object and appends it to `record.comments`.
    mutating func readComment(_ object: Int, origin: RecordOrigin, parent nestedParent: CommentID?) -> CommentRead {
        var comment = CommentRecord(id: CommentID(""), origin: origin)
        var hasID = false
        var explicitParent: CommentID?? = nil
        var replies: (Int, String)?
        var edited: Bool?
        var failures: [JSONError] = []
        let r = reader
        let document = document
        // A failure's path is the member's key here; the comment's own path goes before it
        // below, so nothing is built unless there is something to report.
        document.forEachMemberNode(object) { keyNode, value in
            guard let place = document.memberName(keyNode, in: Self.commentMembers) else {
                return  // unknown fields are ignored
            }
            let member = Self.members[place]
            let kind = r.kind(value)
            func key() -> String { document.string(keyNode) }
            do throws(JSONError) {
                switch member {
                case .id:
                    comment.id = try r.id(value, key())
                    hasID = true
                case .parentUnderscored, .parentCamel, .parent:
                    explicitParent = kind == .null ? .some(nil) : .some(try r.id(value, key(), expected: "a string, an integer or null"))
                case .author:
                    comment.author = try r.optionalString(value, key())
                case .body:
                    comment.body = try r.optionalString(value, key(), expected: "a Markdown string or null") ?? ""
                case .createdAt, .created, .time:
                    if kind != .null { comment.createdAt = try r.time(value, key()) }
                case .editedAt:
                    if kind != .null { comment.editedAt = try r.time(value, key()) }
                case .edited:
                    switch kind {
                    case .true: edited = true
                    case .false, .null: edited = false
                    default:
                        comment.editedAt = try r.time(value, key(), expected: "true, false or a timestamp")
                        edited = true
                    }
                case .score:
                    if kind != .null { comment.score = try r.rounded(value, key(), expected: "an integer") }
                case .deleted, .removed:
                    if kind != .null, try r.bool(value, key()) {
                        if member == .deleted { comment.deleted = true } else { comment.removed = true }
                    }
                case .authorFlair:
                    comment.authorFlair = try r.optionalString(value, key())
                case .replies, .children:
                    if kind == .array { replies = (value, member.rawValue) } else if kind != .null { throw r.mismatch(value, key(), expected: "an array of replies or null") }
                }
            } catch { failures.append(error) }
        }
        if !failures.isEmpty {
            let base = record.path(for: origin) + "."
            for i in failures.indices { failures[i].path = base + failures[i].path }
        }
        if !hasID && !failures.contains(where: { $0.path.hasSuffix(".id") && $0.node != object }),
            !missingID(object, origin, &failures)
        {
            return .skipped
        }
        for failure in failures { fail(failure) }
        guard failures.isEmpty else { return .skipped }

        if let edited { comment.edited = edited || comment.editedAt != nil } else { comment.edited = comment.editedAt != nil }
        // Nesting decides the parent of a nested reply; elsewhere the parent field does.
        if let nestedParent {
            comment.parentID = nestedParent
        } else if case .some(.some(let parent)) = explicitParent, !isTopLevelMarker(parent) {
            comment.parentID = parent
        }
        record.comments.append(comment)
        return .read(replies: replies)
    }

    /// A comment without an id: with `lenient` and nothing else wrong with it, skipped with a
    /// warning (false); otherwise an error added to `failures` (true).
    mutating func missingID(_ object: Int, _ origin: RecordOrigin, _ failures: inout [JSONError]) -> Bool {
        let path = record.path(for: origin) + ".id"
        if lenient && failures.isEmpty {
            var warning = reader.error(at: object, path: path, "has no id; skipped", severity: .warning)
            warning.hint = .skipped
            warning.kind = "skipped"
            skipped.append(warning)
            return false
        }
        failures.append(JSONError(node: object, path: path, expected: "an \"id\" (a string or an integer)", found: "none", hint: .lenient))
        return true
    }

    /// `""`, `0`, `"0"` and the thread's own id all mean "no parent".
    func isTopLevelMarker(_ parent: CommentID) -> Bool {
        let text = parent.string
        if text.isEmpty || text == "0" { return true }
        if let threadID = record.info.id, threadID == parent { return true }
        return false
    }
}
