import Testing

@testable import ThreadfoldKit

@Suite("Packed summaries")
struct PackedSummariesTests {
    static func time(_ ms: Int64, iso: String? = nil) -> ThreadSummary.TimePoint {
        var point = ThreadSummary.TimePoint(Timestamp(milliseconds: ms))
        if let iso { point.iso = iso }
        return point
    }

    /// Summaries that use every field: missing and empty values, negative and large numbers,
    /// times before 1970 and past 9999, a sidecar's own ISO text, posts, and bytes that are not ASCII.
    static let summaries: [ThreadSummary] = [
        ThreadSummary(
            id: "1", path: "t/a-1", title: nil, author: nil, url: nil, lang: nil, category: nil, tags: [], created: nil,
            stats: .init(
                comments: 0, participants: 0, topLevel: 0, levels: 0, depthHistogram: [], firstActivity: nil,
                lastActivity: nil, unarchived: 0),
            layout: "nested", pages: [""], orders: []),
        ThreadSummary(
            format: 7, id: String(repeating: "x", count: 300), path: "t/ü-\u{0}", title: "", author: "名前", url: "https://e.org/?a=1&b=\"2\"",
            lang: "de", category: "r/Café", tags: ["a", "", "ßß"], created: time(-86_400_001),
            stats: .init(
                comments: 1 << 40, participants: 3, topLevel: 2, levels: 130, depthHistogram: [2, 0, -1, Int.max, Int.min],
                firstActivity: time(253_402_300_800_000), lastActivity: time(1_700_000_000_123, iso: "2023-11-14T22:13:20.123+00:00"),
                unarchived: 5),
            layout: "flat", pages: ["", "2", "c/abc"], orders: ["oldest", "top"],
            posts: [
                .init(author: "someone", page: 2, anchor: "c-abc_1", created: time(1), excerpt: "Hello\nthere"),
                .init(author: "other", page: 0, anchor: "c-x", created: nil, excerpt: ""),
            ]),
    ]

    @Test("every summary reads back equal to the one packed, whatever its fields hold")
    func roundTrip() {
        var packed = PackedSummaries()
        for summary in Self.summaries { packed.append(summary) }
        #expect(Array(packed) == Self.summaries)
        #expect(PackedSummaries(Self.summaries).byteCount == packed.byteCount)
    }

    @Test("a summary's index times and path read without unpacking it are those it unpacks with; the index order is the one its unpacked times give")
    func indexTimes() {
        var many: [ThreadSummary] = []
        for n in 0..<200 {
            var summary = Self.summaries[n % 2]
            summary.path = "t/\(n % 7)-\(n)"
            summary.created = n % 5 == 0 ? nil : Self.time(Int64(n % 13) * 1_000, iso: n % 3 == 0 ? "an ISO text of its own" : nil)
            summary.stats.lastActivity = n % 4 == 0 ? nil : Self.time(Int64(n % 11) * 1_000)
            many.append(summary)
        }
        let packed = PackedSummaries(many)
        for (i, summary) in many.enumerated() {
            #expect(packed.indexTimes(i).lastActivity == summary.stats.lastActivity?.ms)
            #expect(packed.indexTimes(i).created == summary.created?.ms)
            #expect(packed.path(i) == summary.path)
            #expect(packed.comments(i) == summary.stats.comments)
        }
        let all = PackedSummaries(Self.summaries)
        #expect((0..<all.count).map(all.comments) == Self.summaries.map(\.stats.comments))
        // The order as it was defined on unpacked summaries.
        let keys = many.map { ($0.activity?.milliseconds ?? Int64.min, $0.created?.ms ?? Int64.min, $0.activity != nil, $0.created != nil) }
        let expected = many.indices.sorted { a, b in
            let x = keys[a], y = keys[b]
            if x.2 != y.2 { return x.2 }
            if x.0 != y.0 { return x.0 > y.0 }
            if x.3 && y.3 && x.1 != y.1 { return x.1 > y.1 }
            return many[a].path.utf8.lexicographicallyPrecedes(many[b].path.utf8)
        }
        #expect(Array(ThreadSummary.sortedForIndex(packed)).map(\.path) == expected.map { many[$0].path })
    }

