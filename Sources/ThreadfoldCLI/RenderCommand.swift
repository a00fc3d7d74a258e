import Foundation
import ThreadfoldKit

/// `threadfold render [INPUT...] [-o DIR]`: one page per thread file, plus the stylesheet and
/// script, published atomically into DIR.
enum RenderCommand {
    static let command = CLI.Command(
        name: "render",
        abstract: "Render thread files to HTML pages, one page per file.",
        usage: "threadfold render [<input> ...] [-o <dir>] [<options>]",
        options: [
            SharedOptions.output.spec,
            SharedOptions.example.spec,
            SharedOptions.quiet.spec,
            SharedOptions.noFsync.spec,
        ] + SharedOptions.thread + SharedOptions.page + ConfigFile.specs,
        discussion: """
            Each <input> is a thread JSON file (docs/input-format.md), or '-' for standard input.
            --example renders the bundled example thread, and so does no input at all when
            standard input is a terminal; otherwise (a script whose glob matched nothing) no
            input is a usage error.
            Pages are named after their input file: comments.json becomes comments.html, and
            each thread of a file of many becomes <file>-<thread id>.html.
            Dumps (Reddit RS_ and RC_ files, Hacker News items; plain, .zst or .gz) are read
            together, as 'build' reads them: streamed into partitions by thread in a temporary
            folder ($TMPDIR, removed however render ends), submissions joined to their comments,
            one page per thread named after the dump of its first line; memory follows the
            largest thread, not the dump. Pages are rendered on one core: 'build --jobs' uses more.
            """,
        run: run)

    static func run(_ parsed: ParsedArguments, _ console: Console) -> Int32 {
        let options: RenderOptions
        let outputPath: String
        let resources: ResourceStore
        do {
            options = try SharedOptions.renderOptions(parsed)
            outputPath = try parsed[SharedOptions.output] ?? "threadfold-site"
            resources = try SharedOptions.resources(parsed)
        } catch {
            return CLI.usageError("\(error)", usage: command.usage, console)
        }
        if parsed.positionals.filter({ $0 == "-" }).count > 1 {
            return CLI.usageError("'-' (standard input) can be given only once", usage: command.usage, console)
        }
        let pipeline: ThreadPipeline
        let assets: [ResourceStore.Asset]
        do {
            pipeline = try ThreadPipeline(options: ArchiveOptions(render: options), resources: resources)
            assets = try resources.assets(search: false)
        } catch  where error.kind == .usage {
            return CLI.usageError(error.message + " (--templates names that folder)", usage: command.usage, console)
        } catch {
            SharedOptions.printErrors(error, console)
            return CLI.ExitCode.failure
        }
        if let problem = inputProblem(parsed, inputIsTerminal: console.inputIsTerminal) {
            return CLI.usageError(problem, usage: command.usage, console)
        }
        var pages = RenderRun(pipeline: pipeline, importing: options.importing, quiet: parsed[SharedOptions.quiet], console: console)
        pages.begin(URL(fileURLWithPath: outputPath), durable: !parsed[SharedOptions.noFsync])
        if let code = pages.renderAll(parsed.positionals.isEmpty ? [nil] : parsed.positionals) { return code }
        return pages.publish(assets: assets, output: outputPath)
    }

    /// Why the inputs cannot be rendered, or nil: `--example` with inputs, or no input at all
    /// while standard input is not a terminal, where the bundled example would be a surprise
    /// (an empty glob or `xargs` with nothing to pass must not publish a demo page).
    static func inputProblem(_ parsed: ParsedArguments, inputIsTerminal: Bool) -> String? {
        if parsed[SharedOptions.example] {
            guard parsed.positionals.isEmpty else {
                return "'--example' renders the bundled example alone; found inputs too: \(parsed.positionals.map(Printable.escape).joined(separator: " "))"
            }
            return nil
        }
        guard parsed.positionals.isEmpty, !inputIsTerminal else { return nil }
        return "no input, and standard input is not a terminal; expected thread files, '-' to read standard input, or --example for the bundled example"
    }
}

