/// Hacker News items' stories, found through `parent` chains: each item's story is known as soon
/// as its parent's is, so in a dump sorted by time almost every item is placed as it is read.
/// Items whose parent comes later are deferred and resolved at the end, in linear time.
///
/// Held as integers, not dictionaries (about 40 bytes an item, 1.6 GB for a whole Hacker News
/// dump). Each item has a 32-bit value: nothing, "its own story", an index into `roots` (the
/// stories its items share, as ids), or, while it is deferred, an index into `parents`.
/// - Hacker News ids are dense: almost every id from 1 up is an item. Values live in pages of
///   4,096 consecutive ids, allocated when an id of theirs is stored (about 4 bytes an item).
/// - Any other id (sparse, negative, 2^62) would leave pages nearly empty: past the first 16
///   pages, a page is made only for an id next to another, and only while pages hold at most 2
///   slots for each id in them (plus 1 for each 4 ids elsewhere). Other ids go to an
///   open-addressing table of ids and values (12 bytes a slot, 1/2 to 3/4 full, so 16 to 24
///   bytes an id), in 64 segments that grow one at a time.
/// Ids are hashed with the process's random seed (`Hasher`), so a hostile dump cannot aim at
/// collisions. Limits: 2^31 - 3 stories with an item under them, and 2^30 deferred items.
struct StoryMap {
    static let pageBits = 12
    static let pageSize = 1 << pageBits
    /// Slots pages may hold for each id stored in them: pages stay at least half full.
    static let slotsPerPagedItem = 2
    /// Pages allowed before any id is stored.
    static let freePages = 16

    /// An item's value. 0: not stored. 1: a story, its own. 2 up to `deferredBit`: the story
    /// `roots[value - 2]`. With `deferredBit`: deferred, its parent `parents[value & indexMask]`,
    /// and with `walkedBit` too while `resolve` walks through it.
    private static let own: UInt32 = 1
    private static let firstRoot: UInt32 = 2
    private static let deferredBit: UInt32 = 1 << 31
    private static let walkedBit: UInt32 = 1 << 30
    private static let indexMask: UInt32 = walkedBit - 1

    /// Each page's values, `pageSize` ids from `page << pageBits`.
    private var pages: [[UInt32]] = []
    /// A page number's index in `pages`, plus 1.
    private var pageIndex: IntTable
    /// Ids that are not in a page (or were stored before their page was), and their values. An
    /// id in a page whose slot is still 0 is looked up here.
    private var others: IntTable
    private var roots = Int64Chunks()
    private var parents = Int64Chunks()
    /// Ids stored in pages, and elsewhere: the pages' budget.
    private var pagedItems = 0
    private var otherItems = 0
    /// The last two pages looked up (`Int64.max` is no page number; index -1: no page).
    private var recent: (page: Int64, index: Int) = (.max, -1)
    private var earlier: (page: Int64, index: Int) = (.max, -1)

    /// The most stories with items under them, and the most deferred items, the map takes: its
    /// values are 32 bits. Lower in tests.
    let limit: Int
    static let maximumLimit = Int(indexMask)

    /// `hash` is for tests, which make ids collide.
    init(limit: Int = StoryMap.maximumLimit, hash: @escaping (Int64) -> UInt64 = { UInt64(bitPattern: Int64($0.hashValue)) }) {
        self.limit = min(limit, Self.maximumLimit)
        pageIndex = IntTable(segmentBits: 0, hash: hash)
        others = IntTable(segmentBits: 6, hash: hash)
    }

    /// Whether the next `story(of:parent:)` or `defer` fits: each adds at most one story and one
    /// deferred item. The caller asks first and stops with an error when it is false, so the
    /// checks inside are never reached by input.
    var hasRoom: Bool { roots.count < limit && parents.count < limit }

    /// Whether the next `resolve` fits: it adds at most one story.
    var hasRoomToResolve: Bool { roots.count < limit }

    /// The story of `id` when it is known now (a story is its own), and records it.
    mutating func story(of id: Int64, parent: Int64?) -> Int64? {
        guard let parent else {
            set(id, Self.own)
            return id
        }
        let value = self.value(parent)
        guard Self.isKnown(value) else { return nil }
        let root = shared(parent, value)
        set(id, root)
        return roots[Int(root - Self.firstRoot)]
    }

