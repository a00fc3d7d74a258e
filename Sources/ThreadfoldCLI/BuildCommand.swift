import Foundation
import Synchronization
import ThreadfoldKit

/// `threadfold build INPUT... -o SITE`: a whole archive in one site.
enum BuildCommand {
    // MARK: The archive's options (`build`, and `merge` and `preview` as they apply)

    static let title: Option<String> = .text("title", value: "text", "The site's title (default: \"All threads\" in the locale).")
    static let perPage: Option<Int> = .integer("per-page", in: 1...100_000, "Threads per index or section page (default: \(ArchiveOptions().perPage)).")
    static let sections: Option<ArchiveOptions.Sections> = .choice("sections", value: "kind", "Group the index into collapsible sections: category,\nmonth or none (default: none).")
    static let pageDepth: Option<Int> = .integer(
        "page-depth", value: "d", in: 1...LayoutOptions.maxDepthLimit, "Replies deeper than d move to a \"Continue this thread\"\npage of their own (default: \(ArchiveOptions().pageDepth)).")
    static let pageSize: Option<Int> = .integer(
        "page-size", in: 1...Int.max, "Top-level comments per page of a thread; longer threads\nare split between them (default: \(ArchiveOptions().pageSize)).")
    static let layout: Option<ArchiveOptions.Layout> = .choice(
        "layout", value: "kind", "nested, flat (every reply in one list under its\ntop-level comment) or auto (flat when top-level comments\naverage more than 10 replies) (default: nested).")
    static let orders: Option<[CommentOrder]> = .list(
        "orders", value: "list", "Write each thread in these orders, with a switcher:\ne.g. oldest,newest,top (input: the file's order); the\nfirst is the main page.")
    /// The site's address: an absolute http or https URL.
    static let baseURL = Option<String>(OptionSpec("base-url", value: "url", "The site's address (https://example.org/archive/):\ncanonical links, absolute feed links and sitemap.xml.")) {
        text throws(ThreadfoldError) in
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil, !text.contains(where: { $0 == "\"" || $0 == "<" || $0 == ">" || $0 == " " })
        else {
            throw ThreadfoldError.usage("'--base-url' must be an absolute http or https URL like https://example.org/archive/; found '\(text)'")
        }
        return text
    }
    static let feedEntries: Option<Int> = .integer("feed-entries", in: 0...100_000, "Entries per Atom feed (default: \(ArchiveOptions().feedEntries)).")
    static let search: Option<ArchiveOptions.Search> = .choice(
        "search", value: "kind", bare: .titles,
        "Add search. Bare or titles: a title search box on the\nindex and search/ that works from disk. pagefind:\nfull-text search with Pagefind, run after the build\n(pip install 'pagefind[bin]'), for served sites."
    )
    static let searchTimeout: Option<Double> = .duration(
        "search-timeout", "How long Pagefind may index the site before it is\nstopped, with everything it started, and the build\nfails: seconds, or 90s, 10m, 1h (default: 10m).")
    static let authors = Flag("authors", "Write a page per participant at u/<name>-<hash>/ with\ntheir threads and comments, and link names to it.")

    static let archive: [OptionSpec] = [
        title.spec, perPage.spec, sections.spec, pageDepth.spec, pageSize.spec, layout.spec, orders.spec, baseURL.spec, feedEntries.spec,
        search.spec, searchTimeout.spec, authors.spec,
    ]

    // MARK: Building

    static let incremental = Flag(
        "incremental",
        "Re-render only threads whose input changed since the\nlast build into the same site (a manifest of hashes).\nKeeps the previous site beside it as .<site>.spare, and\nwith dumps their sorted lines as .<site>.spill."
    )
    static let precompress = Flag(
        "precompress", "Also write a gzip (.gz) and a Brotli (.br) copy beside\nevery HTML, XML, JSON, CSS and JS file, when smaller,\nfor servers' gzip_static and brotli_static.")
    static let shard = Option<Shard>(OptionSpec("shard", value: "k/n", "Render only shard k of n (by a hash of each thread's\nfolder) into a shard folder for 'threadfold merge'.")) {
        text throws(ThreadfoldError) in
        guard let shard = Shard(text) else { throw ThreadfoldError.usage("'--shard' must be k/n with 1 ≤ k ≤ n, like 2/8; found '\(text)'") }
        return shard
    }

