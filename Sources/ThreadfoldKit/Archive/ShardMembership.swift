/// Which threads a shard holds: a hash of the thread's folder, or of a dump's thread key.
extension Shard {
    /// Whether the thread in `folder` belongs to this shard. The hash is of the folder name, so
    /// the split is the same on every machine and in every run.
    func contains(folder: String) -> Bool {
        Int(StableHash.name(folder.utf8) % UInt64(count)) == index - 1
    }

    /// Whether the thread a dump keys as `key` belongs to this shard: dumps are split by thread
    /// key as they are read, so each shard streams the whole dump but spills only its own threads.
    func contains<Key: Sequence<UInt8>>(threadKey key: Key) -> Bool {
        Int(StableHash.spread(key) % UInt64(count)) == index - 1
    }
}
