#if canImport(Glibc)
    import Glibc
#endif

/// A check of one JSON document that builds nothing, and finds a few members of its root object.
///
/// The partition pass needs a value or two of each dump line (a Reddit comment's `link_id`, a
/// Hacker News item's `id` and `parent`), and must
/// refuse a line that is not JSON. A `JSONDocument` of a 60-member line is a tape of 120 nodes
/// made to be read once; this scan reads the same bytes with the parser's own string, number and
/// literal readers and keeps nothing but the members asked for (and, when asked, where the members
/// a filter does not keep are, to leave them off). It accepts no document the parser refuses; it
/// may refuse one the parser accepts (nesting deeper than 64 levels, a root member's name with an
/// escape), so a caller that is refused parses the document to find out why, or to read it the
/// slow way.
enum JSONScan {
    /// A member's value: its kind and where it starts; for a scalar, where it ends (for a
    /// string, the bytes between its quotes).
    struct Value: Equatable {
        var kind: JSONDocument.Kind
        var start: Int
        var end: Int
        /// A string holding a backslash escape, whose bytes are not its text.
        var escaped = false
        /// A number without fraction or exponent.
        var integer = false
    }

    enum Outcome: Equatable {
        /// Not a document the scan accepts: not JSON, a root that is not an object, nesting deeper
        /// than `depthLimit`, or a root member's name with an escape.
        case refused
        /// A JSON object, and the value of its last member with each name asked for (nil if none).
        case object(Found)
    }

    /// The values of the members asked for, by their place among the names: held in place, not
    /// in an array, so a scan allocates nothing (it runs once a dump line).
    struct Found: Equatable {
        /// The most names one scan finds.
        static let capacity = 3
        private var values: (Value?, Value?, Value?) = (nil, nil, nil)

        subscript(_ k: Int) -> Value? {
            get {
                precondition(k >= 0 && k < Self.capacity)
                switch k {
                case 0: return values.0
                case 1: return values.1
                default: return values.2
                }
            }
            set {
                precondition(k >= 0 && k < Self.capacity)
                switch k {
                case 0: values.0 = newValue
                case 1: values.1 = newValue
                default: values.2 = newValue
                }
            }
        }

        static func == (a: Found, b: Found) -> Bool { a[0] == b[0] && a[1] == b[1] && a[2] == b[2] }
    }

    /// Levels of nesting the scan follows; deeper documents are refused (the parser reads them).
    static let depthLimit = 64

    private enum Expect { case value, valueOrArrayEnd, keyOrObjectEnd, key, colon, commaOrEnd }

    /// Scans `b` as one JSON document whose root is an object, and finds its members `names`
    /// (of each, the last one, as `JSONDocument.member` does). A root member's name with an
    /// escape is refused: it might decode to one of them.
    ///
    /// With a filter (`keeping`), also finds what would leave off the root members whose names
    /// it does not keep: `blanks` (emptied first, and left empty without a filter) are the byte
    /// ranges that, each made one space a character (`leaveOff`), leave a document that parses
    /// to the members kept, in their order, each at the line and column where it was. A run of
    /// members left off goes with the comma after it; a run at the end, with the comma after
    /// the last member kept.
    ///
    /// At most `Found.capacity` names. The filter is borrowed, never copied: a copy retains its
    /// arrays, and the partition pass's threads, retaining one filter for every line, fought
    /// over its reference counts.
    static func rootMembers(
        _ b: UnsafeBufferPointer<UInt8>, named names: [StaticString], keeping: JSONMemberFilter? = nil,
        blanks: inout [Range<Int>]
    ) -> Outcome {
        if let keeping { return rootMembers(b, named: names, keeping: keeping, filtering: true, blanks: &blanks) }
        return rootMembers(b, named: names, keeping: .none, filtering: false, blanks: &blanks)
    }

    /// `rootMembers` with a filter that is used only when `filtering`.
    static func rootMembers(
        _ b: UnsafeBufferPointer<UInt8>, named names: [StaticString], keeping filter: borrowing JSONMemberFilter,
        filtering: Bool, blanks: inout [Range<Int>]
    ) -> Outcome {
        precondition(names.count <= Found.capacity)
        blanks.removeAll(keepingCapacity: true)
        do throws(JSONError) {
            return try scan(b, names: names, keeping: filter, filtering: filtering, blanks: &blanks)
        } catch {
            return .refused
        }
    }

    /// Where `leaveOff` took bytes out of a line: at byte `at` of what is left, `columns`
    /// characters were there. A column in what is left, plus the columns of every gap at or
    /// before its byte (`column(_:in:gaps:)`), is the column it had in the line.
    package struct Gap: Equatable, Sendable {
        package var at: UInt32
        package var columns: UInt32
    }

