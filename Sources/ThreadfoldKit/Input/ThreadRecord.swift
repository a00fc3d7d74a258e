/// One kind of reaction a post got and how many, as the source counts them (GitHub's 👍 3,
/// Discourse's ❤️ likes, Mastodon's ⭐ favourites): shown as they are, never added into points.
package struct Reaction: Sendable, Equatable {
    /// The emoji the source shows for it.
    package var emoji: String
    package var count: Int64

    package init(_ emoji: String, _ count: Int64) {
        self.emoji = emoji
        self.count = count
    }

    /// `(emoji, count)` pairs as reactions, leaving out those counted 0 (or not at all).
    package static func counted(_ pairs: [(String, Int64?)]) -> [Reaction] {
        pairs.compactMap { emoji, count in count.flatMap { $0 > 0 ? Reaction(emoji, $0) : nil } }
    }
}

/// A poll a post holds (Reddit's `poll_data`, a Mastodon status's `poll`), as plain values: shown
/// as a static list of its options with their votes, the total and when voting ends.
package struct Poll: Sendable, Equatable {
    package struct Option: Sendable, Equatable {
        package var text: String
        /// Nil when the source does not say (Reddit hides counts while a poll is open).
        package var votes: Int64?

        package init(_ text: String, votes: Int64?) {
            self.text = text
            self.votes = votes
        }
    }

    package var options: [Option]
    /// Votes in all (Mastodon's `votes_count`: one a choice, so more than the voters for a
    /// multiple-choice poll), when the source says.
    package var total: Int64?
    package var endsAt: Timestamp?

    package init(options: [Option], total: Int64? = nil, endsAt: Timestamp? = nil) {
        self.options = options
        self.total = total
        self.endsAt = endsAt
    }
}

/// What a post shows around its text that the source keeps apart from it, as plain values;
/// the renderer gives each its markup.
package enum BodyPart: Sendable, Equatable {
    /// A content warning, shown before the text (a Mastodon status's `spoiler_text`).
    case warning(String)
    /// An image, shown after the text, with its description.
    case image(url: String, description: String)
    /// Other media, shown after the text as a link named by its description, else its address.
    case media(url: String, description: String?)
}

/// One comment as read from the input: plain values, ids as strings, nothing resolved yet.
package struct CommentRecord: Sendable {
    package var id: CommentID
    /// The parent's id; nil for a top-level comment (after the input's conventions are applied).
    package var parentID: CommentID?
    package var author: String?
    /// The body, in `bodyFormat`.
    package var body: String = ""
    package var bodyFormat: BodyFormat = .markdown
    /// What is shown around `body`: a content warning before it, media after it (Mastodon's).
    package var parts: [BodyPart] = []
    /// Replies the export knows of but does not contain (Reddit's "more" stubs).
    package var unarchivedReplies: Int = 0
    /// The replies go on at the source, on a page of their own (Reddit's "continue this thread"):
    /// that page's URL, or "" when it is not known.
    package var continuation: String?
    package var createdAt: Timestamp?
    package var editedAt: Timestamp?
    package var edited = false
    /// Points, for a source that counts them (Reddit, Hacker News, Lobsters, Lemmy); nil otherwise.
    package var score: Int64?
    /// Reactions, for a source that counts those instead (GitHub, Discourse, Mastodon).
    package var reactions: [Reaction] = []
    /// A poll the comment holds (a Mastodon status's).
    package var poll: Poll?
    package var deleted = false
    package var removed = false
    package var authorFlair: String?
    /// The author's account is gone but the comment is not (Reddit's `[deleted]` author over a
    /// surviving body): shown as the locale's "[deleted]", not as an unknown author.
    package var authorDeleted = false
    /// Where the comment stands in the input, for messages.
    package var origin = RecordOrigin()

    /// Whether the comment shows anything of its own: a body or parts around one.
    package var hasBody: Bool { !body.isEmpty || !parts.isEmpty }

    /// What `top` orders by: the score, else the reactions added up, else 0.
    package var rank: Int64 {
        if let score { return score }
        return reactions.reduce(0) { $0.addingReportingOverflow($1.count).overflow ? Int64.max : $0 + $1.count }
    }
}