    static let command = CLI.Command(
        name: "build",
        abstract: "Build a static site from many threads: an index, a page per thread, feeds.",
        usage: "threadfold build <input> ... -o <site> [<options>]",
        options: [
            SharedOptions.output.help("Site folder to write (default: site). It is built beside\nand swapped in whole; a folder Threadfold did not write\nis refused.").spec
        ] + SharedOptions.threadKeys + [
            SharedOptions.exclude.spec,
            incremental.spec,
            SharedOptions.noFsync.help("Do not flush the site to the disk before publishing it\n(faster; a power loss may then leave it incomplete).").spec,
            precompress.spec,
            SharedOptions.jobs.spec,
            shard.spec,
            ReportFile.option.spec,
            StrictRule.option.spec,
            ProgressBar.option.spec,
            SharedOptions.quiet.help("Print nothing but errors and what fails --strict (and no\nprogress bar).").spec,
        ] + archive + SharedOptions.thread + SharedOptions.page + ConfigFile.specs,
        discussion: """
            Each <input> is a thread file in any form 'render' reads, a folder of them (searched
            for .json, .jsonl and .ndjson, and .zst, .zstd and .gz), one JSON document
            {"threads": [...]}, JSON Lines with a thread per line (read one line at a time), a
            dump (Reddit RS_/RC_, Hacker News items, or comments with --thread-key), or '-' for
            standard input. A folder's walk leaves out hidden names, folders Threadfold wrote
            (holding its .threadfold marker: sites, shards, previews), the output folder, and
            what --exclude matches; so 'threadfold build . -o public' can run again and again.
            Pages: index.html (paginated), s/<section>/ with --sections, t/<slug>-<id>/ per thread,
            each with thread.json (statistics) and atom.xml; atom.xml for the site; sitemap.xml
            with --base-url; search/ with --search; u/<name>-<hash>/ per author with --authors.
            Links are relative, so the site works from any folder or file://.
            --precompress adds .gz and .br copies for nginx's gzip_static and brotli_static
            (docs/archives.md, "Serving").
            Exit status: 0 built, 1 errors (nothing published), 2 built, but --strict failed,
            64 usage error, 75 another build holds the site (nothing wrong: run it again).
            """,
        run: run)

    /// `--search-timeout` in seconds; 10 minutes when not given.
    static func searchTimeout(_ parsed: ParsedArguments) throws(ThreadfoldError) -> Double {
        try parsed[searchTimeout] ?? 600
    }

    static func archiveOptions(_ parsed: ParsedArguments) throws -> ArchiveOptions {
        var options = ArchiveOptions()
        options.render = try SharedOptions.renderOptions(parsed)
        try SharedOptions.readThreadKey(parsed, into: &options.render.importing)
        options.title = try parsed[title]
        if let n = try parsed[perPage] { options.perPage = n }
        if let n = try parsed[pageDepth] { options.pageDepth = n }
        if let n = try parsed[pageSize] { options.pageSize = n }
        if let n = try parsed[feedEntries] { options.feedEntries = n }
        if let kind = try parsed[sections] { options.sections = kind }
        if let kind = try parsed[layout] { options.layout = kind }
        if let list = try parsed[orders] {
            if let sort = try parsed[SharedOptions.sort], sort != list.first {
                throw ThreadfoldError.usage("'--sort \(sort.rawValue)' and '--orders \(parsed.given(orders)!)' disagree: the first of --orders is the main page's order")
            }
            options.orders = list
        }
        if let kind = try parsed[search] { options.search = kind }
        options.authors = parsed[authors]
        if let url = try parsed[baseURL] { options.baseURL = url }
        return options
    }