    /// Takes each of `blanks` of `b` (in order, as `rootMembers` found them) out, in place, and
    /// returns the document's new length; `gaps` (emptied first) says where each went and how
    /// many columns it held, so a message about what is left can name the column it had. A
    /// range holding a newline (a dump line has none) is made white space instead, a newline
    /// staying a newline and every other character one space, so what follows keeps its line.
    static func leaveOff(_ b: UnsafeMutableBufferPointer<UInt8>, blanks: [Range<Int>], gaps: inout [Gap]) -> Int {
        gaps.removeAll(keepingCapacity: true)
        guard let base = b.baseAddress else { return 0 }
        var write = 0
        var read = 0
        for range in blanks {
            // What is kept before the range moves back; the range is read ahead of where it is
            // written, so each byte is read before anything is written over it.
            if write != read { memmove(base + write, base + read, range.lowerBound - read) }
            write += range.lowerBound - read
            read = range.upperBound
            if memchr(base + range.lowerBound, 0x0A, range.count) == nil {
                // A column a character: every byte but UTF-8 continuations.
                var continuations = 0
                var k = range.lowerBound
                while k + 8 <= range.upperBound {
                    continuations += ByteSearch.Word(UnsafePointer(base + k)).continuationCount
                    k += 8
                }
                while k < range.upperBound {
                    if b[k] & 0xC0 == 0x80 { continuations += 1 }
                    k += 1
                }
                let columns = range.count - continuations
                if columns > 0 { gaps.append(Gap(at: UInt32(write), columns: UInt32(columns))) }
                continue
            }
            for k in range where b[k] & 0xC0 != 0x80 {
                b[write] = b[k] == 0x0A ? 0x0A : 0x20
                write += 1
            }
        }
        if write != read { memmove(base + write, base + read, b.count - read) }
        return write + (b.count - read)
    }

    /// The column that `column` (counted from 1, in characters) of the line at `line`, which
    /// `leaveOff` left with `gaps`, had before: the columns of every gap at or before its byte added.
    static func column(_ column: Int, in line: UnsafeBufferPointer<UInt8>, gaps: UnsafeBufferPointer<Gap>) -> Int {
        guard !gaps.isEmpty else { return column }
        // The byte that starts the column.
        var byte = 0, seen = 0
        while byte < line.count {
            if line[byte] & 0xC0 != 0x80 {
                seen += 1
                if seen == column { break }
            }
            byte += 1
        }
        var added = 0
        for gap in gaps where Int(gap.at) <= byte { added += Int(gap.columns) }
        return column + added
    }

    /// Which of `names` the root object of `b` has as members, from its structure alone: strings
    /// are passed over with memchr and nothing is checked. The answer is exact for every
    /// document the parser accepts, and means nothing for one it refuses, so it serves only a
    /// caller for whom a document that is not JSON comes to the same as one without the members
    /// (`DumpForm.mayDetect`). Nil when the root is not an object, or a root member's name holds
    /// an escape (it might decode to one of `names`).
    static func skimRootMembers(_ b: UnsafeBufferPointer<UInt8>, named names: [StaticString]) -> [Bool]? {
        guard let base = b.baseAddress, var i = rootObjectStart(b) else { return nil }
        let count = b.count
        var found = [Bool](repeating: false, count: names.count)
        var depth = 1
        // At depth 1, the next string is a member's name (after `{` or `,`), not a value.
        var nameNext = true
        while i < count {
            switch b[i] {
            case UInt8(ascii: "\""):
                // The closing quote: the first quote after an even run of backslashes (a pair is
                // an escaped backslash; an odd run escapes the quote). Quotes are found with
                // memchr; each backslash is counted once, for the quote that ends its run.
                let start = i + 1
                var j = start
                while true {
                    guard let hit = memchr(base + j, Int32(UInt8(ascii: "\"")), count - j) else { return nil }
                    let quote = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    var run = quote
                    while run > start && b[run - 1] == UInt8(ascii: "\\") { run -= 1 }
                    j = quote
                    if (quote - run) & 1 == 0 { break }
                    j += 1
                }
                if depth == 1 && nameNext {
                    if memchr(base + start, Int32(UInt8(ascii: "\\")), j - start) != nil { return nil }
                    for (k, name) in names.enumerated() where spells(b, start..<j, name) { found[k] = true }
                    nameNext = false
                }
                i = j + 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                i += 1
                if depth == 0 { return found }
            case UInt8(ascii: ","):
                if depth == 1 { nameNext = true }
                i += 1
            default:
                i += 1
            }
        }
        return nil
    }

