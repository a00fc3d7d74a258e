import Foundation

/// How ``Threadfold/buildSite(inputs:output:options:progress:)`` builds a site: the archive's
/// options, and how the build runs.
public struct BuildOptions: Sendable {
    /// What the site holds and how every thread is rendered.
    public var archive: ArchiveOptions
    /// Threads rendered at once; the output is the same for any number.
    public var jobs: Int
    /// Re-render only the threads whose input changed since the last build into the same folder.
    public var incremental: Bool
    /// Build only one shard's threads, for a site split across machines.
    public var shard: Shard?
    /// Flush the files to disk before and after the swap (off is faster, for previews).
    public var durable: Bool
    /// Write a gzip (`.gz`) and a Brotli (`.br`) copy beside every HTML, XML, JSON, CSS and JS
    /// file, each only when it is smaller, for servers that send them as they are (nginx's
    /// `gzip_static` and `brotli_static`). Deterministic, like every other file.
    public var precompress: Bool
    /// Globs of files and folders that folder inputs leave out, as .gitignore reads them: a
    /// name at any depth (`*.bak`), or a path below the folder given when it holds a `/`
    /// (`2019/*.json`, `**/old/`; a trailing `/` for folders only). Folders Threadfold wrote
    /// (sites, shards, previews) and the output folder are always left out; inputs named
    /// directly are always read.
    public var exclude: [String] = []
    /// The templates, locales and assets (the built-in ones by default).
    public var resources: Resources
    /// Seconds Pagefind may take to index the site (full-text search) before it is killed, with
    /// everything it started, and the build fails; how the build runs, not what it writes.
    public var searchTimeout: Double = 600

    public init(
        archive: ArchiveOptions = ArchiveOptions(), jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
        incremental: Bool = false, shard: Shard? = nil, durable: Bool = true, precompress: Bool = false,
        resources: Resources = Resources()
    ) {
        self.archive = archive
        self.jobs = max(1, jobs)
        self.incremental = incremental
        self.shard = shard
        self.durable = durable
        self.precompress = precompress
        self.resources = resources
    }
}
