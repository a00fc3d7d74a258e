/// The one way Threadfold reads JSON, whatever the file: thread exports, locale files, field
/// mappings, sidecars and the manifest.
///
/// `parse` is the only place a syntax error becomes a located `Problem`. Typed reads throw a
/// `JSONError` that names the node, its JSON path, what was expected and what was found;
/// `error(_:)` turns it into a `Problem` with the file and `line:column`. Paths are taken as
/// autoclosures, so a read that succeeds builds no string.
package struct JSONReader: Sendable {
    package let document: JSONDocument
    package let file: String
    /// The members of one object named in `indexedNames`, found in one pass by `index(_:names:)`
    /// (tape indices of their values, by place; -1 for none): a dump record's dozen lookups then
    /// cost a name match each rather than a scan of its members each.
    private var indexedObject = -1
    private var indexedNames = JSONMemberFilter.none
    private var indexedValues: [Int32] = []

    package init(document: JSONDocument, file: String) {
        self.document = document
        self.file = file
    }

    /// Parses `bytes` as one JSON document or, with `lines`, as JSON Lines when a first value is
    /// followed by more. A syntax error is reported at its line and column. `records` keeps only
    /// some members of the root array's objects, as in `JSONDocument.init(records:)`.
    package init(bytes: [UInt8], file: String, lines: Bool = false, records: JSONMemberFilter? = nil) throws(ThreadfoldError) {
        self.init(document: try Self.parse(bytes, file: file, lines: lines, records: records), file: file)
    }

    private static func parse(_ bytes: [UInt8], file: String, lines: Bool, records: JSONMemberFilter?) throws(ThreadfoldError) -> JSONDocument {
        do {
            return try JSONDocument(bytes: bytes, records: records)
        } catch let first {
            var failure = first
            if lines && first.isTrailingContent {
                do { return try JSONDocument(bytes: bytes, sequence: true, records: records) } catch let second { failure = second }
            }
            let (line, column) = JSONDocument.location(in: bytes, offset: failure.offset)
            throw ThreadfoldError.input([Problem(file: file, line: line, column: column, message: failure.message)])
        }
    }

    package var root: Int { document.root }

    // MARK: Errors

    /// An error at `node`: file, line and column, and the JSON path.
    package func error(at node: Int, path: String?, _ message: String, severity: Problem.Severity = .error) -> Problem {
        let (line, column) = document.location(ofOffset: document.offset(node))
        return Problem(file: file, line: line, column: column, path: path, message: message, severity: severity)
    }

    /// The error as a `Problem`, its message followed by `suffix` (a hint for the reader): a
    /// mismatch at its node and path ("expected …, found …"), a syntax error at its byte.
    package func error(_ failure: JSONError, suffix: String = "", hint: Problem.Hint? = nil) -> Problem {
        guard !failure.isSyntax else {
            let (line, column) = document.location(ofOffset: failure.offset)
            return Problem(file: file, line: line, column: column, message: failure.message + suffix)
        }
        var error = error(at: failure.node, path: failure.path, failure.message + suffix)
        error.hint = failure.hint ?? hint
        return error
    }

    package func mismatch(_ node: Int, _ path: String, expected: String) -> JSONError {
        JSONError(node: node, path: path, expected: expected, found: describe(node))
    }

    /// What a node holds, for messages: its kind, with numbers and short strings quoted.
    package func describe(_ node: Int) -> String {
        switch document.kind(node) {
        case .number: return "the number \(document.numberText(node))"
        case .string:
            let text = document.string(node)
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            return "the string \"\(shown.quotedForMessage)\""
        case let kind: return kind.described
        }
    }

    // MARK: Structure

    package func kind(_ node: Int) -> JSONDocument.Kind { document.kind(node) }
    package func isNull(_ node: Int) -> Bool { document.kind(node) == .null }
    package func isObject(_ node: Int) -> Bool { document.kind(node) == .object }
    package func isArray(_ node: Int) -> Bool { document.kind(node) == .array }

    /// The file's bytes, which records keep as their source.
    package var bytes: [UInt8] { document.bytes }
    /// Line and column lookups, shared by every record read from the file.
    package var locator: TextLocator { document.locator }

    /// The byte offset where the value at `node` starts, which a record keeps as its origin.
    package func offset(_ node: Int) -> Int { document.offset(node) }

    /// The number of elements of an array or members of an object; 0 for anything else.
    package func size(_ node: Int) -> Int {
        switch document.kind(node) {
        case .object, .array: return document.count(node)
        default: return 0
        }
    }

    /// The element at `index` of the array at `node`; nil when there is none.
    package func element(_ node: Int, at index: Int) -> Int? {
        guard index >= 0, index < size(node), isArray(node) else { return nil }
        return elements(of: node).first { $0.position == index }?.node
    }

    /// The first element of the array at `node`; nil when it is empty or not an array.
    package func firstElement(_ node: Int) -> Int? {
        document.kind(node) == .array && document.count(node) > 0 ? node + 1 : nil
    }

    /// The root value, or, when the root is an array, its first element (nil when it is empty):
    /// where a form's detection looks for the shape of one item.
    package var rootItem: Int? { isArray(root) ? firstElement(root) : root }

    /// The elements of the array at `node` with their positions, in order; none for anything else.
    package func elements(of node: Int) -> Elements { Elements(children: Children(document: document, container: node, kind: .array)) }

    /// The members of the object at `node` in file order, as the tape indices of each key and
    /// value (`key(_:)` decodes a key); none for anything else.
    package func members(of node: Int) -> Members { Members(children: Children(document: document, container: node, kind: .object)) }

    /// The decoded name of the member whose key is at `node` (as `members(of:)` hands it).
    package func key(_ node: Int) -> String { document.string(node) }

    /// The text of a string, or the source text of a number; nil for anything else.
    package func scalarText(_ node: Int) -> String? {
        switch document.kind(node) {
        case .string: return document.string(node)
        case .number: return document.numberText(node)
        default: return nil
        }
    }

    /// A time at `node` (as `time(_:_:)` reads it), or nil.
    package func timestamp(_ node: Int) -> Timestamp? { document.timestamp(node) }

    /// The member `key` of an object when it is present and not null; nil otherwise (also when
    /// `object` is not an object).
    package func member(_ object: Int, _ key: String) -> Int? {
        if object == indexedObject, let place = indexedNames.place(of: key) {
            let value = Int(indexedValues[place])
            return value < 0 || document.kind(value) == .null ? nil : value
        }
        guard document.kind(object) == .object, let value = document.member(object, key),
            document.kind(value) != .null
        else { return nil }
        return value
    }

    /// Whether `object` is an object with a member `key`, null or not.
    package func has(_ object: Int, _ key: String) -> Bool {
        guard object == indexedObject, let place = indexedNames.place(of: key) else { return document.member(object, key) != nil }
        return indexedValues[place] >= 0
    }

    /// The member `key` of `object` when it is a value of `kind`; nil otherwise.
    package func member(_ object: Int, _ key: String, is kind: JSONDocument.Kind) -> Int? {
        guard let value = member(object, key), document.kind(value) == kind else { return nil }
        return value
    }

    /// Reads the members of the object at `object` that `names` holds in one pass, for the
    /// lookups that follow (`member`, `has` and every member read); lookups of other objects, and
    /// of names `names` lacks, scan the object's members.
    package mutating func index(_ object: Int, names: JSONMemberFilter) {
        indexedObject = -1
        let document = self.document
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

    /// `node` when it is an object.
    @discardableResult
    package func object(_ node: Int, _ path: @autoclosure () -> String, expected: String = "an object") throws(JSONError) -> Int {
        guard document.kind(node) == .object else { throw mismatch(node, path(), expected: expected) }
        return node
    }

    /// Calls `body` with each member of the object at `node`, in file order, stopping at the first error.
    package func members(
        _ node: Int, _ path: @autoclosure () -> String, expected: String = "an object",
        _ body: (_ key: String, _ value: Int) throws(JSONError) -> Void
    ) throws(JSONError) {
        try object(node, path(), expected: expected)
        var failure: JSONError?
        document.forEachMember(node) { key, value in
            guard failure == nil else { return }
            do throws(JSONError) { try body(key, value) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// The elements of the array at `node`.
    package func array(_ node: Int, _ path: @autoclosure () -> String, expected: String = "an array") throws(JSONError) -> [Int] {
        guard document.kind(node) == .array else { throw mismatch(node, path(), expected: expected) }
        var elements: [Int] = []
        elements.reserveCapacity(document.count(node))
        document.forEachElement(node) { _, element in elements.append(element) }
        return elements
    }

    // MARK: Scalars

    package func string(_ node: Int, _ path: @autoclosure () -> String, expected: String = "a string") throws(JSONError) -> String {
        guard document.kind(node) == .string else { throw mismatch(node, path(), expected: expected) }
        return document.string(node)
    }

    /// A string, or nil for null.
    package func optionalString(_ node: Int, _ path: @autoclosure () -> String, expected: String = "a string or null") throws(JSONError) -> String? {
        if document.kind(node) == .null { return nil }
        return try string(node, path(), expected: expected)
    }

    /// The string at `node`, or nil for anything else.
    package func text(_ node: Int) -> String? {
        document.kind(node) == .string ? document.string(node) : nil
    }

    /// The text of the member `key` of `object` when it is a string, or nil for anything else.
    package func text(_ object: Int, _ key: String) -> String? {
        member(object, key).flatMap(text)
    }

    package func strings(_ node: Int, _ path: @autoclosure () -> String, expected: String = "an array of strings") throws(JSONError) -> [String] {
        var out: [String] = []
        let elements = try array(node, path(), expected: expected)
        for (i, element) in elements.enumerated() { out.append(try string(element, "\(path())[\(i)]")) }
        return out
    }

    /// An integer that fits 64 bits.
    package func int(_ node: Int, _ path: @autoclosure () -> String, expected: String = "an integer") throws(JSONError) -> Int64 {
        guard let value = document.int64(node) else { throw mismatch(node, path(), expected: expected) }
        return value
    }

    /// A number, rounded to the nearest integer (scores and counts are sometimes written as 12.0).
    package func rounded(_ node: Int, _ path: @autoclosure () -> String, expected: String = "a number") throws(JSONError) -> Int64 {
        if let exact = document.int64(node) { return exact }
        if let double = document.double(node), double.isFinite, abs(double) < 9e18 { return Int64(double.rounded()) }
        throw mismatch(node, path(), expected: expected)
    }

    /// A count: a whole number from 0 to `InputLimits.maxCount`, so sums of counts can be checked
    /// rather than trusted.
    package func count(_ node: Int, _ path: @autoclosure () -> String) throws(JSONError) -> Int {
        let value = try int(node, path(), expected: Self.countExpected)
        guard value >= 0 && value <= Int64(InputLimits.maxCount) else { throw mismatch(node, path(), expected: Self.countExpected) }
        return Int(value)
    }

    /// What `count` expects, made once: made on every call, it was most of the cost of reading the
    /// counts of a manifest's 2,000 thread summaries.
    private static let countExpected = "a count from 0 to \(InputLimits.maxCount)"

    package func bool(_ node: Int, _ path: @autoclosure () -> String, expected: String = "true or false") throws(JSONError) -> Bool {
        switch document.kind(node) {
        case .true: return true
        case .false: return false
        default: throw mismatch(node, path(), expected: expected)
        }
    }

    /// An id: a string, or an integer kept digit for digit (never through `Double`). The one rule
    /// for ids, wherever they are read.
    package func id(_ node: Int) -> CommentID? {
        switch document.kind(node) {
        case .string: return CommentID(document.string(node))
        case .number where document.isInteger(node): return CommentID(document.numberText(node))
        default: return nil
        }
    }

    package func id(_ node: Int, _ path: @autoclosure () -> String, expected: String = "a string or an integer") throws(JSONError) -> CommentID {
        guard let id = id(node) else { throw mismatch(node, path(), expected: expected) }
        return id
    }

    /// A time: ISO 8601 text, or Unix seconds or milliseconds as a number or digits.
    package func time(
        _ node: Int, _ path: @autoclosure () -> String,
        expected: String = "an ISO 8601 date or Unix seconds or milliseconds"
    ) throws(JSONError) -> Timestamp {
        guard let time = document.timestamp(node) else { throw mismatch(node, path(), expected: expected) }
        return time
    }
}

extension JSONReader {
    /// The children of a container in file order: the tape index of each element of an array, or
    /// of each key of an object (its value is the next node).
    struct Children {
        let document: JSONDocument
        let count: Int
        let isObject: Bool
        var position = 0
        var node: Int

        init(document: JSONDocument, container: Int, kind: JSONDocument.Kind) {
            self.document = document
            self.count = document.kind(container) == kind ? document.count(container) : 0
            self.isObject = kind == .object
            self.node = container + 1
        }

        mutating func next() -> (position: Int, node: Int)? {
            guard position < count else { return nil }
            defer {
                position += 1
                node = document.next(isObject ? node + 1 : node)
            }
            return (position, node)
        }
    }

    /// The elements of an array: each one's position and tape index. A loop over them allocates
    /// nothing and calls no closure.
    package struct Elements: Sequence, IteratorProtocol {
        var children: Children

        package mutating func next() -> (position: Int, node: Int)? { children.next() }
    }

    /// The members of an object: the tape indices of each one's key and value.
    package struct Members: Sequence, IteratorProtocol {
        var children: Children

        package mutating func next() -> (key: Int, value: Int)? { children.next().map { ($0.node, $0.node + 1) } }
    }
}

extension String {
    /// The text with quotes, backslashes and control characters escaped, for quoting in messages.
    var quotedForMessage: String {
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
