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
