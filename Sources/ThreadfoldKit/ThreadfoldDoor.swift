import Foundation

/// The library's one door, behind the public calls of API/Threadfold.swift: they are thin
/// wrappers of these, and the command line's `build` and `merge` come in through `Build` and
/// `merge`, so a build is wired in one place.
extension Threadfold {
    /// `renderPage`: one thread, read, threaded, laid out and rendered, with its assets.
    static func page(json: [UInt8], file: String, options: RenderOptions, resources: Resources) throws(ThreadfoldError) -> RenderedPage {
        let store = ResourceStore(resources)
        let pipeline = try ThreadPipeline(options: ArchiveOptions(render: options), resources: store)
        let page = try pipeline.page(bytes: json, file: file)
        let assets = try store.assets(search: false).map { RenderedPage.Asset(name: $0.name, bytes: $0.bytes) }
        return RenderedPage(
            html: page.html, assets: assets, warnings: page.diagnostics.map(\.error),
            comments: page.thread.totals.comments)
    }

    /// `buildSite`: a `Build` of the inputs, run, its problems thrown as one error.
    static func site(
        inputs: [String], output: String, options: BuildOptions, progress: (@Sendable (BuildProgress) -> Void)?
    ) throws(ThreadfoldError) -> BuildReport {
        var globs: [FolderFilter.Glob] = []
        for pattern in options.exclude {
            guard let glob = FolderFilter.Glob(pattern) else {
                throw ThreadfoldError(kind: .usage, problems: [Problem(file: "exclude", message: "'\(pattern)' matches nothing; expected a glob naming files or folders, like *.bak or drafts/")])
            }
            globs.append(glob)
        }
        let filter = FolderFilter(excludes: globs, output: output, marker: SiteWriter.markerName)
        let build = Build(
            inputs: inputs, output: output, options: options, filter: filter,
            readStandardInput: { () throws(ThreadfoldError) -> [UInt8] in
                throw ThreadfoldError.input(Problem(file: "-", message: "standard input is not read by the library; expected a file or folder"))
            })
        let report = try build.run(progress: progress)
        if let error = report.siteError { throw ThreadfoldError(kind: error.kind, problems: report.errors + error.problems) }
        if !report.errors.isEmpty { throw ThreadfoldError(kind: .input, problems: report.errors) }
        return BuildReport(report)
    }

    /// A site build, then run. Its inputs are listed and classified when it runs: first, or in
    /// an incremental build on a thread of their own while the templates are loaded and the
    /// spare taken and cleaned (`ArchiveBuilder.run(listUnits:)`). Their problems are the
    /// report's errors, as a thread's are.
    package struct Build {
        private var builder: ArchiveBuilder
        /// Lists the units when the build runs; nil for a build of units already listed.
        private var listUnits: ArchiveBuilder.ListUnits?

        /// A build of `inputs` (files, folders of them, JSON Lines, dumps; `-` through
        /// `readStandardInput`), leaving out what `filter` excludes.
        package init(
            inputs: [String], output: String, options: BuildOptions, filter: FolderFilter,
            readStandardInput: @escaping @Sendable () throws(ThreadfoldError) -> [UInt8]
        ) {
            let importing = options.archive.render.importing
            let list = { @Sendable (known: KnownElements?) throws(ThreadfoldError) -> [ArchiveUnit] in
                try ArchiveInput.units(
                    inputs, readStandardInput: readStandardInput, linesAreThreads: importing.mapping != nil ? false : nil,
                    dumpForm: ArchiveInput.dumps(importing), filter: filter, known: known)
            }
            self.init(units: [], output: output, options: options)
            listUnits = list
        }

        /// A build of units already listed (`threadfold preview`'s bundled example).
        package init(units: [ArchiveUnit], output: String, options: BuildOptions) {
            builder = ArchiveBuilder(units: units, output: URL(fileURLWithPath: output), options: options.archive, resources: ResourceStore(options.resources), jobs: options.jobs)
            builder.incremental = options.incremental
            builder.shard = options.shard
            builder.durable = options.durable
            builder.precompress = options.precompress
            builder.searchTimeout = options.searchTimeout
        }

        /// Reads, renders and publishes the site, telling `progress` how far it is. Input and
        /// output problems are in the report; what is thrown stops the build before any input is
        /// read (a template or a locale that cannot be used).
        package func run(progress: (@Sendable (BuildProgress) -> Void)? = nil) throws(ThreadfoldError) -> ArchiveBuilder.Report {
            var builder = builder
            builder.progress = ProgressReporter(progress)
            return try builder.run(listUnits: listUnits)
        }
    }

    /// Joins shard builds into one site (`threadfold merge`): the threads' folders linked, the
    /// listings written for all of them.
    package static func merge(shards: [String], output: String, options: BuildOptions) throws(ThreadfoldError) -> ArchiveBuilder.Report {
        var merge = ArchiveMerge(shards: shards, output: URL(fileURLWithPath: output), options: options.archive, resources: ResourceStore(options.resources))
        merge.durable = options.durable
        merge.precompress = options.precompress
        merge.searchTimeout = options.searchTimeout
        return try merge.run()
    }
}
