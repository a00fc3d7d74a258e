// Archive stage: many threads in, one site out. It schedules units of input on workers, claims
// each thread's id and folder, reuses what an earlier build wrote (`--incremental`), and hands
// the rendered files to the Site stage; the Render stage makes every page.

import Dispatch
import Foundation
import Synchronization

/// Builds an archive site: every unit of input is read, threaded and rendered by `jobs`
/// workers, each thread's files go straight into a staging folder, and when every unit is
/// done the index, sections, feeds and sitemap are built from the threads' summaries and the
/// folder is swapped into place. Any input error means nothing is published.
///
/// The output does not depend on the order units finish in: thread files are named by their
/// thread, summaries are sorted with a total order, messages are reported in input order.
package struct ArchiveBuilder: Sendable {
    package var units: [ArchiveUnit]
    package var output: URL
    package var options: ArchiveOptions
    package var resources = ResourceStore()
    package var jobs = ProcessInfo.processInfo.activeProcessorCount
    /// Reuse the previous site's files for units whose bytes and settings are unchanged.
    package var incremental = false
    /// Render only this shard's threads, into a shard folder for `merge`.
    package var shard: Shard?
    /// Flush the site to the disk before and after the swap (`--no-fsync` turns it off).
    package var durable = true
    /// Told how far the build is: bytes of dumps read, threads rendered, and each phase.
    var progress = ProgressReporter(nil)
    /// Write `.gz` and `.br` siblings beside the site's text files (`Precompression`).
    package var precompress = false
    /// Seconds Pagefind may run once the pages are written (`Pagefind.Feed.finish`).
    package var searchTimeout: Double = 600

    /// The result of a build.
    package struct Report: Sendable {
        package init() {}

        /// Input errors, in input order; when any, nothing was published.
        package var errors: [Problem] = []
        package var warnings: [Problem] = []
        /// An error writing the site (nothing published).
        package var siteError: ThreadfoldError?
        package var published = false
        package var threads = 0
        package var comments = 0
        package var threadsRendered = 0
        package var threadsReused = 0
        /// Threads left to other shards.
        package var threadsInOtherShards = 0
        /// The dumps' spill partitions, and those an earlier build's table served whole, unread.
        package var dumpPartitions = 0
        package var dumpPartitionsReused = 0
        /// Files written, and files left or linked from an earlier build (every kind of file).
        package var filesWritten = 0
        package var filesReused = 0
        /// The same for HTML pages alone.
        package var pagesWritten = 0
        package var pagesReused = 0
        /// How many units each form was recognised as (`auto`).
        package var formats: [String: Int] = [:]
        /// Seconds per phase: read-and-render, index, publish.
        package var timings: [(phase: String, seconds: Double)] = []
        /// Whether the previous site's manifest was usable for `--incremental`.
        package var incrementalBase = false
        /// Every thread's folder (`t/<slug>-<id>`), in index order.
        package var threadPaths: [String] = []
    }

    /// Runs the build, telling `progress` each phase, and about ten times a second the bytes
    /// read while dumps are read and the threads done while they are rendered.
    ///
    /// With `incremental`, a unit whose bytes and settings are unchanged costs nothing when the
    /// recycled spare (the site from two builds ago) already holds its files, or one hard link
    /// per file when only the live site does; everything else is rendered.
    func run() throws(ThreadfoldError) -> Report {
        var builder = self
        return try builder.run(listUnits: nil)
    }

    /// The listing of a build's units, told the threads of documents an earlier build listed.
    typealias ListUnits = @Sendable (KnownElements?) throws(ThreadfoldError) -> [ArchiveUnit]

    /// `run()` of the units `listUnits` returns (`units` becomes them). What it throws is the
    /// build's input errors, as when a thread cannot be read: nothing is published.
    ///
    /// An incremental build lists them on a thread of its own from the start, while the templates
    /// are loaded and the spare is taken, its manifest read and the folder cleaned (`begin`): its
    /// fixed costs overlap. Listing errors still come first (before a template's or Pagefind's),
    /// but the staging folder then goes, with the spare it recycled (the next build links what it
    /// can from the live site instead). Any other build lists them first, so an input error leaves
    /// everything beside the output as it was.
    mutating func run(listUnits: ListUnits?) throws(ThreadfoldError) -> Report {
        var report = Report()
        var clock = Clock()
        let listing: Background<Result<[ArchiveUnit], ThreadfoldError>>?
        do { listing = try startListing(listUnits) } catch {
            Self.refuse(error, into: &report)
            return report
        }
        guard let (pipeline, pagefind) = try prepare(listing: listing, report: &report) else { return report }
        let settings = settingsHash()
        guard let (staging, begun, partitioned, listed) = begin(listing: listing, settings: settings, report: &report) else { return report }
        units = listed
        let dumpFiles = units.compactMap(\.dumpFile)
        var base = begun
        let plan = self.plan(base: &base, hasDumps: !dumpFiles.isEmpty, settings: settings)

        // 4. The dumps' partitions, read while the staging folder was cleaned.
        var dumps: DumpInputs?
        if let partitioned {
            dumps = Self.take(partitioned, of: dumpFiles, into: &report)
            report.timings.append(("read dumps into partitions", clock.lap()))
            guard report.errors.isEmpty, dumps != nil else {
                dumps?.spill.remove()
                staging.abandon()
                return report
            }
        }

        // 5. Link and render, in parallel, largest units first so no long thread ends the run alone.
        let context = WorkerContext(
            units: units, pipeline: pipeline, staging: staging, shard: shard, claims: ThreadClaims(), reuse: plan.reuse,
            progress: ThreadProgress(), pagefind: pagefind)
        let results = work(plan.actions, context: context, hashes: plan.hashes, signatures: plan.signatures, dumps: dumps)
        // An incremental build keeps its spill beside the site: the next one writes only what changed.
        if let spill = dumps?.spill { if incremental { staging.keep(spill) } else { spill.remove() } }
        report.timings.append(("read and render", clock.lap()))

        var manifest = Manifest(settings: settings, units: [:], files: [:])
        let (tables, summaries, dumpTable) = collect(
            results, clashes: context.claims.clashes(), dumps: dumps, settings: settings, manifest: &manifest, plan: plan, report: &report)
        guard report.errors.isEmpty else {
            staging.abandon()
            return report
        }

        report.siteError = try Self.publish(staging) { () throws(ThreadfoldError) in
            let listing = try writeListing(summaries, staging: staging, renderer: pipeline.renderer, base: base, manifest: &manifest, report: &report)
            // Every file is vouched for by its stamp, for the next build, with its compressed
            // siblings (counted as files). The threads' files were taken as they were written.
            (manifest.listing, manifest.listingStamps) = staging.take(listing)
            report.filesWritten += staging.siblingCounts.written
            report.filesReused += staging.siblingCounts.unchanged
            // What the recycled folder held that this build did not take goes.
            let untaken = Set(staging.untaken)
            for file in base.kept.keys where untaken.contains(file) { staging.remove(file) }
            report.timings.append(("index, feeds and sitemap", clock.lap()))
            if let pagefind {
                progress.enter(.indexing)
                staging.handedToAnotherProgram()
                try pagefind.finish(site: staging.path, timeout: searchTimeout)
                report.timings.append(("pagefind", clock.lap()))
            }
            progress.enter(.publishing)
            try staging.writeMetadata(Manifest.fileName) { (write) throws(ThreadfoldError) in
                try manifest.write(units: ManifestUnits.entriesByKey(tables), jobs: jobs, to: write)
            }
            if let dumpTable {
                try staging.writeMetadata(DumpTable.fileName) { (write) throws(ThreadfoldError) in try write(dumpTable.encoded()) }
            } else {
                try staging.removeMetadata(DumpTable.fileName)
            }
        }
        report.published = report.siteError == nil
        report.timings.append(("publish", clock.lap()))
        // What the build held of earlier ones (a dump's two manifests of 20,000 units each took
        // 0.07 s to free) is freed on another thread.
        Background.release([consume base, consume plan, consume context, consume tables])
        return report
    }

    /// The dumps' partitions as the partition pass left them, its errors, skipped lines and
    /// counts added to `report`.
    private static func take(
        _ partitioned: (outcome: DumpPartition.Outcome, dumps: DumpInputs?),
        of dumpFiles: [DumpFile], into report: inout Report
    ) -> DumpInputs? {
        report.errors += partitioned.outcome.errors
        report.warnings += partitioned.outcome.skipped
        report.threadsInOtherShards += partitioned.outcome.otherShards
        for file in dumpFiles { report.formats[file.form.rawValue, default: 0] += 1 }
        report.dumpPartitions = partitioned.dumps.map { d in d.digests.indices.count { d.spill.sizes[$0] > 0 } } ?? 0
        return partitioned.dumps
    }

    /// The recycled spare's manifest, handed from the thread that read it (`begin`), and the
    /// live site's being read beside it.
    private final class SpareManifest: Sendable {
        let manifest = Mutex<Manifest?>(nil)
        let live = Mutex<Background<LiveManifest?>?>(nil)
    }

    /// What an earlier build left that this one may reuse: the recycled spare's manifest and
    /// the files it kept, its units when its settings are this build's, and the live site's
    /// manifest when the spare cannot serve.
    struct Base {
        var spare: Manifest?
        var kept: [String: FileStamp]
        var spareUnits: [String: Manifest.Unit]?
        var previous: LiveManifest?
        /// The live site's manifest being read (an incremental build), for `plan` to take when
        /// the spare cannot serve every unit.
        var live: Background<LiveManifest?>?
        var exists: Bool { previous != nil || spareUnits != nil }
    }

    /// Opens the staging folder (recycling the spare in an incremental build) while the units'
    /// listing ends (`listing`, when they are still being listed) and the dumps among them are
    /// partitioned into their spill;
    /// returns it with the units. Nil when the output is refused, with the reason and the inputs'
    /// own problems in `report`, or when listing failed, with its errors there.
    private func begin(
        listing: Background<Result<[ArchiveUnit], ThreadfoldError>>?, settings: String,
        report: inout Report
    ) -> (SiteWriter.Staging, Base, (outcome: DumpPartition.Outcome, dumps: DumpInputs?)?, [ArchiveUnit])? {
        var spare: Manifest?
        let given = units
        func list() -> Result<[ArchiveUnit], ThreadfoldError> { listing?.wait() ?? .success(given) }
        // Dumps are streamed once into spill partitions of whole threads (inside the staging
        // folder, so a failed or killed build leaves none behind), while the recycled spare is cleaned.
        var partitioned: (outcome: DumpPartition.Outcome, dumps: DumpInputs?)?
        let meanwhile: ((SiteWriter.Staging) -> Void)? =
            listing == nil && !given.contains(where: { $0.dumpFile != nil })
            ? nil
            : { staging in
                guard case .success(let units) = list() else { return }
                let dumpFiles = units.compactMap(\.dumpFile)
                if !dumpFiles.isEmpty { partitioned = partition(dumpFiles, staging: staging) }
            }
        let staging: SiteWriter.Staging
        let found = SpareManifest()
        let output = output
        do {
            // An incremental build recycles the spare (the site from two builds ago) whenever it has
            // a manifest: files it vouches for are kept when their bytes are unchanged, and with
            // unchanged settings whole units are. Anything the manifest does not vouch for is removed.
            // The spare's manifest is read on the thread that cleans the spare, beside `meanwhile`.
            staging = try SiteWriter(output: output, durable: durable, precompress: precompress).begin(
                keepSpare: incremental,
                recycle: { read in
                    // The live site's manifest (the output is locked by now) is read beside the
                    // spare's: an increment almost always needs it, since a unit the last build
                    // changed misses the spare (two builds old). Read after the walk, it took 4 to
                    // 6 ms of the main thread in a document's increment. Its thread takes this
                    // one's priority (a yielding one's, beside `meanwhile`).
                    found.live.withLock { $0 = Background { Self.readLiveManifest(of: output) } }
                    guard let bytes = read(Manifest.fileName), let manifest = Manifest(bytes: bytes) else { return nil }
                    found.manifest.withLock { $0 = manifest }
                    return manifest.stamps
                }, meanwhile: meanwhile)
            spare = found.manifest.withLock { $0 }
        } catch {
            // Say what is wrong with the inputs too, so one run reports every problem.
            report.siteError = error
            switch list() {
            case .success(let units): report.errors = InputCheck(importing: options.render.importing, jobs: jobs).units(units)
            case .failure(let error): report.errors = error.problems
            }
            return nil
        }
        let units: [ArchiveUnit]
        switch list() {
        case .success(let listed): units = listed
        case .failure(let error):
            Self.refuse(error, into: &report)
            staging.abandon()
            return nil
        }
        if !staging.recycled { spare = nil }
        let live = found.live.withLock { $0 } ?? (incremental ? Background { Self.readLiveManifest(of: output) } : nil)
        let spareUnits = spare?.settings == settings ? spare?.units : nil
        // The live site's manifest is taken here only when the recycled spare cannot serve at
        // all; otherwise `plan` takes it when some unit misses the spare (and it was read for
        // nothing when none does).
        let previous = incremental && spareUnits == nil ? Self.liveManifest(live, settings: settings) : nil
        let base = Base(spare: spare, kept: staging.kept ?? [:], spareUnits: spareUnits, previous: previous, live: live)
        report.incrementalBase = base.exists
        return (staging, base, partitioned, units)
    }

    /// The units' listing begun on a thread of its own (an incremental build); nil when there is
    /// none to wait for: the units were given, or listed here first (any other build: `units`
    /// becomes them, and what listing throws is thrown).
    private mutating func startListing(
        _ listUnits: ListUnits?
    ) throws(ThreadfoldError) -> Background<Result<[ArchiveUnit], ThreadfoldError>>? {
        guard let listUnits else { return nil }
        if incremental {
            // The documents the live site was built from: their threads, unchanged, are hashed,
            // not checked again. The head of its manifest (`knownElements`) is read here, beside
            // the spare's manifest and the live one's units (`begin`).
            let output = output
            return Background {
                Result { () throws(ThreadfoldError) in
                    try listUnits(Manifest.knownElements(of: output))
                }
            }
        }
        units = try listUnits(nil)
        return nil
    }

    /// The pipeline that renders, and Pagefind's feed when the build indexes its pages (a shard
    /// leaves that to `merge`: Pagefind indexes the whole site). Nil when Pagefind cannot be
    /// started, with the reason in `report`; a template that cannot be used is thrown. Either
    /// way the listing's own errors, when it failed, come first, in `report`.
    private func prepare(
        listing: Background<Result<[ArchiveUnit], ThreadfoldError>>?, report: inout Report
    ) throws(ThreadfoldError) -> (ThreadPipeline, Pagefind.Feed?)? {
        func listingFailed(_ report: inout Report) -> Bool {
            guard let listing, case .failure(let error) = listing.wait() else { return false }
            Self.refuse(error, into: &report)
            return true
        }
        let pipeline: ThreadPipeline
        do { pipeline = try ThreadPipeline(options: options, resources: resources) } catch {
            if listingFailed(&report) { return nil }
            throw error
        }
        guard options.search == .pagefind && shard == nil else { return (pipeline, nil) }
        do { return (pipeline, try Pagefind.Feed(output: output.relativePath)) } catch {
            if !listingFailed(&report) { report.siteError = error }
            return nil
        }
    }

    /// A listing's failure in `report`: input problems as its errors, anything else as the
    /// site's error.
    private static func refuse(_ error: ThreadfoldError, into report: inout Report) {
        if error.kind == .input { report.errors = error.problems } else { report.siteError = error }
    }

    /// What each unit needs, from one stat per input and, where an earlier build could serve,
    /// its content hash.
    struct Plan {
        var signatures: [String: Manifest.Signature]
        var hashes: [UInt64?]
        var reuse: Reuse
        var actions: [Action]
    }

    /// The live site's manifest (`live`, being read), when it was written with these settings.
    private static func liveManifest(_ live: Background<LiveManifest?>?, settings: String) -> LiveManifest? {
        live?.wait().flatMap { $0.head.settings == settings ? $0 : nil }
    }

    private static func readLiveManifest(of output: URL) -> LiveManifest? {
        SiteWriter.readMetadata(of: output, Manifest.fileName).flatMap(LiveManifest.init(bytes:))
    }

    /// What each unit needs. The recycled spare is the site from two builds ago, so a unit that
    /// changed in the last build misses it: the live site's manifest is then read as well (as it
    /// is whenever dumps are built, whose threads are only known once they are read), and such a
    /// unit is linked from the live site rather than rendered again.
    private func plan(base: inout Base, hasDumps: Bool, settings: String) -> Plan {
        var plan = planFromSpare(base: base, hasDumps: hasDumps, settings: settings)
        guard incremental, base.previous == nil, base.spareUnits != nil,
            hasDumps || plan.actions.contains(where: { if case .render(key: .some) = $0 { true } else { false } }),
            let previous = Self.liveManifest(base.live, settings: settings)
        else { return plan }
        base.previous = previous
        plan.reuse.previous = previous
        // On every core: each unit the live site holds is decoded from its manifest as it is looked up.
        let missed = plan.actions.indices.compactMap { i -> (Int, String, UInt64)? in
            guard case .render(key: .some(let key)) = plan.actions[i], let hash = plan.hashes[i] else { return nil }
            return (i, key, hash)
        }
        let reuse = plan.reuse
        let actions = Parallel.map(count: missed.count, jobs: jobs) { m in reuse.action(key: missed[m].1, hash: missed[m].2) }
        for (m, action) in actions.enumerated() { plan.actions[missed[m].0] = action }
        return plan
    }

    private func planFromSpare(base: Base, hasDumps: Bool, settings: String) -> Plan {
        // 1. One stat per input file, taken before anything is read, so a manifest never pairs a
        //    newer modification time with older bytes.
        let signatures = Self.signatures(units)
        // The live site's table of dump partitions: the last build's input, to compare this one's with.
        let table =
            base.exists && hasDumps
            ? SiteWriter.readMetadata(of: output, DumpTable.fileName).flatMap { DumpTable(bytes: $0, settings: settings) }
            : nil
        let reuse = Reuse(spareUnits: base.spareUnits, previous: base.previous, kept: base.kept, dumps: table)
        guard base.exists else {
            let none = [UInt64?](repeating: nil, count: units.count)
            return Plan(signatures: signatures, hashes: none, reuse: reuse, actions: none.map { _ in .render(key: nil) })
        }
        // 2. Every unit's hash, when an earlier build could serve it: untouched files are not read
        //    (their stat matches), nor threads of a document the listing hashed while the file is
        //    as it was then. Otherwise rendering hashes the bytes it reads anyway.
        // 3. With it, what each unit needs: nothing (the recycled folder has it), links to the
        //    live site, or rendering. On every core: a unit the live site holds is decoded from
        //    its manifest when it is looked up.
        let known = Self.trustedHashes(units: units, signatures: signatures, manifests: [base.previous?.head, base.spare].compactMap { $0 })
        let units = self.units
        let planned = Parallel.map(count: units.count, jobs: jobs) { i -> (UInt64?, Action) in
            guard
                let hash = known[i] ?? Self.listedHash(units[i], signatures: signatures)
                    ?? InputBudget.scope({ try? ArchiveUnit.contentHash(of: units[i].read()) })
            else { return (nil, .render(key: nil)) }
            return (hash, reuse.action(key: Manifest.key(units[i].key(contentHash: hash)), hash: hash))
        }
        return Plan(signatures: signatures, hashes: planned.map(\.0), reuse: reuse, actions: planned.map(\.1))
    }

    /// Every unit's threads, files and warnings, compact: a table per unit of work, in unit
    /// order, added to `report` as each result is let go; the listings read the summaries from
    /// the tables' own buffers. Sets the manifest's input files, and refuses a site of no thread.
    private func collect(
        _ results: [UnitResult], clashes: [ThreadClaims.Clash], dumps: DumpInputs?, settings: String, manifest: inout Manifest, plan: Plan,
        report: inout Report
    ) -> (tables: [ManifestUnits], summaries: PackedSummaries, dumpTable: DumpTable?) {
        var results = results
        for clash in clashes { results[clash.rank].errors += clashError(clash) }
        var tables: [ManifestUnits] = []
        // Messages about dumps come in the order of their files and lines, whatever partition found them.
        var dumpErrors: [Problem] = []
        var dumpWarnings: [Problem] = []
        let readHashes = results.prefix(units.count).map(\.hash)
        let dumpTable = dumps.map { DumpTable(settings: settings, digests: $0.digests, threads: results[units.count...].map(\.dumpThreads)) }
        for i in results.indices {
            // Each result is let go as soon as it is added.
            var result = UnitResult()
            swap(&result, &results[i])
            if i < units.count, case .dump = units[i].source { continue }
            if i >= units.count {
                dumpErrors += Problem.once(result.errors, after: dumpErrors)
                dumpWarnings += result.units.warnings.map { dumps?.placed($0) ?? $0 }
                result.errors = []
                report.add(result)
            } else {
                report.add(result, from: units[i])
            }
            tables.append(result.units)
        }
        results = []
        let summaries = PackedSummaries(joining: tables.map(\.summaries))
        if let dumps {
            let places = MessagePlaces(files: dumps.files)
            report.errors += places.sorted(dumpErrors)
            report.warnings += places.sorted(dumpWarnings)
        }
        manifest.files = Self.fileStates(units: units, hashes: readHashes, signatures: plan.signatures)
        report.threads = summaries.count
        // Threads with nothing to show are left out with a warning; a site of none is no site.
        if summaries.count == 0, shard == nil, report.errors.isEmpty, report.warnings.contains(where: { $0.kind == "emptyThread" }) {
            report.errors.append(
                Problem(
                    file: units.first?.display ?? "-",
                    message: "no thread has anything to show (each is named in a warning above); expected at least one thread with a comment or an opening post (nothing was published)"))
        }
        return (tables, summaries, dumpTable)
    }

    /// Writes the index, sections, feeds and sitemap (or a shard's `shard.json`), each file as it
    /// is rendered, or takes an earlier build's when the summaries and settings are unchanged.
    /// Returns the listing's paths.
    private func writeListing(
        _ summaries: PackedSummaries, staging: SiteWriter.Staging, renderer: ThreadRenderer, base: Base,
        manifest: inout Manifest, report: inout Report
    ) throws(ThreadfoldError) -> [String] {
        progress.enter(.listing)
        let ordered = ThreadSummary.sortedForIndex(summaries)
        report.threadPaths = ordered.indices.map(ordered.path)
        var listing: [String] = []
        var counts: [(path: String, written: Bool)] = []
        let previous = base.previous?.head
        let write = { (path: String, bytes: [UInt8], mode: UInt32) throws(ThreadfoldError) in
            listing.append(path)
            // An unchanged listing page keeps its file (and date) from an earlier build; an
            // asset of narrower mode is written afresh, never linked with another mode.
            var reused = false
            if !staging.recycled && previous != nil && mode == publishedMode {
                reused = try staging.link(path, expected: nil, bytes: bytes)
            }
            let written = reused ? false : try staging.write(path, bytes, mode: mode)
            counts.append((path, written))
        }
        defer { for count in counts { report.count(count.path, written: count.written) } }
        if let shard {
            var w = JSONWriter(pretty: false)
            w.object { w in
                w.field("shard", "\(shard.index)/\(shard.count)")
                w.field("threads", ordered.count)
                w.field("version", Release.version)
                // What the shard's pages were rendered with: a merge with other options
                // (another --authors, another --per-page) would join pages that disagree.
                w.field("settings", BuildSettings.mergeHash(options, resources: resources))
            }
            try write("shard.json", w.out + [0x0A], publishedMode)
            return listing
        }
        // Listings depend on the settings and the summaries alone: when both are as an
        // earlier build left them, its listing files are taken as they are.
        let digest = StableHash.hex(ordered.digest())
        manifest.listingHash = digest
        if let reused = try reuseListing(digest: digest, staging: staging, spare: base.spareUnits == nil ? nil : base.spare, previous: previous) {
            for path in reused { counts.append((path, false)) }
            return reused
        }
        try renderer.listing(ordered, jobs: jobs, write: write)
        return listing
    }

    /// The listing files (with their compressed siblings) of an earlier build with these settings
    /// whose summaries had `digest`: the ones the recycled folder kept, or links to the live
    /// site's. Nil, with nothing left behind, when there is no such build or one of its files is
    /// not as its manifest recorded; the listing is then rendered.
    func reuseListing(digest: String, staging: SiteWriter.Staging, spare: Manifest?, previous: Manifest?) throws(ThreadfoldError) -> [String]? {
        if let spare, spare.listingHash == digest, let kept = staging.kept, spare.listing.allSatisfy({ kept[$0] != nil }) {
            return spare.listing
        }
        guard let previous, previous.listingHash == digest else { return nil }
        return try staging.link(previous.listing, expected: previous.listingStamps) ? previous.listing : nil
    }

    /// Streams the dump files into a spill in the staging folder. Nil dumps when the spill
    /// cannot be made (its error is in the outcome).
    func partition(
        _ files: [DumpFile], staging: SiteWriter.Staging
    )
        -> (outcome: DumpPartition.Outcome, dumps: DumpInputs?)
    {
        let progress = self.progress
        let readProgress: (@Sendable (Int64, Int64) -> Void)? = progress.listens ? { @Sendable read, total in progress.read(read, of: total) } : nil
        return DumpInputs.partition(
            files, importing: options.render.importing, keeps: shard.map { shard in { shard.contains(threadKey: $0) } }, jobs: jobs,
            readProgress: readProgress
        ) {
            (count, bufferBytes) throws(ThreadfoldError) in
            try staging.spill(count: count, bufferBytes: bufferBytes, format: DumpPartition.spillFormat)
        }
    }

    /// What a unit needs, with its manifest key (nil when its hash is not known before reading).
    enum Action: Sendable {
        /// The recycled folder holds its files already.
        case keep(Manifest.Unit, key: String)
        /// The live site holds its files: link them, unless one changed.
        case link(Manifest.Unit, key: String)
        case render(key: String?)
    }

    /// Carries out every unit's action: kept units at once, the rest on `jobs` workers, largest
    /// first (the sizes come from the stats taken before reading), so no long thread ends the
    /// run alone. Results are in unit order.
    func work(
        _ actions: [Action], context: WorkerContext, hashes: [UInt64?], signatures: [String: Manifest.Signature],
        dumps: DumpInputs?
    ) -> [UnitResult] {
        // Units first, then the dumps' partitions, each a unit of work.
        let partitions = dumps?.spill.sizes.dropLast().count ?? 0
        var results = [UnitResult?](repeating: nil, count: units.count + partitions)
        var pending: [Int] = [], kept: [Int] = []
        for (i, action) in actions.enumerated() {
            if case .dump = units[i].source {
                results[i] = UnitResult()
                continue
            }
            if case .keep = action { kept.append(i) } else { pending.append(i) }
        }
        for p in 0..<partitions where dumps!.spill.sizes[p] > 0 { pending.append(units.count + p) }
        for p in 0..<partitions where dumps!.spill.sizes[p] == 0 { results[units.count + p] = UnitResult() }
        let sizes = pending.map { i -> Int64 in
            guard i < units.count else { return dumps!.spill.sizes[i - units.count] }
            switch units[i].source {
            case .file(let path): return signatures[path]?.size ?? 0
            case .line(_, _, let length, _): return Int64(length)
            case .bytes(let bytes): return Int64(bytes.count)
            case .dump: return 0
            }
        }
        pending = pending.indices.sorted { sizes[$0] > sizes[$1] || (sizes[$0] == sizes[$1] && pending[$0] < pending[$1]) }.map { pending[$0] }
        // Progress counts threads: a unit is one (most are), a partition as many as it holds.
        let total = units.count { if case .dump = $0.source { false } else { true } } + (dumps?.threads.reduce(0, +) ?? 0)
        context.progress.done.store(total - pending.filter { $0 < units.count }.count - (dumps?.threads.reduce(0, +) ?? 0), ordering: .relaxed)
        let counter = context.progress, progress = self.progress
        // The units kept whole are served by the same workers, after those to render (counted
        // done from the start, as they take next to no time).
        let order = pending + kept
        let computed = Parallel.map(count: order.count, jobs: jobs, progress: progress.listens ? { _ in progress.rendered(counter.done.load(ordering: .relaxed), of: total) } : nil) {
            [order, units] p -> UnitResult in
            let i = order[p]
            if i < units.count, case .keep = actions[i] { return context.serve(actions[i], hash: hashes[i]!, claimant: units[i].claimant(rank: i))! }
            return InputBudget.scope { work(unit: i, units: units, actions: actions, context: context, hashes: hashes, dumps: dumps) }
        }
        for (p, i) in order.enumerated() { results[i] = computed[p] }
        progress.rendered(total, of: total)
        return results.map { $0! }
    }

    /// One pending unit's work (or, past the units, one dump partition's), on a worker.
    private func work(unit i: Int, units: [ArchiveUnit], actions: [Action], context: WorkerContext, hashes: [UInt64?], dumps: DumpInputs?) -> UnitResult {
        if i >= units.count { return context.renderPartition(i - units.count, dumps: dumps!) }
        defer { context.progress.advance() }
        // Linked when every file of the live site is still the one its manifest recorded.
        if case .link = actions[i], let result = context.serve(actions[i], hash: hashes[i]!, claimant: units[i].claimant(rank: i)) {
            return result
        }
        return context.render(units[i], rank: i, hash: hashes[i])
    }

    /// Runs `body` (the last writes) and publishes the staging folder. An error writing the site
    /// abandons it and is returned; nothing is published.
    static func publish(_ staging: SiteWriter.Staging, _ body: () throws(ThreadfoldError) -> Void) throws(ThreadfoldError) -> ThreadfoldError? {
        do {
            try body()
            try staging.commit()
            return nil
        } catch {
            staging.abandon()
            guard error.kind == .output || error.kind == .busy else { throw error }
            return error
        }
    }

    /// Hashes that need no reading: a file whose size, modification time and inode match a
    /// manifest's record (for JSON Lines, each line's hash, when the line count matches too).
    static func trustedHashes(units: [ArchiveUnit], signatures: [String: Manifest.Signature], manifests: [Manifest]) -> [UInt64?] {
        var lineCounts: [String: Int] = [:]
        for unit in units { if case .line(let path, _, _, _) = unit.source { lineCounts[path, default: 0] += 1 } }
        var lineIndex: [String: Int] = [:]
        var known = [UInt64?](repeating: nil, count: units.count)
        for (i, unit) in units.enumerated() {
            let path: String
            var line = -1
            switch unit.source {
            case .file(let p): path = p
            case .line(let p, _, _, _):
                path = p
                line = lineIndex[p, default: 0]
                lineIndex[p] = line + 1
            case .bytes, .dump: continue
            }
            guard let signature = signatures[path], signature.size > 0 else { continue }
            for manifest in manifests {
                guard let state = manifest.files[Manifest.key(path)], state.size == signature.size, state.mtime == signature.mtime,
                    state.inode == signature.inode
                else { continue }
                if line < 0, state.lines == nil, let hash = UInt64(state.hash, radix: 16) {
                    known[i] = hash
                    break
                }
                if line >= 0, let lines = state.lines, lines.count == lineCounts[path], let hash = UInt64(lines[line], radix: 16) {
                    known[i] = hash
                    break
                }
            }
        }
        return known
    }

    /// The hash the listing took of `unit`'s bytes, while its file's stat is still the one the
    /// listing read it with.
    static func listedHash(_ unit: ArchiveUnit, signatures: [String: Manifest.Signature]) -> UInt64? {
        guard let listed = unit.listed, case .line(let path, _, _, _) = unit.source, let now = signatures[path],
            now == (listed.size, listed.mtime, listed.inode)
        else { return nil }
        return listed.hash
    }

    /// Each input file's stat signature, once.
    static func signatures(_ units: [ArchiveUnit]) -> [String: Manifest.Signature] {
        var signatures: [String: Manifest.Signature] = [:]
        for unit in units {
            switch unit.source {
            case .file(let path), .line(let path, _, _, _):
                if signatures[path] == nil, let signature = Manifest.signature(path) { signatures[path] = signature }
            case .bytes, .dump: continue
            }
        }
        return signatures
    }

    /// The stat signature and hashes of every input file, for the next build's manifest.
    static func fileStates(units: [ArchiveUnit], hashes: [UInt64?], signatures: [String: Manifest.Signature]) -> [String: Manifest.FileState] {
        var states: [String: Manifest.FileState] = [:]
        for (i, unit) in units.enumerated() {
            guard let hash = hashes[i] else { continue }
            switch unit.source {
            case .file(let path):
                if let s = signatures[path] {
                    states[Manifest.key(path)] = Manifest.FileState(size: s.size, mtime: s.mtime, inode: s.inode, hash: StableHash.hex(hash))
                }
            case .line(let path, _, let length, _):
                let key = Manifest.key(path)
                if states[key] == nil, let s = signatures[path] {
                    // A document's threads are known to its next listing (`KnownElements`).
                    let depth = unit.element.map { $0.path.hasPrefix("$[") ? 1 : 2 }
                    states[key] = Manifest.FileState(
                        size: s.size, mtime: s.mtime, inode: s.inode, hash: "", lines: [], lengths: depth.map { _ in [] }, depth: depth)
                }
                states[key]?.lines?.append(StableHash.hex(hash))
                states[key]?.lengths?.append(length)
            case .bytes, .dump:
                continue
            }
        }
        return states
    }

    /// The error of a thread that lost its id or folder to one of an earlier input, at the
    /// thread's unit (a dump thread's at its file), naming both inputs in one order.
    private func clashError(_ clash: ThreadClaims.Clash) -> [Problem] {
        let places = [clash.holder, clash.source].sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let id = clash.id, path = clash.folder
        let message =
            "the thread id \"\(id)\" (page \(path)/) is used by a thread in \(places[0]) and by one in \(places[1]): the same thread from two inputs, or two threads with one id; expected each thread in one input only (leave one of the two out; neither is published over the other)"
        guard clash.rank < units.count else { return [Problem(file: clash.errorFile, path: "$.id", message: message)] }
        return units[clash.rank].errors(ThreadfoldError.input(Problem(file: clash.source, path: "$.id", message: message)))
    }

    /// Everything besides the input bytes that decides the output.
    func settingsHash() -> String {
        BuildSettings.hash(options, shard: shard, precompress: precompress, resources: resources)
    }
}

