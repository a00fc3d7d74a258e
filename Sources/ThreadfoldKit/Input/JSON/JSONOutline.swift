/// The thread list of a document of many threads (`{"threads": [...]}`, or an array of thread
/// objects), found by one pass that builds no tape.
///
/// Listing such a document only needs where each thread starts and ends, but it must check the
/// whole document as `JSONDocument` would, since a document that is not JSON is read whole (and
/// its error reported) instead. This pass reads every byte with the parser's own string, number,
/// literal and white-space readers and its depth limit, and keeps nothing but the elements of the
/// candidate lists. It answers only what it is sure of: on anything it does not follow the way
/// the parser and `ThreadfoldForm.threadList` do (an error, a member name with an escape where a
/// name decides the list, a document of 2 GiB or more), it leaves the decision to them.
///
/// Given the threads an earlier build listed (`KnownElements`), a thread whose bytes are the ones
/// that followed the thread before it then is hashed, not read: it was checked then, at a list's
/// place as deep.
enum JSONOutline {
    enum Outcome: Equatable {
        /// Not decided here: the caller parses the document.
        case undecided
        /// JSON with no thread list to split: no list, fewer than two threads, or an element
        /// that is not an object.
        case noList
        /// The thread list at `path` (`$.threads` or `$`), each thread's bytes from its `{` to
        /// its `}`, and the names of the root object's members in order (each name's bytes
        /// between its quotes, none with an escape), or nil when the root is an array; with each
        /// thread's hash (`ArchiveUnit.contentHash`) when known threads were given.
        case list(path: String, elements: [Range<Int>], rootMembers: [Range<Int>]?, hashes: [UInt64]?)
    }

    /// `threadList`'s answer for the document `b`, as `ThreadfoldForm.threadList` gives it for
    /// the parsed document: the root object's last `threads` member when it is an array and the
    /// root has no `comments` member, or the root array when its first element has `comments`.
    static func threadList(
        _ b: UnsafeBufferPointer<UInt8>, depthLimit: Int = JSONDocument.defaultDepthLimit, known: KnownElements? = nil
    ) -> Outcome {
        guard b.count < Int(Int32.max) else { return .undecided }
        // Known threads were checked under the parser's own limit: under another, each is read.
        var scan = Scan(depthLimit: depthLimit, known: depthLimit == JSONDocument.defaultDepthLimit ? known : nil)
        do throws(JSONError) {
            try scan.run(b)
        } catch {
            return .undecided
        }
        if scan.undecided { return .undecided }
        let list: (path: String, elements: [Range<Int>]?)
        if scan.rootIsArray {
            guard scan.firstHasComments else { return .noList }
            list = ("$", scan.elements)
        } else {
            guard !scan.rootHasComments, scan.threadsIsArray else { return .noList }
            list = ("$.threads", scan.elements)
        }
        guard let elements = list.elements, elements.count > 1 else { return .noList }
        return .list(
            path: list.path, elements: elements, rootMembers: scan.rootIsArray ? nil : scan.rootMembers,
            hashes: scan.known == nil ? nil : scan.hashes)
    }

    private struct Scan {
        let depthLimit: Int
        /// Open containers, innermost last: whether each is an array.
        var stack: [Bool] = []
        var rootIsArray = false
        var rootHasComments = false
        /// The last `threads` member of the root object holds an array.
        var threadsIsArray = false
        /// The root array's first element is an object with a `comments` member.
        var firstHasComments = false
        /// The elements of the list being read: nil once one is not an object.
        var elements: [Range<Int>]? = []
        /// Whether the array open at depth 1 is the one whose elements are kept.
        var collecting = false
        /// The root member whose value comes next is `threads`.
        var threadsNext = false
        /// The start of the list element (an object) being read.
        var elementStart = 0
        /// Set when a name that decides the list has an escape: the parser decodes it.
        var undecided = false
        /// The root object's member names, between their quotes.
        var rootMembers: [Range<Int>] = []
        /// Threads an earlier build listed, and where in them the list being read is: the
        /// place of the last element read, when it was a known thread.
        let known: KnownElements?
        var place: Int?
        /// Each element's hash, when `known` is given.
        var hashes: [UInt64] = []

        init(depthLimit: Int, known: KnownElements?) {
            self.depthLimit = depthLimit
            self.known = known
        }

        private enum Expect { case value, valueOrArrayEnd, keyOrObjectEnd, key, colon, commaOrEnd }

        /// The list's elements are the values inside the container at depth `listDepth`.
        private var listDepth: Int { rootIsArray ? 1 : 2 }

        mutating func run(_ b: UnsafeBufferPointer<UInt8>) throws(JSONError) {
            var i = 0
            if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { i = 3 }
            var expect = Expect.value
            while true {
                JSONParser.skipWhitespace(b, &i)
                guard i < b.count, !undecided else {
                    // Cut short or empty (the parser says which), or a name the parser decodes.
                    undecided = true
                    return
                }
                let byte = b[i]
                switch expect {
                case .value, .valueOrArrayEnd:
                    if expect == .valueOrArrayEnd && byte == UInt8(ascii: "]") {
                        i += 1
                        close(b, at: i)
                    } else if byte == UInt8(ascii: "{"), let end = skipKnown(b, at: i) {
                        elements?.append(i..<end)
                        i = end
                    } else {
                        let opened = try value(b, byte, at: &i)
                        if let opened {
                            expect = opened
                            continue
                        }
                    }
                    if stack.isEmpty { return try finish(b, at: i) }
                    expect = .commaOrEnd
                case .keyOrObjectEnd, .key:
                    if expect == .keyOrObjectEnd && byte == UInt8(ascii: "}") {
                        i += 1
                        close(b, at: i)
                        if stack.isEmpty { return try finish(b, at: i) }
                        expect = .commaOrEnd
                    } else if byte == UInt8(ascii: "\"") {
                        try key(b, at: &i)
                        expect = .colon
                    } else {
                        throw JSONError(offset: i, message: "a member name")
                    }
                case .colon:
                    guard byte == UInt8(ascii: ":") else { throw JSONError(offset: i, message: "':'") }
                    i += 1
                    expect = .value
                case .commaOrEnd:
                    let isObject = !stack[stack.count - 1]
                    if byte == UInt8(ascii: ",") {
                        i += 1
                        expect = isObject ? .key : .value
                    } else if byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        i += 1
                        close(b, at: i)
                        if stack.isEmpty { return try finish(b, at: i) }
                    } else {
                        throw JSONError(offset: i, message: "',' or the container's end")
                    }
                }
            }
        }