/// One run of `render`: each input's pages, written into a staging folder as they are rendered;
/// the folder replaces the output only when every input rendered.
private struct RenderRun {
    let pipeline: ThreadPipeline
    let importing: ImportOptions
    let quiet: Bool
    let console: Console
    /// Whether a file's first line is a dump's, and of which form.
    let detect: ([UInt8]) -> DumpForm?
    /// Nil when the output cannot be written: the inputs are still read, so one run reports both.
    var staging: SiteWriter.Staging?
    var failed = false
    /// Another build's lock on the output: nothing is wrong, so the exit says "retry" when the
    /// inputs had no error of their own.
    var locked = false
    var inputFailed = false
    /// The dumps among the inputs, read together where the first is named.
    var dumps: [ArchiveUnit] = []
    var names = PageNames()
    var comments = 0
    var rendered: [(page: String, comments: Int)] = []

    init(pipeline: ThreadPipeline, importing: ImportOptions, quiet: Bool, console: Console) {
        self.pipeline = pipeline
        self.importing = importing
        self.quiet = quiet
        self.console = console
        detect = ArchiveInput.dumps(importing)
    }

    mutating func begin(_ output: URL, durable: Bool) {
        do { staging = try SiteWriter(output: output, durable: durable, stamps: false).begin() } catch {
            SharedOptions.printErrors(error, console)
            failed = true
            locked = error.temporary
        }
    }

    /// Renders the inputs named (nil: the bundled example), each when its turn comes, so memory
    /// holds one file at a time. An input's errors are printed and the next is read; an error
    /// writing the pages ends the run, with its exit code.
    mutating func renderAll(_ named: [String?]) -> Int32? {
        /// The inputs the first dump's look-ahead found to be dumps, read with it.
        var readWithDumps: Set<Int> = []
        for k in named.indices where !readWithDumps.contains(k) {
            do {
                try render(k, of: named, readWithDumps: &readWithDumps)
            } catch let error as ThreadfoldError where error.kind == .output || error.kind == .busy {
                staging?.abandon()
                SharedOptions.printErrors(error, console)
                return CLI.ExitCode.failure
            } catch {
                failed = true
                inputFailed = true
                SharedOptions.printErrors(error, console)
            }
        }
        return nil
    }

    /// Renders input `k`. A plain file of up to 16 MiB is read whole once, and its first line, in
    /// memory, says whether it is a dump (`ArchiveInput.contents(ofFile:dumpForm:)`); a larger or
    /// compressed one is looked at first and read after. Dumps are read together, where the first
    /// is named, as `build` reads them: that one looks ahead for the others.
    private mutating func render(_ k: Int, of named: [String?], readWithDumps: inout Set<Int>) throws {
        let input = named[k]
        let display = input.map { $0 == "-" ? "<stdin>" : $0 } ?? "example.json (bundled)"
        let base = input.map { $0 == "-" ? "thread" : pageBase($0) } ?? "example"
        guard let input else { return try renderThreads(ResourceStore.exampleThread, display: display, base: base) }
        var first: ArchiveUnit?
        var read: [UInt8]?
        if dumps.isEmpty, isRegular(input) {
            switch ArchiveInput.contents(ofFile: input, dumpForm: detect) {
            case .dump(let form): first = unit(input, form)
            case .document(let whole): read = whole
            case nil: first = dump(input)
            }
        }
        if let first {
            dumps = [first]
            for later in named.indices.dropFirst(k + 1) {
                guard let path = named[later], let unit = dump(path) else { continue }
                dumps.append(unit)
                readWithDumps.insert(later)
            }
            return try renderDumps()
        }
        try renderThreads(try read ?? SharedOptions.read(input, console).get(), display: display, base: base)
    }

    private func isRegular(_ input: String) -> Bool { input != "-" && (try? InputFile.kind(input, missing: "")) == .regular }

    private func unit(_ input: String, _ form: DumpForm) -> ArchiveUnit { ArchiveUnit(source: .dump(path: input, form: form), display: input) }