    static func run(_ parsed: ParsedArguments, _ console: Console) -> Int32 {
        guard !parsed.positionals.isEmpty else {
            return CLI.usageError("missing <input>: thread files, a folder of them, or '-'", usage: command.usage, console)
        }
        if parsed.positionals.filter({ $0 == "-" }).count > 1 {
            return CLI.usageError("'-' (standard input) can be given only once", usage: command.usage, console)
        }
        let options: ArchiveOptions
        var jobs = ProcessInfo.processInfo.activeProcessorCount
        let shard: Shard?
        let searchTimeout: Double
        let output: String
        let filter: FolderFilter
        let resources: Resources
        do {
            options = try archiveOptions(parsed)
            output = try parsed[SharedOptions.output] ?? "site"
            filter = try SharedOptions.folderFilter(parsed, output: output)
            if let n = try parsed[SharedOptions.jobs] { jobs = n }
            searchTimeout = try Self.searchTimeout(parsed)
            shard = try parsed[Self.shard]
            resources = try SharedOptions.resourceFolders(parsed)
        } catch let error as ThreadfoldError where error.kind == .input {
            SharedOptions.printErrors(error, console)
            return CLI.ExitCode.failure
        } catch {
            return CLI.usageError("\(error)", usage: command.usage, console)
        }
        var buildOptions = BuildOptions(
            archive: options, jobs: jobs, incremental: parsed[incremental], shard: shard, durable: !parsed[SharedOptions.noFsync],
            precompress: parsed[precompress], resources: resources)
        buildOptions.searchTimeout = searchTimeout
        let build = Threadfold.Build(
            inputs: parsed.positionals, output: output, options: buildOptions, filter: filter,
            readStandardInput: console.readStandardInput)
        return execute(parsed, console, output: output, command: command) { progress in try build.run(progress: progress) }
    }

