/// Reads Threadfold's own thread format (docs/input-format.md) into a `ThreadRecord`.
///
/// Accepts an object `{ "id", "title", "author", "created_at", "url", "lang", "comments": [...] }`
/// or a bare array of comments; comments may be flat (each naming its parent) or nested
/// (`replies` / `children` arrays), or both. Nesting is walked with an explicit stack.
public enum ThreadDecoder {
    /// At most this many errors are collected before decoding stops.
    public static let errorLimit = 50

    public static func decode(bytes: [UInt8], file: String) throws(InputErrors) -> ThreadRecord {
        let document: JSONDocument
        do {
            document = try JSONDocument(bytes: bytes)
        } catch {
            let location = JSONDocument.location(in: bytes, offset: error.offset)
            throw InputErrors([InputError(file: file, line: location.line, column: location.column, message: error.message)])
        }
        return try decode(document: document, file: file)
    }

    public static func decode(document: JSONDocument, file: String) throws(InputErrors) -> ThreadRecord {
        var skipped: [InputError] = []
        return try decode(document: document, file: file, lenient: false, skipped: &skipped)
    }

    /// With `lenient`, a comment without an id is skipped and reported in `skipped`.
    public static func decode(document: JSONDocument, file: String, lenient: Bool,
                              skipped: inout [InputError]) throws(InputErrors) -> ThreadRecord {
        try decode(document: document, at: document.root, path: "", file: file, lenient: lenient, skipped: &skipped)
    }

    /// Decodes the thread at `node`, whose JSON path is `"$" + path` (`.threads[3]` for one
    /// thread of a `{"threads": [...]}` document).
    public static func decode(document: JSONDocument, at node: Int, path: String, file: String, lenient: Bool,
                              skipped: inout [InputError]) throws(InputErrors) -> ThreadRecord {
        var decoder = Decoder(document: document, file: file, root: node, prefix: path)
        decoder.lenient = lenient
        let record = decoder.run()
        if !decoder.errors.isEmpty { throw InputErrors(decoder.errors) }
        skipped.append(contentsOf: decoder.skipped)
        return record
    }
}

private struct Decoder {
    let document: JSONDocument
    let file: String
    var errors: [InputError] = []
    var skipped: [InputError] = []
    var lenient = false
    var record: ThreadRecord
    /// The thread's node and its JSON path after `$`.
    let root: Int
    let prefix: String

    init(document: JSONDocument, file: String, root: Int, prefix: String) {
        self.document = document
        self.file = file
        self.root = root
        self.prefix = prefix
        self.record = ThreadRecord(file: file, source: document.bytes)
    }

    mutating func fail(_ node: Int, _ path: String, _ message: String) {
        guard errors.count < ThreadDecoder.errorLimit else { return }
        let location = document.location(ofOffset: document.offset(node))
        errors.append(InputError(file: file, line: location.line, column: location.column, path: path, message: message))
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
        document.forEachMember(object) { key, value in
            let path = "$\(prefix).\(key)"
            switch key {
            case "id": record.info.id = id(value, path)
            case "title": record.info.title = string(value, path)
            case "author": record.info.author = string(value, path)
            case "created_at": record.info.createdAt = timestamp(value, path)
            case "url": record.info.url = string(value, path)
            case "lang": record.info.lang = string(value, path)
            case "body": record.info.body = string(value, path)
            case "category": record.info.category = string(value, path)
            case "tags":
                switch document.kind(value) {
                case .null: break
                case .array:
                    document.forEachElement(value) { position, tag in
                        if let text = string(tag, "\(path)[\(position)]"), !text.isEmpty { record.info.tags.append(text) }
                    }
                default: fail(value, path, "expected an array of strings, found \(document.kind(value).described)")
                }
            default: break
            }
        }
    }

    mutating func readComments(_ list: Int, key: String?) {
        var walk = ReplyWalk(document: document)
        walk.push(list, container: -1, key: key, parent: nil)
        record.comments.reserveCapacity(document.count(list))
        while errors.count < ThreadDecoder.errorLimit, let (element, frame) = walk.next() {
            let index = record.comments.count
            let origin = RecordOrigin(offset: Int32(document.offset(element)), container: frame.container,
                                      key: frame.key, index: Int32(frame.position))
            guard document.kind(element) == .object else {
                fail(element, record.path(for: origin), "expected a comment object, found \(document.kind(element).described)")
                continue
            }
            if let (comment, replies) = readComment(element, origin: origin, parent: frame.parent) {
                record.comments.append(comment)
                if let (array, arrayKey) = replies {
                    walk.push(array, container: Int32(index), key: "." + arrayKey, parent: comment.id)
                }
            }
        }
    }

