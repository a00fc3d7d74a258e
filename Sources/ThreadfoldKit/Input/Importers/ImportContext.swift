/// What importers share: the file's reader, the form it is read as, the import's options, and
/// errors located by line:column and JSON path, each saying what was found, what was expected
/// and which flag might help. The typed members are `JSONReader`'s, with the error recorded
/// rather than thrown.
struct ImportContext {
    let reader: JSONReader
    let format: SourceFormat
    let options: ImportOptions
    var errors: [Problem] = []
    /// The members of one object named in `indexedNames`, found in one pass by `index(_:names:)`
    /// (tape indices of their values, by place; -1 for none): a dump record's dozen lookups then
    /// cost a name match each rather than a scan of its members each.
    private var indexedObject = -1
    private var indexedNames = JSONMemberFilter.none
    private var indexedValues: [Int32] = []
    /// Comments left out, as warnings: skipped for a missing required field (only with
    /// `options.lenient`; kind `skipped`), or by the form's own rule (kind `notPublic`).
    var skipped: [Problem] = []

    var document: JSONDocument { reader.document }
    var file: String { reader.file }

    init(document: JSONDocument, file: String, format: SourceFormat, options: ImportOptions = ImportOptions()) {
        self.reader = JSONReader(document: document, file: file)
        self.format = format
        self.options = options
    }

    private var readAs: String { " (read as \(format.described))" }
    private var hint: Problem.Hint? { format == .mapped ? nil : .otherForm }

    mutating func fail(_ node: Int, _ path: String, _ message: String) {
        guard !errors.isFull else { return }
        var error = reader.error(at: node, path: path, message + readAs)
        error.hint = hint
        errors.append(error)
    }

    mutating func fail(_ mismatch: JSONError) {
        guard !errors.isFull else { return }
        errors.append(reader.error(mismatch, suffix: readAs, hint: hint))
    }

    /// `read`'s value, or nil after recording its mismatch. `read` is handed the reader, which it
    /// borrows: a closure that captured a copy retained and released the whole document per member.
    private mutating func recording<T>(_ read: (borrowing JSONReader) throws(JSONError) -> T) -> T? {
        do throws(JSONError) { return try read(reader) } catch {
            fail(error)
            return nil
        }
    }

    // MARK: Elements

    /// `node` when it is an object; otherwise an error at `path`, "expected `what` object, found …"
    /// (`what`: "a comment", "a status"), and nil.
    mutating func requireObject(_ node: Int, _ path: @autoclosure () -> String, what: String) -> Int? {
        let kind = document.kind(node)
        guard kind == .object else {
            fail(node, path(), "expected \(what) object, found \(kind.described)")
            return nil
        }
        return node
    }

    /// Calls `body` with each element of the array `list` that is an object, its position and its
    /// JSON path (`prefix` then `[position]`), until the errors reach their limit. An element that
    /// is not an object is an error (`requireObject`). `body` is handed the context to read with.
    mutating func forEachObject(
        in list: Int, _ prefix: String, what: String,
        _ body: (inout ImportContext, _ position: Int, _ object: Int, _ path: String) -> Void
    ) {
        let document = self.document
        document.forEachElement(list) { position, element in
            guard !errors.isFull else { return }
            let path = prefix + "[\(position)]"
            guard let object = requireObject(element, path, what: what) else { return }
            body(&self, position, object, path)
        }
    }

    // MARK: Typed members. A missing or null member is nil; a member of the wrong type is an error.

    /// The member `key` of `object` when it is present and not null (the last one, if repeated).
    func member(_ object: Int, _ key: String) -> Int? {
        guard object == indexedObject, let place = indexedNames.place(of: key) else { return reader.member(object, key) }
        let value = Int(indexedValues[place])
        return value < 0 || document.kind(value) == .null ? nil : value
    }

    /// Whether `object` has a member `key`, null or not (as `JSONDocument.member` answers it).
    func has(_ object: Int, _ key: String) -> Bool {
        guard object == indexedObject, let place = indexedNames.place(of: key) else { return document.member(object, key) != nil }
        return indexedValues[place] >= 0
    }

    /// Reads the members of the object at `object` that `names` holds in one pass, for the
    /// lookups that follow (`member` and every typed read); lookups of other objects, and of
    /// names `names` lacks, scan as before.
    mutating func index(_ object: Int, names: JSONMemberFilter) {
        indexedObject = -1
        let document = reader.document
        guard document.kind(object) == .object else { return }
        if indexedNames.identity != names.identity {
            indexedNames = names
            indexedValues = Array(repeating: -1, count: names.size)
        } else {
            for i in indexedValues.indices { indexedValues[i] = -1 }
        }
        indexedValues.withUnsafeMutableBufferPointer { values in
            document.forEachMemberNode(object) { key, value in
                if let place = document.memberName(key, in: names) { values[place] = Int32(value) }
            }
        }
        indexedObject = object
    }

    mutating func string(_ object: Int, _ key: String, _ path: @autoclosure () -> String) -> String? {
        guard let value = member(object, key) else { return nil }
        return recording { (reader) throws(JSONError) in try reader.string(value, path() + "." + key) }
    }

    mutating func id(_ object: Int, _ key: String, _ path: @autoclosure () -> String) -> CommentID? {
        guard let value = member(object, key) else { return nil }
        return recording { (reader) throws(JSONError) in try reader.id(value, path() + "." + key, expected: "a string or an integer id") }
    }

