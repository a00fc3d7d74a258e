import Foundation
import ThreadfoldKit

/// `threadfold check INPUT...`: reads and builds each thread without writing anything, and
/// says what it found. Exit 0 when every file can be rendered, 1 otherwise.
///
/// The checking is the library's (`InputCheck`: dumps together, as `build` reads them, every
/// other input whole); this command parses its options and prints what it is handed.
enum CheckCommand {
    static let all = Flag("all", "List every warning (default: at most 10 of each kind per file), and each\nthread of a file of many.")

    static let command = CLI.Command(
        name: "check",
        abstract: "Validate thread files and report what they hold.",
        usage: "threadfold check <input> ... [<options>]",
        options: [
            all.spec,
            SharedOptions.jobs.help("Threads of dumps checked at once (default: all cores).").spec,
            ReportFile.option.help("Write a JSON summary: each input's counts and every\nerror, warning and note with its place, kind and severity\n(docs/report.schema.json).").spec,
            StrictRule.option.spec,
            SharedOptions.quiet.help("Print nothing but errors and what fails --strict.").spec,
        ] + SharedOptions.threadKeys + SharedOptions.thread + ConfigFile.specs,
        discussion: """
            Prints, per file (or per thread, for one thread or with --all): comments, people and
            levels; orphans (replies to missing comments),
            broken reply cycles, duplicate ids, and deleted comments left out, each with its place;
            then the form it was read as, and how many comments have a body, an author and a time.
            Dumps (Reddit RS_ and RC_ files, Hacker News items, comments with --thread-key; plain,
            .zst or .gz) are checked together, as 'build' reads them: streamed into partitions by
            thread in a temporary folder ($TMPDIR, removed however check ends), submissions joined
            to their comments, messages at each dump's own lines; memory follows the largest
            thread, not the dump.
            """,
        run: run)

    /// What one run of `check` found, for `--report` and `--strict`.
    struct Findings {
        /// Each input (the dumps as one), what it was read as, and its counts.
        var inputs: [(file: String, form: String, counts: ThreadCounts?)] = []
        var messages: [Problem] = []
        var thrown: [Message] = []
    }

    static func run(_ parsed: ParsedArguments, _ console: Console) -> Int32 {
        // `--report -`: the report is standard output's one document; the findings go to standard error.
        let reportConsole = console
        let console = parsed.given(ReportFile.option) == "-" ? console.summaryOnError : console
        guard !parsed.positionals.isEmpty else {
            return CLI.usageError("missing <input>", usage: command.usage, console)
        }
        var options = ThreadOptions()
        var importing: ImportOptions
        var jobs = ProcessInfo.processInfo.activeProcessorCount
        let strict: StrictRule?
        let reportPath: String?
        do {
            if let sort = try parsed[SharedOptions.sort] { options.sort = sort }
            options.replySort = try parsed[SharedOptions.replySort]
            importing = try SharedOptions.importOptions(parsed)
            try SharedOptions.readThreadKey(parsed, into: &importing)
            if let n = try parsed[SharedOptions.jobs] { jobs = n }
            strict = try parsed[StrictRule.option]
            reportPath = try parsed[ReportFile.option]
            if let reportPath, let problem = ReportFile.problem(reportPath) { throw ThreadfoldError.usage(problem) }
        } catch {
            return CLI.usageError("\(error)", usage: command.usage, console)
        }
        options.allowDuplicates = parsed[SharedOptions.allowDuplicates]
        let started = DispatchTime.now().uptimeNanoseconds
        // With -q only errors reach the terminal: what is found otherwise goes to `shown`.
        let quiet = parsed[SharedOptions.quiet]
        let shown = quiet ? Console(out: { _ in }, err: { _ in }) : console
        var findings = Findings()
        let failed = check(parsed, options: options, importing: importing, jobs: jobs, into: &findings, console: console, shown: shown)
        let failing = strict.map { rule in findings.messages.filter { rule.fails(Message($0)) } } ?? []
        var code = failed ? CLI.ExitCode.failure : CLI.ExitCode.success
        if !failed && !failing.isEmpty {
            if quiet { console.show(failing, notesInFull: true) }
            console.err("Error: --strict fails on \(Printable.count(failing.count, "message", "messages")) (\(Set(failing.map { $0.kind ?? "other" }).sorted().joined(separator: ", "))).\n")
            code = CLI.ExitCode.warnings
        }
        if let path = reportPath {
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            if let reason = ReportFile.write(reportJSON(findings, exit: code, seconds: seconds), to: path, reportConsole) {
                console.err(Printable.escape("\(path): error: cannot write the report: \(reason)") + "\n")
                if code == CLI.ExitCode.success { code = CLI.ExitCode.failure }
            }
        }
        return code
    }