    /// Decodes one comment object; returns nil (after recording errors) when it is unusable.
    mutating func readComment(_ object: Int, origin: RecordOrigin,
                              parent nestedParent: CommentID?) -> (CommentRecord, (Int, String)?)? {
        var comment = CommentRecord(id: CommentID(""), origin: origin)
        var hasID = false
        var explicitParent: CommentID?? = nil
        var replies: (Int, String)?
        var edited: Bool?
        var failures: [(Int, String, String)] = []

        document.forEachMember(object) { key, value in
            let kind = document.kind(value)
            switch key {
            case "id":
                if let parsed = idValue(value) { comment.id = parsed; hasID = true }
                else { failures.append((value, key, "expected a string or an integer, found \(describeValue(value))")) }
            case "parent_id", "parentID", "parent":
                if kind == .null { explicitParent = .some(nil) }
                else if let parsed = idValue(value) { explicitParent = .some(parsed) }
                else { failures.append((value, key, "expected a string, an integer or null, found \(describeValue(value))")) }
            case "author":
                if kind == .string { comment.author = document.string(value) }
                else if kind != .null { failures.append((value, key, "expected a string or null, found \(kind.described)")) }
            case "body":
                if kind == .string { comment.body = document.string(value) }
                else if kind != .null { failures.append((value, key, "expected a Markdown string or null, found \(kind.described)")) }
            case "created_at", "created", "time":
                if kind == .null { break }
                if let time = document.timestamp(value) { comment.createdAt = time }
                else { failures.append((value, key, "expected an ISO 8601 date or Unix seconds or milliseconds, found \(describeValue(value))")) }
            case "edited_at":
                if kind == .null { break }
                if let time = document.timestamp(value) { comment.editedAt = time }
                else { failures.append((value, key, "expected an ISO 8601 date or Unix seconds or milliseconds, found \(describeValue(value))")) }
            case "edited":
                switch kind {
                case .true: edited = true
                case .false, .null: edited = false
                default:
                    if let time = document.timestamp(value) { comment.editedAt = time; edited = true }
                    else { failures.append((value, key, "expected true, false or a timestamp, found \(describeValue(value))")) }
                }
            case "score":
                if kind == .null { break }
                if let exact = document.int64(value) { comment.score = exact }
                else if let double = document.double(value), double.isFinite, abs(double) < 9e18 { comment.score = Int64(double.rounded()) }
                else { failures.append((value, key, "expected an integer, found \(describeValue(value))")) }
            case "deleted", "removed":
                switch kind {
                case .true: if key == "deleted" { comment.deleted = true } else { comment.removed = true }
                case .false, .null: break
                default: failures.append((value, key, "expected true or false, found \(describeValue(value))"))
                }
            case "author_flair":
                if kind == .string { comment.authorFlair = document.string(value) }
                else if kind != .null { failures.append((value, key, "expected a string or null, found \(kind.described)")) }
            case "replies", "children":
                if kind == .array { replies = (value, key) }
                else if kind != .null { failures.append((value, key, "expected an array of replies or null, found \(kind.described)")) }
            default:
                break // unknown fields are ignored
            }
        }
        if !hasID && !failures.contains(where: { $0.1 == "id" }) {
            if lenient && failures.isEmpty {
                let location = document.location(ofOffset: document.offset(object))
                skipped.append(InputError(file: file, line: location.line, column: location.column,
                                          path: record.path(for: origin) + ".id",
                                          message: "has no id; skipped (--lenient)", severity: .warning))
                return nil
            }
            failures.append((object, "id", "expected an \"id\" (a string or an integer), found none; --lenient skips such comments"))
        }
        if !failures.isEmpty {
            // Paths are built only when there is something to report.
            let path = record.path(for: origin)
            for (node, field, message) in failures { fail(node, path + "." + field, message) }
        }
        guard failures.isEmpty else { return nil }

        if let edited { comment.edited = edited || comment.editedAt != nil } else { comment.edited = comment.editedAt != nil }
        // Nesting decides the parent of a nested reply; elsewhere the parent field does.
        if let nestedParent {
            comment.parentID = nestedParent
        } else if case .some(.some(let parent)) = explicitParent, !isTopLevelMarker(parent) {
            comment.parentID = parent
        }
        return (comment, replies)
    }

    /// `""`, `0`, `"0"` and the thread's own id all mean "no parent".
    func isTopLevelMarker(_ parent: CommentID) -> Bool {
        let text = parent.string
        if text.isEmpty || text == "0" { return true }
        if let threadID = record.info.id, threadID == parent { return true }
        return false
    }

    // MARK: Scalars

    func idValue(_ node: Int) -> CommentID? {
        switch document.kind(node) {
        case .string: return CommentID(document.string(node))
        case .number where document.isInteger(node): return CommentID(document.numberText(node))
        default: return nil
        }
    }

    func describeValue(_ node: Int) -> String {
        let kind = document.kind(node)
        switch kind {
        case .number: return "the number \(document.numberText(node))"
        case .string:
            let text = document.string(node)
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            return "the string \"\(shown.debugDescriptionEscaped)\""
        default: return kind.described
        }
    }

    // MARK: Thread fields

    mutating func id(_ node: Int, _ path: String) -> CommentID? {
        if document.kind(node) == .null { return nil }
        if let value = idValue(node) { return value }
        fail(node, path, "expected a string or an integer, found \(describeValue(node))")
        return nil
    }

    mutating func string(_ node: Int, _ path: String) -> String? {
        switch document.kind(node) {
        case .string: return document.string(node)
        case .null: return nil
        default:
            fail(node, path, "expected a string or null, found \(document.kind(node).described)")
            return nil
        }
    }

    mutating func timestamp(_ node: Int, _ path: String) -> Timestamp? {
        if document.kind(node) == .null { return nil }
        if let value = document.timestamp(node) { return value }
        fail(node, path, "expected an ISO 8601 date or Unix seconds or milliseconds, found \(describeValue(node))")
        return nil
    }
}

private extension String {
    /// The text with quotes, backslashes and control characters escaped, for quoting in messages.
    var debugDescriptionEscaped: String {
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.properties.generalCategory == .format {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
