import Foundation
import ThreadfoldKit

/// `threadfold preview [INPUT...] [--watch]`: builds into a temporary folder and opens the page
/// in a browser, printing its `file://` URL either way.
enum PreviewCommand {
    static let watch = Flag("watch", "Render again whenever an input, template or asset changes\n(checked twice a second) until interrupted.")
    static let noOpen = Flag("no-open", "Print the URL without opening a browser.")

    static let command = CLI.Command(
        name: "preview",
        abstract: "Render into a temporary folder and open it in a browser.",
        usage: "threadfold preview [<input> ...] [--watch] [<options>]",
        options: [
            watch.spec,
            noOpen.spec,
            SharedOptions.example.help("Preview the bundled example thread (docs/examples/thread.json).").spec,
            SharedOptions.quiet.help("Print nothing but the URL and errors.").spec,
            SharedOptions.exclude.spec,
        ] + BuildCommand.archive + SharedOptions.thread + SharedOptions.page + ConfigFile.specs,
        discussion: """
            Inputs are what 'build' reads; with none, the bundled example thread, from a terminal
            (a script with no input gets a usage error: --example asks for it). One thread
            opens its page; several open the index. The browser is $BROWSER (a command, or a
            list separated by ':'), else xdg-open, else open. The folder is the same for the same
            inputs and is replaced whole on each render. It lies in a private folder (mode 0700,
            yours): $XDG_RUNTIME_DIR/threadfold-preview when that is set, else
            $TMPDIR/threadfold-preview-<uid> (or under /tmp). If that folder exists but is not
            a private directory of yours, it is not used: the preview goes into a new folder
            made by mkdtemp, with a warning. Previews there older than a day are removed.
            A browser that does not start (not found, or exiting non-zero within a second) is
            an error (exit 1) that names the command and why, with the URL to open by hand;
            with --watch, the preview goes on.
            """,
        run: run)

    static func run(_ parsed: ParsedArguments, _ console: Console) -> Int32 {
        if let problem = RenderCommand.inputProblem(parsed, inputIsTerminal: console.inputIsTerminal) {
            return CLI.usageError(problem, usage: command.usage, console)
        }
        if parsed[watch] && parsed.positionals.contains("-") {
            return CLI.usageError("'--watch' cannot watch standard input; name a file", usage: command.usage, console)
        }
        let options: ArchiveOptions
        let filter: FolderFilter
        let resources: Resources
        do {
            options = try BuildCommand.archiveOptions(parsed)
            filter = try SharedOptions.folderFilter(parsed, output: nil)
            resources = try SharedOptions.resourceFolders(parsed)
        } catch {
            return CLI.usageError("\(error)", usage: command.usage, console)
        }
        let inputs = parsed.positionals.map { $0 == "-" ? $0 : URL(fileURLWithPath: $0).standardizedFileURL.path }
        let key = StableHash.hex(StableHash.content(Array(inputs.joined(separator: "\u{0}").utf8)))
        let chosen: PreviewFolder
        do { chosen = try PreviewFolder.choose(key: key) } catch {
            console.err("Error: \(error.message)\n")
            return CLI.ExitCode.failure
        }
        if let warning = chosen.warning { console.err("warning: \(warning)\n") }
        if let parent = chosen.parent { PreviewFolder.removeStale(in: parent, keep: key) }
        let folder = chosen.folder
        let site = folder.appendingPathComponent("site")

        // Rebuilt into the same folder on every change: incremental, and not flushed to the disk.
        let buildOptions = BuildOptions(archive: options, incremental: true, durable: false, resources: resources)
        func build() -> (code: Int32, page: URL?) {
            let build =
                inputs.isEmpty
                ? Threadfold.Build(
                    units: [ArchiveUnit(source: .bytes(ResourceStore.exampleThread), display: "example.json (bundled)")], output: site.path,
                    options: buildOptions)
                : Threadfold.Build(
                    inputs: inputs, output: site.path, options: buildOptions, filter: filter, readStandardInput: console.readStandardInput)
            do {
                let report = try build.run()
                for error in report.errors.prefix(50) { console.err(error.shown + "\n") }
                if let error = report.siteError { console.err("\(error)\n") }
                guard report.published else { return (CLI.ExitCode.failure, nil) }
                if !parsed[SharedOptions.quiet] { for warning in report.warnings.prefix(10) { console.err(warning.shown + "\n") } }
                let page =
                    report.threadPaths.count == 1
                    ? site.appendingPathComponent(report.threadPaths[0]).appendingPathComponent("index.html")
                    : site.appendingPathComponent("index.html")
                return (CLI.ExitCode.success, page)
            } catch  where error.kind == .usage {
                console.err("Error: \(error.message) (--templates names that folder)\n")
                return (CLI.ExitCode.usage, nil)
            } catch {
                SharedOptions.printErrors(error, console)
                return (CLI.ExitCode.failure, nil)
            }
        }

        let first = build()
        guard let page = first.page else {
            if !parsed[watch] { return first.code }
            console.err("Waiting for the input to be fixed…\n")
            return watchInputs(parsed, console, inputs: inputs, build: build)
        }
        console.out("Preview: \(page.absoluteString)\n")
        // A browser that did not start fails the command; with --watch the preview goes on
        // being rendered for the URL opened by hand.
        let opened = parsed[noOpen] || open(page, console)
        if parsed[watch] { return watchInputs(parsed, console, inputs: inputs, build: build) }
        return opened ? CLI.ExitCode.success : CLI.ExitCode.failure
    }