extension ArchiveBuilder.Report {
    /// Adds one unit's counts, problems and formats, and the warnings it kept, put on the lines of
    /// `unit`'s file as it is now. A dump partition's warnings are sorted in later, by their files
    /// and lines: they are not added here (`unit` nil).
    mutating func add(_ result: UnitResult, from unit: ArchiveUnit? = nil) {
        errors += Problem.once(result.errors, after: errors)
        if let unit { warnings += result.units.warnings.map(unit.placed) }
        threadsRendered += result.rendered
        threadsReused += result.reused
        threadsInOtherShards += result.otherShards
        dumpPartitionsReused += result.partitionsReused
        filesWritten += result.filesWritten
        filesReused += result.filesReused
        pagesWritten += result.pagesWritten
        pagesReused += result.pagesReused
        comments += result.comments
        if let format = result.format { formats[format, default: 0] += 1 }
    }

    /// Counts one file of the listing as written or as left unchanged.
    mutating func count(_ path: String, written: Bool) {
        let page = path.hasSuffix(".html") ? 1 : 0
        if written {
            filesWritten += 1
            pagesWritten += page
        } else {
            filesReused += 1
            pagesReused += page
        }
    }
}

/// Wall-clock laps for the report.
struct Clock {
    var last = DispatchTime.now().uptimeNanoseconds
    mutating func lap() -> Double {
        let now = DispatchTime.now().uptimeNanoseconds
        defer { last = now }
        return Double(now - last) / 1e9
    }
}

