/// Paths inside a site (`t/slug/index.html`), taken apart as the file system takes them: the
/// one reading of a site-relative path, for Site's writes and links and for `merge`'s shards.
package enum RelativePath {
    /// Whether `path` is plain name components: no `..`, no absolute path, no empty or hidden parts.
    package static func isSafe(_ path: String) -> Bool {
        // Bytes: every segment between slashes is non-empty, starts with no '.', holds no NUL.
        var segmentStart = true
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") {
                if segmentStart { return false }
                segmentStart = true
                continue
            }
            if byte == 0 || (segmentStart && byte == UInt8(ascii: ".")) { return false }
            segmentStart = false
        }
        return !segmentStart
    }

    /// The segments of `path` (`segments(_:)`) when it `isSafe`, else nil.
    package static func safeSegments(_ path: String) -> [Substring]? {
        isSafe(path) ? segments(path) : nil
    }

    /// The non-empty segments between `/` bytes. The bytes, not `Character`s: a `Character`
    /// split keeps a `/` and a combining mark after it together in one segment, which the file
    /// system would split, and breaking graphemes at every character is slow where it matters
    /// most (a path is taken apart for every file written).
    package static func segments(_ path: String) -> [Substring] {
        var segments: [Substring] = []
        let utf8 = path.utf8
        var start = utf8.startIndex
        while let slash = utf8[start...].firstIndex(of: UInt8(ascii: "/")) {
            if slash > start { segments.append(Substring(utf8[start..<slash])) }
            start = utf8.index(after: slash)
        }
        if start < utf8.endIndex { segments.append(Substring(utf8[start...])) }
        return segments
    }
}