    /// Runs a build or merge with progress, prints what happened, writes `--report`, and
    /// returns the exit code: 0, 1 (nothing published), 2 (`--strict` failed), 64 (usage) or 75
    /// (another build held the site: nothing wrong with the input, run it again).
    static func execute(
        _ parsed: ParsedArguments, _ console: Console, output: String, command: CLI.Command,
        _ body: ((@Sendable (BuildProgress) -> Void)?) throws -> ArchiveBuilder.Report
    ) -> Int32 {
        let quiet = parsed[SharedOptions.quiet]
        let strict: StrictRule?
        let reportPath: String?
        do throws(ThreadfoldError) {
            strict = try parsed[StrictRule.option]
            _ = try parsed[ProgressBar.option]
            reportPath = try parsed[ReportFile.option]
            if let reportPath, let problem = ReportFile.problem(reportPath) { throw ThreadfoldError.usage(problem) }
        } catch {
            return CLI.usageError(error.message, usage: command.usage, console)
        }
        // `--report -`: the report is standard output's one document; the summary goes to standard error.
        let reportConsole = console
        let console = reportPath == "-" ? console.summaryOnError : console
        // What stood at the output before the build, for the words that say it is unchanged.
        let before = (try? FileStatus.of(output, followLinks: false))?.kind
        let started = DispatchTime.now().uptimeNanoseconds
        let report: ArchiveBuilder.Report
        let thrown: [Message]
        do {
            (report, thrown) = try withBars(!quiet && ProgressBar.shows(parsed, console), console, started: started, output: output, body)
        } catch {
            return CLI.usageError(error.message + " (--templates names that folder)", usage: command.usage, console)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        var code = conclude(report, thrown: thrown, strict: strict, quiet: quiet, output: output, before: before, seconds: seconds, console)
        if let reportPath {
            var messages: [Message] = report.errors.map { Message($0) }
            if let error = report.siteError { messages.append(Message(error)) }
            messages += thrown
            messages += report.warnings.map { Message($0) }
            let bytes = reportJSON(report, messages: messages, exit: code, seconds: seconds)
            if let reason = ReportFile.write(bytes, to: reportPath, reportConsole) {
                console.err(Printable.escape("\(reportPath): error: cannot write the report: \(reason)") + "\n")
                if code == CLI.ExitCode.success { code = CLI.ExitCode.failure }
            }
        }
        return code
    }

    /// Runs `body` with the bars when `shows`: megabytes read while dumps are read (by one
    /// thread, first), then threads done. Errors it throws are printed and returned as messages;
    /// a locale the templates lack is thrown, a usage error.
    private static func withBars(
        _ shows: Bool, _ console: Console, started: UInt64, output: String,
        _ body: ((@Sendable (BuildProgress) -> Void)?) throws -> ArchiveBuilder.Report
    )
        throws(ThreadfoldError) -> (ArchiveBuilder.Report, [Message])
    {
        let bars = Bars(console: console, start: started)
        defer { bars.finish() }
        do {
            var progress: (@Sendable (BuildProgress) -> Void)?
            if shows { progress = { @Sendable (value: BuildProgress) in bars.show(value) } }
            return (try body(progress), [])
        } catch let error as ThreadfoldError where error.kind == .usage {
            throw error
        } catch {
            SharedOptions.printErrors(error, console)
            return (.init(), Message.of(error, file: output))
        }
    }

    /// Prints what a build or merge did, or why nothing was published, and returns its exit code.
    private static func conclude(
        _ report: ArchiveBuilder.Report, thrown: [Message], strict: StrictRule?, quiet: Bool, output: String,
        before: FileKind?, seconds: Double, _ console: Console
    ) -> Int32 {
        if !thrown.isEmpty { return CLI.ExitCode.failure }
        if !report.errors.isEmpty || report.siteError != nil {
            for error in report.errors.prefix(50) { console.err(error.shown + "\n") }
            if report.errors.count > 50 { console.err("… and \(Printable.count(report.errors.count - 50, "more error", "more errors"))\n") }
            if let error = report.siteError { SharedOptions.printErrors(error, console) }
            let kept =
                switch before {
                case nil: "\(Printable.escape(output))/ was not made"
                case .folder?: "\(Printable.escape(output))/ is as it was"
                default: "\(Printable.escape(output)) is as it was"
                }
            if report.errors.isEmpty, report.siteError?.temporary == true {
                console.err("Error: nothing was published; \(kept). Another build is writing it: run this one again when that one has finished.\n")
                return CLI.ExitCode.temporaryFailure
            }
            console.err("Error: nothing was published; \(kept). Fix the errors above and run again.\n")
            return CLI.ExitCode.failure
        }
        var code = CLI.ExitCode.success
        if !quiet {
            for (format, count) in report.formats.sorted(by: { $0.key < $1.key }) where format != "threadfold" {
                let name = SourceFormat(rawValue: format)?.described ?? format
                console.err("note: read \(Printable.count(count, "input")) as \(name); --from \(format) says so explicitly\n")
            }
            console.show(report.warnings)
        }
        let failing = strict.map { rule in report.warnings.filter { rule.fails(Message($0)) } } ?? []
        if !failing.isEmpty {
            // What made it fail is shown even with -q.
            if quiet { console.show(failing, notesInFull: true) }
            console.err(
                "Error: the site was published, but --strict fails on \(Printable.count(failing.count, "message", "messages")) (\(Set(failing.map { $0.kind ?? "other" }).sorted().joined(separator: ", "))).\n"
            )
            code = CLI.ExitCode.warnings
        }
        if !quiet { printBuilt(report, output: output, seconds: seconds, console) }
        return code
    }

    /// The closing lines of a build that published: what it did, and where the site is.
    static func printBuilt(_ report: ArchiveBuilder.Report, output: String, seconds: Double, _ console: Console) {
        let folder = URL(fileURLWithPath: output).standardizedFileURL
        var line = "Built \(Printable.count(report.threads, "thread")) (\(Printable.count(report.comments, "comment"))) into \(Printable.escape(output))/ in \(String(format: "%.2f", seconds)) s: "
        if report.threadsReused > 0 {
            line += "\(report.threadsRendered) rendered, \(report.threadsReused) reused; "
        }
        line += "\(Printable.count(report.filesWritten, "file")) written, \(report.filesReused) unchanged"
        if report.threadsInOtherShards > 0 { line += ", \(Printable.count(report.threadsInOtherShards, "thread")) left to other shards" }
        let warnings = report.warnings.count { $0.severity == .warning }, notes = report.warnings.count { $0.severity == .note }
        if warnings > 0 { line += ", " + Printable.count(warnings, "warning") }
        if notes > 0 { line += ", " + Printable.count(notes, "note") }
        console.out(line + ".\n")
        let page =
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("index.html").path)
            ? folder.appendingPathComponent("index.html").absoluteString : folder.absoluteString
        console.out("  \(page)\n")
    }