struct UnitResult: Sendable {
    /// The manifest's record of each unit, with its threads' summaries (a dump's partition holds
    /// many units, one per thread).
    var units = ManifestUnits()
    var errors: [Problem] = []
    var rendered = 0
    var reused = 0
    var otherShards = 0
    var filesWritten = 0
    var filesReused = 0
    var pagesWritten = 0
    var pagesReused = 0
    var comments = 0
    var format: String?
    /// The hash of the unit's bytes, for the manifest's file records.
    var hash: UInt64?
    /// A dump partition's threads, in the order they first appear, for the manifest's `DumpTable`.
    var dumpThreads: [DumpTable.Thread] = []
    /// Dump partitions served whole from an earlier build's table (0 or 1 for one partition).
    var partitionsReused = 0
}

/// Threads done so far, counted by the workers as they go.
final class ThreadProgress: Sendable {
    let done = Atomic<Int>(0)
    func advance() { done.add(1, ordering: .relaxed) }
}

/// What an earlier build left that this one may use: the recycled spare's manifest units (when
/// its settings match), the live site's manifest (when the spare cannot serve), and the files
/// the spare still holds intact.
struct Reuse: Sendable {
    var spareUnits: [String: Manifest.Unit]?
    var previous: LiveManifest?
    var kept: [String: FileStamp]
    /// The last build's dump partitions.
    var dumps: DumpTable?

