#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Links get `rel="nofollow ugc noopener"` and images `loading="lazy"`, added to cmark's
/// output. cmark writes `<a href="` and `<img src="` only for link and image nodes (text and
/// code are escaped, raw HTML is omitted), so adding attributes there is exact. One pass over
/// the bytes.
enum LinkAttributes {
    static func add(to html: UnsafeBufferPointer<UInt8>) -> HTML {
        // Most bodies have neither: the text goes into a String as it is, read once.
        guard var tag = nextTag(in: html, from: 0) else {
            return HTML(trusted: String(decoding: html, as: UTF8.self))
        }
        var out: [UInt8] = []
        out.reserveCapacity(html.count + html.count / 8)
        var runStart = 0
        while true {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: html[runStart..<tag.at]))
            append(tag.isLink ? linkWith : imageWith, to: &out)
            runStart = tag.at + (tag.isLink ? link : image).utf8CodeUnitCount
            guard let next = nextTag(in: html, from: runStart) else { break }
            tag = next
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: html[runStart...]))
        return HTML(trusted: String(decoding: out, as: UTF8.self))
    }

    private static var link: StaticString { "<a href=\"" }
    private static var image: StaticString { "<img src=\"" }
    private static var linkWith: StaticString { "<a rel=\"nofollow ugc noopener\" href=\"" }
    private static var imageWith: StaticString { "<img loading=\"lazy\" src=\"" }

    /// The next '<' from `start` that opens a link or an image, or nil: memchr from one '<' to
    /// the next.
    private static func nextTag(in html: UnsafeBufferPointer<UInt8>, from start: Int) -> (at: Int, isLink: Bool)? {
        guard let base = html.baseAddress else { return nil }
        var i = start
        while i < html.count {
            guard let found = memchr(base + i, Int32(UInt8(ascii: "<")), html.count - i) else { return nil }
            i = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            // Most tags are neither (`<p>`, `</p>`, `<code>`): the byte after '<' tells.
            if i + 1 < html.count {
                let next = html[i + 1]
                if next == UInt8(ascii: "a") && matches(html, i, link) { return (i, true) }
                if next == UInt8(ascii: "i") && matches(html, i, image) { return (i, false) }
            }
            i += 1
        }
        return nil
    }

    private static func matches(_ html: UnsafeBufferPointer<UInt8>, _ at: Int, _ needle: StaticString) -> Bool {
        let count = needle.utf8CodeUnitCount
        guard at + count <= html.count, let base = html.baseAddress else { return false }
        return memcmp(base + at, needle.utf8Start, count) == 0
    }

    private static func append(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