    static func reportJSON(_ report: ArchiveBuilder.Report, messages: [Message], exit: Int32, seconds: Double) -> [UInt8] {
        var w = JSONWriter(pretty: true)
        // Seconds with millisecond precision, as JSON numbers.
        func milliseconds(_ value: Double) -> Int { Int((value * 1000).rounded()) }
        w.object { w in
            w.field("version", Threadfold.version)
            w.field("exit", Int(exit))
            w.key("published")
            w.bool(report.published)
            for (name, value) in [
                ("threads", report.threads), ("comments", report.comments), ("threadsRendered", report.threadsRendered),
                ("threadsReused", report.threadsReused), ("threadsInOtherShards", report.threadsInOtherShards),
                ("pagesWritten", report.pagesWritten), ("pagesReused", report.pagesReused),
                ("filesWritten", report.filesWritten), ("filesReused", report.filesReused),
            ] {
                w.field(name, value)
            }
            if report.dumpPartitions > 0 {
                w.field("dumpPartitions", report.dumpPartitions)
                w.field("dumpPartitionsReused", report.dumpPartitionsReused)
            }
            w.key("incremental")
            w.bool(report.incrementalBase)
            w.field("peakMemoryMiB", peakMemoryMiB())
            for (name, severity) in [("errors", Problem.Severity.error), ("warnings", .warning), ("notes", .note)] {
                w.key(name)
                w.array { w in for message in messages where message.severity == severity { message.write(into: &w) } }
            }
            w.key("milliseconds")
            w.object { w in
                for (phase, value) in report.timings { w.field(phase, milliseconds(value)) }
                w.field("total", milliseconds(seconds))
            }
        }
        return w.out + [0x0A]
    }
}

/// This process's peak resident memory in MiB: VmHWM from /proc/self/status, which counts only
/// this program's memory (getrusage's maxrss also counts the parent's when it was spawned).
func peakMemoryMiB() -> Int {
    if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kib = Int(line.split(separator: " ").dropFirst().first ?? "")
    {
        return (kib + 1023) / 1024
    }
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return (Int(usage.ru_maxrss) + 1023) / 1024
}

/// `threads done / total, rate, ETA` on one terminal line, redrawn at most ten times a second.
struct ProgressBar {
    let console: Console
    let start: UInt64
    var shown = false

    /// When to draw the bar.
    enum When: String, CaseIterable, Sendable {
        case auto, always, never
    }

    static let option: Option<When> = .choice("progress", value: "when", "Draw a progress bar: auto (on a terminal whose TERM is\nset and not dumb, outside CI), always or never. -q never\ndraws one.")

    /// Whether `--progress` (or its default, auto) asks for a bar on this console. A value that
    /// names no choice was refused as a usage error before the run, and counts as auto here.
    static func shows(_ parsed: ParsedArguments, _ console: Console, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        switch (try? parsed[option]) ?? .auto {
        case .always: return true
        case .never: return false
        case .auto:
            let term = environment["TERM"] ?? ""
            return console.errIsTerminal && !term.isEmpty && term != "dumb" && environment["CI"] == nil
        }
    }

    /// What returns to the start of the line and clears it: the ANSI erase where `TERM` names a
    /// terminal that has it, spaces over the line where it is dumb or unset (`--progress always`).
    static let erase: String = {
        let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
        return term.isEmpty || term == "dumb" ? "\r" + String(repeating: " ", count: 79) + "\r" : "\r\u{1B}[2K"
    }()

    mutating func update(done: Int, total: Int) {
        guard total > 0 else { return }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let eta = rate > 0 ? Double(total - done) / rate : 0
        let width = 24
        let filled = width * done / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        console.err(ProgressBar.erase + "[\(bar)] \(done)/\(total) threads \(Int(rate))/s ETA \(Int(eta.rounded(.up))) s")
        shown = true
    }

    mutating func finish() {
        if shown { console.err(ProgressBar.erase) }
        shown = false
    }
}

/// The bars a build draws from its `BuildProgress`: megabytes read while dumps are read, then
/// threads done while they are rendered. The phases after rendering draw nothing.
final class Bars: Sendable {
    private let threads: Mutex<ProgressBar>
    private let reading: ReadingBar

    init(console: Console, start: UInt64) {
        threads = Mutex(ProgressBar(console: console, start: start))
        reading = ReadingBar(console: console, start: start)
    }