    /// Nothing to do when the recycled folder holds the unit whole with this hash; links when the
    /// live site does; rendering otherwise.
    func action(key: String, hash: UInt64) -> ArchiveBuilder.Action {
        let hex = StableHash.hex(hash)
        if let old = spareUnits?[key], old.hash == hex, old.files.allSatisfy({ kept[$0] != nil }) { return .keep(old, key: key) }
        if let old = previous?.unit(key), old.hash == hex { return .link(old, key: key) }
        return .render(key: key)
    }
}

struct WorkerContext: Sendable {
    let units: [ArchiveUnit]
    let pipeline: ThreadPipeline
    let staging: SiteWriter.Staging
    let shard: Shard?
    let claims: ThreadClaims
    let reuse: Reuse
    /// Threads done, for the progress bar.
    let progress: ThreadProgress
    /// Pagefind, given each page as it is written (`--search pagefind`).
    let pagefind: Pagefind.Feed?

    /// A unit an earlier build left whole, as `action` says: kept from the recycled folder (its
    /// files counted as reused) or linked from the live site. Nil when it must be rendered: the
    /// action says so, or a file of the live site is not as its manifest recorded. `claimant`
    /// claims its threads as rendering it would.
    func serve(_ action: ArchiveBuilder.Action, hash: UInt64, claimant: Claimant) -> UnitResult? {
        switch action {
        case .keep(let old, let key):
            var result = reused(old, key: key, hash: hash, claimant: claimant, linkFiles: false)!
            if result.errors.isEmpty {
                result.filesReused = old.files.count
                result.pagesReused = old.files.filter { $0.hasSuffix(".html") }.count
            }
            return result
        case .link(let old, let key):
            return reused(old, key: key, hash: hash, claimant: claimant, linkFiles: true)
        case .render:
            return nil
        }
    }