    /// Every member of the root object `b` holds, in order: the bytes of its name (between its
    /// quotes) and of its value, checked as `rootMembers` checks them. Nil when `b` is not a
    /// document the scan accepts, or a name holds an escape (its bytes are not its text).
    static func members(_ b: UnsafeBufferPointer<UInt8>) -> [(name: Range<Int>, value: Range<Int>)]? {
        var members: [(name: Range<Int>, value: Range<Int>)] = []
        let accepted = try? forEachMember(b) { _, name, _, bytes, _ in members.append((name, bytes)) }
        return accepted == true ? members : nil
    }

    /// Where a root object's members begin: past a UTF-8 byte order mark (the parser tolerates
    /// one), white space and the `{`; nil when the root is not an object.
    private static func rootObjectStart(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { i = 3 }
        skipWhitespace(b, &i)
        return i < b.count && b[i] == UInt8(ascii: "{") ? i + 1 : nil
    }

    /// Whether the bytes of `b` in `range` (a name without escapes) are `name`.
    @inline(__always)
    private static func spells(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ name: StaticString) -> Bool {
        range.count == name.utf8CodeUnitCount && (range.isEmpty || memcmp(b.baseAddress! + range.lowerBound, name.utf8Start, range.count) == 0)
    }

    /// Skips white space from `i` in `b`. (The parser's own also passes long runs of spaces
    /// eight at a time, which lines as the scan reads them do not have, so a plain loop is
    /// faster here.)
    @inline(__always)
    private static func skipWhitespace(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int) {
        while i < b.count {
            switch b[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    /// The root object of `b`, a member at a time: its name, the colon, its value, the comma or
    /// the closing brace, in straight-line code (a document of dump records is mostly root
    /// members with short values); a value that is an object or an array goes through
    /// `container`. `body` is given each member's start (its name's quote), its name's bytes
    /// (between the quotes), its value, the value's bytes and where the `,` or `}` after it is.
    /// False when the scan refuses `b`: a root that is not a whole object, or a member's name
    /// with an escape (it may spell a name asked for: the parser decides).
    @inline(__always)
    private static func forEachMember(
        _ b: UnsafeBufferPointer<UInt8>,
        _ body: (_ member: Int, _ name: Range<Int>, _ value: Value, _ bytes: Range<Int>, _ separator: Int) -> Void
    ) throws(JSONError) -> Bool {
        let count = b.count
        guard count < Int(Int32.max), var i = rootObjectStart(b) else { return false }
        skipWhitespace(b, &i)
        guard i < count else { return false }
        if b[i] == UInt8(ascii: "}") {
            i += 1
        } else {
            while true {
                // The name.
                guard i < count, b[i] == UInt8(ascii: "\"") else { return false }
                let member = i
                let (nameEnd, escaped) = try JSONParser.scanString(b, at: i)
                if escaped { return false }
                i = nameEnd + 1
                skipWhitespace(b, &i)
                guard i < count, b[i] == UInt8(ascii: ":") else { return false }
                i += 1
                skipWhitespace(b, &i)
                guard i < count else { return false }
                let valueStart = i
                guard let value = try rootValue(b, at: &i) else { return false }
                let valueEnd = i
                // The comma or the brace after it.
                skipWhitespace(b, &i)
                guard i < count else { return false }
                let last = b[i] == UInt8(ascii: "}")
                guard last || b[i] == UInt8(ascii: ",") else { return false }
                body(member, (member + 1)..<nameEnd, value, valueStart..<valueEnd, i)
                i += 1
                if last { break }
                skipWhitespace(b, &i)
            }
        }
        // The root is complete: only white space may follow.
        skipWhitespace(b, &i)
        return i == count
    }

    /// The members `names` of the root object (`forEachMember`), and with a filter the runs of
    /// members it leaves off (`rootMembers`).
    private static func scan(
        _ b: UnsafeBufferPointer<UInt8>, names: [StaticString], keeping filter: borrowing JSONMemberFilter,
        filtering: Bool, blanks: inout [Range<Int>]
    ) throws(JSONError) -> Outcome {
        var found = Found()
        // The run of members left off so far (its first's start, its last's separator: the `,`
        // or `}` after it), and the separator after the last member kept; -1 for none.
        var runStart = -1
        var runEnd = -1
        var keptEnd = -1
        let accepted = try forEachMember(b) { member, name, value, _, separator in
            if let wanted = names.firstIndex(where: { spells(b, name, $0) }) { found[wanted] = value }
            guard filtering else { return }
            if filter.keeps(b, name) {
                if runStart >= 0 { blanks.append(runStart..<(runEnd + 1)) }
                runStart = -1
                keptEnd = separator
            } else {
                if runStart < 0 { runStart = member }
                runEnd = separator
                // The last member: the run takes the comma before it, and stops at the `}`.
                if b[separator] == UInt8(ascii: "}") { blanks.append((keptEnd >= 0 ? keptEnd : runStart)..<runEnd) }
            }
        }
        return accepted ? .object(found) : .refused
    }

    /// A root member's value, starting at `i`, which is moved past it; nil for one the scan
    /// refuses.
    @inline(__always)
    private static func rootValue(_ b: UnsafeBufferPointer<UInt8>, at i: inout Int) throws(JSONError) -> Value? {
        let byte = b[i]
        switch byte {
        case UInt8(ascii: "\""):
            let (end, escaped) = try JSONParser.scanString(b, at: i)
            defer { i = end + 1 }
            return Value(kind: .string, start: i + 1, end: end, escaped: escaped)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let value = Value(kind: byte == UInt8(ascii: "{") ? .object : .array, start: i, end: i)
            guard let end = try container(b, at: i) else { return nil }
            i = end
            return value
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            let kind: JSONDocument.Kind = byte == UInt8(ascii: "t") ? .true : byte == UInt8(ascii: "f") ? .false : .null
            let end = try JSONParser.scanLiteral(b, at: i, kind == .true ? "true" : kind == .false ? "false" : "null")
            defer { i = end }
            return Value(kind: kind, start: i, end: end)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let (end, integer) = try JSONParser.scanNumber(b, at: i)
            defer { i = end }
            return Value(kind: .number, start: i, end: end, integer: integer)
        default:
            return nil
        }
    }

    /// Checks the object or array opening at `start` (a root member's value, at depth 2) and
    /// returns where it ends (past its closing bracket); nil when it is not JSON or nests past
    /// `depthLimit` (its scalars' readers throw the parser's errors).
    private static func container(_ b: UnsafeBufferPointer<UInt8>, at start: Int) throws(JSONError) -> Int? {
        let count = b.count
        var i = start
        // Bit k is set when the container at depth k + 1 is an array; the root is an object.
        var arrays: UInt64 = 0
        var depth = 1
        var expect = Expect.value
        while true {
            skipWhitespace(b, &i)
            guard i < count else { return nil }
            let byte = b[i]
            switch expect {
            case .value, .valueOrArrayEnd:
                if expect == .valueOrArrayEnd && byte == UInt8(ascii: "]") {
                    // An empty array closes as a full one does, at `commaOrEnd`.
                    expect = .commaOrEnd
                    continue
                }
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    guard depth < depthLimit else { return nil }
                    if byte == UInt8(ascii: "[") { arrays |= 1 << UInt64(depth) } else { arrays &= ~(1 << UInt64(depth)) }
                    depth += 1
                    i += 1
                    expect = byte == UInt8(ascii: "{") ? .keyOrObjectEnd : .valueOrArrayEnd
                    continue
                case UInt8(ascii: "\""):
                    i = try JSONParser.scanString(b, at: i).end + 1
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    i = try JSONParser.scanLiteral(b, at: i, byte == UInt8(ascii: "t") ? "true" : byte == UInt8(ascii: "f") ? "false" : "null")
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    i = try JSONParser.scanNumber(b, at: i).end
                default:
                    return nil
                }
                expect = .commaOrEnd
            case .keyOrObjectEnd, .key:
                if expect == .keyOrObjectEnd && byte == UInt8(ascii: "}") {
                    // An empty object closes as a full one does, at `commaOrEnd`.
                    expect = .commaOrEnd
                } else if byte == UInt8(ascii: "\"") {
                    i = try JSONParser.scanString(b, at: i).end + 1
                    expect = .colon
                } else {
                    return nil
                }
            case .colon:
                guard byte == UInt8(ascii: ":") else { return nil }
                i += 1
                expect = .value
            case .commaOrEnd:
                let inArray = arrays & (1 << UInt64(depth - 1)) != 0
                if byte == UInt8(ascii: ",") {
                    i += 1
                    expect = inArray ? .value : .key
                } else if byte == (inArray ? UInt8(ascii: "]") : UInt8(ascii: "}")) {
                    depth -= 1
                    i += 1
                    if depth == 1 { return i }
                } else {
                    return nil
                }
            }
        }
    }
}