    /// Keeps `id` aside until `resolve`, unless its story is already known.
    mutating func `defer`(id: Int64, parent: Int64) {
        let value = self.value(id)
        if Self.isKnown(value) { return }
        if value & Self.deferredBit != 0 {
            parents[Int(value & Self.indexMask)] = parent
            return
        }
        precondition(parents.count < Int(Self.indexMask), "more than 2^30 Hacker News items come before their parent")
        set(id, Self.deferredBit | UInt32(parents.count))
        parents.append(parent)
    }

    /// The story of a deferred item: the top of its chain, or the first item of the chain that the
    /// dump does not hold (a thread named after the item it answers), or, for a cycle, the item
    /// where the walk met itself. The walk marks the items it passes, then a second walk gives
    /// them the story, so all calls together are linear.
    mutating func resolve(_ id: Int64) -> Int64 {
        var value = self.value(id)
        guard value & Self.deferredBit != 0 else { return Self.isKnown(value) ? story(id, value) : id }
        var current = id
        let root: UInt32
        while true {
            if Self.isKnown(value) {
                root = shared(current, value)
                break
            }
            if value & Self.deferredBit == 0 || value & Self.walkedBit != 0 {
                root = newRoot(current)
                break
            }
            set(current, value | Self.walkedBit)
            current = parents[Int(value & Self.indexMask)]
            value = self.value(current)
        }
        current = id
        while true {
            let value = self.value(current)
            guard value & Self.walkedBit != 0, value & Self.deferredBit != 0 else { break }
            set(current, root)
            current = parents[Int(value & Self.indexMask)]
        }
        return roots[Int(root - Self.firstRoot)]
    }

    /// Bytes the map holds, by its arrays' capacities.
    var bytes: Int {
        pages.count * (Self.pageSize * 4 + 32) + pages.capacity * 8 + pageIndex.bytes + others.bytes
            + roots.bytes + parents.bytes
    }

    /// Ids stored in pages, and in the table.
    var counts: (paged: Int, others: Int, pages: Int) { (pagedItems, otherItems, pages.count) }

    private static func isKnown(_ value: UInt32) -> Bool { value != 0 && value < deferredBit }

    private func story(_ id: Int64, _ value: UInt32) -> Int64 {
        value == Self.own ? id : roots[Int(value - Self.firstRoot)]
    }

    /// The value `id`'s items share: its root, made one when `id` is a story of its own.
    private mutating func shared(_ id: Int64, _ value: UInt32) -> UInt32 {
        guard value == Self.own else { return value }
        let root = newRoot(id)
        set(id, root)
        return root
    }

    private mutating func newRoot(_ story: Int64) -> UInt32 {
        precondition(roots.count < Int(Self.deferredBit - Self.firstRoot), "more than 2^31 - 3 Hacker News stories with replies")
        roots.append(story)
        return Self.firstRoot + UInt32(roots.count - 1)
    }

    private mutating func value(_ id: Int64) -> UInt32 {
        if let page = page(id >> Self.pageBits) {
            let value = pages[page][Int(id & Int64(Self.pageSize - 1))]
            if value != 0 || otherItems == 0 { return value }
        }
        return others[id] ?? 0
    }

    private mutating func set(_ id: Int64, _ value: UInt32) {
        let number = id >> Self.pageBits
        if let page = page(number) ?? newPage(number, for: id) {
            let slot = Int(id & Int64(Self.pageSize - 1))
            if pages[page][slot] == 0 { pagedItems += 1 }
            pages[page][slot] = value
        } else if others.set(id, value) {
            otherItems += 1
        }
    }

    /// The index of page `number`, when it has one.
    private mutating func page(_ number: Int64) -> Int? {
        if recent.page == number { return recent.index < 0 ? nil : recent.index }
        if earlier.page != number {
            earlier = (number, pageIndex[number].map { Int($0) - 1 } ?? -1)
        }
        swap(&recent, &earlier)
        return recent.index < 0 ? nil : recent.index
    }

    /// A new page for `id`'s page `number`, when the pages would stay at least half full (with
    /// some credit for ids in the table, so that dense ids after sparse ones get pages again) and
    /// the id has a neighbour: a page next to its own, or the id before or after it. One id far
    /// from any other stays in the table, whatever credit dense pages have earned.
    private mutating func newPage(_ number: Int64, for id: Int64) -> Int? {
        if pages.count >= Self.freePages {
            let budget = Self.slotsPerPagedItem * (pagedItems + 1) + otherItems / 4
            guard (pages.count + 1 - Self.freePages) * Self.pageSize <= budget else { return nil }
            guard
                pageIndex[number - 1] != nil || pageIndex[number + 1] != nil
                    || (id > .min && others[id - 1] != nil) || (id < .max && others[id + 1] != nil)
            else { return nil }
        }
        pages.append([UInt32](repeating: 0, count: Self.pageSize))
        _ = pageIndex.set(number, UInt32(pages.count))
        if earlier.page == number { earlier = (.max, -1) }
        recent = (number, pages.count - 1)
        return pages.count - 1
    }
}

