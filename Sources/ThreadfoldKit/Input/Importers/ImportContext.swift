/// What importers share: the document, the file name, and errors located by line:column and
/// JSON path, each saying what was found, what was expected and which flag might help.
struct ImportContext {
    let document: JSONDocument
    let file: String
    let format: SourceFormat
    var errors: [InputError] = []

    init(document: JSONDocument, file: String, format: SourceFormat) {
        self.document = document
        self.file = file
        self.format = format
    }

    mutating func fail(_ node: Int, _ path: String, _ message: String) {
        guard errors.count < ThreadDecoder.errorLimit else { return }
        let location = document.location(ofOffset: document.offset(node))
        let hint = format == .mapped ? " (read with --map)" : " (read as \(format.described); --from picks another form)"
        errors.append(InputError(file: file, line: location.line, column: location.column, path: path, message: message + hint))
    }

    // MARK: Typed members. A missing or null member is nil; a member of the wrong type is an error.

    func member(_ object: Int, _ key: String) -> Int? {
        guard document.kind(object) == .object, let value = document.member(object, key),
              document.kind(value) != .null else { return nil }
        return value
    }

    mutating func string(_ object: Int, _ key: String, _ path: String) -> String? {
        guard let value = member(object, key) else { return nil }
        guard document.kind(value) == .string else {
            fail(value, path + "." + key, "expected a string, found \(document.kind(value).described)")
            return nil
        }
        return document.string(value)
    }

    mutating func id(_ object: Int, _ key: String, _ path: String) -> CommentID? {
        guard let value = member(object, key) else { return nil }
        switch document.kind(value) {
        case .string: return CommentID(document.string(value))
        case .number where document.isInteger(value): return CommentID(document.numberText(value))
        default:
            fail(value, path + "." + key, "expected a string or an integer id, found \(document.kind(value).described)")
            return nil
        }
    }

    /// A required id: the first of `keys` that is present. A wrongly typed one is reported (once,
    /// by `id`); a missing one is reported as missing, naming `what` was expected.
    mutating func requiredID(_ object: Int, _ keys: [String], _ path: String, what: String) -> CommentID? {
        for key in keys where member(object, key) != nil {
            return id(object, key, path)
        }
        fail(object, path + "." + keys[0], "expected \(what), found none")
        return nil
    }

    mutating func integer(_ object: Int, _ key: String, _ path: String) -> Int64? {
        guard let value = member(object, key) else { return nil }
        if let exact = document.int64(value) { return exact }
        if let double = document.double(value), double.isFinite, abs(double) < 9e18 { return Int64(double.rounded()) }
        fail(value, path + "." + key, "expected a number, found \(document.kind(value).described)")
        return nil
    }

    mutating func bool(_ object: Int, _ key: String, _ path: String) -> Bool {
        guard let value = member(object, key) else { return false }
        switch document.kind(value) {
        case .true: return true
        case .false: return false
        default:
            fail(value, path + "." + key, "expected true or false, found \(document.kind(value).described)")
            return false
        }
    }

    /// A time: ISO 8601 text, or Unix seconds or milliseconds as a number or digits.
    mutating func time(_ object: Int, _ key: String, _ path: String) -> Timestamp? {
        guard let value = member(object, key) else { return nil }
        if let time = document.timestamp(value) { return time }
        fail(value, path + "." + key, "expected a Unix time or an ISO 8601 date, found \(document.kind(value).described)")
        return nil
    }

    /// The array at `key`, or nil; anything else there is an error.
    mutating func array(_ object: Int, _ key: String, _ path: String) -> Int? {
        guard let value = member(object, key) else { return nil }
        guard document.kind(value) == .array else {
            fail(value, path + "." + key, "expected an array, found \(document.kind(value).described)")
            return nil
        }
        return value
    }

    func origin(_ node: Int, container: Int32, key: String?, index: Int) -> RecordOrigin {
        RecordOrigin(offset: Int32(document.offset(node)), container: container, key: key, index: Int32(index))
    }
}