    func show(_ progress: BuildProgress) {
        switch progress.phase {
        case .reading: reading.update(read: progress.bytesRead, total: progress.bytesTotal)
        case .rendering: threads.withLock { $0.update(done: progress.threadsDone, total: progress.threadsTotal) }
        case .listing, .indexing, .publishing: break
        }
    }

    /// Clears the line the threads' bar was drawn on.
    func finish() { threads.withLock { $0.finish() } }
}

/// The bar shown while dumps are read into partitions: megabytes read of the input's size
/// (compressed bytes for a compressed dump).
final class ReadingBar: Sendable {
    let console: Console
    let start: UInt64

    init(console: Console, start: UInt64) {
        self.console = console
        self.start = start
    }

    func update(read: Int64, total: Int64) {
        guard total > 0 else { return }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let rate = elapsed > 0 ? Double(read) / elapsed : 0
        let eta = rate > 0 ? Double(total - read) / rate : 0
        let width = 24
        let filled = Int(Int64(width) * min(read, total) / total)
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        console.err(ProgressBar.erase + "[\(bar)] \(read >> 20)/\(total >> 20) MB read \(Int(rate) >> 20) MB/s ETA \(Int(eta.rounded(.up))) s")
    }
}

/// `threadfold merge SHARDS... -o SITE`.
enum MergeCommand {
    static let command = CLI.Command(
        name: "merge",
        abstract: "Join shard builds into one site: index, sections, feeds and sitemap.",
        usage: "threadfold merge <shard> ... -o <site> [<options>]",
        options: [
            SharedOptions.output.help("Site folder to write (default: site).").spec,
            ReportFile.option.help("Write a JSON summary of the merge (docs/report.schema.json).").spec,
            SharedOptions.noFsync.help("Do not flush the site to the disk before publishing it.").spec,
            BuildCommand.precompress.spec,
            StrictRule.option.spec,
            ProgressBar.option.spec,
            SharedOptions.quiet.help("Print nothing but errors (and what fails --strict).").spec,
            SharedOptions.locale.help("Language of the index's words (default: en).").spec,
            SharedOptions.templates.help("Folder of templates replacing the built-in ones.").spec,
            SharedOptions.assets.help("Folder of files replacing or adding to the stylesheet\nand script.").spec,
            BuildCommand.title.spec, BuildCommand.perPage.spec, BuildCommand.sections.spec, BuildCommand.layout.spec,
            BuildCommand.baseURL.spec, BuildCommand.feedEntries.spec, BuildCommand.search.spec, BuildCommand.searchTimeout.spec,
            BuildCommand.authors.spec,
        ] + ConfigFile.specs,
        discussion: """
            Each <shard> is a folder written by 'threadfold build --shard K/N'. Thread pages are
            linked, not rendered again; the listing pages are built from the thread.json sidecars.
            Give the listing options (--sections, --per-page, --base-url, …) the shards were built
            with, and --search and --authors when they were. With --precompress, the shards' .gz
            and .br copies are linked with their pages
            (and made here for shards built without them). docs/archives.md shows how to run
            shards with make -j, xargs -P, a CI matrix or Kubernetes indexed Jobs.
            """,
        run: run,
        inputs: .directory)

    static func run(_ parsed: ParsedArguments, _ console: Console) -> Int32 {
        guard !parsed.positionals.isEmpty else {
            return CLI.usageError("missing <shard>: folders written by 'threadfold build --shard K/N'", usage: command.usage, console)
        }
        let options: ArchiveOptions
        let searchTimeout: Double
        let output: String
        let resources: Resources
        do {
            options = try BuildCommand.archiveOptions(parsed)
            searchTimeout = try BuildCommand.searchTimeout(parsed)
            output = try parsed[SharedOptions.output] ?? "site"
            resources = try SharedOptions.resourceFolders(parsed)
        } catch {
            return CLI.usageError("\(error)", usage: command.usage, console)
        }
        var mergeOptions = BuildOptions(
            archive: options, durable: !parsed[SharedOptions.noFsync], precompress: parsed[BuildCommand.precompress], resources: resources)
        mergeOptions.searchTimeout = searchTimeout
        return BuildCommand.execute(parsed, console, output: output, command: command) { _ in
            try Threadfold.merge(shards: parsed.positionals, output: output, options: mergeOptions)
        }
    }
}
