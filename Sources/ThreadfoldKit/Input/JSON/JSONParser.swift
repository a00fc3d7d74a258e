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

    mutating func parse() throws(JSONError) -> [JSONDocument.Node] {
        let bytes = self.bytes
        return try bytes.withUnsafeBufferPointer { (buffer) throws(JSONError) in try parse(buffer) }
    }

    /// The parse, over the document's bytes (`b`), read without bounds checks: every index is
    /// checked against `b.count` first.
    private mutating func parse(_ b: UnsafeBufferPointer<UInt8>) throws(JSONError) -> [JSONDocument.Node] {
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
            guard position < count else { return try ended(stack, expect: expect) }
            let byte = b[position]
            switch expect {
            case .value, .valueOrArrayEnd:
                if expect == .valueOrArrayEnd && byte == UInt8(ascii: "]") {
                    close(&stack)
                } else if let opened = try value(b, byte, &stack) {
                    expect = opened
                    continue
                }
                if stack.isEmpty { return try finish(b) }
                expect = .commaOrEnd
            case .keyOrObjectEnd, .key:
                if expect == .keyOrObjectEnd && byte == UInt8(ascii: "}") {
                    close(&stack)
                    if stack.isEmpty { return try finish(b) }
                    expect = .commaOrEnd
                } else if byte == UInt8(ascii: "\"") {
                    try key(b, &stack, dropFrom: &dropFrom)
                    expect = .colon
                } else {
                    throw JSONError(offset: position, message: "found \(describe(at: position)); expected a member name in double quotes")
                }
            case .colon:
                guard byte == UInt8(ascii: ":") else {
                    throw JSONError(offset: position, message: "found \(describe(at: position)); expected ':' after the member name")
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
                        throw JSONError(offset: position, message: "found ',' between JSON Lines; expected one value per line")
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
                    throw JSONError(offset: position, message: "found \(describe(at: position)); expected ',' or '\(isObject ? "}" : "]")'")
                }
            }
        }
    }

    /// The value that starts with `byte`, at `position`: a scalar is read whole (nil); a
    /// container is opened, and what it expects first is returned.
    @inline(__always)
    private mutating func value(_ b: UnsafeBufferPointer<UInt8>, _ byte: UInt8, _ stack: inout [Open]) throws(JSONError) -> Expect? {
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard stack.count < depthLimit else {
                throw JSONError(offset: position, message: "nesting deeper than \(depthLimit) levels; expected a shallower document")
            }
            bumpCount(&stack)
            stack.append(Open(index: Int32(nodes.count), count: 0, isArray: byte == UInt8(ascii: "[")))
            nodes.append(.init(kind: byte == UInt8(ascii: "{") ? .object : .array, flag: false, start: Int32(position), end: 0, count: 0))
            position += 1
            return byte == UInt8(ascii: "{") ? .keyOrObjectEnd : .valueOrArrayEnd
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
            throw JSONError(offset: position, message: "found \(describe(at: position)); expected a JSON value")
        }
        return nil
    }

    /// A member's name, at `position`: counted in its object, and, in a record whose members are
    /// filtered, marked to be left off (`dropFrom`, its tape index) when the filter lacks it.
    @inline(__always)
    private mutating func key(_ b: UnsafeBufferPointer<UInt8>, _ stack: inout [Open], dropFrom: inout Int) throws(JSONError) {
        stack[stack.count - 1].count += 1
        let key = nodes.count
        try parseString(b)
        // A key with an escape is kept: the filter compares raw bytes.
        if let records, stack.count == 2, stack[0].isArray, !nodes[key].flag,
            !records.keeps(b, Int(nodes[key].start)..<Int(nodes[key].end))
        {
            dropFrom = key
        }
    }

    /// The input ended: the tape of a complete JSON Lines sequence, or an error for a document
    /// cut short or empty.
    private mutating func ended(_ stack: [Open], expect: Expect) throws(JSONError) -> [JSONDocument.Node] {
        let count = bytes.count
        if sequence && stack.count == 1 && (expect == .commaOrEnd || stack[0].count == 0) {
            nodes[0].end = Int32(nodes.count)
            nodes[0].count = stack[0].count
            return nodes
        }
        if let open = stack.last, !(sequence && stack.count == 1) {
            let what = open.isArray ? "array" : "object"
            throw JSONError(
                offset: count, message: "the file ends inside an \(what) opened at byte \(nodes[Int(open.index)].start): it is cut short (truncated); expected the rest of the file")
        }
        throw JSONError(offset: count, message: "the file is empty; expected a JSON value")
    }

    /// The root value is complete: only whitespace may follow.
    private mutating func finish(_ b: UnsafeBufferPointer<UInt8>) throws(JSONError) -> [JSONDocument.Node] {
        Self.skipWhitespace(b, &position)
        if position < b.count {
            throw JSONError(
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
    /// keeps a plain loop of its own, which its short runs of spaces pass faster.)
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

    private mutating func literal(_ b: UnsafeBufferPointer<UInt8>, _ word: StaticString, _ kind: JSONDocument.Kind) throws(JSONError) {
        let end = try Self.scanLiteral(b, at: position, word)
        nodes.append(.init(kind: kind, flag: false, start: Int32(position), end: Int32(end), count: 0))
        position = end
    }

    /// The end of literal `word` (`true`, `false` or `null`) at `start`, or an error.
    static func scanLiteral(_ b: UnsafeBufferPointer<UInt8>, at start: Int, _ word: StaticString) throws(JSONError) -> Int {
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
            throw JSONError(offset: start, message: "found \(describe(b, at: start)); expected a JSON value (true, false and null are lower case)")
        }
        return start + length
    }

    private mutating func parseNumber(_ b: UnsafeBufferPointer<UInt8>) throws(JSONError) {
        let (end, integer) = try Self.scanNumber(b, at: position)
        nodes.append(.init(kind: .number, flag: integer, start: Int32(position), end: Int32(end), count: 0))
        position = end
    }

    /// The end of the number at `start` and whether it is an integer (no fraction or exponent), or an error.
    static func scanNumber(_ b: UnsafeBufferPointer<UInt8>, at start: Int) throws(JSONError) -> (end: Int, integer: Bool) {
        let count = b.count
        var i = start
        var integer = true
        func digit(_ at: Int) -> Bool { at < count && b[at] >= UInt8(ascii: "0") && b[at] <= UInt8(ascii: "9") }
        if b[i] == UInt8(ascii: "-") { i += 1 }
        guard digit(i) else {
            throw JSONError(offset: start, message: "found a '-' without digits; expected a number")
        }
        if b[i] == UInt8(ascii: "0") {
            i += 1
            if digit(i) { throw JSONError(offset: start, message: "found a number with a leading zero; expected no leading zeros") }
        } else {
            while digit(i) { i += 1 }
        }
        if i < count && b[i] == UInt8(ascii: ".") {
            integer = false
            i += 1
            guard digit(i) else { throw JSONError(offset: i, message: "found a '.' without digits after it; expected a fraction") }
            while digit(i) { i += 1 }
        }
        if i < count && (b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E")) {
            integer = false
            i += 1
            if i < count && (b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-")) { i += 1 }
            guard digit(i) else { throw JSONError(offset: i, message: "found an exponent without digits; expected digits after 'e'") }
            while digit(i) { i += 1 }
        }
        return (i, integer)
    }

    private mutating func parseString(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONError) {
        let (end, escaped) = try Self.scanString(buffer, at: position)
        nodes.append(.init(kind: .string, flag: escaped, start: Int32(position + 1), end: Int32(end), count: 0))
        position = end + 1
    }

    /// The offset of the closing quote of the string whose opening quote is at `quote`, and
    /// whether it holds a backslash escape; or an error (a bad escape, a control character,
    /// invalid UTF-8, no closing quote).
    static func scanString(_ buffer: UnsafeBufferPointer<UInt8>, at quote: Int) throws(JSONError) -> (end: Int, escaped: Bool) {
        var escaped = false
        let result: Int = try { () throws(JSONError) -> Int in
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
                            throw JSONError(offset: i, message: "found a broken \\u escape; expected four hex digits")
                        }
                        i += 6
                    default:
                        throw JSONError(offset: i, message: "found the escape '\\\(printable(buffer[i + 1]))'; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
                    }
                } else if byte < 0x20 {
                    throw JSONError(offset: i, message: "found control character U+\(hex2(byte)) inside a string; expected it escaped (\\n, \\t, \\u00XX)")
                } else if byte < 0x80 {
                    i += 1
                } else {
                    let length = utf8Length(buffer, i)
                    guard length > 0 else {
                        throw JSONError(offset: i, message: "found invalid UTF-8 (byte 0x\(hex2(byte))); expected UTF-8 text")
                    }
                    i += length
                }
            }
            // A string runs to the end of the file only when the file stops inside it: a missing
            // quote in a whole file meets the next string's quote first.
            throw JSONError(offset: quote, message: "the file is cut short (truncated) inside the string that starts here; expected the rest of the file, from the string's closing '\"' on")
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
