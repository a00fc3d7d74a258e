/// Paths inside a site (`t/slug/index.html`), taken apart as the file system takes them.
package enum RelativePath {
    /// The non-empty segments between `/` bytes. The bytes, not `Character`s: a `Character`
    /// split keeps a `/` and a combining mark after it together in one segment, which the file
    /// system would split, and it breaks graphemes at every character, which cost a dump build
    /// 9% of its instructions (a path is taken apart for every file written).
    package static func segments(_ path: String) -> [Substring] {
        path.utf8.split(separator: UInt8(ascii: "/")).map { Substring($0) }
    }
}
