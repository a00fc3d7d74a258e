/// Reads a Reddit thread as the API returns it from `/comments/<id>.json`: an array of two
/// Listings, the post and the comment tree, with replies nested in `replies` Listings (or `""`).
///
/// - The post's id drops its `t3_` and comment ids their `t1_` (so anchors read `c-co1abcd`), as in
///   dumps: one thread has one id in every form. Nesting decides parents.
/// - The post is read as a dump's submission is (`submission`): title, self text or link, author,
///   time, subreddit, permalink, score and flags.
/// - `body` is Reddit Markdown, which the API sends with `&amp;`, `&lt;` and `&gt;` escaped; those
///   are unescaped so `> quote` works, and so are titles. Reddit's `^superscript` has no CommonMark form and stays
///   as typed.
/// - `[deleted]` author and body make a deleted comment, `[removed]` bodies a removed one: both are
///   placeholders when they have replies.
/// - `more` stubs add their count to the enclosing comment's "N more replies were not archived"
///   (or the thread's, at top level).
/// - `distinguished` (moderator, admin) and `stickied` show as flair, after the author's own flair.
enum RedditImporter {
    static func decode(_ context: inout ImportContext) -> ThreadRecord {
        let json = context.reader
        var record = ThreadRecord(file: context.file, source: json.bytes)
        record.info.sourceFormat = "reddit"
        record.info.markdownFlavor = .reddit
        let root = json.root
        guard json.isArray(root), json.size(root) >= 2 else {
            context.fail(root, "$", "expected an array of two Listings (the post, then the comments)")
            return record
        }
        var listings = json.elements(of: root)
        let postListing = listings.next()!.node, commentListing = listings.next()!.node
        readPost(&context, postListing, into: &record.info)

        // The comments, depth first with an explicit stack of Listings.
        guard let top = listingChildren(&context, commentListing, "$[1]") else { return record }
        var walk = ReplyWalk<Void>(json: json)
        walk.push(top, container: -1, key: "[1].data.children", parent: nil)
        while !context.errors.isFull, let (child, frame) = walk.next() {
            let origin = context.origin(child, container: frame.container, key: frame.key, index: frame.position)
            // Its path is built only for a message: a chain of replies n deep would otherwise cost
            // n steps a comment.
            func path() -> String { record.path(for: origin) }
            func dataPath() -> String { path() + ".data" }
            guard let kind = context.read(child, "kind", path(), as: .string), let data = context.reader.member(child, "data") else {
                context.fail(child, path(), "expected a Reddit thing with \"kind\" and \"data\"")
                continue
            }
            switch kind {
            case "more":
                countMore(&context, child, data, origin: origin, under: frame.container, in: &record)
            case "t1":
                guard let id = context.requiredID(data, ["id"], dataPath(), what: "a comment id") else { continue }
                let index = record.comments.count
                let read = comment(&context, data, dataPath(), id: id, parent: frame.parent, origin: origin)
                record.comments.append(read)
                // Replies: a Listing, or "" when there are none.
                if let replies = json.member(data, "replies", is: .object),
                    let children = listingChildren(&context, replies, dataPath() + ".replies")
                {
                    walk.push(children, container: Int32(index), key: ".data.replies.data.children", parent: id)
                }
            default:
                context.fail(child, path() + ".kind", "found the kind \"\(kind)\"; expected t1 (a comment) or more")
            }
        }
        return record
    }

    /// The post: the first child of the first Listing, read as a dump's submission is.
    static func readPost(_ context: inout ImportContext, _ listing: Int, into info: inout ThreadInfo) {
        guard let children = listingChildren(&context, listing, "$[0]"), let first = context.reader.firstElement(children),
            let data = context.reader.member(first, "data")
        else { return }
        let path = "$[0].data.children[0].data"
        // The thread's id is its base-36 id without `t3_`, as a dump's records name it, so the
        // thread has one id (and one folder) whichever form it comes in.
        if let name = context.read(data, "name", path, as: .string) ?? context.read(data, "id", path, as: .string) { info.id = CommentID(strip(name)) }
        // The post is the submission a dump's RS_ file holds, read the same way. Its
        // num_comments is not used: the comments' `more` stubs count what is missing.
        _ = submission(&context, data, path, into: &info)
    }

