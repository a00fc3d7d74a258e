/// The forms a dump comes in: one record per line, sorted by time, so a thread's records are
/// spread across the whole file (and across files: a subreddit's months). Each line names the
/// thread it belongs to, which is all a build needs to know before it partitions the dump.
///
/// - `reddit`: Pushshift and Arctic Shift dumps. Comments (`RC_…`) name their thread in
///   `link_id` (`t3_abc`); submissions (`RS_…`) are the thread itself (`id` `abc`, with `title`
///   and `selftext`, `num_comments` or `permalink`). Both key the thread as `abc`.
/// - `hn`: Hacker News items (the Firebase API's, one per line). A comment reaches its story
///   through `parent` chains, so its key is found by following them.
/// - `mapped`: any list of comments whose field mapping names a thread field (`--thread-key`).
package enum DumpForm: String, Sendable, Equatable {
    case reddit, hn, mapped

    /// What one line says about its thread.
    package enum Key: Sendable, Equatable {
        /// The line belongs to the thread with these key bytes.
        case thread([UInt8])
        /// A Hacker News item: its story is found through `parent` (nil for a story).
        case item(id: Int64, parent: Int64?)
    }

    /// The members its importer reads of each record, so a thread's parse keeps only those; nil
    /// keeps every member (Hacker News items are small, and a mapping's paths can go anywhere).
    var recordMembers: JSONMemberFilter? {
        switch self {
        case .reddit: return RedditImporter.dumpMembers
        case .hn, .mapped: return nil
        }
    }

    /// The dump form of a file whose first line is `line`, or nil when the file is not a dump
    /// (a thread per line, a single document, a form that is not spread by time).
    package static func detect(_ line: [UInt8], options: ImportOptions) -> DumpForm? {
        mayDetect(line, options: options) ? detectParsing(line, options: options) : nil
    }

    /// `detect`, from the line's document.
    static func detectParsing(_ line: [UInt8], options: ImportOptions) -> DumpForm? {
        guard let document = try? JSONDocument(bytes: line) else { return nil }
        let json = JSONReader(document: document, file: "")
        guard json.isObject(json.root) else { return nil }
        // A mapping that names the array to read (comments=) reads documents, not a comment per line.
        if let mapping = options.mapping { return mapping.paths[.thread] != nil && mapping.comments == nil ? .mapped : nil }
        let root = json.root
        return form(options.format, has: { json.has(root, $0) }, isItem: { HackerNewsImporter.isHackerNewsItem(json, root) })
    }

    /// The form a record is by `detect`'s rules, from which root members it has (`has`) and, for
    /// `auto`, whether it reads as a Hacker News item at all (`isItem`): a Reddit comment or
    /// submission, or a flat item (one with its comments nested, as Algolia and HNPWA give
    /// them, is a whole thread). The document and the skim both answer through these rules.
    private static func form(_ format: SourceFormat, has: (String) -> Bool, isItem: () -> Bool) -> DumpForm? {
        let reddit = isRedditComment(has: has) || isRedditSubmission(has: has)
        let flatItem = has("id") && !has("children") && !has("comments")
        switch format {
        case .auto: return reddit ? .reddit : flatItem && isItem() ? .hn : nil
        case .reddit: return reddit ? .reddit : nil
        case .hn: return flatItem ? .hn : nil
        default: return nil
        }
    }

    /// False when `detect` is sure to find nothing in `line`, from a skim of its root members that
    /// builds and checks nothing (`JSONScan.skimRootMembers`): a thread file on one line (most
    /// exports) is skimmed, not parsed. The skim's members go through `detect`'s own rules
    /// (`form`), so it rules out only what `detect` would; a line the skim cannot answer for (not
    /// an object, an escaped root member name) is left to `detect`.
    static func mayDetect(_ line: [UInt8], options: ImportOptions) -> Bool {
        if options.mapping != nil { return true }
        switch options.format {
        case .auto, .reddit, .hn: break
        default: return false
        }
        // A line that is not JSON gets an answer that means nothing; `detect` finds nothing in it either way.
        guard let found = line.withUnsafeBufferPointer({ JSONScan.skimRootMembers($0, named: detectNames) }) else { return true }
        return mayFind([options.format]) { found[$0] }
    }

    /// Whether `form` finds a form among `formats` for a root whose members among `detectNames`
    /// are those `has` says (by their index there). A name the rules ask that the list lacks
    /// leaves the answer to `detect` (true), so the rules can change without this ruling out what
    /// they would accept. `type` stands for `HackerNewsImporter.isHackerNewsItem`, which needs it.
    /// A dozen names: a search of the list costs less than hashing them into sets, for every file.
    private static func mayFind(_ formats: [SourceFormat], has present: (Int) -> Bool) -> Bool {
        var unknown = false
        func has(_ name: String) -> Bool {
            guard let k = detectNameStrings.firstIndex(of: name) else {
                unknown = true
                return false
            }
            return present(k)
        }
        let any = formats.contains { form($0, has: has, isItem: { has("type") }) != nil }
        return unknown || any
    }

    /// Whether `mayDetect` may be true, under any import options a line's dumps are detected
    /// with when it is not known to be JSON Lines, for a root object with the members `names`
    /// (exactly those: a document listed whole, `JSONOutline`). False rules the line out as a
    /// record of any dump form without a skim. A mapping (`--map`) never gets here: it reads no
    /// JSON Lines of threads, so its lines are known not to be.
    static func mayDetectAny(rootMembers names: [[UInt8]]) -> Bool {
        mayFind([.auto, .reddit, .hn]) { k in names.contains { $0.elementsEqual(detectNameStrings[k].utf8) } }
    }

    /// The root members `detect`'s rules ask about, which `mayDetect` skims for.
    private static let detectNames: [StaticString] = [
        "link_id", "parent_id", "title", "id", "name", "selftext", "num_comments",
        "permalink", "is_self", "type", "children", "comments",
    ]
    private static let detectNameStrings = detectNames.map(\.description)

    /// What the form is, for messages.
    package var described: String {
        switch self {
        case .reddit: return "a Reddit dump (comments with link_id, or submissions)"
        case .hn: return "Hacker News items"
        case .mapped: return "comments through the field mapping"
        }
    }

    /// A Reddit comment as dumps hold it: `link_id` and `parent_id`.
    static func isRedditComment(has: (String) -> Bool) -> Bool { has("link_id") && has("parent_id") }

    /// A Reddit submission as dumps hold it: a `title` and an `id`, no `link_id`, and one of the
    /// fields only submissions have; `has` answers whether the record has a member, null or not.
    static func isRedditSubmission(has: (String) -> Bool) -> Bool {
        has("title") && !has("link_id") && (has("id") || has("name"))
            && (has("selftext") || has("num_comments") || has("permalink") || has("is_self"))
    }

    /// The thread of the record at `object` (the whole line), or a mismatch saying what was
    /// found and what was expected there. `path` is the record's JSON path (`$[12]`).
    package func key(
        _ reader: JSONReader, _ object: Int, path: @autoclosure () -> String,
        mapping: FieldMapping?
    ) throws(JSONError) -> Key {
        let document = reader.document
        guard document.kind(object) == .object else {
            throw reader.mismatch(object, path(), expected: self == .hn ? "a Hacker News item object" : "a comment object")
        }
        switch self {
        case .reddit:
            if let link = document.member(object, "link_id") {
                return .thread(Self.redditID(try reader.string(link, path() + ".link_id")))
            }
            guard Self.isRedditSubmission(has: { reader.has(object, $0) }) else {
                throw JSONError(
                    node: object, path: path(), expected: "a Reddit comment (with link_id) or submission (with title and selftext)",
                    found: "an object without link_id or title")
            }
            if let id = document.member(object, "id") { return .thread(Self.redditID(try reader.id(id, path() + ".id").string)) }
            return .thread(Self.redditID(try reader.string(document.member(object, "name")!, path() + ".name")))
        case .hn:
            guard let idNode = document.member(object, "id") else {
                throw JSONError(node: object, path: path() + ".id", expected: "an item id", found: "none")
            }
            let id = try reader.int(idNode, path() + ".id", expected: "an integer item id")
            // A poll option belongs to its poll; a comment to its parent.
            let parentNode = document.member(object, "parent") ?? document.member(object, "poll")
            let parent = try parentNode.map { (node) throws(JSONError) -> Int64 in
                try reader.int(node, path() + ".parent", expected: "an integer item id")
            }
            return .item(id: id, parent: parent)
        case .mapped:
            guard let fields = mapping?.paths[.thread] else {
                throw JSONError(node: object, path: path(), expected: "a thread field in the mapping", found: "none")
            }
            let written = FieldMapping.written(fields)
            guard let node = FieldMapping.resolve(reader, object, fields) else {
                // A line the mapping's conditions leave out needs no thread: it is counted where it is read.
                if let mapping, !mapping.admits(reader, object) { return .thread([]) }
                throw JSONError(
                    node: object, path: path() + "." + written,
                    expected: "the comment's thread (mapped as thread=\(written))", found: "none")
            }
            let id = try reader.id(node, path() + "." + written, expected: "a string or an integer thread key")
            return .thread(Array((mapping.map { $0.stripped(id) } ?? id).string.utf8))
        }
    }

    /// `t3_abc` and `abc` alike: the base-36 id, as bytes.
    static func redditID(_ text: String) -> [UInt8] { redditID(Array(text.utf8)) }

    static func redditID<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] { Array(bytes.dropFirst(redditPrefix(bytes))) }

    /// How many of `bytes` are the `t3_` an id drops: 3, or 0 when it has none (or nothing after it).
    static func redditPrefix<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int {
        var next = bytes.makeIterator()
        return next.next() == UInt8(ascii: "t") && next.next() == UInt8(ascii: "3") && next.next() == UInt8(ascii: "_")
            && next.next() != nil ? 3 : 0
    }

    /// A key as the partition pass reads it without a document (`quickKey(leavingOff:…)`), with
    /// nothing allocated: a thread's key bytes are appended to a buffer the caller keeps for a
    /// batch of lines, and named by their range there.
    enum LineKey: Sendable, Equatable {
        case thread(Range<Int>)
        case item(id: Int64, parent: Int64?)
    }

    /// The thread of a line read without a document, when that is all it takes, in a line
    /// `JSONScan` accepts: a Reddit comment whose `link_id` is a string without escapes, or a
    /// Hacker News item whose `id` (and `parent` or `poll`, if any) are integers. Nil otherwise
    /// (a submission, a mapped form, a line that is not JSON): `key(_:_:path:mapping:)` on its
    /// document then gives the key, or says what is wrong, as it would for any line.
    func quickKey(_ line: UnsafeBufferPointer<UInt8>) -> Key? {
        var blanks: [Range<Int>] = []
        var keys: [UInt8] = []
        switch scanKey(line, keeping: .none, filtering: false, blanks: &blanks, keys: &keys) {
        case .thread(let range): return .thread(Array(keys[range]))
        case .item(let id, let parent): return .item(id: id, parent: parent)
        case nil: return nil
        }
    }

    /// `quickKey`, which also leaves off the line's members that its thread's parse would not
    /// keep (`recordMembers`), in place (`JSONScan.leaveOff`): a Reddit comment's 50 to 65 members
    /// become the 10 to 15 it has of the 23 read, and its 1.8 KB about 600 bytes, so the spill
    /// holds and the thread's parse reads the body and a few short values. Also returns the line's
    /// new length (the same when nothing was left off: a line whose members are all read, a Hacker
    /// News item), and in `gaps` where members were taken out, so that every message can name
    /// the column it had (`JSONScan.column(_:in:gaps:)`). The filter is `recordMembers`, which
    /// the caller reads once for many lines (`filtering` when there is one), and a thread's key
    /// is appended to `keys` (`LineKey`). `blanks` and `gaps` are scratch space, reused from line
    /// to line. Nil, with the line untouched, when the key needs the line's document.
    func quickKey(
        leavingOff line: UnsafeMutableBufferPointer<UInt8>, keeping filter: borrowing JSONMemberFilter, filtering: Bool,
        blanks: inout [Range<Int>], gaps: inout [JSONScan.Gap], keys: inout [UInt8]
    ) -> (key: LineKey, length: Int)? {
        gaps.removeAll(keepingCapacity: true)
        guard let key = scanKey(UnsafeBufferPointer(line), keeping: filter, filtering: filtering, blanks: &blanks, keys: &keys) else { return nil }
        return (key, blanks.isEmpty ? line.count : JSONScan.leaveOff(line, blanks: blanks, gaps: &gaps))
    }

    /// `quickKey`, finding in `blanks` what leaves off the members the filter does not keep
    /// (none without `filtering`: Hacker News items are small and kept whole).
    private func scanKey(
        _ line: UnsafeBufferPointer<UInt8>, keeping filter: borrowing JSONMemberFilter, filtering: Bool,
        blanks: inout [Range<Int>], keys: inout [UInt8]
    ) -> LineKey? {
        switch self {
        case .reddit:
            guard
                case .object(let found) = JSONScan.rootMembers(
                    line, named: Self.redditKeyNames, keeping: filter, filtering: filtering,
                    blanks: &blanks),
                let link = found[0], link.kind == .string, !link.escaped
            else { return nil }
            let id = UnsafeBufferPointer(rebasing: line[link.start..<link.end])
            let start = keys.count
            keys.append(contentsOf: UnsafeBufferPointer(rebasing: id[(id.startIndex + Self.redditPrefix(id))...]))
            return .thread(start..<keys.count)
        case .hn:
            // `key` reads `parent`, or `poll` when there is no `parent`.
            guard
                case .object(let found) = JSONScan.rootMembers(
                    line, named: Self.itemKeyNames, keeping: filter, filtering: filtering,
                    blanks: &blanks),
                let idValue = found[0], let id = Self.integer(idValue, in: line)
            else { return nil }
            guard let parentValue = found[1] ?? found[2] else { return .item(id: id, parent: nil) }
            guard let parent = Self.integer(parentValue, in: line) else { return nil }
            return .item(id: id, parent: parent)
        case .mapped:
            return nil
        }
    }

    private static let redditKeyNames: [StaticString] = ["link_id"]
    private static let itemKeyNames: [StaticString] = ["id", "parent", "poll"]

    /// The value of an integer the scan found, as `JSONDocument.int64` reads it; nil for any
    /// other value, or one out of range.
    private static func integer(_ value: JSONScan.Value, in line: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard value.kind == .number, value.integer else { return nil }
        // Read in place, as the document reads it (a String a value cost two allocations an item).
        return JSONDocument.int64(integer: UnsafeBufferPointer(rebasing: line[value.start..<value.end]))
    }
}