    @Test("appended stores and orders keep each summary whole")
    func appendAndOrder() {
        let one = PackedSummaries(Self.summaries)
        var two = PackedSummaries(Self.summaries.reversed())
        two.append(contentsOf: one)
        #expect(Array(two) == Self.summaries.reversed() + Self.summaries)
        let ordered = two.ordered(by: [2, 0, 3])
        #expect(Array(ordered) == [Self.summaries[0], Self.summaries[1], Self.summaries[1]])
        var three = PackedSummaries()
        three.append(contentsOf: ordered)
        #expect(Array(three) == Array(ordered))
    }

    @Test("stores joined, or a large one appended, are taken over whole, and what is appended after stays apart")
    func adopt() {
        let many = (0..<600).map { n in
            var summary = Self.summaries[n % 2]
            summary.title = "Thread \(n)"
            return summary
        }
        let large = PackedSummaries(many)
        #expect(large.byteCount >= 64 << 10)
        var joined = PackedSummaries([Self.summaries[1]])
        joined.append(contentsOf: large)
        joined.append(Self.summaries[0])
        joined.append(contentsOf: PackedSummaries([Self.summaries[1]]))
        #expect(Array(joined) == [Self.summaries[1]] + many + [Self.summaries[0], Self.summaries[1]])
        #expect(Array(large) == many)
        #expect(joined.byteCount == large.byteCount + PackedSummaries(Self.summaries + [Self.summaries[1]]).byteCount)
        let stores = [PackedSummaries([Self.summaries[0]]), large, PackedSummaries(), PackedSummaries(Self.summaries)]
        #expect(Array(PackedSummaries(joining: stores)) == stores.flatMap { Array($0) })
    }

    @Test("a Reddit thread's summary packs in about 300 bytes")
    func size() {
        let summary = ThreadSummary(
            id: "13owneq", path: "t/the-html-latest-test-link-version-maybe-render-13owneq",
            title: "The html latest test link version maybe render moderator feature", author: "feature_45570",
            url: "https://www.reddit.com/r/SyntheticBench/comments/13owneq/the_html_latest_test_link_version_maybe_render/",
            lang: nil, category: "r/SyntheticBench", tags: [], created: Self.time(1_706_005_514_000),
            stats: .init(
                comments: 19, participants: 17, topLevel: 5, levels: 6, depthHistogram: [5, 4, 6, 2, 1, 1],
                firstActivity: Self.time(1_706_005_514_000), lastActivity: Self.time(1_706_225_247_000), unarchived: 0),
            layout: "nested", pages: [""], orders: ["oldest"])
        let packed = PackedSummaries([summary])
        #expect(packed[0] == summary)
        // Its strings are 272 bytes; lengths, counts and times take the rest.
        #expect(packed.byteCount <= 320)
    }

    @Test("the digest follows the summaries and their order, not the buffers that hold them")
    func digest() {
        let one = PackedSummaries(Self.summaries)
        var joined = PackedSummaries([Self.summaries[0]])
        joined.append(contentsOf: PackedSummaries([Self.summaries[1]]))
        #expect(one.digest() == joined.digest(), "the same summaries in other buffers")
        #expect(one.digest() == PackedSummaries(Self.summaries.reversed()).ordered(by: [1, 0]).digest())
        #expect(one.digest() != PackedSummaries(Self.summaries.reversed()).digest(), "another order")
        var changed = Self.summaries
        changed[1].stats.participants += 1
        #expect(one.digest() != PackedSummaries(changed).digest(), "one field of one summary")
        #expect(PackedSummaries([Self.summaries[0]]).digest() != PackedSummaries([Self.summaries[0], Self.summaries[0]]).digest())
        #expect(PackedSummaries().digest() != PackedSummaries([Self.summaries[0]]).digest())
    }
}
