import Testing

@testable import ThreadfoldKit

@Suite("Listing renderer")
struct ListingRendererTests {
    @Test("the feed's candidates are the largest values and every value tied with the last of them")
    func top() {
        let values: [Int64] = [5, 9, 7, 7, 1, 7, 9]
        #expect(ListingRenderer.top(0, of: values.indices, by: values).isEmpty)
        #expect(Set(ListingRenderer.top(2, of: values.indices, by: values)) == [1, 6])
        #expect(Set(ListingRenderer.top(3, of: values.indices, by: values)) == [1, 6, 2, 3, 5])
        #expect(Set(ListingRenderer.top(7, of: values.indices, by: values)) == Set(values.indices))
    }

    /// Two category names that share a slug ("announcements") and the first `bits` of their
    /// FNV-1a-64, found by brute force over punctuation, which the slug drops.
    static func collidingCategories(bits: Int) -> (String, String) {
        let alphabet = Array("!#$%()*+,./:;=?@[]^_{|}~")
        var seen: [String: String] = [:]
        for k in 0... {
            var tail = "", rest = k
            repeat {
                tail.append(alphabet[rest % alphabet.count])
                rest /= alphabet.count
            } while rest > 0
            let name = "Announcements " + tail
            let key = StableHash.nameHex(Array(name.utf8), bits: bits)
            if let other = seen[key] { return (other, name) }
            seen[key] = name
        }
        fatalError("unreachable")
    }

    static func summary(_ n: Int, category: String) -> ThreadSummary {
        ThreadSummary(
            id: "\(n)", path: "t/a-\(n)", title: "Thread \(n)", author: nil, url: nil, lang: nil, category: category, tags: [],
            created: nil,
            stats: .init(
                comments: 1, participants: 1, topLevel: 1, levels: 1, depthHistogram: [1],
                firstActivity: nil, lastActivity: nil, unarchived: 0),
            layout: "nested", pages: [""], orders: [])
    }

    @Test("two categories whose names share a slug and a 32-bit hash (found by brute force) are two sections, each with its own folder and title")
    func categoriesSharingA32BitKeyStayApart() throws {
        let (first, second) = Self.collidingCategories(bits: 32)
        #expect(first != second && ThreadPaths.slug(first) == ThreadPaths.slug(second))
        let keys = ListingRenderer.categoryKeys([second, first], bits: 32)
        let base = "announcements-" + StableHash.nameHex(Array(first.utf8), bits: 32)
        // The name first in byte order keeps the key, whichever came first.
        let (low, high) = Array(first.utf8).lexicographicallyPrecedes(Array(second.utf8)) ? (first, second) : (second, first)
        #expect(ListingRenderer.categoryKeys([low, high], bits: 32) == [base, base + "_2"])
        #expect(keys == (second == low ? [base, base + "_2"] : [base + "_2", base]))
        // At the width sections use, the same names have keys of their own without a suffix.
        let wide = ListingRenderer.categoryKeys([first, second], bits: 64)
        #expect(wide[0] != wide[1] && wide.allSatisfy { $0.utf8.count == "announcements-".utf8.count + 16 })

        var options = ArchiveOptions()
        options.sections = .category
        let renderer = try ThreadRenderer(options: options)
        var listing = ListingRenderer(
            options: options, templates: renderer.templates, language: renderer.defaultLanguage,
            generator: renderer.generator)
        listing.sectionKeyBits = 32
        var pages: [String: String] = [:]
        try listing.write(PackedSummaries([Self.summary(1, category: first), Self.summary(2, category: second)])) { path, bytes in
            if path.hasPrefix("s/") { pages[path] = String(decoding: bytes, as: UTF8.self) }
        }
        #expect(Set(pages.keys) == ["s/\(base)/index.html", "s/\(base)_2/index.html"])
        let lowPage = try #require(pages["s/\(base)/index.html"]), highPage = try #require(pages["s/\(base)_2/index.html"])
        func heading(_ name: String) -> String { "<bdi>\(name)</bdi></h2>" }
        #expect(lowPage.contains(heading(low)) && !lowPage.contains(heading(high)) && lowPage.contains("Thread \(low == first ? 1 : 2)"))
        #expect(highPage.contains(heading(high)) && !highPage.contains(heading(low)) && highPage.contains("Thread \(low == first ? 2 : 1)"))
    }
}
