/// Where each of Threadfold's fields lives in someone else's JSON:
/// `comments=$.data.children,replies=data.replies.data.children,id=data.id,author=data.author,…`.
///
/// - Comment fields (`id`, `parent`, `author`, …) are paths from each comment. `id` is required;
///   `thread` groups comments into threads (one thread without it); `title`, `url` and `category`
///   are read from the first comment of each thread that has them.
/// - `comments` is the array to read, a path from the document's root (without it: the root
///   array, or the root object's first array member). `replies` is where each comment's nested
///   replies are, a path from the comment; nesting gives their parents.
/// - `thread.title`, `thread.url`, `thread.body`, `thread.author`, `thread.created`,
///   `thread.category` and `thread.id` are paths from the document's root, for a document that
///   is one thread.
/// - `strip` lists id prefixes taken off ids, parents and thread keys (`t1_`, `t3_`).
/// - `where.<path>=<value>` reads only items whose field there equals the value; the others are
///   counted, not errors.
/// - `format` is the bodies' format (markdown, html or text; markdown without it).
///
/// Paths are member names joined by dots, with `[N]` (or `.N`) for an array's element and an
/// optional leading `$`: `$[1].data.children`, `user.name`, `tags[0]`.
public struct FieldMapping: Sendable, Equatable {
    public enum Field: String, Sendable, CaseIterable {
        case id, parent, thread, title, author, body, time, edited, score, deleted, removed, url, category
        /// A chain of ids from the thread to the comment, joined by dots (Lemmy's `0.12.34`): the
        /// one before the comment's own id is its parent.
        case path
    }

    /// What a mapping says about the thread of a document that is one thread, from its root.
    public enum ThreadField: String, Sendable, CaseIterable {
        case id, title, url, body, author, created, category
    }

    /// `where.<path>=<value>`: only items whose value at `path` is `value` (a string, or a
    /// number, true, false or null as written) are read; `a|b` takes either.
    public struct Condition: Sendable, Equatable {
        public var path: [String]
        public var value: String

        public init(path: [String], value: String) {
            self.path = path
            self.value = value
        }

        /// The condition as written in a mapping: `where.kind=t1`.
        public var described: String { "where.\(FieldMapping.written(path))=\(value)" }
    }

    /// Each mapped comment field's path, split at dots (an element's index as its digits).
    public var paths: [Field: [String]]
    /// A parent value that means "top level" (besides null, "", 0 and the thread's id).
    public var topLevelParent: String?
    /// The array of comments, from the document's root; nil takes the root array or the root
    /// object's first array member.
    public var comments: [String]?
    /// Where a comment's nested replies are, from the comment; nil when replies do not nest.
    public var replies: [String]?
    /// Thread fields, from the document's root.
    public var thread: [ThreadField: [String]] = [:]
    /// Prefixes taken off ids, parents and thread keys; the first that fits is taken off.
    public var strip: [String] = []
    /// Every condition must hold for an item to be read.
    public var conditions: [Condition] = []
    /// The bodies' format; nil reads them as Markdown.
    public var bodyFormat: BodyFormat?

    public init(paths: [Field: [String]], topLevelParent: String? = nil) {
        self.paths = paths
        self.topLevelParent = topLevelParent
    }

    /// Parses `key=path,key=path`. Errors say which part is wrong and what is expected.
    public static func parse(_ text: String) throws(ThreadfoldError) -> FieldMapping {
        let mapping = try parse(text, over: FieldMapping(paths: [:]))
        try mapping.validate()
        return mapping
    }
}
