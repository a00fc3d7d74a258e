/// Atom feeds and sitemaps, written as text: every value from the input is escaped, and dates
/// outside RFC 3339's years (0001 to 9999) are left out rather than written wrongly.
enum XMLText {
    static func escape(_ text: String) -> String { HTML(escaping: text).raw }

    /// An RFC 3339 date, or nil for years RFC 3339 cannot write.
    static func date(_ time: Timestamp?) -> String? {
        guard let time else { return nil }
        let year = time.components.year
        guard (1...9999).contains(year) else { return nil }
        return time.iso8601
    }

    /// A stable `urn:uuid:` from a name: two FNV-1a hashes, shaped as a version-8 UUID.
    static func uuid(_ name: String) -> String {
        let bytes = Array(name.utf8)
        let a = ContentHash.hash(bytes, seed: 0x5EED_0001), b = ContentHash.hash(bytes, seed: 0x5EED_0002)
        var hex = Array(ContentHash.hex(a) + ContentHash.hex(b))
        hex[12] = "8"
        hex[16] = ["8", "9", "a", "b"][Int(b >> 62)]
        let s = String(hex)
        func part(_ from: Int, _ to: Int) -> Substring { s[s.index(s.startIndex, offsetBy: from)..<s.index(s.startIndex, offsetBy: to)] }
        return "urn:uuid:\(part(0, 8))-\(part(8, 12))-\(part(12, 16))-\(part(16, 20))-\(part(20, 32))"
    }
}

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

/// `sitemap.xml`: at most 50,000 URLs a file (the protocol's limit); more become numbered files
/// under a sitemap index.
enum Sitemap {
    static let limit = 50_000

    static func files(urls: [(loc: String, lastmod: Timestamp?)], base: String) -> [(path: String, bytes: [UInt8])] {
        func urlset(_ slice: ArraySlice<(loc: String, lastmod: Timestamp?)>) -> [UInt8] {
            var x = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
            for url in slice {
                x += "<url><loc>\(XMLText.escape(url.loc))</loc>"
                if let date = XMLText.date(url.lastmod) { x += "<lastmod>\(date)</lastmod>" }
                x += "</url>\n"
            }
            return Array((x + "</urlset>\n").utf8)
        }
        guard urls.count > limit else { return [("sitemap.xml", urlset(urls[...]))] }
        var files: [(String, [UInt8])] = []
        var index = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
        var start = 0
        while start < urls.count {
            let name = "sitemap-\(files.count + 1).xml"
            files.append((name, urlset(urls[start..<min(start + limit, urls.count)])))
            index += "<sitemap><loc>\(XMLText.escape(base + name))</loc></sitemap>\n"
            start += limit
        }
        files.append(("sitemap.xml", Array((index + "</sitemapindex>\n").utf8)))
        return files
    }
}
