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
    package func read<T>(_ object: Int, _ key: String, _ path: @autoclosure () -> String, as reading: JSONReader.Reading<T>) throws(JSONError) -> T? {
        guard let value = member(object, key) else { return nil }
        return try reading.read(self, value) { path() + "." + key }
    }
}

/// The kinds of member read. Each closure captures nothing, so naming a kind allocates nothing.
extension JSONReader.Reading {
    /// A string.
    package static var string: JSONReader.Reading<String> { .init { (reader, node, path) throws(JSONError) in try reader.string(node, path()) } }

    /// A boolean.
    package static var bool: JSONReader.Reading<Bool> { .init { (reader, node, path) throws(JSONError) in try reader.bool(node, path()) } }

    /// A number, rounded to the nearest integer.
    package static var integer: JSONReader.Reading<Int64> { .init { (reader, node, path) throws(JSONError) in try reader.rounded(node, path()) } }

    /// A string, or an integer kept digit for digit.
    package static var id: JSONReader.Reading<CommentID> {
        .init { (reader, node, path) throws(JSONError) in try reader.id(node, path(), expected: "a string or an integer id") }
    }

    /// ISO 8601 text, or Unix seconds or milliseconds as a number or digits.
    package static var time: JSONReader.Reading<Timestamp> {
        .init { (reader, node, path) throws(JSONError) in try reader.time(node, path(), expected: "a Unix time or an ISO 8601 date") }
    }

    /// A count the source keeps of something (comments, replies): a number clamped to
    /// 0...`InputLimits.maxCount`, so sums of counts stay in range.
    package static var count: JSONReader.Reading<Int> {
        .init { (reader, node, path) throws(JSONError) in Int(clamping: min(max(try reader.rounded(node, path()), 0), Int64(InputLimits.maxCount))) }
    }

    /// An object: its tape index.
    package static var object: JSONReader.Reading<Int> {
        .init { (reader, node, path) throws(JSONError) in
            guard reader.isObject(node) else { throw reader.mismatch(node, path(), expected: JSONDocument.Kind.object.described) }
            return node
        }
    }

    /// An array: its tape index.
    package static var array: JSONReader.Reading<Int> {
        .init { (reader, node, path) throws(JSONError) in
            guard reader.isArray(node) else { throw reader.mismatch(node, path(), expected: JSONDocument.Kind.array.described) }
            return node
        }
    }
}