    /// Polls the inputs, templates and assets; renders again when any changed. Runs until killed.
    static func watchInputs(
        _ parsed: ParsedArguments, _ console: Console, inputs: [String],
        build: () -> (code: Int32, page: URL?)
    ) -> Int32 {
        let watched = inputs + [SharedOptions.templates, SharedOptions.assets, SharedOptions.mapFile].compactMap { parsed.given($0) }
        var last = signature(watched)
        if !parsed[SharedOptions.quiet] { console.err("Watching \(Printable.count(watched.count, "path")) for changes; Ctrl-C stops.\n") }
        while true {
            usleep(500_000)
            let now = signature(watched)
            guard now != last else { continue }
            last = now
            let result = build()
            if let page = result.page {
                if !parsed[SharedOptions.quiet] { console.err("Rendered again: \(page.absoluteString)\n") }
            } else {
                console.err("The previous preview stays; fix the errors above.\n")
            }
        }
    }

    /// Names, sizes and modification times of the files under `paths`.
    static func signature(_ paths: [String]) -> [String] {
        var out: [String] = []
        let fm = FileManager.default
        for path in paths {
            var pending = [path]
            while let current = pending.popLast() {
                var isDirectory: ObjCBool = false
                guard fm.fileExists(atPath: current, isDirectory: &isDirectory) else {
                    out.append(current + " missing")
                    continue
                }
                if isDirectory.boolValue {
                    for name in ((try? fm.contentsOfDirectory(atPath: current)) ?? []).sorted() where !name.hasPrefix(".") {
                        pending.append(current + "/" + name)
                    }
                } else {
                    let attributes = try? fm.attributesOfItem(atPath: current)
                    let size = (attributes?[.size] as? NSNumber)?.int64Value ?? -1
                    let date = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
                    out.append("\(current) \(size) \(date)")
                }
            }
        }
        return out
    }

    /// Opens `page` with $BROWSER, else xdg-open, else open. Returns false, having said why on
    /// standard error with the URL to open by hand, when $BROWSER is set and none of its commands
    /// started (each is tried in turn; a missing program, one that cannot run and one that exits
    /// non-zero within `patience` seconds all count as failures), or when xdg-open or open ran and
    /// failed. A browser still running after `patience` is taken as started and left running.
    /// No browser at all (no $BROWSER, xdg-open or open) is a note, not a failure.
    static func open(
        _ page: URL, _ console: Console, environment: [String: String] = ProcessInfo.processInfo.environment,
        patience: Double = 1.0
    ) -> Bool {
        var candidates: [[String]] = []
        let chosen = environment["BROWSER"].map { !$0.isEmpty } ?? false
        if chosen, let browser = environment["BROWSER"] {
            for command in browser.split(separator: ":") {
                let words = command.split(separator: " ").map(String.init)
                guard !words.isEmpty else { continue }
                candidates.append(words.contains("%s") ? words.map { $0 == "%s" ? page.absoluteString : $0 } : words + [page.absoluteString])
            }
        } else {
            candidates = [["xdg-open", page.absoluteString], ["open", page.absoluteString]].filter { findExecutable($0[0], environment) != nil }
        }
        var failures: [String] = []
        for command in candidates {
            guard let reason = launch(command, environment: environment, patience: patience) else { return true }
            failures.append("'\(Printable.escape(command.joined(separator: " ")))' \(reason)")
        }
        if failures.isEmpty && !chosen {
            console.err("note: no browser found ($BROWSER, xdg-open, open); open the URL above yourself\n")
            return true
        }
        let source = chosen ? "$BROWSER" : "xdg-open or open"
        let found = failures.isEmpty ? "it names no command" : failures.joined(separator: "; ")
        console.err("Error: the browser did not start (\(source)): \(found).\n  Open the preview yourself: \(page.absoluteString)\n")
        return false
    }

    /// Starts `command` without waiting for it past `patience` seconds; nil when it started (it
    /// exited with status 0, or still runs), else why not ("was not found in $PATH", "exited
    /// with status 3").
    static func launch(_ command: [String], environment: [String: String], patience: Double) -> String? {
        guard let path = findExecutable(command[0], environment) else {
            return command[0].contains("/") ? "is not an executable file" : "was not found in $PATH"
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = Array(command.dropFirst())
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return "could not be started: \(error.localizedDescription)" }
        let deadline = Date().addingTimeInterval(patience)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        guard !process.isRunning else { return nil }
        if process.terminationReason == .uncaughtSignal { return "was killed by signal \(process.terminationStatus)" }
        return process.terminationStatus == 0 ? nil : "exited with status \(process.terminationStatus)"
    }

    static func findExecutable(_ name: String, _ environment: [String: String]) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        for directory in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}