    /// A unit whose files an earlier build wrote: linked from the live site when the staging
    /// folder does not already hold them, then claimed. Nil when a live file is not the one the
    /// manifest recorded (gone, edited, replaced by a link): the caller renders the unit afresh.
    func reused(_ old: Manifest.Unit, key: String, hash: UInt64, claimant: Claimant, linkFiles: Bool) -> UnitResult? {
        var result = UnitResult()
        result.hash = hash
        if linkFiles {
            guard (try? staging.link(old.files, expected: old.stamps)) == true else { return nil }
            result.filesReused = old.files.count
            result.pagesReused = old.files.filter { $0.hasSuffix(".html") }.count
        }
        // A thread another input holds: nothing of the unit is taken (the clash is an error).
        for summary in old.threads where !claims.claim(id: Array(summary.id.utf8), folder: summary.path, claimant) { return result }
        let taken = staging.take(old.files)
        result.units.append(key: key, old.taking(files: taken.files, stamps: taken.stamps))
        result.reused = old.threads.count
        result.comments = old.comments
        return result
    }

    /// Reads, renders and writes a unit; `hash` is its bytes' hash when step 2 already read them.
    func render(_ unit: ArchiveUnit, rank: Int, hash known: UInt64?) -> UnitResult {
        var result = UnitResult()
        do throws(ThreadfoldError) {
            let data = try unit.read()
            let hash = known ?? ArchiveUnit.contentHash(of: data)
            result.hash = hash
            // Its warnings are kept as the unit reads them and put on the file's lines, under its
            // name, when they are reported (`Report.add(_:from:)`), so a unit reused at another
            // place or in another file is reported where it is now.
            try renderThreads(
                Importer.read(bytes: data, file: unit.display, options: pipeline.options.render.importing), file: unit.display,
                claimant: unit.claimant(rank: rank), key: Manifest.key(unit.key(contentHash: hash)), hash: hash, into: &result, locate: { $0 })
        } catch {
            result.errors += unit.errors(error)
        }
        return result
    }

