import Foundation

/// `threadfold merge SHARDS... -o SITE`: joins the thread folders of shard builds (hard links,
/// no re-rendering) and builds the index, sections, feeds and sitemap from their `thread.json`
/// sidecars, exactly as a single build would.
///
/// With `precompress`, a thread file's compressed siblings are linked from its shard with it;
/// a sibling the shard lacks (built without them, or too small to have one) is made here.
package struct ArchiveMerge: Sendable {
    package var shards: [String]
    package var output: URL
    package var options: ArchiveOptions
    package var resources: ResourceStore
    /// Flush the site to the disk before and after the swap.
    package var durable = true
    /// Write `.gz` and `.br` siblings beside the site's text files (`Precompression`).
    package var precompress = false
    /// Seconds Pagefind may run (`Pagefind.index`).
    package var searchTimeout: Double = 600

    package init(shards: [String], output: URL, options: ArchiveOptions, resources: ResourceStore = ResourceStore()) {
        self.shards = shards
        self.output = output
        self.options = options
        self.resources = resources
    }

    package func run() throws(ThreadfoldError) -> ArchiveBuilder.Report {
        var report = ArchiveBuilder.Report()
        var clock = Clock()
        let renderer = try ThreadRenderer(options: options, resources: resources)
        var pagefind: [String]?
        if options.search == .pagefind {
            guard let command = Pagefind.command() else {
                report.siteError = Pagefind.missing(output.relativePath)
                return report
            }
            pagefind = command
        }
        let shards = gather(into: &report)
        let summaries = shards.summaries, links = shards.links, unpacked = shards.unpacked, sources = shards.sources
        report.threads = summaries.count
        report.threadsReused = summaries.count
        guard report.errors.isEmpty else { return report }
        report.timings.append(("read sidecars", clock.lap()))

        let staging: SiteWriter.Staging
        do { staging = try SiteWriter(output: output, durable: durable, precompress: precompress).begin() } catch {
            report.siteError = error
            return report
        }
        report.siteError = try ArchiveBuilder.publish(staging) { () throws(ThreadfoldError) in
            for link in links {
                let parts = RelativePath.segments(link.path).dropFirst()
                let directory = try sources[link.source].folder(at: Array(parts.dropLast()))
                guard try staging.link(link.path, from: directory, file: String(parts.last!)) else {
                    throw ThreadfoldError.output(path: directory.path(String(parts.last!)), message: "changed while it was merged; expected the shard to stay as it was")
                }
            }
            for file in unpacked { try staging.writeSiblings(of: file.path, encodings: file.encodings) }
            report.filesReused = links.count
            report.pagesReused = links.filter { $0.path.hasSuffix(".html") }.count
            try renderer.listing(ThreadSummary.sortedForIndex(summaries), jobs: ProcessInfo.processInfo.activeProcessorCount) { (path, bytes, mode) throws(ThreadfoldError) in
                try staging.write(path, bytes, mode: mode)
                report.filesWritten += 1
                if path.hasSuffix(".html") { report.pagesWritten += 1 }
            }
            report.filesWritten += staging.siblingCounts.written
            report.timings.append(("index, feeds and sitemap", clock.lap()))
            if let pagefind {
                staging.handedToAnotherProgram()
                try Pagefind.index(site: staging.path, command: pagefind, timeout: searchTimeout)
                report.timings.append(("pagefind", clock.lap()))
            }
        }
        report.published = report.siteError == nil
        report.timings.append(("publish", clock.lap()))
        return report
    }

    /// What the shards hold: every thread's summary, the files to link (paths under the site
    /// root, and which shard's `t` folder has them), the thread files whose siblings are to be
    /// made here. Problems go to `report`'s errors.
    private struct Shards {
        var summaries = PackedSummaries()
        var owners: [String: String] = [:]
        var sources: [Folder] = []
        var links: [(path: String, source: Int)] = []
        var unpacked: [(path: String, encodings: [Precompression.Encoding])] = []
    }

    private func gather(into report: inout ArchiveBuilder.Report) -> Shards {
        var gathered = Shards()
        // The settings every shard must have been rendered with: this merge's own.
        let expected = BuildSettings.mergeHash(options, resources: resources)
        for shard in shards {
            guard let threads = openShard(shard, expected: expected, into: &report) else { continue }
            gathered.sources.append(threads)
            let names = threads.names().map(\.name).sorted { $0.lexicographicallyPrecedes($1) }
            for bytes in names {
                guard let folder = String(validating: bytes, as: UTF8.self) else {
                    report.errors.append(
                        Problem(
                            file: threads.path(String(decoding: bytes, as: UTF8.self)),
                            message: "is not a UTF-8 name; expected only the thread folders Threadfold writes"))
                    continue
                }
                do {
                    try take(folder, of: shard, in: threads, into: &gathered, report: &report)
                } catch let error as ThreadfoldError {
                    report.errors += error.problems
                } catch {
                    report.errors.append(Problem(file: threads.path(folder), message: "\(error)"))
                }
            }
        }
        return gathered
    }

    /// The `t` folder of the shard at `path` when it is one built with this merge's settings;
    /// nil, with the reason in `report`, otherwise (and for a shard of no threads).
    private func openShard(_ path: String, expected: String, into report: inout ArchiveBuilder.Report) -> Folder? {
        guard let root = try? Folder.open(path), root.entry("shard.json")?.kind == .file else {
            report.errors.append(Problem(file: path, message: "is not a shard folder (no shard.json); expected the output of a sharded build", hint: .shard))
            return nil
        }
        guard let described = root.read("shard.json", limit: 1 << 20), let document = try? JSONDocument(bytes: described.bytes),
            document.kind(document.root) == .object
        else {
            report.errors.append(Problem(file: root.path("shard.json"), message: "is not JSON as a sharded build writes it; expected the output of a sharded build", hint: .shard))
            return nil
        }
        let settings = document.member(document.root, "settings").flatMap { document.kind($0) == .string ? document.string($0) : nil }
        guard settings == expected else {
            report.errors.append(
                Problem(
                    file: root.path("shard.json"), path: "$.settings",
                    message:
                        "this shard was built with other options, templates or Threadfold version than this merge is given; expected every shard built, and the merge run, with the same options (a threadfold.json keeps them together)",
                    hint: .shard))
            return nil
        }
        guard root.entry("t") != nil else { return nil }
        do { return try root.folder("t") } catch {
            report.errors.append(Problem(file: error.path, message: error.message))
            return nil
        }
    }

    /// One thread folder of a shard: its summary, checked against its folder and against the
    /// other shards', and its files, each a regular file, to link.
    private func take(
        _ folder: String, of shard: String, in threads: Folder, into gathered: inout Shards,
        report: inout ArchiveBuilder.Report
    ) throws {
        let display = threads.path(folder)
        let thread = try threads.folder(folder)
        guard let sidecar = thread.read("thread.json") else {
            report.errors.append(Problem(file: display + "/thread.json", message: "is missing or not a regular file; expected every thread folder of a shard to have its sidecar"))
            return
        }
        let summary = try ThreadSummary.decode(sidecar.bytes, file: display + "/thread.json")
        // The folder is derived from the thread, as a build derives it; the shard's
        // own names and paths are never used as they are.
        let derived = "t/" + ThreadPaths.folder(title: summary.title, id: CommentID(summary.id))
        guard summary.path == derived, "t/" + folder == derived else {
            report.errors.append(
                Problem(
                    file: display + "/thread.json", path: "$.path",
                    message: "found \"\(summary.path)\" in folder t/\(folder); expected \"\(derived)\", the folder of this thread's id and title"))
            return
        }
        if let other = gathered.owners[summary.path] {
            report.errors.append(Problem(file: display, message: "the thread \(summary.path)/ is also in \(other); expected each thread in one shard"))
            return
        }
        gathered.owners[summary.path] = shard
        // Exactly the files a build writes for this thread, each a regular file.
        let source = gathered.sources.count - 1
        for file in Manifest.files(of: [summary]) {
            guard let parts = RelativePath.safeSegments(file)?.dropFirst(2),
                let directory = try? thread.folder(at: Array(parts.dropLast())),
                directory.entry(String(parts.last!))?.kind == .file
            else {
                report.errors.append(
                    Problem(
                        file: threads.path(String(file.dropFirst(2))),
                        message: "is missing, a link or not a regular file; expected the page Threadfold wrote there"))
                return
            }
            gathered.links.append((file, source))
            guard precompress, Precompression.applies(to: file) else { continue }
            var lacking: [Precompression.Encoding] = []
            for encoding in Precompression.Encoding.allCases {
                if directory.entry(String(parts.last!) + encoding.suffix)?.kind == .file {
                    gathered.links.append((file + encoding.suffix, source))
                } else {
                    lacking.append(encoding)
                }
            }
            if !lacking.isEmpty { gathered.unpacked.append((file, lacking)) }
        }
        gathered.summaries.append(summary)
        report.comments += summary.stats.comments
    }
}
