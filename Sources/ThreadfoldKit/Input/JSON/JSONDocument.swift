import Synchronization

#if canImport(Glibc)
    import Glibc
#endif
// Input stage: bytes of JSON in, `ThreadRecord`s out.
// JSONDocument is a strict RFC 8259 parser that keeps the whole document as a flat tape of
// nodes over the original bytes: no recursion, no per-value objects, byte offsets for errors.

/// A parsed JSON document: the original bytes plus a flat tape of nodes in document order.
///
/// Containers know the tape index just past their last descendant, so skipping a subtree is
/// O(1) and nothing ever walks the document recursively. Strings and numbers stay as byte
/// ranges until asked for, so big integers keep every digit.
package struct JSONDocument: Sendable {
    package enum Kind: UInt8, Sendable {
        case object, array, string, number, `true`, `false`, null

        /// How error messages name a value of this kind ("found an object").
        package var described: String {
            switch self {
            case .object: return "an object"
            case .array: return "an array"
            case .string: return "a string"
            case .number: return "a number"
            case .true: return "true"
            case .false: return "false"
            case .null: return "null"
            }
        }
    }

    struct Node {
        var kind: Kind
        /// Strings: has a backslash escape. Numbers: is an integer (no fraction or exponent).
        var flag: Bool
        /// Byte offset: of the first content byte for strings, of the token otherwise.
        var start: Int32
        /// Scalars: byte offset just past the content. Containers: tape index past the subtree.
        var end: Int32
        /// Containers: number of elements or members.
        var count: Int32
    }

    package let bytes: [UInt8]
    var nodes: [Node]
    /// Line and column checkpoints, built on the first message and shared by every copy.
    package let locator = TextLocator()

    /// The tape index of the root value.
    package var root: Int { 0 }

    /// The most nested containers a document may open; deeper input is an error, not a crash.
    package static let defaultDepthLimit = 1_000_000

    /// Parses `bytes`. With `records`, the objects that are elements of the root array (a dump
    /// thread's records) keep only the members it names: the others are parsed and checked like
    /// any JSON, and left off the tape, so a Reddit record of sixty members costs the tape and
    /// every lookup the few its importer reads.
    ///
    /// - Parameter sequence: read JSON Lines (or any whitespace-separated JSON values) as one
    ///   implicit array at the root; offsets, and so lines and columns, stay those of the file.
    package init(
        bytes: [UInt8], depthLimit: Int = JSONDocument.defaultDepthLimit, sequence: Bool = false,
        records: JSONMemberFilter? = nil
    ) throws(JSONSyntaxError) {
        guard bytes.count < Int(Int32.max) else {
            throw JSONSyntaxError(offset: 0, message: "the file is larger than 2 GiB, which Threadfold does not read")
        }
        self.bytes = bytes
        var parser = JSONParser(bytes: bytes, depthLimit: depthLimit, sequence: sequence)
        parser.records = records
        self.nodes = try parser.parse()
    }

    // MARK: Reading nodes

    package func kind(_ index: Int) -> Kind { nodes[index].kind }

    /// The byte offset where the value at `index` starts (its opening quote for strings).
    package func offset(_ index: Int) -> Int {
        let node = nodes[index]
        return Int(node.start) - (node.kind == .string ? 1 : 0)
    }

    /// The tape index just past the value at `index` and everything inside it.
    package func next(_ index: Int) -> Int {
        let node = nodes[index]
        switch node.kind {
        case .object, .array: return Int(node.end)
        default: return index + 1
        }
    }

    /// Number of elements of an array or members of an object.
    package func count(_ index: Int) -> Int { Int(nodes[index].count) }

    /// Calls `body` with the tape index of each element of the array at `index`.
    @inline(__always)
    package func forEachElement(_ index: Int, _ body: (_ position: Int, _ element: Int) throws -> Void) rethrows {
        var child = index + 1
        for position in 0..<Int(nodes[index].count) {
            try body(position, child)
            child = next(child)
        }
    }

    /// Calls `body` with the decoded key and the tape index of each member's value, in order.
    @inline(__always)
    package func forEachMember(_ index: Int, _ body: (_ key: String, _ value: Int) throws -> Void) rethrows {
        try forEachMemberNode(index) { key, value in try body(string(key), value) }
    }

    /// Calls `body` with the tape index of each member's key and of its value, in order: for a
    /// reader that matches keys with `memberName(_:in:)` rather than decoding each one.
    @inline(__always)
    package func forEachMemberNode(_ index: Int, _ body: (_ key: Int, _ value: Int) throws -> Void) rethrows {
        var key = index + 1
        for _ in 0..<Int(nodes[index].count) {
            try body(key, key + 1)
            key = next(key + 1)
        }
    }

    /// Which of the filter's names the key at tape index `key` is: its place in the list the
    /// filter was made with, or nil. Compared as bytes where the key stands; only a key with a
    /// backslash escape is decoded first.
    @inline(__always)
    package func memberName(_ key: Int, in names: JSONMemberFilter) -> Int? {
        let node = nodes[key]
        guard !node.flag else { return names.place(of: string(key)) }
        return bytes.withUnsafeBufferPointer { names.place($0, Int(node.start)..<Int(node.end)) }
    }

    /// The value of member `name` in the object at `index` (the last one, if repeated).
    ///
    /// Keys are compared as bytes where they stand; only a key with a backslash escape is decoded
    /// first. Importers look up a dozen members per comment, so no key becomes a `String` here.
    package func member(_ index: Int, _ name: String) -> Int? {
        // Only an object has members; the loop below reads its tape as key and value pairs.
        guard nodes[index].kind == .object else { return nil }
        var name = name
        return name.withUTF8 { wanted in
            bytes.withUnsafeBufferPointer { buffer in
                // Dump lines carry 50 and more members, every one compared for each name a reader
                // asks for: the tape is read without bounds checks (a well-formed tape's member
                // keys and values are all inside it).
                nodes.withUnsafeBufferPointer { tape in
                    var found: Int?
                    var key = index + 1
                    for _ in 0..<Int(tape[index].count) {
                        let node = tape[key]
                        let start = Int(node.start), end = Int(node.end)
                        if node.flag {
                            if string(key).utf8.elementsEqual(wanted) { found = key + 1 }
                        } else if end - start == wanted.count,
                            wanted.count == 0 || memcmp(buffer.baseAddress! + start, wanted.baseAddress!, wanted.count) == 0
                        {
                            found = key + 1
                        }
                        let value = tape[key + 1]
                        key = value.kind == .object || value.kind == .array ? Int(value.end) : key + 2
                    }
                    return found
                }
            }
        }
    }

    /// The decoded text of the string at `index`.
    package func string(_ index: Int) -> String {
        let node = nodes[index]
        let start = Int(node.start), end = Int(node.end)
        return bytes.withUnsafeBufferPointer { buffer in
            let raw = UnsafeBufferPointer(rebasing: buffer[start..<end])
            if !node.flag { return String(decoding: raw, as: UTF8.self) }
            // Unescaping only shrinks text, so it is written straight into the string's storage.
            return String(unsafeUninitializedCapacity: raw.count) { out in
                JSONDocument.unescape(raw, into: out)
            }
        }
    }

    /// The source text of the number at `index`, exactly as written.
    package func numberText(_ index: Int) -> String {
        let node = nodes[index]
        return String(decoding: bytes[Int(node.start)..<Int(node.end)], as: UTF8.self)
    }

    /// Whether the number at `index` has no fraction and no exponent.
    package func isInteger(_ index: Int) -> Bool { nodes[index].kind == .number && nodes[index].flag }

    /// The number at `index` as an exact 64-bit integer, or nil if it is not one or does not fit.
    package func int64(_ index: Int) -> Int64? {
        guard isInteger(index) else { return nil }
        let node = nodes[index]
        let start = Int(node.start), end = Int(node.end)
        // The parser checked the grammar (`-?(0|[1-9][0-9]*)`), and 18 digits cannot overflow:
        // read them in place. Longer ones go through the standard library's checked parse.
        return bytes.withUnsafeBufferPointer { Self.int64(integer: UnsafeBufferPointer(rebasing: $0[start..<end])) }
    }

    /// An integer's text as the parser checks it (`-?(0|[1-9][0-9]*)`) as an exact 64-bit
    /// integer, or nil if it does not fit. 18 digits cannot overflow: they are read in place;
    /// longer ones go through the standard library's checked parse.
    static func int64(integer text: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard text.count <= 18 else { return Int64(String(decoding: text, as: UTF8.self)) }
        guard let first = text.first else { return nil }
        let negative = first == UInt8(ascii: "-")
        var value: Int64 = 0
        for digit in text.dropFirst(negative ? 1 : 0) { value = value * 10 + Int64(digit &- 48) }
        return negative ? -value : value
    }

    /// The number at `index` as a Double (which may round).
    package func double(_ index: Int) -> Double? {
        guard nodes[index].kind == .number else { return nil }
        return Double(numberText(index))
    }

    /// 1-based line and column (in Unicode scalars) of a byte offset.
    /// The line and column (in characters) of a byte offset. The first call indexes the bytes
    /// up to it; later calls cost at most one block's scan, so a file with many messages costs
    /// linear time, not a scan from the first byte per message.
    package func location(ofOffset offset: Int) -> (line: Int, column: Int) {
        locator.location(in: bytes, offset: offset)
    }

    static func location(in bytes: [UInt8], offset: Int) -> (line: Int, column: Int) {
        var line = 1, column = 1
        let end = min(offset, bytes.count)
        var i = 0
        while i < end {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return (line, column)
    }

    /// Decodes backslash escapes of an already validated string body into `out` (at least as
    /// long as `raw`) and returns the length written. Lone surrogates become U+FFFD.
    static func unescape(_ raw: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var length = 0
        func put(_ byte: UInt8) {
            out[length] = byte
            length += 1
        }
        var i = 0
        func hex4(_ at: Int) -> UInt32 {
            var value: UInt32 = 0
            for k in at..<(at + 4) {
                let c = raw[k]
                let digit: UInt8
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
                default: digit = c - UInt8(ascii: "A") + 10
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        func append(scalar: UInt32) {
            let scalar = Unicode.Scalar(scalar) ?? "\u{FFFD}"
            for byte in UTF8.encode(scalar)! { put(byte) }
        }
        while i < raw.count {
            // The bytes up to the next backslash, copied at once.
            let run = (ByteSearch.first(UInt8(ascii: "\\"), in: raw, from: i) ?? raw.count) - i
            if run > 0 {
                (out.baseAddress! + length).update(from: raw.baseAddress! + i, count: run)
                length += run
                i += run
                continue
            }
            let escape = raw[i + 1]
            i += 2
            switch escape {
            case UInt8(ascii: "n"): put(0x0A)
            case UInt8(ascii: "t"): put(0x09)
            case UInt8(ascii: "r"): put(0x0D)
            case UInt8(ascii: "b"): put(0x08)
            case UInt8(ascii: "f"): put(0x0C)
            case UInt8(ascii: "u"):
                let unit = hex4(i)
                i += 4
                if unit >= 0xD800 && unit < 0xDC00, i + 6 <= raw.count,
                    raw[i] == UInt8(ascii: "\\"), raw[i + 1] == UInt8(ascii: "u")
                {
                    let low = hex4(i + 2)
                    if low >= 0xDC00 && low < 0xE000 {
                        i += 6
                        append(scalar: 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                        continue
                    }
                }
                append(scalar: unit)  // a lone surrogate is not a scalar: U+FFFD
            default: put(escape)  // \" \\ \/
            }
        }
        return length
    }
}

/// A JSON syntax error at a byte offset; `Problem` turns it into `file:line:col`.
package struct JSONSyntaxError: Error, Sendable {
    package var offset: Int
    package var message: String
    /// A complete value was followed by more: the file may be JSON Lines.
    package var isTrailingContent = false

    package init(offset: Int, message: String, isTrailingContent: Bool = false) {
        self.offset = offset
        self.message = message
        self.isTrailingContent = isTrailingContent
    }
}

/// The iterative parser behind `JSONDocument`.
struct JSONParser {
    let bytes: [UInt8]
    let depthLimit: Int
    /// JSON Lines: top-level values are the elements of an implicit root array.
    let sequence: Bool
    var nodes: [JSONDocument.Node] = []
    var position = 0
    /// The members kept in the root array's objects (`JSONDocument.init(records:)`).
    var records: JSONMemberFilter?

    init(bytes: [UInt8], depthLimit: Int, sequence: Bool = false) {
        self.bytes = bytes
        self.depthLimit = depthLimit
        self.sequence = sequence
    }

    private enum Expect { case value, valueOrArrayEnd, keyOrObjectEnd, key, colon, commaOrEnd }

    /// An open container: its tape index, its elements or members so far, and which it is.
    private struct Open {
        var index: Int32
        var count: Int32
        var isArray: Bool
    }

    mutating func parse() throws(JSONSyntaxError) -> [JSONDocument.Node] {
        let bytes = self.bytes
        return try bytes.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) in try parse(buffer) }
    }

    /// The parse, over the document's bytes (`b`), read without bounds checks: every index is
    /// checked against `b.count` first.
    private mutating func parse(_ b: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> [JSONDocument.Node] {
        nodes.reserveCapacity(b.count / 16 + 16)
        let count = b.count
        // A UTF-8 byte order mark is tolerated.
        if count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { position = 3 }
        // The open containers, innermost last, with their counts so far: a count is written to
        // its node when the container closes, not bumped in the tape for every value.
        var stack: [Open] = []
        stack.reserveCapacity(16)
        var expect = Expect.value
        // The tape index of a record's member being left off (its key), from its key until its
        // value is complete; -1 when none is.
        var dropFrom = -1
        if sequence {
            nodes.append(.init(kind: .array, flag: false, start: 0, end: 0, count: 0))
            stack.append(Open(index: 0, count: 0, isArray: true))
        }
        while true {
            Self.skipWhitespace(b, &position)
            guard position < count else {
                if sequence && stack.count == 1 && (expect == .commaOrEnd || stack[0].count == 0) {
                    nodes[0].end = Int32(nodes.count)
                    nodes[0].count = stack[0].count
                    return nodes
                }
                if let open = stack.last, !(sequence && stack.count == 1) {
                    let what = open.isArray ? "array" : "object"
                    throw JSONSyntaxError(
                        offset: count, message: "the file ends inside an \(what) opened at byte \(nodes[Int(open.index)].start): it is cut short (truncated); expected the rest of the file")
                }
                throw JSONSyntaxError(offset: count, message: "the file is empty; expected a JSON value")
            }
            let byte = b[position]
            switch expect {
            case .value, .valueOrArrayEnd:
                if expect == .valueOrArrayEnd && byte == UInt8(ascii: "]") {
                    close(&stack)
                } else {
                    switch byte {
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        guard stack.count < depthLimit else {
                            throw JSONSyntaxError(offset: position, message: "nesting deeper than \(depthLimit) levels; expected a shallower document")
                        }
                        bumpCount(&stack)
                        stack.append(Open(index: Int32(nodes.count), count: 0, isArray: byte == UInt8(ascii: "[")))
                        nodes.append(.init(kind: byte == UInt8(ascii: "{") ? .object : .array, flag: false, start: Int32(position), end: 0, count: 0))
                        position += 1
                        expect = byte == UInt8(ascii: "{") ? .keyOrObjectEnd : .valueOrArrayEnd
                        continue
                    case UInt8(ascii: "\""):
                        bumpCount(&stack)
                        try parseString(b)
                    case UInt8(ascii: "t"):
                        bumpCount(&stack)
                        try literal(b, "true", .true)
                    case UInt8(ascii: "f"):
                        bumpCount(&stack)
                        try literal(b, "false", .false)
                    case UInt8(ascii: "n"):
                        bumpCount(&stack)
                        try literal(b, "null", .null)
                    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                        bumpCount(&stack)
                        try parseNumber(b)
                    default:
                        throw JSONSyntaxError(offset: position, message: "found \(describe(at: position)); expected a JSON value")
                    }
                }
                if stack.isEmpty { return try finish(b) }
                expect = .commaOrEnd
            case .keyOrObjectEnd, .key:
                if expect == .keyOrObjectEnd && byte == UInt8(ascii: "}") {
                    close(&stack)
                    if stack.isEmpty { return try finish(b) }
                    expect = .commaOrEnd
                } else if byte == UInt8(ascii: "\"") {
                    stack[stack.count - 1].count += 1
                    let key = nodes.count
                    try parseString(b)
                    // A key with an escape is kept: the filter compares raw bytes.
                    if let records, stack.count == 2, stack[0].isArray, !nodes[key].flag,
                        !records.keeps(b, Int(nodes[key].start)..<Int(nodes[key].end))
                    {
                        dropFrom = key
                    }
                    expect = .colon
                } else {
                    throw JSONSyntaxError(offset: position, message: "found \(describe(at: position)); expected a member name in double quotes")
                }
            case .colon:
                guard byte == UInt8(ascii: ":") else {
                    throw JSONSyntaxError(offset: position, message: "found \(describe(at: position)); expected ':' after the member name")
                }
                position += 1
                expect = .value
            case .commaOrEnd:
                if dropFrom >= 0 && stack.count == 2 {
                    // The left-off member's value is complete: off the tape, and out of the count.
                    nodes.removeLast(nodes.count - dropFrom)
                    stack[1].count -= 1
                    dropFrom = -1
                }
                if sequence && stack.count == 1 {
                    // The next line's value: no comma between JSON Lines.
                    guard byte != UInt8(ascii: ",") else {
                        throw JSONSyntaxError(offset: position, message: "found ',' between JSON Lines; expected one value per line")
                    }
                    expect = .value
                    continue
                }
                let isObject = !stack[stack.count - 1].isArray
                if byte == UInt8(ascii: ",") {
                    position += 1
                    expect = isObject ? .key : .value
                } else if byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    close(&stack)
                    if stack.isEmpty { return try finish(b) }
                } else {
                    throw JSONSyntaxError(offset: position, message: "found \(describe(at: position)); expected ',' or '\(isObject ? "}" : "]")'")
                }
            }
        }
    }

    /// The root value is complete: only whitespace may follow.
    private mutating func finish(_ b: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> [JSONDocument.Node] {
        Self.skipWhitespace(b, &position)
        if position < b.count {
            throw JSONSyntaxError(
                offset: position, message: "found \(describe(at: position)) after the end of the document; expected nothing more",
                isTrailingContent: true)
        }
        return nodes
    }

    /// Counts one more element when the open container is an array. Object members are
    /// counted at their keys, so a member's value does not count twice.
    @inline(__always)
    private func bumpCount(_ stack: inout [Open]) {
        guard !stack.isEmpty, stack[stack.count - 1].isArray else { return }
        stack[stack.count - 1].count += 1
    }

    private mutating func close(_ stack: inout [Open]) {
        let top = stack.removeLast()
        nodes[Int(top.index)].end = Int32(nodes.count)
        nodes[Int(top.index)].count = top.count
        position += 1
    }

    /// Skips white space from `i` in `b`, long runs of spaces eight bytes at a time. (`JSONScan`
    /// keeps a plain loop of its own: this one cost its scan 5% more.)
    @inline(__always)
    static func skipWhitespace(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int) {
        let count = b.count
        while i < count {
            switch b[i] {
            case 0x20:
                i += 1
                // Long runs of spaces (a dump record's members left off by the partition pass,
                // deep indentation), eight at a time.
                while i + 8 <= count, ByteSearch.Word(b.baseAddress! + i).bits == 0x2020_2020_2020_2020 {
                    i += 8
                }
            case 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    private mutating func literal(_ b: UnsafeBufferPointer<UInt8>, _ word: StaticString, _ kind: JSONDocument.Kind) throws(JSONSyntaxError) {
        let end = try Self.scanLiteral(b, at: position, word)
        nodes.append(.init(kind: kind, flag: false, start: Int32(position), end: Int32(end), count: 0))
        position = end
    }

    /// The end of literal `word` (`true`, `false` or `null`) at `start`, or an error.
    static func scanLiteral(_ b: UnsafeBufferPointer<UInt8>, at start: Int, _ word: StaticString) throws(JSONSyntaxError) -> Int {
        let length = word.utf8CodeUnitCount
        var matches = start + length <= b.count
        if matches {
            // Four bytes at once ("true", "null", "fals"), then the fifth of "false".
            let here = UnsafeRawPointer(b.baseAddress! + start), wanted = UnsafeRawPointer(word.utf8Start)
            matches =
                here.loadUnaligned(as: UInt32.self) == wanted.loadUnaligned(as: UInt32.self)
                && (length == 4 || b[start + 4] == word.utf8Start[4])
        }
        guard matches else {
            throw JSONSyntaxError(offset: start, message: "found \(describe(b, at: start)); expected a JSON value (true, false and null are lower case)")
        }
        return start + length
    }

    private mutating func parseNumber(_ b: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) {
        let (end, integer) = try Self.scanNumber(b, at: position)
        nodes.append(.init(kind: .number, flag: integer, start: Int32(position), end: Int32(end), count: 0))
        position = end
    }

    /// The end of the number at `start` and whether it is an integer (no fraction or exponent), or an error.
    static func scanNumber(_ b: UnsafeBufferPointer<UInt8>, at start: Int) throws(JSONSyntaxError) -> (end: Int, integer: Bool) {
        let count = b.count
        var i = start
        var integer = true
        func digit(_ at: Int) -> Bool { at < count && b[at] >= UInt8(ascii: "0") && b[at] <= UInt8(ascii: "9") }
        if b[i] == UInt8(ascii: "-") { i += 1 }
        guard digit(i) else {
            throw JSONSyntaxError(offset: start, message: "found a '-' without digits; expected a number")
        }
        if b[i] == UInt8(ascii: "0") {
            i += 1
            if digit(i) { throw JSONSyntaxError(offset: start, message: "found a number with a leading zero; expected no leading zeros") }
        } else {
            while digit(i) { i += 1 }
        }
        if i < count && b[i] == UInt8(ascii: ".") {
            integer = false
            i += 1
            guard digit(i) else { throw JSONSyntaxError(offset: i, message: "found a '.' without digits after it; expected a fraction") }
            while digit(i) { i += 1 }
        }
        if i < count && (b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E")) {
            integer = false
            i += 1
            if i < count && (b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-")) { i += 1 }
            guard digit(i) else { throw JSONSyntaxError(offset: i, message: "found an exponent without digits; expected digits after 'e'") }
            while digit(i) { i += 1 }
        }
        return (i, integer)
    }

    private mutating func parseString(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) {
        let (end, escaped) = try Self.scanString(buffer, at: position)
        nodes.append(.init(kind: .string, flag: escaped, start: Int32(position + 1), end: Int32(end), count: 0))
        position = end + 1
    }

    /// The offset of the closing quote of the string whose opening quote is at `quote`, and
    /// whether it holds a backslash escape; or an error (a bad escape, a control character,
    /// invalid UTF-8, no closing quote).
    static func scanString(_ buffer: UnsafeBufferPointer<UInt8>, at quote: Int) throws(JSONSyntaxError) -> (end: Int, escaped: Bool) {
        var escaped = false
        let result: Int = try { () throws(JSONSyntaxError) -> Int in
            let count = buffer.count
            var i = quote + 1
            while i < count {
                // Eight bytes at a time to the next quote, backslash, control character or byte
                // outside ASCII: most of a document's bytes are plain text inside strings.
                if let base = buffer.baseAddress {
                    while i + 8 <= count {
                        let word = ByteSearch.Word(base + i)
                        let special = word.nonASCII | word.below(0x20) | word.equal(UInt8(ascii: "\"")) | word.equal(UInt8(ascii: "\\"))
                        if special != 0 {
                            i += ByteSearch.Word.first(special)
                            break
                        }
                        i += 8
                    }
                    guard i < count else { break }
                }
                let byte = buffer[i]
                if byte == UInt8(ascii: "\"") { return i }
                if byte == UInt8(ascii: "\\") {
                    escaped = true
                    guard i + 1 < count else { break }
                    switch buffer[i + 1] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                        UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        i += 2
                    case UInt8(ascii: "u"):
                        guard i + 5 < count, (2...5).allSatisfy({ isHex(buffer[i + $0]) }) else {
                            throw JSONSyntaxError(offset: i, message: "found a broken \\u escape; expected four hex digits")
                        }
                        i += 6
                    default:
                        throw JSONSyntaxError(offset: i, message: "found the escape '\\\(printable(buffer[i + 1]))'; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
                    }
                } else if byte < 0x20 {
                    throw JSONSyntaxError(offset: i, message: "found control character U+\(hex2(byte)) inside a string; expected it escaped (\\n, \\t, \\u00XX)")
                } else if byte < 0x80 {
                    i += 1
                } else {
                    let length = utf8Length(buffer, i)
                    guard length > 0 else {
                        throw JSONSyntaxError(offset: i, message: "found invalid UTF-8 (byte 0x\(hex2(byte))); expected UTF-8 text")
                    }
                    i += length
                }
            }
            // A string runs to the end of the file only when the file stops inside it: a missing
            // quote in a whole file meets the next string's quote first.
            throw JSONSyntaxError(offset: quote, message: "the file is cut short (truncated) inside the string that starts here; expected the rest of the file, from the string's closing '\"' on")
        }()
        return (result, escaped)
    }

    private func describe(at offset: Int) -> String {
        bytes.withUnsafeBufferPointer { Self.describe($0, at: offset) }
    }

    /// How a message names the byte at `offset` of `b`.
    static func describe(_ b: UnsafeBufferPointer<UInt8>, at offset: Int) -> String {
        guard offset < b.count else { return "the end of the file" }
        let byte = b[offset]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(hex2(byte))"
    }
}

@inline(__always)
private func isHex(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): return true
    default: return false
    }
}

private func hex2(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}

private func printable(_ byte: UInt8) -> String {
    byte >= 0x21 && byte < 0x7F ? String(Character(Unicode.Scalar(byte))) : "x\(hex2(byte))"
}

/// Length of the valid UTF-8 sequence at `i`, or 0 if it is not valid (overlong, surrogate, truncated).
@inline(__always)
func utf8Length(_ buffer: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
    let count = buffer.count
    let b0 = buffer[i]
    func cont(_ k: Int) -> Bool { i + k < count && buffer[i + k] & 0xC0 == 0x80 }
    switch b0 {
    case 0xC2...0xDF:
        return cont(1) ? 2 : 0
    case 0xE0:
        return i + 2 < count && (0xA0...0xBF).contains(buffer[i + 1]) && cont(2) ? 3 : 0
    case 0xE1...0xEC, 0xEE...0xEF:
        return cont(1) && cont(2) ? 3 : 0
    case 0xED:
        return i + 2 < count && (0x80...0x9F).contains(buffer[i + 1]) && cont(2) ? 3 : 0
    case 0xF0:
        return i + 3 < count && (0x90...0xBF).contains(buffer[i + 1]) && cont(2) && cont(3) ? 4 : 0
    case 0xF1...0xF3:
        return cont(1) && cont(2) && cont(3) ? 4 : 0
    case 0xF4:
        return i + 3 < count && (0x80...0x8F).contains(buffer[i + 1]) && cont(2) && cont(3) ? 4 : 0
    default:
        return 0
    }
}

/// Where lines and columns stand at every `block`-th byte of a text, computed once as far as
/// messages need, so locating a byte costs at most one block's scan. Thread-safe: the documents
/// of a build may be read from several workers.
package final class TextLocator: Sendable {
    static let block = 4096

    struct Checkpoint: Equatable {
        var line: Int
        var column: Int
    }

    /// Checkpoint k is the position at byte k × block. Empty until a message asks: a document is
    /// made for every line of a dump, and most are never asked.
    private let checkpoints = Mutex<[Checkpoint]>([])

    package init() {}

    package func location(in bytes: [UInt8], offset: Int) -> (line: Int, column: Int) {
        let end = max(0, min(offset, bytes.count))
        let wanted = end / Self.block
        let start: Checkpoint = checkpoints.withLock { points in
            if points.isEmpty { points.append(Checkpoint(line: 1, column: 1)) }
            while points.count <= wanted {
                let k = points.count - 1
                points.append(Self.advance(points[k], bytes, from: k * Self.block, to: min((k + 1) * Self.block, bytes.count)))
            }
            return points[wanted]
        }
        let point = Self.advance(start, bytes, from: wanted * Self.block, to: end)
        return (point.line, point.column)
    }

    /// The position at `to`, from `point` at `from`: a line per newline, a column per scalar
    /// (every byte but UTF-8 continuation bytes). Lines before the last are passed newline to
    /// newline (`memchr`), their scalars uncounted, as a dump's thread is scanned whole once its
    /// first message is located; the last line's scalars are counted eight bytes at a time.
    static func advance(_ point: Checkpoint, _ bytes: [UInt8], from: Int, to: Int) -> Checkpoint {
        var point = point
        bytes.withUnsafeBufferPointer { buffer in
            var i = from
            if let base = buffer.baseAddress {
                let upTo = UnsafeBufferPointer(rebasing: buffer[..<to])
                while let newline = ByteSearch.first(0x0A, in: upTo, from: i) {
                    i = newline + 1
                    point.line += 1
                    point.column = 1
                }
                // No newline is left: a column for each byte but UTF-8 continuation bytes.
                while i + 8 <= to {
                    point.column += 8 - ByteSearch.Word(base + i).continuations.nonzeroBitCount
                    i += 8
                }
            }
            while i < to {
                if buffer[i] & 0xC0 != 0x80 { point.column += 1 }
                i += 1
            }
        }
        return point
    }
}

/// A list of member names, matched against raw bytes: by length, then by their first eight bytes
/// as one word, and only a longer name's rest byte by byte. It names the members a parse keeps in a
/// dump thread's records (`JSONDocument.init(records:)`, `keeps`), and tells a reader which of its
/// names a key is, by its place in the list (`place`, `JSONDocument.memberName`).
package struct JSONMemberFilter: Sendable {
    /// The names of length n are `heads[first[n]..<first[n + 1]]` (and `names` alike).
    private let first: [Int]
    /// Each name's first eight bytes (fewer, zero-padded), as a little-endian word.
    private let heads: [UInt64]
    private let names: [[UInt8]]
    /// Each name's place in the list the filter was made with (its first place, if repeated).
    private let places: [Int]
    /// How many names the list the filter was made with holds: every place is below it.
    package let size: Int
    /// Tells filters apart without comparing their names: each one made takes the next number.
    let identity: Int
    private static let made = Atomic<Int>(0)

    /// Keeps no member.
    static let none = JSONMemberFilter([])

    package init(_ names: [String]) {
        var placed: [[UInt8]: Int] = [:]
        for (place, name) in names.enumerated() where placed[Array(name.utf8)] == nil { placed[Array(name.utf8)] = place }
        let sorted = placed.keys.sorted { $0.count != $1.count ? $0.count < $1.count : $0.lexicographicallyPrecedes($1) }
        let longest = sorted.last?.count ?? 0
        var first: [Int] = []
        for length in 0...(longest + 1) { first.append(sorted.firstIndex { $0.count >= length } ?? sorted.count) }
        self.first = first
        heads = sorted.map { name in name.withUnsafeBufferPointer { $0.isEmpty ? 0 : Self.head($0.baseAddress!, count: $0.count) } }
        self.names = sorted
        places = sorted.map { placed[$0]! }
        size = names.count
        identity = Self.made.add(1, ordering: .relaxed).newValue
    }

    /// The place of `name` in the list the filter was made with, or nil.
    func place(of name: String) -> Int? {
        // A literal's bytes are read where they stand; any other string is made contiguous first.
        if let found = name.utf8.withContiguousStorageIfAvailable({ place($0, 0..<$0.count) }) { return found }
        var name = name
        return name.withUTF8 { place($0, 0..<$0.count) }
    }

    /// Up to the first eight of `count` bytes at `bytes` as a little-endian word, zero-padded.
    @inline(__always)
    private static func head(_ bytes: UnsafePointer<UInt8>, count: Int) -> UInt64 {
        var word: UInt64 = 0
        for i in 0..<min(8, count) { word |= UInt64(bytes[i]) << (8 * UInt64(i)) }
        return word
    }

    /// Whether the name whose raw bytes (between its quotes) are `b[range]` is kept.
    @inline(__always)
    func keeps(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool { place(b, range) != nil }

    /// The place, in the list the filter was made with, of the name whose raw bytes (between its
    /// quotes) are `b[range]`, or nil when it is not one of them: compared by length, then by
    /// its first eight bytes as one word (read at once when `b` holds eight bytes from there),
    /// and only a longer name's rest byte by byte.
    @inline(__always)
    func place(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        let count = range.count
        guard count + 1 < first.count else { return nil }
        let lower = first[count], upper = first[count + 1]
        guard lower < upper, let base = b.baseAddress else { return nil }
        let key = base + range.lowerBound
        let head: UInt64
        if range.lowerBound + 8 <= b.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(key).loadUnaligned(as: UInt64.self))
            head = count >= 8 ? word : word & ((1 << (8 * UInt64(count))) - 1)
        } else {
            head = Self.head(key, count: count)
        }
        for k in lower..<upper where heads[k] == head {
            if count <= 8 { return places[k] }
            if names[k].withUnsafeBufferPointer({ memcmp($0.baseAddress! + 8, key + 8, count - 8) == 0 }) { return places[k] }
        }
        return nil
    }
}