    /// A `more` stub under the comment at `container` (or -1, the post): its replies are counted
    /// as not archived there, or, with no count and no ids, the comment's replies go on at a
    /// page of their own ("continue this thread").
    static func countMore(
        _ context: inout ImportContext, _ child: Int, _ data: Int, origin: RecordOrigin, under container: Int32,
        in record: inout ThreadRecord
    ) {
        func dataPath() -> String { record.path(for: origin) + ".data" }
        let count = context.read(data, "count", dataPath(), as: .integer) ?? 0
        guard count <= Int64(InputLimits.maxCount) else {
            context.fail(child, dataPath() + ".count", "found \(count); expected a count of at most \(InputLimits.maxCount)")
            return
        }
        let listed = context.read(data, "children", dataPath(), as: .array).map { context.reader.size($0) } ?? 0
        // count 0 with no ids: Reddit's "continue this thread", replies on a page of their own.
        if count == 0, listed == 0, container >= 0 {
            let parent = record.comments[Int(container)].id.string
            let known =
                record.info.url.map { $0.hasSuffix("/") } ?? false && !parent.isEmpty
                && parent.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) }
            record.comments[Int(container)].continuation = known ? record.info.url! + parent + "/" : ""
            return
        }
        let missing = max(Int(count), listed, 1)
        // Each count is at most maxCount, but many "more" items could still add up past Int.max.
        let total = container >= 0 ? record.comments[Int(container)].unarchivedReplies : record.info.unarchivedComments
        let (sum, overflow) = total.addingReportingOverflow(missing)
        guard !overflow, sum <= InputLimits.maxCount else {
            context.fail(
                child, dataPath() + ".count",
                "found \(count), which brings the replies not archived here past \(InputLimits.maxCount); expected counts that add up to at most \(InputLimits.maxCount)")
            return
        }
        if container >= 0 {
            record.comments[Int(container)].unarchivedReplies = sum
        } else {
            record.info.unarchivedComments = sum
        }
    }

    /// A `t1` thing's data as a comment.
    static func comment(
        _ context: inout ImportContext, _ data: Int, _ dataPath: @autoclosure () -> String, id: CommentID, parent: CommentID?,
        origin: RecordOrigin
    ) -> CommentRecord {
        var comment = CommentRecord(id: id, parentID: parent, origin: origin)
        let author = context.read(data, "author", dataPath(), as: .string)
        let body = context.read(data, "body", dataPath(), as: .string).map(unescapeEntities) ?? ""
        authorAndBody(author, body, into: &comment)
        comment.createdAt = context.read(data, "created_utc", dataPath(), as: .time)
        if context.reader.member(data, "edited", is: .number) != nil {
            comment.editedAt = context.read(data, "edited", dataPath(), as: .time)
            comment.edited = true
        } else {
            comment.edited = context.reader.member(data, "edited", is: .true) != nil
        }
        comment.score = context.read(data, "score", dataPath(), as: .integer)
        var flair: [String] = []
        if let text = context.read(data, "author_flair_text", dataPath(), as: .string), !text.isEmpty { flair.append(text) }
        if let role = context.read(data, "distinguished", dataPath(), as: .string), !role.isEmpty { flair.append(role) }
        if context.read(data, "stickied", dataPath(), as: .bool) == true { flair.append("stickied") }
        comment.authorFlair = flair.isEmpty ? nil : flair.joined(separator: " · ")
        return comment
    }

    /// Every member `decodeDump` (with `submission`, `isDump` and `DumpForm`'s tests) reads of a
    /// dump record. A dump thread is parsed keeping only these (`DumpForm.recordMembers`):
    /// Pushshift and Arctic Shift records carry 50 to 65 members, and a name missing here reads
    /// as absent.
    static let dumpMembers = JSONMemberFilter([
        "link_id", "parent_id", "id", "name", "link_title", "subreddit", "author", "body", "created_utc", "edited",
        "score", "author_flair_text", "title", "selftext", "num_comments", "permalink", "is_self", "url",
        "stickied", "locked", "over_18", "spoiler", "poll_data",
    ])

    /// The flat dump form archive projects distribute for whole subreddits: one comment per line
    /// (or an array), each with `link_id` (its thread, `t3_…`) and `parent_id` (`t3_…` for top
    /// level, `t1_…` for a reply), and submissions (`RS_…` dumps: `id`, `title`, `selftext`, …).
    /// Comments are grouped into one thread per `link_id`, keyed by the base-36 id without its
    /// `t3_` (so folders and anchors need no hash); a submission in the same input gives its
    /// thread the title, opening post, author, time, link and flags. Without one, the thread is
    /// titled by `link_title` when the dump has it.
    static func decodeDump(_ context: inout ImportContext) -> [ThreadRecord] {
        var threads = DumpThreads(file: context.file, source: context.reader.bytes)
        for (position, item) in context.reader.elements(of: context.reader.root) {
            // The record's path is built only for a message.
            func path() -> String { "$[\(position)]" }
            guard context.requireObject(item, path(), what: "a comment") != nil else { continue }
            context.reader.index(item, names: dumpMembers)
            // Answered from the index, which counts a null member as present, as the rule does.
            if !context.reader.has(item, "link_id"), DumpForm.isRedditSubmission(has: { context.reader.has(item, $0) }) {
                guard let rawID = context.requiredID(item, ["id", "name"], path(), what: "a submission id") else { continue }
                let t = threads.place(of: CommentID(strip(rawID.string)))
                if let total = submission(&context, item, path(), into: &threads.records[t].info) { threads.counted[t] = total }
                continue
            }
            guard let linkText = context.read(item, "link_id", path(), as: .string) else {
                context.fail(item, path() + ".link_id", "expected the comment's thread (link_id) or a submission (title and selftext), found neither")
                continue
            }
            guard let rawID = context.requiredID(item, ["id", "name"], path(), what: "a comment id") else { continue }
            let t = threads.place(of: CommentID(strip(linkText)))
            if threads.counted[t] == nil, let title = context.read(item, "link_title", path(), as: .string), !title.isEmpty {
                threads.records[t].info.title = unescapeEntities(title)
            }
            if threads.records[t].info.category == nil, let subreddit = context.read(item, "subreddit", path(), as: .string), !subreddit.isEmpty {
                threads.records[t].info.category = "r/" + subreddit
            }
            threads.records[t].comments.append(dumpComment(&context, item, id: CommentID(strip(rawID.string)), position: position, path()))
        }
        return threads.finished()
    }

    /// A dump's threads in order of first appearance, found by their link id's bytes (like every
    /// id): one lookup per record, which then works on its thread's place.
    struct DumpThreads {
        let file: String
        let source: [UInt8]
        var records: [ThreadRecord] = []
        /// Each thread's submission's `num_comments`, once its submission is read.
        var counted: [Int64?] = []
        var places: [CommentID: Int] = [:]
        /// A thread's records come together in a dump thread's partition: the last one found
        /// answers most lookups with one comparison of bytes, not a hash.
        var last: (link: CommentID, place: Int)?

        mutating func place(of link: CommentID) -> Int {
            if let last, last.link == link { return last.place }
            let place = places[link] ?? added(link)
            last = (link, place)
            return place
        }

        private mutating func added(_ link: CommentID) -> Int {
            var record = ThreadRecord(id: link, file: file, source: source)
            record.info.sourceFormat = "reddit"
            record.info.markdownFlavor = .reddit
            record.info.title = "Reddit thread \(link.string)"
            places[link] = records.count
            records.append(record)
            counted.append(nil)
            return records.count - 1
        }

        /// The threads, each with its submission's count of comments, less those archived here,
        /// as not archived.
        mutating func finished() -> [ThreadRecord] {
            for t in records.indices {
                guard let total = counted[t], total > Int64(records[t].comments.count) else { continue }
                records[t].info.unarchivedComments = Int(clamping: min(total - Int64(records[t].comments.count), Int64(InputLimits.maxCount)))
            }
            return records
        }
    }

    /// A dump's comment record.
    static func dumpComment(
        _ context: inout ImportContext, _ item: Int, id: CommentID, position: Int, _ path: @autoclosure () -> String
    ) -> CommentRecord {
        var comment = CommentRecord(id: id, origin: RecordOrigin(offset: Int32(context.reader.offset(item)), index: Int32(position)))
        if let parent = context.read(item, "parent_id", path(), as: .string), parent.hasPrefix("t1_") {
            comment.parentID = CommentID(strip(parent))
        }
        let author = context.read(item, "author", path(), as: .string)
        let body = context.read(item, "body", path(), as: .string).map(unescapeEntities) ?? ""
        authorAndBody(author, body, into: &comment)
        comment.createdAt = context.read(item, "created_utc", path(), as: .time)
        let edited = context.reader.member(item, "edited")
        if let edited, context.reader.kind(edited) != .true, context.reader.kind(edited) != .false {
            comment.editedAt = context.read(item, "edited", path(), as: .time)
            comment.edited = comment.editedAt != nil
        } else {
            comment.edited = edited.map { context.reader.kind($0) == .true } ?? false
        }
        comment.score = context.read(item, "score", path(), as: .integer)
        if let flair = context.read(item, "author_flair_text", path(), as: .string), !flair.isEmpty { comment.authorFlair = flair }
        return comment
    }

    /// A comment's author and body as Reddit writes them: `[deleted]` for an account or comment
    /// gone, `[removed]` for a body a moderator took down.
    static func authorAndBody(_ author: String?, _ body: String, into comment: inout CommentRecord) {
        comment.author = author == "[deleted]" ? nil : author
        comment.body = body
        comment.deleted = author == "[deleted]" && (body == "[deleted]" || body.isEmpty)
        comment.removed = body == "[removed]"
        if comment.deleted || comment.removed { comment.body = "" }
        comment.authorDeleted = author == "[deleted]" && !comment.deleted
    }

    /// A dump's submission, onto its thread: title, opening post (`selftext`, or a link post's
    /// URL), author, time, subreddit, permalink, score, poll and flags. Returns `num_comments`.
    static func submission(_ context: inout ImportContext, _ item: Int, _ path: @autoclosure () -> String, into info: inout ThreadInfo) -> Int64? {
        if let title = context.read(item, "title", path(), as: .string), !title.isEmpty { info.title = unescapeEntities(title) }
        let author = context.read(item, "author", path(), as: .string)
        info.author = author == "[deleted]" ? nil : author
        info.createdAt = context.read(item, "created_utc", path(), as: .time)
        if let subreddit = context.read(item, "subreddit", path(), as: .string), !subreddit.isEmpty { info.category = "r/" + subreddit }
        if let permalink = context.read(item, "permalink", path(), as: .string), !permalink.isEmpty {
            info.url = permalink.hasPrefix("/") ? "https://www.reddit.com" + permalink : permalink
        }
        info.score = context.read(item, "score", path(), as: .integer)
        info.poll = poll(&context, item, path())
        let text = context.read(item, "selftext", path(), as: .string) ?? ""
        if !text.isEmpty, text != "[deleted]", text != "[removed]" {
            info.body = unescapeEntities(text)
            info.bodyFormat = .markdown
        } else if context.read(item, "is_self", path(), as: .bool) != true, let url = context.read(item, "url", path(), as: .string), !url.isEmpty,
            url != info.url
        {
            info.link = unescapeEntities(url)
            info.bodyFormat = .html
        }
        var flags: [String] = []
        if context.read(item, "stickied", path(), as: .bool) == true { flags.append("stickied") }
        if context.read(item, "locked", path(), as: .bool) == true { flags.append("locked") }
        if context.read(item, "over_18", path(), as: .bool) == true { flags.append("NSFW") }
        if context.read(item, "spoiler", path(), as: .bool) == true { flags.append("spoiler") }
        info.tags = flags
        guard context.reader.member(item, "num_comments", is: .number) != nil else { return 0 }
        return context.read(item, "num_comments", path(), as: .integer).map { max(0, $0) }
    }

    /// A poll post's `poll_data`: `options` (`text`, `vote_count`, which Reddit leaves out while the
    /// poll is open), `total_vote_count` and `voting_end_timestamp` (milliseconds).
    static func poll(_ context: inout ImportContext, _ item: Int, _ path: @autoclosure () -> String) -> Poll? {
        guard let data = context.read(item, "poll_data", path(), as: .object) else { return nil }
        let p = path() + ".poll_data"
        let options = context.pollOptions(data, p, text: "text", votes: "vote_count", shown: unescapeEntities)
        guard !options.isEmpty else { return nil }
        return Poll(options: options, total: context.read(data, "total_vote_count", p, as: .integer), endsAt: context.read(data, "voting_end_timestamp", p, as: .time))
    }

    /// `t1_abc` → `abc`.
    static func strip(_ name: String) -> String {
        // Bytes, not characters: a prefix is `t`, a digit or letter, and `_`.
        let utf8 = name.utf8
        guard utf8.count > 3 else { return name }
        var bytes = utf8.makeIterator()
        guard bytes.next() == UInt8(ascii: "t"), let kind = bytes.next(), kind != UInt8(ascii: "_"), kind < 0x80,
            bytes.next() == UInt8(ascii: "_")
        else { return name }
        // The rest as one buffer: through the view's indices it cost six times as much.
        var name = name
        return name.withUTF8 { String(decoding: UnsafeBufferPointer(rebasing: $0[3...]), as: UTF8.self) }
    }

    /// `listing.data.children`, checking that `listing` is a Listing.
    static func listingChildren(_ context: inout ImportContext, _ listing: Int, _ path: @autoclosure () -> String) -> Int? {
        guard let data = context.reader.member(listing, "data"), let children = context.read(data, "children", path() + ".data", as: .array) else {
            context.fail(listing, path(), "expected a Listing with data.children")
            return nil
        }
        return children
    }

    /// Reddit's API escapes these three in Markdown bodies.
    static func unescapeEntities(_ text: String) -> String {
        var text = text
        let unescaped: [UInt8]? = text.withUTF8 { bytes in
            guard let first = ByteSearch.first(UInt8(ascii: "&"), in: bytes, from: 0) else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            // The text between ampersands goes in a run at a time.
            var copied = 0
            var next: Int? = first
            while let at = next {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<at]))
                if matches(bytes, at, "&amp;") {
                    out.append(UInt8(ascii: "&"))
                    copied = at + 5
                } else if matches(bytes, at, "&lt;") {
                    out.append(UInt8(ascii: "<"))
                    copied = at + 4
                } else if matches(bytes, at, "&gt;") {
                    out.append(UInt8(ascii: ">"))
                    copied = at + 4
                } else {
                    out.append(UInt8(ascii: "&"))
                    copied = at + 1
                }
                next = ByteSearch.first(UInt8(ascii: "&"), in: bytes, from: copied)
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied...]))
            return out
        }
        return unescaped.map { String(decoding: $0, as: UTF8.self) } ?? text
    }

    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ at: Int, _ entity: StaticString) -> Bool {
        let count = entity.utf8CodeUnitCount
        guard at + count <= bytes.count else { return false }
        for k in 0..<count where bytes[at + k] != entity.utf8Start[k] { return false }
        return true
    }
}
