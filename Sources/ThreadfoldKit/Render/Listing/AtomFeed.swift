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
        // A feed needs an updated time; without one in the data, the epoch keeps output stable.
        let epoch = "1970-01-01T00:00:00Z"
        var x: [UInt8] = []
        x.reserveCapacity(4096 + entries.reduce(0) { $0 + ($1.summary?.utf8.count ?? 0) + 512 })
        func raw(_ text: String) { x.append(contentsOf: text.utf8) }
        func text(_ value: String) { HTML.escape(value, into: &x) }
        func element(_ name: String, _ value: String) {
            raw("<\(name)>")
            text(value)
            raw("</\(name)>\n")
        }
        raw("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"")
        text(lang)
        raw("\">\n")
        element("title", title)
        element("id", id)
        raw("<updated>\(XMLText.date(updated) ?? epoch)</updated>\n<link rel=\"self\" type=\"application/atom+xml\" href=\"")
        text(selfLink)
        raw("\"/>\n<link rel=\"alternate\" type=\"text/html\" href=\"")
        text(alternate)
        raw("\"/>\n<author><name>")
        text(author)
        raw("</name></author>\n<generator version=\"\(Threadfold.version)\">Threadfold</generator>\n")
        for entry in entries {
            raw("<entry>\n")
            element("title", entry.title)
            element("id", entry.id)
            raw("<link rel=\"alternate\" type=\"text/html\" href=\"")
            text(entry.link)
            raw("\"/>\n")
            if let published = XMLText.date(entry.published) { raw("<published>\(published)</published>\n") }
            raw("<updated>\(XMLText.date(entry.updated ?? entry.published) ?? XMLText.date(updated) ?? epoch)</updated>\n")
            if let author = entry.author, !author.isEmpty {
                raw("<author><name>")
                text(author)
                raw("</name></author>\n")
            }
            if let summary = entry.summary { element("summary", summary) }
            raw("</entry>\n")
        }
        raw("</feed>\n")
        return x
    }
}