/// A growing list of `Int64`s in chunks of 65,536, so growing copies at most the first chunk and
/// leaves at most one chunk unused (an array doubles, holding both copies while it grows).
struct Int64Chunks {
    static let chunkBits = 16
    private var chunks: [[Int64]] = []
    private(set) var count = 0

    subscript(index: Int) -> Int64 {
        get { chunks[index >> Self.chunkBits][index & (1 << Self.chunkBits - 1)] }
        set { chunks[index >> Self.chunkBits][index & (1 << Self.chunkBits - 1)] = newValue }
    }

    mutating func append(_ value: Int64) {
        if count & (1 << Self.chunkBits - 1) == 0 {
            chunks.append([])
            // The first chunk grows as an array, so a small map stays small.
            if chunks.count > 1 { chunks[chunks.count - 1].reserveCapacity(1 << Self.chunkBits) }
        }
        chunks[chunks.count - 1].append(value)
        count += 1
    }

    var bytes: Int { chunks.reduce(chunks.capacity * 8) { $0 + $1.capacity * 8 } }
}

/// An open-addressing table from `Int64` keys to nonzero `UInt32` values (0 marks an empty slot),
/// in flat arrays: linear probing, at most 3/4 full, split by the hash's top bits into segments
/// that grow by half one at a time, so growing never holds two copies of the whole table.
struct IntTable {
    private struct Segment {
        var keys: [Int64]
        var values: [UInt32]
        var count = 0

        init(capacity: Int) {
            keys = [Int64](repeating: 0, count: capacity)
            values = [UInt32](repeating: 0, count: capacity)
        }

        /// The slot holding `key`, or the empty slot where it would go. The hash's low 32 bits
        /// pick the first slot, scaled to the capacity (which is no power of two).
        func slot(_ key: Int64, _ hash: UInt64) -> Int {
            let capacity = values.count
            var slot = Int(((hash & 0xFFFF_FFFF) &* UInt64(capacity)) >> 32)
            while values[slot] != 0, keys[slot] != key {
                slot += 1
                if slot == capacity { slot = 0 }
            }
            return slot
        }

        mutating func grow(_ hash: (Int64) -> UInt64) {
            var larger = Segment(capacity: values.count + values.count / 2)
            for slot in values.indices where values[slot] != 0 {
                let key = keys[slot]
                let to = larger.slot(key, hash(key))
                larger.keys[to] = key
                larger.values[to] = values[slot]
            }
            larger.count = count
            self = larger
        }
    }

    private var segments: [Segment]
    private let segmentBits: Int
    private let hash: (Int64) -> UInt64
    private(set) var count = 0

    init(segmentBits: Int, hash: @escaping (Int64) -> UInt64) {
        self.segmentBits = segmentBits
        self.hash = hash
        segments = Array(repeating: Segment(capacity: 8), count: 1 << segmentBits)
    }

    private func segment(_ hash: UInt64) -> Int {
        segmentBits == 0 ? 0 : Int(hash >> UInt64(64 - segmentBits))
    }

    subscript(key: Int64) -> UInt32? {
        let hash = self.hash(key)
        let s = segment(hash)
        let value = segments[s].values[segments[s].slot(key, hash)]
        return value == 0 ? nil : value
    }

    /// Stores `value` (not 0) for `key`; true when the key is new.
    mutating func set(_ key: Int64, _ value: UInt32) -> Bool {
        let hash = self.hash(key)
        let s = segment(hash)
        var slot = segments[s].slot(key, hash)
        if segments[s].values[slot] != 0 {
            segments[s].values[slot] = value
            return false
        }
        if (segments[s].count + 1) * 4 > segments[s].values.count * 3 {
            segments[s].grow(self.hash)
            slot = segments[s].slot(key, hash)
        }
        segments[s].keys[slot] = key
        segments[s].values[slot] = value
        segments[s].count += 1
        count += 1
        return true
    }

    /// Bytes held, by capacity.
    var bytes: Int {
        segments.reduce(segments.capacity * 64) { $0 + $1.keys.capacity * 8 + $1.values.capacity * 4 }
    }
}
