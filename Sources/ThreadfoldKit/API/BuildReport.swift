/// What ``Threadfold/buildSite(inputs:output:options:progress:)`` built.
public struct BuildReport: Sendable {
    /// Threads and comments in the site (in this shard, for a shard).
    public var threads: Int
    public var comments: Int
    /// Threads rendered by this build, and threads whose files an earlier build wrote and this one kept.
    public var threadsRendered: Int
    public var threadsReused: Int
    /// Threads that belong to other shards.
    public var threadsInOtherShards: Int
    /// Files written, and files left as they were because their bytes were unchanged. Every file
    /// counts, compressed siblings (`BuildOptions.precompress`) included.
    public var filesWritten: Int
    public var filesReused: Int
    /// How many inputs each form was recognised as (`threadfold`, `reddit`, `hn`, …) when
    /// `ImportOptions.format` is `auto`: each file or thread read, and each dump. Threadfold's own
    /// form is counted too, so the counts say what every input was; an input an incremental
    /// build reused without reading it is not counted.
    public var formats: [String: Int]
    /// Everything the build noticed that did not stop it.
    public var warnings: [Problem]
}