/// Where a record stands in its file: a byte offset for line:column, and enough to rebuild its
/// JSON path (`$.comments[3].replies[0]`) without storing a string per comment.
package struct RecordOrigin: Sendable {
    /// Byte offset of the comment object, or -1 when unknown.
    package var offset: Int32 = -1
    /// Index of the record whose `replies` array holds this one, or -1 for the top-level list.
    package var container: Int32 = -1
    /// The path from the container to the array that holds this record (`.comments`,
    /// `.replies`, `.data.replies.data.children`), or nil when the document itself is the array.
    package var key: String? = nil
    /// Position in that array.
    package var index: Int32 = 0
}

/// Thread-level metadata: what a thread says about itself, apart from its comments.
package struct ThreadInfo: Sendable {
    package var id: CommentID?
    package var title: String?
    package var author: String?
    package var createdAt: Timestamp?
    package var url: String?
    package var lang: String?
    /// The opening post's text, shown under the title (a Reddit self-post, an HN story's text,
    /// the first post of a Discourse topic).
    package var body: String?
    package var bodyFormat: BodyFormat = .markdown
    /// A link post's URL, shown as the opening post's first paragraph, above `body` (the renderer
    /// leaves out one the link policy refuses).
    package var link: String?
    /// What is shown around `body`, as for a comment (`CommentRecord.parts`).
    package var parts: [BodyPart] = []
    /// The Markdown flavour the source writes in, when its importer knows it (`reddit` for
    /// Reddit); nil reads as GFM.
    package var markdownFlavor: MarkdownFlavor?
    /// The source writes emoji in its Markdown as `:name:` shortcodes (Discourse, GitHub), which
    /// the renderer shows as the emoji (`EmojiShortcodes`).
    package var emojiShortcodes = false
    /// Top-level comments the export knows of but does not contain.
    package var unarchivedComments: Int = 0
    /// The opening post's points (a Reddit submission's, a Hacker News story's), when the source has them.
    package var score: Int64?
    /// The opening post's reactions (a GitHub issue's), when the source has them.
    package var reactions: [Reaction] = []
    /// The opening post's poll (a Reddit poll post's, a Mastodon status's).
    package var poll: Poll?
    /// A category the thread belongs to, when the source has one.
    package var category: String?
    /// Free-form labels, in input order.
    package var tags: [String] = []
    /// The source format the thread was read as ("threadfold", "reddit", …).
    package var sourceFormat: String = "threadfold"
    /// The file name used in messages (`-` for standard input).
    package var file = "-"
}

/// One thread as read from the input.
package struct ThreadRecord: Sendable {
    package var info: ThreadInfo
    package var comments: [CommentRecord]
    /// Notices about the thread (closed, pinned, split), in input order: not comments.
    package var notices: [NoticeRecord] = []
    /// The source bytes' line starts are computed from these when a message needs them.
    package var source: [UInt8]
    /// Lines and columns in `source`, indexed once as far as messages need: shared by every
    /// thread of one document, so a thousand messages cost one pass over the file, not one each.
    package var locator = TextLocator()

    package init(
        id: CommentID? = nil, title: String? = nil, author: String? = nil, createdAt: Timestamp? = nil,
        url: String? = nil, lang: String? = nil, comments: [CommentRecord] = [], file: String = "-",
        source: [UInt8] = []
    ) {
        self.info = ThreadInfo(id: id, title: title, author: author, createdAt: createdAt, url: url, lang: lang, file: file)
        self.comments = comments
        self.source = source
    }

    /// The JSON path of comment `index`, e.g. `$.comments[3].replies[0]`. Built only for messages.
    package func path(of index: Int) -> String { path(for: comments[index].origin) }

    /// The JSON path of a comment at `origin`, whose container records are already read.
    package func path(for origin: RecordOrigin) -> String {
        // An XML form's records are located by an element path of their own (`/disqus/post[3]`).
        if origin.container < 0, origin.index < 0, let key = origin.key, key.hasPrefix("/") { return key }
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
    package func message(
        about index: Int, field: String? = nil, _ text: String,
        severity: Problem.Severity = .error
    ) -> Problem {
        let offset = Int(comments[index].origin.offset)
        var error = Problem(
            file: info.file, path: path(of: index) + (field.map { ".\($0)" } ?? ""),
            message: text, severity: severity)
        if offset >= 0 && !source.isEmpty {
            let location = locator.location(in: source, offset: offset)
            error.line = location.line
            error.column = location.column
        }
        return error
    }
}