    private func dump(_ input: String) -> ArchiveUnit? {
        guard isRegular(input), let form = ArchiveInput.dumpForm(ofFile: input, linesAreThreads: nil, dumpForm: detect) else { return nil }
        return unit(input, form)
    }

    /// A page per thread of one file's bytes; a file of several threads gets a page per thread,
    /// named after each id.
    private mutating func renderThreads(_ bytes: [UInt8], display: String, base: String) throws {
        let result = try Importer.read(bytes: bytes, file: display, options: importing)
        if !quiet { SharedOptions.noteDetected(result, file: display, console) }
        var empty: [Problem] = []
        for thread in result.threads {
            let done = try pipeline.page(thread)
            // A thread with nothing to show gets no page: one alone is an error, one of many a warning.
            if done.thread.showsNothing {
                if !quiet { SharedOptions.report(done.diagnostics, file: display, limit: 10, console) }
                empty.append(done.thread.emptyThread(file: display, severity: result.threads.count == 1 ? .error : .warning))
                continue
            }
            let name = result.threads.count == 1 ? base : "\(base)-\(thread.info.id?.string ?? "thread")"
            let page = names.claim(name)
            if !failed { try staging?.write(page, done.html) }
            comments += done.thread.totals.comments
            rendered.append((page, done.thread.totals.comments))
            if !quiet { SharedOptions.report(done.diagnostics, file: display, limit: 10, console) }
        }
        if !empty.isEmpty, empty.count == result.threads.count {
            if empty.count > 1 {
                empty.append(
                    Problem(file: display, message: "none of its \(empty.count) threads has anything to show; expected at least one with a comment or an opening post (nothing was written)"))
            }
            throw ThreadfoldError.input(
                empty.map {
                    var e = $0
                    e.severity = .error
                    return e
                })
        }
        if !quiet { for warning in empty { console.err(warning.shown + "\n") } }
    }

    /// The dumps' threads, a page each, named by the dump its first record is in and the
    /// thread's id, and listed in the dumps' order.
    private mutating func renderDumps() throws(ThreadfoldError) {
        let render = DumpRender(units: dumps, importing: importing)
        if !quiet { SharedOptions.noteForms(render.files, importing: importing, console) }
        let bases = render.files.map { pageBase($0.path) }
        var pages: [(place: [Int], page: String, comments: Int)] = []
        let report = try render.run(pipeline: pipeline) { (page) throws(ThreadfoldError) in
            let name = names.claim("\(bases[page.place[0]])-\(page.id ?? "thread")")
            if !failed { try staging?.write(name, page.html) }
            comments += page.comments
            pages.append((page.place, name, page.comments))
        }
        rendered += pages.sorted { $0.place.lexicographicallyPrecedes($1.place) }.map { ($0.page, $0.comments) }
        for error in report.errors { console.err(error.shown + "\n") }
        if report.moreErrors > 0 { console.err("… and \(Printable.count(report.moreErrors, "more error", "more errors"))\n") }
        if !report.errors.isEmpty {
            failed = true
            inputFailed = true
        }
        guard !quiet else { return }
        for warning in report.warnings { console.err(warning.shown + "\n") }
        let label = SharedOptions.dumpsLabel(render.files)
        if report.skippedLines > 0 {
            console.err("\(label): note: \(report.skippedLines) of \(Printable.count(report.lines, "line", "lines")) skipped (--lenient)\n")
        }
        if report.moreWarnings > 0 {
            console.err("\(label): note: \(Printable.count(report.moreWarnings, "more warning", "more warnings")) like these; 'threadfold check --all' with the same dumps lists every one\n")
        }
    }

