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
public struct ArchiveBuilder: Sendable {
    public var units: [ArchiveUnit]
    public var output: URL
    public var options: ArchiveOptions
    public var resources: ResourceStore
    public var jobs: Int
    /// Reuse the previous site's files for units whose bytes and settings are unchanged.
    public var incremental = false
    /// Render only this shard's threads, into a shard folder for `merge`.
    public var shard: Shard?

    public init(units: [ArchiveUnit], output: URL, options: ArchiveOptions, resources: ResourceStore = ResourceStore(),
                jobs: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.units = units
        self.output = output
        self.options = options
        self.resources = resources
        self.jobs = jobs
    }

    /// The result of a build.
    public struct Report: Sendable {
        /// Input errors, in input order; when any, nothing was published.
        public var errors: [InputError] = []
        public var warnings: [InputError] = []
        /// An error writing the site (nothing published).
        public var siteError: SiteError?
        public var published = false
        public var threads = 0
        public var comments = 0
        public var threadsRendered = 0
        public var threadsReused = 0
        /// Threads left to other shards.
        public var threadsInOtherShards = 0
        public var filesWritten = 0
        public var filesReused = 0
        /// How many units each form was recognised as (`auto`).
        public var formats: [String: Int] = [:]
        /// Seconds per phase: read-and-render, index, publish.
        public var timings: [(phase: String, seconds: Double)] = []
        /// Whether the previous site's manifest was usable for `--incremental`.
        public var incrementalBase = false
        /// Every thread's folder (`t/<slug>-<id>`), in index order.
        public var threadPaths: [String] = []
    }

    /// Runs the build. `progress(done, total)` is called from the calling thread about ten
    /// times a second while units are rendered.
    public func run(progress: ((Int, Int) -> Void)? = nil) throws -> Report {
        var report = Report()
        var clock = Clock()
        let renderer = try ArchiveRenderer(options: options, resources: resources)
        let settings = settingsHash()
        let previous = incremental ? Manifest.load(from: output).flatMap { $0.settings == settings ? $0 : nil } : nil
        report.incrementalBase = previous != nil
        let staging: SiteWriter.Staging
        do { staging = try SiteWriter(output: output).begin() } catch {
            report.siteError = error
            return report
        }

        let work = Work(count: units.count)
        let context = WorkerContext(units: units, renderer: renderer, staging: staging, previous: previous,
                                    oldSite: output.standardizedFileURL, shard: shard, work: work)
        let group = DispatchGroup()
        for _ in 0..<max(1, min(jobs, units.count)) {
            group.enter()
            let thread = Thread {
                context.drain()
                group.leave()
            }
            thread.stackSize = 16 << 20
            thread.start()
        }
        while group.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            progress?(work.done.load(ordering: .relaxed), units.count)
        }
        progress?(units.count, units.count)
        report.timings.append(("read and render", clock.lap()))

        let results = work.results.withLock { $0 }
        var summaries: [ThreadSummary] = []
        var manifest = Manifest(settings: settings, units: [:], files: [:])
        for case let result? in results {
            report.errors += result.errors
            report.warnings += result.warnings
            report.threadsRendered += result.rendered
            report.threadsReused += result.reused
            report.threadsInOtherShards += result.otherShards
            report.filesWritten += result.filesWritten
            report.filesReused += result.filesReused
            report.comments += result.comments
            if let format = result.format { report.formats[format, default: 0] += 1 }
            summaries += result.summaries
            if let (key, unit) = result.manifestUnit { manifest.units[key] = unit }
            if let (path, state) = result.fileState { manifest.files[path] = state }
        }
        report.threads = summaries.count
        guard report.errors.isEmpty else {
            staging.abandon()
            return report
        }