        /// The value starting with `byte` at `i`: a scalar is read whole (nil); a container is
        /// opened, and what it expects first is returned.
        private mutating func value(_ b: UnsafeBufferPointer<UInt8>, _ byte: UInt8, at i: inout Int) throws(JSONError) -> Expect? {
            let depth = stack.count
            let isRootValue = depth == 1 && !rootIsArray
            if isRootValue && threadsNext {
                // The last `threads` member is the one the list is: each one starts it afresh.
                threadsNext = false
                threadsIsArray = byte == UInt8(ascii: "[")
                collecting = threadsIsArray
                elements = []
                hashes = []
                place = nil
            } else if isRootValue {
                collecting = false
            }
            let inList = depth == listDepth && collecting
            if inList && byte != UInt8(ascii: "{") { elements = nil }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < depthLimit else { throw JSONError(offset: i, message: "too deep") }
                if depth == 0 {
                    rootIsArray = byte == UInt8(ascii: "[")
                    collecting = rootIsArray
                }
                if inList { elementStart = i }
                stack.append(byte == UInt8(ascii: "["))
                i += 1
                return byte == UInt8(ascii: "{") ? .keyOrObjectEnd : .valueOrArrayEnd
            case UInt8(ascii: "\""):
                i = try JSONParser.scanString(b, at: i).end + 1
            case UInt8(ascii: "t"):
                i = try JSONParser.scanLiteral(b, at: i, "true")
            case UInt8(ascii: "f"):
                i = try JSONParser.scanLiteral(b, at: i, "false")
            case UInt8(ascii: "n"):
                i = try JSONParser.scanLiteral(b, at: i, "null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                i = try JSONParser.scanNumber(b, at: i).end
            default:
                throw JSONError(offset: i, message: "a JSON value")
            }
            return nil
        }

        /// A member's name at `i`: the root object's names (`threads` and `comments` decide), and
        /// the first list element's `comments`, are noted.
        private mutating func key(_ b: UnsafeBufferPointer<UInt8>, at i: inout Int) throws(JSONError) {
            let (end, escaped) = try JSONParser.scanString(b, at: i)
            let between = (i + 1)..<end
            let name = UnsafeBufferPointer(rebasing: b[between])
            i = end + 1
            let depth = stack.count
            let decides = (depth == 1 && !rootIsArray) || (depth == 2 && rootIsArray && elements?.isEmpty == true)
            guard decides else { return }
            if escaped {
                undecided = true
                return
            }
            if depth == 1 {
                rootMembers.append(between)
                if name.elementsEqual("threads".utf8) { threadsNext = true }
                if name.elementsEqual("comments".utf8) { rootHasComments = true }
            } else if name.elementsEqual("comments".utf8) {
                firstHasComments = true
            }
        }

        /// The container just closed (`end` is past its last byte): a list element is kept.
        private mutating func close(_ b: UnsafeBufferPointer<UInt8>, at end: Int) {
            stack.removeLast()
            // Back in the list: what closed was one of its elements, an object (`value` forgot the
            // elements when one was anything else).
            if stack.count == listDepth && collecting && stack.last == true && elements != nil {
                elements?.append(elementStart..<end)
                if let known {
                    // Known: the threads after it are looked for after it. Not: one changed in
                    // place is the likeliest, so the next is looked for where it was.
                    let hash = ArchiveUnit.contentHash(of: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(b)[elementStart..<end]))
                    hashes.append(hash)
                    place = known.place(of: hash) ?? place.map { $0 + 1 }
                }
            }
        }

        /// The end of the list element (an object) at `i` when its bytes are the known thread
        /// that followed the last element; nil when they are not, or it is not sure to be one:
        /// not in the list, or its first element, whose members may decide the list.
        private mutating func skipKnown(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> Int? {
            guard let known, let place, collecting, stack.count == listDepth, stack.last == true, elements?.isEmpty == false,
                let next = known.following(place, depth: listDepth), next.length >= 2, next.length <= b.count - i,
                b[i + next.length - 1] == UInt8(ascii: "}")
            else { return nil }
            let hash = ArchiveUnit.contentHash(of: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(b)[i..<(i + next.length)]))
            guard hash == next.hash else { return nil }
            hashes.append(hash)
            self.place = next.place
            return i + next.length
        }

        /// The root value is complete: only white space may follow.
        private mutating func finish(_ b: UnsafeBufferPointer<UInt8>, at i: Int) throws(JSONError) {
            var i = i
            JSONParser.skipWhitespace(b, &i)
            if i < b.count { throw JSONError(offset: i, message: "nothing more") }
        }
    }
}