    /// Adds the assets and swaps the staging folder in for `output` when every input rendered;
    /// says what was written, or why nothing was, and returns the exit code.
    func publish(assets: [ResourceStore.Asset], output: String) -> Int32 {
        guard !failed, let staging else {
            staging?.abandon()
            if locked && !inputFailed {
                console.err("Error: nothing was written. Another build is writing the folder: run this one again when that one has finished.\n")
                return CLI.ExitCode.temporaryFailure
            }
            console.err("Error: nothing was written; fix the errors above and run again.\n")
            return CLI.ExitCode.failure
        }
        do {
            for asset in assets {
                // An asset named like a page would replace it.
                if let file = asset.file, rendered.contains(where: { $0.page == asset.name }) {
                    throw ThreadfoldError.resources("\(Printable.escape(file)): error: would overwrite the page \(asset.name); expected an asset name no page uses")
                }
                try staging.write(asset.name, asset.bytes, mode: asset.mode)
            }
            try staging.commit()
        } catch {
            staging.abandon()
            SharedOptions.printErrors(error, console)
            if let error = error as? ThreadfoldError, error.temporary {
                console.err("Error: nothing was written. Another build made the folder first: run this one again.\n")
                return CLI.ExitCode.temporaryFailure
            }
            return CLI.ExitCode.failure
        }
        if !quiet {
            let folder = URL(fileURLWithPath: output).standardizedFileURL
            console.out("Rendered \(Printable.count(rendered.count, "thread")) (\(Printable.count(comments, "comment"))) into \(Printable.escape(output))/\n")
            for page in rendered.prefix(10) {
                console.out("  \(folder.appendingPathComponent(page.page).absoluteString)\n")
            }
            if rendered.count > 10 { console.out("  … and \(Printable.count(rendered.count - 10, "more page", "more pages"))\n") }
        }
        return CLI.ExitCode.success
    }
}

/// A page's name from its input file's: the name without its folder, a compression suffix
/// (`Compression.fileExtensions`) and then its last extension (`RC_2024-01.jsonl.zst` gives
/// `RC_2024-01`).
func pageBase(_ path: String) -> String {
    if let base = plainPageBase(path) { return base }
    var url = URL(fileURLWithPath: path)
    if Compression.fileExtensions.contains(url.pathExtension.lowercased()) { url = url.deletingPathExtension() }
    return url.deletingPathExtension().lastPathComponent
}

/// `pageBase` of the usual name, `name.ext` or `name.ext.zst` with extensions of ASCII letters and
/// digits and a name that does not start with a dot, read from the string alone; nil for any
/// other, which `URL` reads (it costs a `stat` and more than the rest of a small file's naming).
func plainPageBase(_ path: String) -> String? {
    guard let name = path.split(separator: "/", omittingEmptySubsequences: false).last, !name.hasPrefix(".") else { return nil }
    func split(_ name: Substring) -> (base: Substring, ext: Substring)? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...]
        guard !ext.isEmpty, ext.utf8.allSatisfy({ $0 < 0x80 && (($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A || $0 >= 0x30 && $0 <= 0x39) }) else { return nil }
        return (name[..<dot], ext)
    }
    guard var (base, ext) = split(name) else { return nil }
    if Compression.fileExtensions.contains(ext.lowercased()) {
        guard let inner = split(base) else { return nil }
        (base, ext) = inner
    }
    return String(base)
}

/// Safe, unique page file names from input file names: ASCII letters, digits and dashes,
/// lower case, at most 60 characters, never a reserved device name, `-2`, `-3`… on collision.
struct PageNames {
    private var used: Set<String> = []

    mutating func claim(_ base: String) -> String {
        var slug = ""
        var lastDash = true
        for scalar in base.lowercased().unicodeScalars {
            if (scalar >= "a" && scalar <= "z") || (scalar >= "0" && scalar <= "9") {
                slug.unicodeScalars.append(scalar)
                lastDash = false
            } else if !lastDash {
                slug += "-"
                lastDash = true
            }
            if slug.count >= 60 { break }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        if slug.isEmpty { slug = "thread" }
        let reserved = Set(["con", "prn", "aux", "nul", "index"] + (1...9).flatMap { ["com\($0)", "lpt\($0)"] })
        if reserved.contains(slug) { slug += "-thread" }
        var name = slug
        var k = 2
        while used.contains(name) {
            name = "\(slug)-\(k)"
            k += 1
        }
        used.insert(name)
        return name + ".html"
    }
}