    /// Renders and writes each thread `imported` read, adding them to `result` with one manifest
    /// unit under `key`. `file` is the name the importer read them as, `claimant` claims the
    /// threads' ids and folders and names them in messages; `locate` is applied to the warnings
    /// the unit keeps.
    ///
    /// With a shard, threads of other shards are left out by their folder, unless `sharded` says
    /// the input was split by shard already (a dump, by thread key, as it was read).
    func renderThreads(
        _ imported: @autoclosure () throws(ThreadfoldError) -> ImportResult, file: String, claimant: Claimant, key: String, hash: UInt64,
        sharded: Bool = false, into result: inout UnitResult, locate: (Problem) -> Problem
    ) throws(ThreadfoldError) {
        let imported = try imported()
        if imported.detected { result.format = imported.format.rawValue }
        var summaries: [ThreadSummary] = []
        var warnings = imported.skipped.map(locate)
        var written: [String] = []
        var comments = 0
        var folders = SiteWriter.OpenFolders()
        for record in imported.threads {
            let id = record.threadID
            let folder = ThreadPaths.folder(title: record.info.title, id: id)
            if !sharded, let shard, !shard.contains(folder: folder) {
                result.otherShards += 1
                continue
            }
            // A thread another input holds is not written (the clash is an error).
            guard claims.claim(id: Array(id.string.utf8), folder: "t/\(folder)", claimant) else { continue }
            let rendered = try pipeline.files(record, id: id, folder: folder, source: claimant.source) { (path, bytes) throws(ThreadfoldError) in
                let page = path.hasSuffix(".html") ? 1 : 0
                pagefind?.add(path: path, bytes: bytes)
                if try staging.write(path, bytes, folders: &folders) {
                    result.filesWritten += 1
                    result.pagesWritten += page
                } else {
                    result.filesReused += 1
                    result.pagesReused += page
                }
            }
            let files: ThreadFiles
            switch rendered {
            case .written(let written): files = written
            case .empty(let tree):
                // Nothing to show: not published, said in a warning at the thread's input.
                warnings += tree.diagnostics.map { locate($0.error) }
                warnings.append(locate(tree.emptyThread(file: file, severity: .warning)))
                continue
            }
            written += files.paths
            summaries.append(files.summary)
            warnings += files.diagnostics.map { locate($0.error) }
            result.rendered += 1
            comments += files.summary.stats.comments
        }
        result.comments += comments
        // The files are taken with their stamps as soon as they are written.
        let (files, stamps) = staging.take(written)
        result.units.append(
            key: key,
            Manifest.Unit(
                hash: StableHash.hex(hash), threads: summaries, files: files,
                warnings: warnings, comments: comments, stamps: stamps))
    }
}