    /// A required id: the first of `keys` that is present. A wrongly typed one is reported (once,
    /// by `id`); a missing one is reported as missing, naming `what` was expected.
    mutating func requiredID(_ object: Int, _ keys: [String], _ path: @autoclosure () -> String, what: String) -> CommentID? {
        for key in keys where member(object, key) != nil {
            return id(object, key, path())
        }
        fail(object, path() + "." + keys[0], "expected \(what), found none")
        return nil
    }

    mutating func integer(_ object: Int, _ key: String, _ path: @autoclosure () -> String) -> Int64? {
        guard let value = member(object, key) else { return nil }
        return recording { (reader) throws(JSONError) in try reader.rounded(value, path() + "." + key) }
    }

    mutating func bool(_ object: Int, _ key: String, _ path: @autoclosure () -> String) -> Bool {
        guard let value = member(object, key) else { return false }
        return recording { (reader) throws(JSONError) in try reader.bool(value, path() + "." + key) } ?? false
    }

    /// A time: ISO 8601 text, or Unix seconds or milliseconds as a number or digits.
    mutating func time(_ object: Int, _ key: String, _ path: @autoclosure () -> String) -> Timestamp? {
        guard let value = member(object, key) else { return nil }
        return recording { (reader) throws(JSONError) in try reader.time(value, path() + "." + key, expected: "a Unix time or an ISO 8601 date") }
    }

    /// The object at `key`, or nil; anything else there is an error.
    mutating func object(_ object: Int, _ key: String, _ path: @autoclosure () -> String) -> Int? {
        container(object, key, path(), .object)
    }

    /// The object or array (`kind`) at `key`, or nil; anything else there is an error.
    private mutating func container(_ object: Int, _ key: String, _ path: @autoclosure () -> String, _ kind: JSONDocument.Kind) -> Int? {
        guard let value = member(object, key) else { return nil }
        guard document.kind(value) == kind else {
            fail(reader.mismatch(value, path() + "." + key, expected: kind.described))
            return nil
        }
        return value
    }

    /// A count the source keeps of something (comments, replies): a number clamped to
    /// 0...`InputLimits.maxCount`, so sums of counts stay in range; nil when absent.
    mutating func count(_ object: Int, _ key: String, _ path: @autoclosure () -> String) -> Int? {
        integer(object, key, path()).map { Int(clamping: min(max($0, 0), Int64(InputLimits.maxCount))) }
    }

    /// The array at `key`, or nil; anything else there is an error.
    mutating func array(_ object: Int, _ key: String, _ path: @autoclosure () -> String) -> Int? {
        container(object, key, path(), .array)
    }

    /// A story's opening post, into `info`: its text at `key` as HTML, else, for a link post, its
    /// `url` as the link the post shows.
    mutating func openingPost(_ story: Int, text key: String, _ path: @autoclosure () -> String, into info: inout ThreadInfo) {
        if let text = string(story, key, path()), !text.isEmpty {
            info.body = text
        } else if let url = string(story, "url", path()) {
            info.link = url
        } else {
            return
        }
        info.bodyFormat = .html
    }

    /// The host of an absolute http or https URL (`lemmy.ml` of `https://lemmy.ml/u/bob`), lower-cased;
    /// nil for anything else. For naming a remote account `name@host`, never for fetching.
    static func host(of url: String) -> String? {
        let lowered = url.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lowered.hasPrefix($0) }) else { return nil }
        let rest = lowered.utf8.dropFirst(scheme.utf8.count)
        let end = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? rest.endIndex
        var host = Substring(rest[..<end])
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else { return nil }
        return String(host)
    }

    /// A note, located at the count that says so, that the source counts `total` of something
    /// (`what`: "posts", "comments") where the export holds `total - missing`, with how to fetch
    /// the rest: "320 of 340 posts are not in this export; fetch …". Kind `notArchived`; the page
    /// says the same through the record's counts of replies not archived.
    /// A poll's options: the array `options` of `poll` (at `path`), each an object with its text
    /// under `text` (shown through `shown`) and its votes under `votes`; a non-object element is
    /// an error at its place.
    mutating func pollOptions(
        _ poll: Int, _ path: String, text: String, votes: String,
        shown: (String) -> String = { $0 }
    ) -> [Poll.Option] {
        var options: [Poll.Option] = []
        guard let list = array(poll, "options", path) else { return options }
        forEachObject(in: list, path + ".options", what: "a poll option") { context, _, option, at in
            options.append(Poll.Option(shown(context.string(option, text, at) ?? ""), votes: context.integer(option, votes, at)))
        }
        return options
    }

    mutating func noteMissing(_ missing: Int, of total: Int, _ what: String, at node: Int, _ path: String, fetch: String) {
        guard missing > 0 else { return }
        var note = reader.error(
            at: node, path: path, "\(missing) of \(total) \(what) \(missing == 1 ? "is" : "are") not in this export; \(fetch)",
            severity: .note)
        note.kind = Self.notArchivedKind
        skipped.append(note)
    }

    /// The kind of `noteMissing`'s notes.
    static let notArchivedKind = "notArchived"

    func origin(_ node: Int, container: Int32, key: String?, index: Int) -> RecordOrigin {
        RecordOrigin(offset: Int32(document.offset(node)), container: container, key: key, index: Int32(index))
    }
}
