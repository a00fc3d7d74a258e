/// `--shard K/N`: this build renders the threads whose folder hashes to K (1-based) of N.
public struct Shard: Sendable, Equatable {
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Parses `K/N` with 1 ≤ K ≤ N.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(k) else { return nil }
        self.init(index: k, count: n)
    }

    /// Whether the thread in `folder` belongs to this shard. The hash is of the folder name, so
    /// the split is the same on every machine and in every run.
    public func contains(folder: String) -> Bool {
        Int(FNV1a.hash(folder.utf8) % UInt64(count)) == index - 1
    }

    /// Whether the thread a dump keys as `key` belongs to this shard: dumps are split by thread
    /// key as they are read, so each shard streams the whole dump but spills only its own threads.
    package func contains<Key: Sequence<UInt8>>(threadKey key: Key) -> Bool {
        Int(FNV1a.spread(key) % UInt64(count)) == index - 1
    }
}