        do {
            summaries.sort(by: ThreadSummary.indexOrder)
            report.threadPaths = summaries.map(\.path)
            var files: [(path: String, bytes: [UInt8])] = []
            if shard == nil {
                let index = IndexPages(options: options, templates: renderer.pipeline.templates, strings: renderer.pipeline.defaultStrings)
                files = try index.files(summaries)
                files += try resources.assets().map { ($0.name, $0.bytes) }
            } else {
                files.append(("shard.json", Array("{\"shard\": \"\(shard!.index)/\(shard!.count)\", \"threads\": \(summaries.count), \"version\": \"\(Threadfold.version)\"}\n".utf8)))
            }
            for file in files {
                // An unchanged index page keeps its file (and date) from the previous build.
                let old = output.appendingPathComponent(file.path)
                if previous != nil, let data = FileManager.default.contents(atPath: old.path), data.elementsEqual(file.bytes) {
                    try staging.link(file.path, from: old)
                    report.filesReused += 1
                } else {
                    try staging.write(file.path, file.bytes)
                    report.filesWritten += 1
                }
            }
            report.timings.append(("index, feeds and sitemap", clock.lap()))
            try staging.writeMetadata(Manifest.fileName, manifest.encoded())
            try staging.commit()
            report.published = true
            report.timings.append(("publish", clock.lap()))
        } catch let error as SiteError {
            staging.abandon()
            report.siteError = error
        } catch {
            staging.abandon()
            throw error
        }
        return report
    }

    /// Everything besides the input bytes that decides the output.
    func settingsHash() -> String {
        var options = self.options
        let mapping = options.render.importing.mapping
        options.render.importing.mapping = nil
        var text = "\(Threadfold.version)\n\(options)\n\(shard.map { "\($0.index)/\($0.count)" } ?? "")\n"
        if let mapping {
            for (field, path) in mapping.paths.sorted(by: { $0.key.rawValue < $1.key.rawValue }) { text += "\(field.rawValue)=\(path.joined(separator: "."))," }
            text += mapping.topLevelParent ?? ""
        }
        return ContentHash.hex(ContentHash.hash(Array(text.utf8), seed: resources.fingerprint()))
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

/// Shared state of one build's workers.
final class Work: Sendable {
    let next = Atomic<Int>(0)
    let done = Atomic<Int>(0)
    let results: Mutex<[UnitResult?]>
    /// Thread ids (as bytes) and folders already taken, with where they came from.
    let claims = Mutex<(ids: [[UInt8]: String], folders: [String: String])>(([:], [:]))

    init(count: Int) {
        results = Mutex([UnitResult?](repeating: nil, count: count))
    }
}

struct UnitResult: Sendable {
    var summaries: [ThreadSummary] = []
    var errors: [InputError] = []
    var warnings: [InputError] = []
    var rendered = 0
    var reused = 0
    var otherShards = 0
    var filesWritten = 0
    var filesReused = 0
    var comments = 0
    var format: String?
    var manifestUnit: (String, Manifest.Unit)?
    var fileState: (String, Manifest.FileState)?
}

struct WorkerContext: Sendable {
    let units: [ArchiveUnit]
    let renderer: ArchiveRenderer
    let staging: SiteWriter.Staging
    let previous: Manifest?
    let oldSite: URL
    let shard: Shard?
    let work: Work

    func drain() {
        while true {
            let i = work.next.add(1, ordering: .relaxed).oldValue
            guard i < units.count else { return }
            let result = process(units[i])
            work.results.withLock { $0[i] = result }
            work.done.add(1, ordering: .relaxed)
        }
    }

    func process(_ unit: ArchiveUnit) -> UnitResult {
        var result = UnitResult()
        let base = unit.lineBase
        func shifted(_ error: InputError) -> InputError {
            var error = error
            if base > 0, let line = error.line { error.line = line + base }
            return error
        }

        // 1. The unit's hash: from the previous manifest when the file is untouched, else read.
        var bytes: [UInt8]?
        var hash: UInt64
        var fileState: Manifest.FileState?
        do {
            switch unit.source {
            case .file(let path):
                let signature = Manifest.signature(path)
                if let signature, let old = previous?.files[path], old.size == signature.size, old.mtime == signature.mtime,
                   old.inode == signature.inode, let stored = UInt64(old.hash, radix: 16) {
                    hash = stored
                } else {
                    let read = try unit.read()
                    bytes = read
                    hash = ContentHash.hash(read)
                }
                if let signature {
                    fileState = Manifest.FileState(size: signature.size, mtime: signature.mtime, inode: signature.inode, hash: ContentHash.hex(hash))
                }
            default:
                let read = try unit.read()
                bytes = read
                hash = ContentHash.hash(read)
            }
        } catch {
            result.errors = error.errors.map(shifted)
            return result
        }
        if let fileState, case .file(let path) = unit.source { result.fileState = (path, fileState) }
        let key = unit.key(contentHash: hash)
        let hashText = ContentHash.hex(hash)

        // 2. Unchanged: link the previous files.
        if let old = previous?.units[key], old.hash == hashText {
            do {
                for summary in old.threads { try claim(summary, source: unit.display) }
                for file in old.files { try staging.link(file, from: oldSite.appendingPathComponent(file)) }
                result.summaries = old.threads
                result.warnings = old.warnings
                result.reused = old.threads.count
                result.filesReused = old.files.count
                result.comments = old.comments
                result.manifestUnit = (key, old)
                return result
            } catch let error as InputError {
                result.errors.append(error)
                return result
            } catch {
                // The previous files are gone or unreadable: render the unit afresh.
            }
        }

        // 3. Changed or new: read, render, write.
        do {
            let data = try bytes ?? unit.read()
            let imported = try renderer.pipeline.read(bytes: data, file: unit.display)
            if imported.detected { result.format = imported.format.rawValue }
            result.warnings += imported.skipped.map(shifted)
            var written: [String] = []
            for (position, record) in imported.threads.enumerated() {
                let source = base > 0 ? "\(unit.display):\(base + 1)" : unit.display
                let id = ArchiveRenderer.id(of: record, source: source, position: position)
                let folder = ThreadPaths.folder(title: record.info.title, id: id)
                if let shard, !shard.contains(folder: folder) {
                    result.otherShards += 1
                    continue
                }
                let files = try renderer.render(record, id: id, folder: folder, source: source)
                try claim(files.summary, source: source)
                for file in files.files {
                    try staging.write(file.path, file.bytes)
                    written.append(file.path)
                }
                result.summaries.append(files.summary)
                result.warnings += files.diagnostics.map { shifted($0.error) }
                result.rendered += 1
                result.comments += files.summary.stats.comments
            }
            result.filesWritten = written.count
            result.manifestUnit = (key, Manifest.Unit(hash: hashText, threads: result.summaries, files: written,
                                                      warnings: result.warnings, comments: result.comments))
        } catch let error as InputErrors {
            result.errors += error.errors.map(shifted)
        } catch let error as InputError {
            result.errors.append(shifted(error))
        } catch let error as SiteError {
            result.errors.append(InputError(file: error.path, message: error.message))
        } catch let error as TemplateError {
            result.errors.append(InputError(file: unit.display, message: "template error: \(error)"))
        } catch {
            result.errors.append(InputError(file: unit.display, message: "\(error)"))
        }
        return result
    }

    /// Takes the thread's id and folder for it, or fails naming both places that want them.
    func claim(_ summary: ThreadSummary, source: String) throws(InputError) {
        let id = Array(summary.id.utf8)
        let conflict: String? = work.claims.withLock { claims in
            if let other = claims.ids[id] { return other }
            if let other = claims.folders[summary.path] { return other }
            claims.ids[id] = source
            claims.folders[summary.path] = source
            return nil
        }
        guard let conflict else { return }
        let places = [conflict, source].sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        throw InputError(file: places[1], path: "$.id",
                         message: "the thread id \"\(summary.id)\" (page \(summary.path)/) is also used by a thread in \(places[0]); expected every thread to have its own id")
    }
}