    /// Checks every input, printing errors to `console` and everything else to `shown`; true
    /// when any input failed.
    private static func check(
        _ parsed: ParsedArguments, options: ThreadOptions, importing: ImportOptions, jobs: Int,
        into findings: inout Findings, console: Console, shown: Console
    ) -> Bool {
        let all = parsed[Self.all]
        let checker = InputCheck(importing: importing, thread: options, jobs: jobs)
        let forms = checker.dumpForms(parsed.positionals)
        var failed = false
        var dumpsChecked = false
        for (input, form) in zip(parsed.positionals, forms) {
            if form != nil {
                // All dumps at once, where the first is named.
                guard !dumpsChecked else { continue }
                dumpsChecked = true
                var check = checker.dumps(parsed.positionals, forms: forms)
                check.eachThread = all
                // A report lists every message, and --strict judges every one: none is left at the first few.
                if parsed.given(ReportFile.option) != nil || parsed.given(StrictRule.option) != nil { check.messagesPerKind = .max }
                if !checkDumps(check, console, shown: shown, into: &findings) { failed = true }
                continue
            }
            let display = input == "-" ? "<stdin>" : input
            do {
                let file = try checker.file(try SharedOptions.read(input, console).get(), display: display)
                let result = file.result
                SharedOptions.noteDetected(result, file: display, shown)
                // A file of many threads (a document of threads) is summed up in two lines;
                // --all lists each thread.
                let each = result.threads.count == 1 || all
                let (sum, diagnostics) = try file.forEachThread { record, thread in
                    if let warning = thread.emptyWarning(file: display) {
                        shown.err(warning.shown + "\n")
                        findings.messages.append(warning)
                    }
                    guard each else { return }
                    let label = Printable.escape(result.threads.count == 1 ? display : "\(display) (thread \(record.info.id?.string ?? "?"))")
                    printThread(label, thread.counts, readAs: result.format.described, shown)
                    SharedOptions.report(thread.diagnostics, file: display, limit: all ? Int.max : 10, shown)
                }
                if !each {
                    printSum(Printable.escape(display), sum, readAs: result.format.described, shown)
                    // In the file's order, whichever thread each came from.
                    let ordered = diagnostics.enumerated().sorted { ($0.element.error.line ?? 0, $0.offset) < ($1.element.error.line ?? 0, $1.offset) }
                    SharedOptions.report(ordered.map(\.element), file: display, limit: 10, shown)
                }
                findings.inputs.append((display, result.format.rawValue, sum))
                findings.messages += result.skipped + diagnostics.map(\.error)
            } catch {
                failed = true
                SharedOptions.printErrors(error, console)
                findings.inputs.append((display, "", nil))
                findings.thrown += Message.of(error, file: display)
            }
        }
        return failed
    }

    /// `check --report`: the shape `build --report` writes, with what each input held.
    static func reportJSON(_ findings: Findings, exit: Int32, seconds: Double) -> [UInt8] {
        var w = JSONWriter(pretty: true)
        let messages = findings.thrown + findings.messages.map { Message($0) }
        w.object { w in
            w.field("version", Threadfold.version)
            w.field("exit", Int(exit))
            w.key("inputs")
            w.array { w in
                for input in findings.inputs {
                    w.object { w in
                        w.field("file", input.file)
                        if !input.form.isEmpty { w.field("form", input.form) }
                        guard let c = input.counts else { return }
                        for (name, value) in [
                            ("threads", c.threads), ("comments", c.comments), ("orphans", c.orphans), ("cycles", c.cycles),
                            ("duplicates", c.duplicates), ("deletedLeftOut", c.deletedLeftOut), ("records", c.records),
                            ("withBody", c.bodies), ("withAuthor", c.authors), ("withTime", c.times), ("notices", c.notices),
                        ] {
                            w.field(name, value)
                        }
                    }
                }
            }
            for (name, severity) in [("errors", Problem.Severity.error), ("warnings", .warning), ("notes", .note)] {
                w.key(name)
                w.array { w in for message in messages where message.severity == severity { message.write(into: &w) } }
            }
            w.key("milliseconds")
            w.object { w in w.field("total", Int((seconds * 1000).rounded())) }
        }
        return w.out + [0x0A]
    }

