/// Hacker News items' stories, found through `parent` chains: each item's story is known as soon
/// as its parent's is, so in a dump sorted by time almost every item is placed as it is read.
/// Items whose parent comes later are deferred and resolved at the end, in linear time.
struct StoryMap {
    /// Each placed item's story.
    private var story: [Int64: Int64] = [:]
    /// Deferred items' parents.
    private var waiting: [Int64: Int64] = [:]

    /// The story of `id` when it is known now (a story is its own), and records it.
    mutating func story(of id: Int64, parent: Int64?) -> Int64? {
        guard let parent else {
            story[id] = id
            return id
        }
        guard let root = story[parent] else { return nil }
        story[id] = root
        return root
    }

    mutating func `defer`(id: Int64, parent: Int64) {
        waiting[id] = parent
    }

    /// The story of a deferred item: the top of its chain, or the first item of the chain that the
    /// dump does not hold (a thread named after the item it answers), or, for a cycle, the item
    /// where the walk met itself. Every item walked is recorded, so all calls together are linear.
    mutating func resolve(_ id: Int64) -> Int64 {
        var chain: [Int64] = []
        var seen: Set<Int64> = []
        var current = id
        var root: Int64
        while true {
            if let known = story[current] { root = known; break }
            guard seen.insert(current).inserted, let parent = waiting[current] else { root = current; break }
            chain.append(current)
            current = parent
        }
        for item in chain { story[item] = root }
        return root
    }
}
