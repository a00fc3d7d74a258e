import Foundation
import Testing

@testable import ThreadfoldKit

@Suite("Sitemap")
struct SitemapTests {
    /// The files a sitemap of `count` URLs is written as, with how many URLs each lists.
    static func files(_ count: Int) throws -> [(path: String, urls: Int)] {
        var files: [(path: String, urls: Int)] = []
        var sitemap = Sitemap(base: "https://e.org/")
        let write: ListingRenderer.Write = { path, bytes in
            files.append((path, String(decoding: bytes, as: UTF8.self).components(separatedBy: "<url>").count - 1))
        }
        for i in 0..<count { try sitemap.add("https://e.org/t/\(i)/", lastmod: Timestamp(milliseconds: 0), to: write) }
        try sitemap.finish(to: write)
        return files
    }

    @Test("up to 50,000 URLs are one sitemap.xml; more are numbered files, each written when full, then their index")
    func split() throws {
        #expect(try Self.files(0).map(\.path) == ["sitemap.xml"])
        let full = try Self.files(Sitemap.limit)
        #expect(full.map(\.path) == ["sitemap.xml"] && full[0].urls == Sitemap.limit)
        let over = try Self.files(2 * Sitemap.limit + 1)
        #expect(over.map(\.path) == ["sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml", "sitemap.xml"])
        #expect(over.map(\.urls) == [Sitemap.limit, Sitemap.limit, 1, 0])
    }
}