    /// Checks the dumps together and prints what was found, as for a file of many threads, or
    /// with --all each thread, named by its first record's file and line. False on errors.
    static func checkDumps(_ check: DumpCheck, _ console: Console, shown: Console, into findings: inout Findings) -> Bool {
        SharedOptions.noteForms(check.files, importing: check.importing, shown)
        let report = check.run()
        for error in report.errors { console.err(error.shown + "\n") }
        if report.moreErrors > 0 { console.err("… and \(Printable.count(report.moreErrors, "more error", "more errors"))\n") }
        findings.messages += report.errors + report.warnings + report.threads.flatMap(\.warnings)
        findings.inputs.append((SharedOptions.dumpsLabel(check.files), check.files.first?.form.rawValue ?? "", report.errors.isEmpty ? report.counts : nil))
        guard report.errors.isEmpty else { return false }
        let console = shown
        var forms: [DumpForm] = []
        for file in check.files where !forms.contains(file.form) { forms.append(file.form) }
        let readAs = forms.map(\.described).joined(separator: " and ")
        for thread in report.threads {
            printThread(Printable.escape("\(thread.source) (thread \(thread.id ?? "?"))"), thread.counts, readAs: thread.form.described, console)
            for warning in thread.warnings { console.err(warning.shown + "\n") }
        }
        let label = SharedOptions.dumpsLabel(check.files)
        var skipped = ""
        if report.skippedLines > 0 { skipped += "; \(report.skippedLines) of \(Printable.count(report.lines, "line", "lines")) skipped (--lenient)" }
        if report.skippedComments > 0 { skipped += "; \(Printable.count(report.skippedComments, "comment", "comments")) left out" }
        printSum(label, report.counts, readAs: readAs, listed: check.eachThread, extra: skipped, console)
        for warning in report.warnings { console.err(warning.shown + "\n") }
        if report.moreWarnings > 0 {
            console.err("\(label): note: \(Printable.count(report.moreWarnings, "more warning", "more warnings")) like these; 'threadfold check --all' with the same dumps lists every one\n")
        }
        return true
    }

    /// One thread's two lines: its tree, then what its form gave. `label` is escaped.
    static func printThread(_ label: String, _ counts: ThreadCounts, readAs: String, _ console: Console) {
        console.out(
            "\(label): ok: \(Printable.count(counts.comments, "comment", "comments")), \(Printable.count(counts.people, "person", "people")), \(Printable.count(counts.levels, "level", "levels")); "
                + "\(problems(counts))\n")
        console.out("\(label): read as \(readAs): \(given(counts))\n")
    }

    /// Many threads summed up in two lines. `label` is escaped.
    static func printSum(_ label: String, _ counts: ThreadCounts, readAs: String, listed: Bool = false, extra: String = "", _ console: Console) {
        console.out(
            "\(label): ok: \(Printable.count(counts.threads, "thread", "threads")), \(Printable.count(counts.comments, "comment", "comments")); "
                + "at most \(Printable.count(counts.people, "person", "people")) and \(Printable.count(counts.levels, "level", "levels")) in one thread; "
                + "\(problems(counts))\(listed ? "" : " (--all lists each thread)")\n")
        console.out("\(label): read as \(readAs): \(given(counts))\(extra)\n")
    }

    /// "1 orphan, 0 cycles broken, 0 duplicates, 2 deleted comments left out"
    static func problems(_ counts: ThreadCounts) -> String {
        "\(Printable.count(counts.orphans, "orphan", "orphans")), \(Printable.count(counts.cycles, "cycle broken", "cycles broken")), "
            + "\(Printable.count(counts.duplicates, "duplicate", "duplicates")), \(Printable.count(counts.deletedLeftOut, "deleted comment", "deleted comments")) left out"
    }

    /// "19 of 20 comments with a body, 19 with an author, 20 with a time", and notices.
    static func given(_ counts: ThreadCounts) -> String {
        "\(counts.bodies) of \(Printable.count(counts.records, "comment", "comments")) with a body, \(counts.authors) with an author, \(counts.times) with a time\(notices(counts.notices))"
    }

    /// "; and 5 notices, which are not comments" when a form read any (Discourse's small actions), else nothing.
    static func notices(_ count: Int) -> String {
        count == 0 ? "" : "; and \(Printable.count(count, "notice", "notices")), which are not comments"
    }
}
