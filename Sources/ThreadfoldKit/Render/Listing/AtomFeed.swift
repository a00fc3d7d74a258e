/// One Atom feed.
struct AtomFeed {
    struct Entry {
        var title: String
        var id: String
        var link: String
        var published: Timestamp?
        var updated: Timestamp?
        var author: String?
        /// Plain text, never a whole body: a comment's entry carries `PageNavigation.excerpt`
        /// of at most `excerptLimit` characters, so a 500 MB comment cannot make a 1 GB feed.
        var summary: String?
    }

    /// The most characters of a comment a feed entry carries (cut at a word boundary, with "…").
    static let excerptLimit = 1000

    var title: String
    var id: String
    var selfLink: String
    var alternate: String
    var lang: String
    var author: String
    var updated: Timestamp?
    var entries: [Entry]

    func render() -> [UInt8] {
        var x: [UInt8] = []
        x.reserveCapacity(4096 + entries.reduce(0) { $0 + ($1.summary?.utf8.count ?? 0) + 512 })
        // Markup goes in as static bytes and every value through `HTML.escape`, with no string
        // built in between: a thread's feed carries up to `feedEntries` comments.
        func raw(_ text: StaticString) { x.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        func text(_ value: String) { HTML.escape(value, into: &x) }
        // A feed needs an updated time; without one in the data, the epoch keeps output stable.
        func date(_ time: Timestamp?, else other: Timestamp? = nil) {
            guard !XMLText.write(date: time, into: &x), !XMLText.write(date: other, into: &x) else { return }
            raw("1970-01-01T00:00:00Z")
        }
        raw("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"")
        text(lang)
        raw("\">\n<title>")
        text(title)
        raw("</title>\n<id>")
        text(id)
        raw("</id>\n<updated>")
        date(updated)
        raw("</updated>\n<link rel=\"self\" type=\"application/atom+xml\" href=\"")
        text(selfLink)
        raw("\"/>\n<link rel=\"alternate\" type=\"text/html\" href=\"")
        text(alternate)
        raw("\"/>\n<author><name>")
        text(author)
        raw("</name></author>\n<generator version=\"")
        x.append(contentsOf: Release.version.utf8)
        raw("\">Threadfold</generator>\n")
        for entry in entries {
            raw("<entry>\n<title>")
            text(entry.title)
            raw("</title>\n<id>")
            text(entry.id)
            raw("</id>\n<link rel=\"alternate\" type=\"text/html\" href=\"")
            text(entry.link)
            raw("\"/>\n")
            let mark = x.count
            raw("<published>")
            if XMLText.write(date: entry.published, into: &x) {
                raw("</published>\n")
            } else {
                x.removeSubrange(mark...)
            }
            raw("<updated>")
            date(entry.updated ?? entry.published, else: updated)
            raw("</updated>\n")
            if let author = entry.author, !author.isEmpty {
                raw("<author><name>")
                text(author)
                raw("</name></author>\n")
            }
            if let summary = entry.summary {
                raw("<summary>")
                text(summary)
                raw("</summary>\n")
            }
            raw("</entry>\n")
        }
        raw("</feed>\n")
        return x
    }
}
