/// What importers share: the file's reader, the form it is read as, the import's options, and
/// errors located by line:column and JSON path, each saying what was found, what was expected
/// and which flag might help. Every read is `JSONReader`'s; `read` records its error rather than
/// throwing it, so one file reports many problems.
struct ImportContext {
    /// The file's JSON, which every read goes through.
    var reader: JSONReader
    var file: String { reader.file }
    /// The form the file is read as, which every error names ("read as …").
    let format: SourceFormat
    let options: ImportOptions
    /// Errors, each located; reading stops once they reach their limit (`isFull`).
    var errors: [Problem] = []
    /// Comments left out, as warnings: skipped for a missing required field (only with
    /// `options.lenient`; kind `skipped`), or by the form's own rule (kind `notPublic`).
    var skipped: [Problem] = []

    init(reader: JSONReader, format: SourceFormat, options: ImportOptions = ImportOptions()) {
        self.reader = reader
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

    /// The member `key` of `object` read `as` one kind (`JSONReader.read`): nil when it is
    /// missing or null, and nil after recording the error when it is of another type.
    @inline(__always)
    mutating func read<T>(_ object: Int, _ key: String, _ path: @autoclosure () -> String, as reading: JSONReader.Reading<T>) -> T? {
        do throws(JSONError) { return try reader.read(object, key, path(), as: reading) } catch {
            fail(error)
            return nil
        }
    }

    // MARK: Elements

    /// `node` when it is an object; otherwise an error at `path`, "expected `what` object, found …"
    /// (`what`: "a comment", "a status"), and nil.
    mutating func requireObject(_ node: Int, _ path: @autoclosure () -> String, what: String) -> Int? {
        guard reader.isObject(node) else {
            fail(node, path(), "expected \(what) object, found \(reader.kind(node).described)")
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
        for (position, element) in reader.elements(of: list) {
            guard !errors.isFull else { return }
            let path = prefix + "[\(position)]"
            guard let object = requireObject(element, path, what: what) else { continue }
            body(&self, position, object, path)
        }
    }

    /// A required id: the first of `keys` that is present. A wrongly typed one is reported (once,
    /// by `read`); a missing one is reported as missing, naming `what` was expected.
    mutating func requiredID(_ object: Int, _ keys: [String], _ path: @autoclosure () -> String, what: String) -> CommentID? {
        for key in keys where reader.member(object, key) != nil {
            return read(object, key, path(), as: .id)
        }
        fail(object, path() + "." + keys[0], "expected \(what), found none")
        return nil
    }

    /// A story's opening post, into `info`: its text at `key` as HTML, else, for a link post, its
    /// `url` as the link the post shows.
    mutating func openingPost(_ story: Int, text key: String, _ path: @autoclosure () -> String, into info: inout ThreadInfo) {
        if let text = read(story, key, path(), as: .string), !text.isEmpty {
            info.body = text
        } else if let url = read(story, "url", path(), as: .string) {
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
        guard let list = read(poll, "options", path, as: .array) else { return options }
        forEachObject(in: list, path + ".options", what: "a poll option") { context, _, option, at in
            options.append(Poll.Option(shown(context.read(option, text, at, as: .string) ?? ""), votes: context.read(option, votes, at, as: .integer)))
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
        RecordOrigin(offset: Int32(reader.offset(node)), container: container, key: key, index: Int32(index))
    }
}
