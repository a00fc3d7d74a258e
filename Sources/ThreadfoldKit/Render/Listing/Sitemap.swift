/// `sitemap.xml`: at most 50,000 URLs a file (the protocol's limit); more become numbered files
/// under a sitemap index. URLs are added one at a time and each file is written when it is full,
/// so a site of millions of pages never holds its whole list.
struct Sitemap {
    static let limit = 50_000

    let base: String
    private var urls: [(loc: String, lastmod: Timestamp?)] = []
    /// Numbered files written so far, and the index that lists them.
    private var files = 0
    private var index = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"

    init(base: String) { self.base = base }

    mutating func add(_ loc: String, lastmod: Timestamp?, to write: ListingRenderer.Write) throws(ThreadfoldError) {
        // A full file is written only once another URL shows that one file is not enough.
        if urls.count == Self.limit { try flush(to: write) }
        urls.append((loc, lastmod))
    }

    /// Writes what is left: `sitemap.xml` itself when every URL fits in it, else the last
    /// numbered file and the index.
    mutating func finish(to write: ListingRenderer.Write) throws(ThreadfoldError) {
        guard files > 0 else { return try write("sitemap.xml", urlset()) }
        try flush(to: write)
        try write("sitemap.xml", Array((index + "</sitemapindex>\n").utf8))
    }

    private mutating func flush(to write: ListingRenderer.Write) throws(ThreadfoldError) {
        files += 1
        let name = "sitemap-\(files).xml"
        try write(name, urlset())
        index += "<sitemap><loc>\(XMLText.escape(base + name))</loc></sitemap>\n"
        urls.removeAll(keepingCapacity: true)
    }

    private func urlset() -> [UInt8] {
        var x = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
        for url in urls {
            x += "<url><loc>\(XMLText.escape(url.loc))</loc>"
            if let date = XMLText.date(url.lastmod) { x += "<lastmod>\(date)</lastmod>" }
            x += "</url>\n"
        }
        return Array((x + "</urlset>\n").utf8)
    }
}
