/// Typed reads of an object's members, for readers that look members up by name (importers,
/// sidecars): `read(object, "created_at", path, as: .time)`. A missing or null member is nil; a
/// member of another type is a `JSONError` at the member's path (`path` then `.key`), built only
/// when thrown. `ImportContext.read` is the same read with the error recorded rather than thrown.
extension JSONReader {
    /// One kind of typed read: how the value at a node becomes a `T`, or the mismatch it is.
    package struct Reading<T> {
        let read: (borrowing JSONReader, _ node: Int, _ path: () -> String) throws(JSONError) -> T
    }

    /// The member `key` of `object` read `as` one kind: nil when it is missing or null.
    @inline(__always)
    package func read<T>(_ object: Int, _ key: String, _ path: @autoclosure () -> String, as reading: Reading<T>) throws(JSONError) -> T? {
        guard let value = member(object, key) else { return nil }
        return try reading.read(self, value) { path() + "." + key }
    }
}

extension JSONReader.Reading where T == String {
    package static var string: Self { Self { (reader, node, path) throws(JSONError) in try reader.string(node, path()) } }
}

extension JSONReader.Reading where T == CommentID {
    /// A string, or an integer kept digit for digit.
    package static var id: Self {
        Self { (reader, node, path) throws(JSONError) in try reader.id(node, path(), expected: "a string or an integer id") }
    }
}

extension JSONReader.Reading where T == Int64 {
    /// A number, rounded to the nearest integer.
    package static var integer: Self { Self { (reader, node, path) throws(JSONError) in try reader.rounded(node, path()) } }
}

extension JSONReader.Reading where T == Int {
    /// A count the source keeps of something (comments, replies): a number clamped to
    /// 0...`InputLimits.maxCount`, so sums of counts stay in range.
    package static var count: Self {
        Self { (reader, node, path) throws(JSONError) in
            Int(clamping: min(max(try reader.rounded(node, path()), 0), Int64(InputLimits.maxCount)))
        }
    }
}

extension JSONReader.Reading where T == Bool {
    package static var bool: Self { Self { (reader, node, path) throws(JSONError) in try reader.bool(node, path()) } }
}

extension JSONReader.Reading where T == Timestamp {
    /// ISO 8601 text, or Unix seconds or milliseconds as a number or digits.
    package static var time: Self {
        Self { (reader, node, path) throws(JSONError) in try reader.time(node, path(), expected: "a Unix time or an ISO 8601 date") }
    }
}

extension JSONReader.Reading where T == Int {
    /// An object: its tape index. (Each kind's closure captures nothing, so naming it allocates nothing.)
    package static var object: Self {
        Self { (reader, node, path) throws(JSONError) in
            guard reader.isObject(node) else { throw reader.mismatch(node, path(), expected: JSONDocument.Kind.object.described) }
            return node
        }
    }

    /// An array: its tape index.
    package static var array: Self {
        Self { (reader, node, path) throws(JSONError) in
            guard reader.isArray(node) else { throw reader.mismatch(node, path(), expected: JSONDocument.Kind.array.described) }
            return node
        }
    }
}
