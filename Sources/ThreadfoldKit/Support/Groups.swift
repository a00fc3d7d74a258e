/// Values kept in the order their keys are first seen, each found again by its key: how a list
/// is grouped (a partition's records by thread, posts by author, threads by section) while
/// keeping the groups in input order, which no dictionary does.
struct Groups<K: Hashable, V> {
    private(set) var values: [V] = []
    private var index: [K: Int] = [:]

    /// How many groups there are.
    var count: Int { values.count }

    /// The place of `key`'s group, its value made by `make()` the first time the key is seen.
    mutating func slot(_ key: K, _ make: () -> V) -> Int {
        if let known = index[key] { return known }
        index[key] = values.count
        values.append(make())
        return values.count - 1
    }

    subscript(slot: Int) -> V {
        get { values[slot] }
        _modify { yield &values[slot] }
    }
}