/// Who claims a unit's threads (`ThreadClaims`): `source` names them in messages, `rank` is the
/// unit's place among the build's inputs (past the units, a dump partition's), and `errorFile` is
/// what an error about a dump thread's claim names.
struct Claimant: Sendable {
    var source: String
    var rank: Int
    var errorFile: String
}

extension ThreadClaims {
    func claim(id: [UInt8], folder: String, _ claimant: Claimant) -> Bool {
        claim(id: id, folder: folder, source: claimant.source, rank: claimant.rank, errorFile: claimant.errorFile)
    }
}

extension ArchiveUnit {
    /// `error` with the line it names counted from the start of the file, not of this unit, and
    /// for a thread of a document of many, its path from the document's root and, on the
    /// thread's first line, its column counted from the start of that line.
    func located(_ error: Problem) -> Problem {
        var error = error
        if let element, element.indent > 0 {
            if error.line == 1, let column = error.column { error.column = column + element.indent }
            if error.related?.file == nil, error.related?.line == 1, let column = error.related?.column { error.related?.column = column + element.indent }
        }
        if lineBase > 0, let line = error.line { error.line = line + lineBase }
        if let element, let path = error.path, path.hasPrefix("$") { error.path = element.path + path.dropFirst() }
        return error
    }

    /// A warning this unit gave, as `located` puts it, under the unit's name as it is now: a
    /// unit is known by its bytes, so it may have been read under another name.
    func placed(_ warning: Problem) -> Problem {
        var warning = located(warning)
        warning.file = display
        return warning
    }

    /// The unit as messages about its threads' ids and folders name it: its file, and its line
    /// when it starts below the first.
    var claimSource: String { lineBase > 0 ? "\(display):\(lineBase + 1)" : display }

    /// The claimant of this unit's threads, the `rank`-th unit of the build.
    func claimant(rank: Int) -> Claimant { Claimant(source: claimSource, rank: rank, errorFile: display) }

    /// Whatever reading or rendering this unit threw, as located input errors.
    func errors(_ error: ThreadfoldError) -> [Problem] {
        error.problems(display: display, locate: located)
    }
}
