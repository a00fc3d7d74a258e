/// How a body is written: Markdown (rendered by cmark), HTML (sanitised), or plain text.
public enum BodyFormat: String, Sendable, CaseIterable {
    case markdown, html, text
}

/// One comment as read from the input: plain values, ids as strings, nothing resolved yet.
public struct CommentRecord: Sendable {
    public var id: CommentID
    /// The parent's id; nil for a top-level comment (after the input's conventions are applied).
    public var parentID: CommentID?
    public var author: String?
    /// The body, in `bodyFormat`.
    public var body: String
    public var bodyFormat: BodyFormat = .markdown
    /// Replies the export knows of but does not contain (Reddit's "more" stubs).
    public var unarchivedReplies: Int = 0
    public var createdAt: Timestamp?
    public var editedAt: Timestamp?
    public var edited: Bool
    public var score: Int64?
    public var deleted: Bool
    public var removed: Bool
    public var authorFlair: String?
    /// Where the comment stands in the input, for messages.
    public var origin: RecordOrigin

    public init(id: CommentID, parentID: CommentID? = nil, author: String? = nil, body: String = "",
                createdAt: Timestamp? = nil, editedAt: Timestamp? = nil, edited: Bool = false,
                score: Int64? = nil, deleted: Bool = false, removed: Bool = false,
                authorFlair: String? = nil, origin: RecordOrigin = RecordOrigin()) {
        self.id = id
        self.parentID = parentID
        self.author = author
        self.body = body
        self.createdAt = createdAt
        self.editedAt = editedAt
        self.edited = edited || editedAt != nil
        self.score = score
        self.deleted = deleted
        self.removed = removed
        self.authorFlair = authorFlair
        self.origin = origin
    }
}

/// Where a record stands in its file: a byte offset for line:column, and enough to rebuild its
/// JSON path (`$.comments[3].replies[0]`) without storing a string per comment.
public struct RecordOrigin: Sendable {
    /// Byte offset of the comment object, or -1 when unknown.
    public var offset: Int32 = -1
    /// Index of the record whose `replies` array holds this one, or -1 for the top-level list.
    public var container: Int32 = -1
    /// The path from the container to the array that holds this record (`.comments`,
    /// `.replies`, `.data.replies.data.children`), or nil when the document itself is the array.
    public var key: String? = nil
    /// Position in that array.
    public var index: Int32 = 0

    public init(offset: Int32 = -1, container: Int32 = -1, key: String? = nil, index: Int32 = 0) {
        self.offset = offset
        self.container = container
        self.key = key
        self.index = index
    }
}

/// Thread-level metadata: what a thread says about itself, apart from its comments.
public struct ThreadInfo: Sendable {
    public var id: CommentID?
    public var title: String?
    public var author: String?
    public var createdAt: Timestamp?
    public var url: String?
    public var lang: String?
    /// The opening post's text, shown under the title (a Reddit self-post, an HN story's text,
    /// the first post of a Discourse topic).
    public var body: String?
    public var bodyFormat: BodyFormat = .markdown
    /// Top-level comments the export knows of but does not contain.
    public var unarchivedComments: Int = 0
    /// A category the thread belongs to, when the source has one.
    public var category: String?
    /// Free-form labels, in input order.
    public var tags: [String] = []
    /// The source format the thread was read as ("threadfold", "reddit", …).
    public var sourceFormat: String = "threadfold"
    /// The file name used in messages (`-` for standard input).
    public var file: String

    public init(id: CommentID? = nil, title: String? = nil, author: String? = nil, createdAt: Timestamp? = nil,
                url: String? = nil, lang: String? = nil, file: String = "-") {
        self.id = id
        self.title = title
        self.author = author
        self.createdAt = createdAt
        self.url = url
        self.lang = lang
        self.file = file
    }
}

/// One thread as read from the input.
public struct ThreadRecord: Sendable {
    public var info: ThreadInfo
    public var comments: [CommentRecord]
    /// The source bytes' line starts are computed from these when a message needs them.
    public var source: [UInt8]

    public init(id: CommentID? = nil, title: String? = nil, author: String? = nil, createdAt: Timestamp? = nil,
                url: String? = nil, lang: String? = nil, comments: [CommentRecord] = [], file: String = "-",
                source: [UInt8] = []) {
        self.info = ThreadInfo(id: id, title: title, author: author, createdAt: createdAt, url: url, lang: lang, file: file)
        self.comments = comments
        self.source = source
    }

    /// The JSON path of comment `index`, e.g. `$.comments[3].replies[0]`. Built only for messages.
    public func path(of index: Int) -> String { path(for: comments[index].origin) }

    /// The JSON path of a comment at `origin`, whose container records are already read.
    public func path(for origin: RecordOrigin) -> String {
        var parts: [String] = []
        var current = origin
        while true {
            // A negative index means the key is the whole path fragment.
            parts.append((current.key ?? "") + (current.index >= 0 ? "[\(current.index)]" : ""))
            guard current.container >= 0 else { break }
            current = comments[Int(current.container)].origin
        }
        return "$" + parts.reversed().joined()
    }

    /// An error or warning about comment `index`, located at its object in the file.
    public func message(about index: Int, field: String? = nil, _ text: String,
                        severity: InputError.Severity = .error) -> InputError {
        let offset = Int(comments[index].origin.offset)
        var error = InputError(file: info.file, path: path(of: index) + (field.map { ".\($0)" } ?? ""),
                               message: text, severity: severity)
        if offset >= 0 && !source.isEmpty {
            let location = JSONDocument.location(in: source, offset: offset)
            error.line = location.line
            error.column = location.column
        }
        return error
    }
}
