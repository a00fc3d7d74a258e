/// How far a build has come, given to ``Threadfold/buildSite(inputs:output:options:progress:)``'s
/// callback (and drawn by the command line's progress bar): the phase, threads done and in all,
/// bytes of dumps read and in all.
///
/// The phases come in the order of `Phase`'s cases, each only when the build has it (`reading`
/// only with dumps among the inputs, `indexing` only with Pagefind search). Within a phase the
/// counts only grow, and a phase's last value has them at their totals.
public struct BuildProgress: Sendable, Equatable {
    /// What the build is doing.
    public enum Phase: String, Sendable, CaseIterable {
        /// Dumps are read and split into partitions of whole threads (bytes count).
        case reading
        /// Threads are read, threaded, laid out and rendered (threads count).
        case rendering
        /// The index, section, author pages, feeds and sitemap are written.
        case listing
        /// Pagefind indexes the site for full-text search.
        case indexing
        /// The manifest is written and the new site replaces the old one.
        case publishing
    }

    public var phase: Phase
    /// Threads rendered or reused so far, and in all (0 until `rendering` knows them).
    public var threadsDone: Int
    public var threadsTotal: Int
    /// Bytes of dumps read so far, and in all (0 without dumps).
    public var bytesRead: Int64
    public var bytesTotal: Int64

    public init(phase: Phase, threadsDone: Int = 0, threadsTotal: Int = 0, bytesRead: Int64 = 0, bytesTotal: Int64 = 0) {
        self.phase = phase
        self.threadsDone = threadsDone
        self.threadsTotal = threadsTotal
        self.bytesRead = bytesRead
        self.bytesTotal = bytesTotal
    }
}
