/// Paths inside a site (`t/slug/index.html`), taken apart as the file system takes them.
package enum RelativePath {
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
