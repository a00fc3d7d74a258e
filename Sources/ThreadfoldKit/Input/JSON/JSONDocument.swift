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
    ) throws(JSONError) {
        guard bytes.count < Int(Int32.max) else {
            throw JSONError(offset: 0, message: "the file is larger than 2 GiB, which Threadfold does not read")
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
