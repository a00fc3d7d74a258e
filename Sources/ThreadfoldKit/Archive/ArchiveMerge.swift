import Foundation

/// `threadfold merge SHARDS... -o SITE`: joins the thread folders of shard builds (hard links,
/// no re-rendering) and builds the index, sections, feeds and sitemap from their `thread.json`
/// sidecars, exactly as a single build would.
public struct ArchiveMerge: Sendable {
    public var shards: [String]
    public var output: URL
    public var options: ArchiveOptions
    public var resources: ResourceStore

    public init(shards: [String], output: URL, options: ArchiveOptions, resources: ResourceStore = ResourceStore()) {
        self.shards = shards
        self.output = output
        self.options = options
        self.resources = resources
    }

    public func run() throws -> ArchiveBuilder.Report {
        var report = ArchiveBuilder.Report()
        var clock = Clock()
        let renderer = try ArchiveRenderer(options: options, resources: resources)
        var summaries: [ThreadSummary] = []
        var owners: [String: String] = [:]
        var links: [(path: String, source: URL)] = []
        for shard in shards {
            let root = URL(fileURLWithPath: shard).standardizedFileURL
            let fm = FileManager.default
            guard fm.fileExists(atPath: root.appendingPathComponent("shard.json").path) else {
                report.errors.append(InputError(file: shard, message: "is not a shard folder (no shard.json); expected the output of 'threadfold build --shard K/N'"))
                continue
            }
            let threads = root.appendingPathComponent("t")
            let folders = ((try? fm.contentsOfDirectory(atPath: threads.path)) ?? []).filter { !$0.hasPrefix(".") }
                .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for folder in folders {
                let sidecar = threads.appendingPathComponent(folder).appendingPathComponent("thread.json")
                let display = "\(shard)/t/\(folder)/thread.json"
                guard let data = fm.contents(atPath: sidecar.path) else {
                    report.errors.append(InputError(file: display, message: "is missing; expected every thread folder of a shard to have its sidecar"))
                    continue
                }
                do {
                    let summary = try ThreadSummary.decode([UInt8](data), file: display)
                    guard summary.path == "t/\(folder)" else {
                        report.errors.append(InputError(file: display, path: "$.path", message: "found \"\(summary.path)\"; expected \"t/\(folder)\""))
                        continue
                    }
                    if let other = owners[summary.path] {
                        report.errors.append(InputError(file: display, message: "the thread \(summary.path)/ is also in \(other); expected each thread in one shard"))
                        continue
                    }
                    owners[summary.path] = shard
                    summaries.append(summary)
                    report.comments += summary.stats.comments
                    // Every file of the folder, iteratively.
                    let base = threads.appendingPathComponent(folder)
                    if let walker = fm.enumerator(atPath: base.path) {
                        while let relative = walker.nextObject() as? String {
                            var isDirectory: ObjCBool = false
                            let source = base.appendingPathComponent(relative)
                            if fm.fileExists(atPath: source.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                                links.append(("t/\(folder)/\(relative)", source))
                            }
                        }
                    }
                } catch {
                    report.errors += error.errors
                }
            }
        }
        report.threads = summaries.count
        report.threadsReused = summaries.count
        guard report.errors.isEmpty else { return report }
        report.timings.append(("read sidecars", clock.lap()))

        let staging: SiteWriter.Staging
        do { staging = try SiteWriter(output: output).begin() } catch {
            report.siteError = error
            return report
        }
        report.siteError = try ArchiveBuilder.publish(staging) {
            for link in links { try staging.link(link.path, from: link.source) }
            report.filesReused = links.count
            report.pagesReused = links.filter { $0.path.hasSuffix(".html") }.count
            let files = try renderer.listing(ThreadSummary.sortedForIndex(summaries), resources: resources,
                                             jobs: ProcessInfo.processInfo.activeProcessorCount)
            for file in files { try staging.write(file.path, file.bytes) }
            report.filesWritten = files.count
            report.pagesWritten = files.filter { $0.path.hasSuffix(".html") }.count
            report.timings.append(("index, feeds and sitemap", clock.lap()))
        }
        report.published = report.siteError == nil
        report.timings.append(("publish", clock.lap()))
        return report
    }
}
