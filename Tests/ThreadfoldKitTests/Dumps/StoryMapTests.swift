import Testing

@testable import ThreadfoldKit

/// The map as it was, in dictionaries: what `StoryMap` must answer, call for call.
private struct ReferenceStoryMap {
    var story: [Int64: Int64] = [:]
    var waiting: [Int64: Int64] = [:]

    mutating func story(of id: Int64, parent: Int64?) -> Int64? {
        guard let parent else {
            story[id] = id
            return id
        }
        guard let root = story[parent] else { return nil }
        story[id] = root
        return root
    }

    mutating func `defer`(id: Int64, parent: Int64) { waiting[id] = parent }

    mutating func resolve(_ id: Int64) -> Int64 {
        var chain: [Int64] = []
        var seen: Set<Int64> = []
        var current = id
        var root: Int64
        while true {
            if let known = story[current] {
                root = known
                break
            }
            guard seen.insert(current).inserted, let parent = waiting[current] else {
                root = current
                break
            }
            chain.append(current)
            current = parent
        }
        for item in chain { story[item] = root }
        return root
    }
}

@Suite("Story map")
struct StoryMapTests {
    typealias Item = (id: Int64, parent: Int64?)

    /// Runs `items` through both maps as `DumpPartition` does (placed, or deferred and resolved
    /// at the end), then resolves every id and `extra` ones; every answer must agree.
    func agree(
        _ items: [Item], extra: [Int64] = [], map: StoryMap = StoryMap(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> StoryMap {
        var map = map
        var reference = ReferenceStoryMap()
        var deferred: [Int64] = []
        var mismatches = 0
        for item in items {
            let got = map.story(of: item.id, parent: item.parent)
            let expected = reference.story(of: item.id, parent: item.parent)
            if got != expected { mismatches += 1 }
            if expected == nil {
                map.defer(id: item.id, parent: item.parent!)
                reference.defer(id: item.id, parent: item.parent!)
                deferred.append(item.id)
            }
        }
        for id in deferred + items.map(\.id) + extra where map.resolve(id) != reference.resolve(id) {
            mismatches += 1
        }
        #expect(mismatches == 0, sourceLocation: sourceLocation)
        return map
    }

    /// Hacker News' shape: increasing ids with a few gaps, a story in ten, a comment answering a
    /// recent item, now and then one whose parent comes later or is not in the dump.
    static func dense(_ count: Int, start: Int64 = 1, seed: UInt64) -> [Item] {
        var random = SplitMix64(seed: seed)
        var items: [Item] = []
        var id = start
        for n in 0..<count {
            id += Int64.random(in: 1...100, using: &random) <= 2 ? 2 : 1
            let roll = Int.random(in: 0..<1000, using: &random)
            if n == 0 || roll < 100 {
                items.append((id, nil))
            } else if roll < 103 {
                items.append((id, id + Int64.random(in: 1...50, using: &random)))
            } else if roll < 105 {
                items.append((id, -Int64.random(in: 1...1_000_000, using: &random)))
            } else {
                items.append((id, items[max(0, items.count - Int.random(in: 1...3_000, using: &random))].id))
            }
        }
        return items
    }

    /// Ids anywhere in `Int64`, each answering an earlier id, a later one or one never seen.
    static func sparse(_ count: Int, seed: UInt64) -> [Item] {
        var random = SplitMix64(seed: seed)
        let ids = (0..<count).map { _ in Int64(bitPattern: random.next()) }
        return ids.indices.map { n in
            switch Int.random(in: 0..<10, using: &random) {
            case 0: return (ids[n], nil)
            case 1: return (ids[n], Int64(bitPattern: random.next()))
            case 2, 3: return (ids[n], ids[Int.random(in: n..<count, using: &random)])
            default: return (ids[n], n == 0 ? nil : ids[Int.random(in: 0..<n, using: &random)])
            }
        }
    }

    @Test("random dense ids, as Hacker News numbers its items, agree with dictionaries and stay in pages", arguments: [1, 2, 3] as [UInt64])
    func denseIDs(seed: UInt64) {
        let items = Self.dense(60_000, start: seed == 3 ? 40_000_000_000 : 0, seed: seed)
        let map = agree(items, extra: [0, -1, 5, 1 << 40])
        #expect(map.counts.others == 0)
        #expect(map.counts.pages <= items.count / StoryMap.pageSize + 2)
    }

    @Test("random sparse ids anywhere in Int64 agree with dictionaries, most of them in the table", arguments: [4, 5] as [UInt64])
    func sparseIDs(seed: UInt64) {
        let map = agree(Self.sparse(40_000, seed: seed), extra: [0, .min, .max])
        #expect(map.counts.others > 35_000)
        // Pages may take a few slots for each id, never one for each of 40,000 ids.
        #expect(map.counts.pages < 100)
    }

    @Test("descending ids: every comment comes before its parent, and all are deferred")
    func descending() {
        var items = Self.dense(30_000, seed: 6)
        items.reverse()
        _ = agree(items)
        // One long chain, child first.
        _ = agree((1...20_000).reversed().map { ($0, $0 == 1 ? nil : $0 - 1) })
    }

    @Test("hostile ids: Int64.min and max, ids 2^40 apart, negatives, page edges")
    func hostile() {
        var items: [Item] = [
            (.min, nil), (.max, .min), (.max - 1, .max), (.min + 1, .max - 1), (0, nil), (-1, 0), (4_095, -1),
            (4_096, 4_095), (-4_096, 4_096), (-4_097, -4_096), (.min, .max), (Int64(1) << 62, nil),
        ]
        for n in 1...2_000 as ClosedRange<Int64> {
            items.append((n << 40, n == 1 ? nil : (n - 1) << 40))
            items.append((-(n << 40) + 7, n << 40))
            items.append(((n << 40) + 1, (n + 1) << 40))
            items.append((.max - n * 4_096, n % 3 == 0 ? nil : .max - (n - 1) * 4_096))
        }
        _ = agree(items, extra: [.min, .max, 1 << 62, 3 << 40])
        // Lines arriving in any order, and again with every id in one hash bucket.
        var random = SplitMix64(seed: 7)
        items.shuffle(using: &random)
        _ = agree(items)
        _ = agree(Array(items.prefix(3_000)), map: StoryMap(hash: { _ in 42 }))
    }

    @Test("parents after their children, and cycles, resolve as the walk meets them")
    func deferredAndCycles() {
        // A chain whose top comes last; a chain into an item the dump lacks.
        _ = agree([(3, 2), (2, 1), (4, 3), (1, nil), (12, 11), (11, 10)], extra: [10, 99])
        // A cycle a → b → c → a, one with a tail into it, an item its own parent, a cycle's
        // member repeated with a story of its own afterwards.
        _ = agree([(1, 2), (2, 3), (3, 1), (9, 1), (8, 9), (5, 5), (20, 21), (21, 20), (21, nil), (22, 21)])
        _ = agree([(.max, .min), (.min, .max), (0, .max), (1 << 40, 0)])
        // Many cycles of every length, hashing alike.
        var items: [Item] = []
        var id: Int64 = 1_000_000
        for length in 1...60 {
            for k in 0..<Int64(length) { items.append((id + k, id + (k + 1) % Int64(length))) }
            items.append((id + Int64(length), id))
            id += 1_000 * Int64(length)
        }
        _ = agree(items)
        _ = agree(items, map: StoryMap(hash: { $0 & 1 == 0 ? 0 : 1 }))
    }

    @Test("duplicate ids: the latest placement wins, a deferral never replaces a known story")
    func duplicates() {
        _ = agree([(5, nil), (6, 5), (6, 99), (6, nil), (7, 6), (8, 100), (8, 101), (101, nil), (8, 5), (9, 8)])
        var random = SplitMix64(seed: 8)
        let items: [Item] = (0..<50_000).map { _ in
            let id = Int64.random(in: 0..<3_000, using: &random) * 997
            return (id, Int.random(in: 0..<8, using: &random) == 0 ? nil : Int64.random(in: 0..<3_000, using: &random) * 997)
        }
        _ = agree(items)
    }

    @Test("sparse ids first use up the pages; dense ids after them go to the table until a page is allowed, then to pages")
    func budget() {
        func spaced(_ n: Int64) -> Item { (n << 30, n == 0 ? nil : (n - 1) << 30) }
        var items: [Item] = (0..<5_000).map(spaced)
        items += Self.dense(200_000, start: 1 << 50, seed: 9)
        items += (5_000..<6_000).map(spaced)
        let map = agree(items, extra: [0, 1 << 30, (1 << 50) + 10])
        // The sparse ids have one page each while the first pages last, then none, even when the
        // dense ones have earned room for more; the dense ones fill pages.
        let counts = map.counts
        #expect(counts.others > 5_980)
        #expect(counts.paged > 150_000)
        #expect(counts.pages <= 16 + 206_000 / StoryMap.pageSize + 2)
        #expect((counts.pages - StoryMap.freePages) * StoryMap.pageSize <= StoryMap.slotsPerPagedItem * counts.paged + counts.others / 4)
    }

    /// Tests assert no timings: a table probing from one slot, or a walk repeated for each item,
    /// would make this run for hours instead of seconds, which the suite's time shows.
    @Test("200,000 sparse ids and a descending chain of 200,000 ids 2^40 apart resolve to the chain's top")
    func linear() {
        var map = StoryMap()
        for item in Self.sparse(200_000, seed: 12) + (1...200_000).reversed().map({ ($0 << 40, $0 == 1 ? nil : ($0 - 1) << 40) })
        where map.story(of: item.id, parent: item.parent) == nil {
            map.defer(id: item.id, parent: item.parent!)
        }
        #expect(map.resolve(200_000 << 40) == 1 << 40)
        #expect(map.resolve(100_000 << 40) == 1 << 40)
    }

    /// What the map costs an item: dense ids (a real site's, mostly consecutive) go in pages of
    /// 4,096 at 4 bytes each plus the page's share; ids too sparse for pages go to the flat table.
    @Test(
        "1,000,000 dense ids take about 5 bytes an item, all in pages; 1,000,000 sparse ids go to the table at under 32 bytes an item",
        arguments: [("dense", 10, 6.0), ("sparse", 11, 32.0)])
    func bytesPerItem(_ name: String, _ seed: UInt64, _ most: Double) {
        let items = name == "dense" ? Self.dense(1_000_000, seed: seed) : Self.sparse(1_000_000, seed: seed)
        var map = StoryMap()
        for item in items where map.story(of: item.id, parent: item.parent) == nil {
            map.defer(id: item.id, parent: item.parent!)
        }
        #expect(Double(map.bytes) / 1e6 <= most, "\(name): \(map.bytes) bytes; pages \(map.counts.pages), in pages \(map.counts.paged), in the table \(map.counts.others)")
        if name == "dense" { #expect(map.counts.others == 0 && map.counts.paged == 1_000_000) } else { #expect(map.counts.others > 900_000) }
    }
}
