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
            OptionSpec("output", short: "o", value: "dir", "Folder to write (default: threadfold-site). It is replaced\nwhole, atomically; a folder Threadfold did not write is refused."),
            OptionSpec("quiet", short: "q", "Print nothing but errors."),
            OptionSpec("no-fsync", "Do not flush the pages to the disk before publishing them."),
        ] + SharedOptions.thread + SharedOptions.page,
        discussion: """
            Each <input> is a thread JSON file (docs/input-format.md), or '-' for standard input.
            With no input, renders the bundled example thread.
            Pages are named after their input file: comments.json becomes comments.html.
            """,
        run: run)

    static func run(_ parsed: ParsedArguments, _ console: Console) -> Int32 {
        let options: RenderOptions
        do { options = try SharedOptions.renderOptions(parsed) } catch {
            return CLI.usageError("\(error)", usage: command.usage, console)
        }
        if parsed.positionals.filter({ $0 == "-" }).count > 1 {
            return CLI.usageError("'-' (standard input) can be given only once", usage: command.usage, console)
        }
        let quiet = parsed.has("quiet")
        let renderer: ThreadRenderer
        let assets: [(name: String, bytes: [UInt8])]
        do {
            let resources = SharedOptions.resources(parsed)
            renderer = try ThreadRenderer(options: ArchiveOptions(render: options), resources: resources)
            assets = try resources.assets(search: false)
        } catch let error as ResourceError where error.isUnknownLocale {
            return CLI.usageError(error.message + " (--templates names that folder)", usage: command.usage, console)
        } catch {
            SharedOptions.printErrors(error, console)
            return CLI.ExitCode.failure
        }

        // Inputs: the files named, or the bundled example. Each is read only when its turn
        // comes, so memory holds one file at a time.
        var inputs: [(display: String, base: String, bytes: () -> Result<[UInt8], InputError>)] = []
        if parsed.positionals.isEmpty {
            inputs.append(("example.json (bundled)", "example", { .success(ResourceStore.exampleThread) }))
        } else {
            for input in parsed.positionals {
                let display = input == "-" ? "<stdin>" : input
                let base = input == "-" ? "thread" : URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
                inputs.append((display, base, { SharedOptions.read(input, console) }))
            }
        }

        // Pages go into a staging folder as they are rendered; the folder replaces the output
        // only when every input rendered.
        let output = URL(fileURLWithPath: parsed.value("output") ?? "threadfold-site")
        // When the output cannot be written, the inputs are still read, so one run reports both.
        var staging: SiteWriter.Staging?
        var failed = false
        do { staging = try SiteWriter(output: output, durable: !parsed.has("no-fsync")).begin() } catch {
            SharedOptions.printErrors(error, console)
            failed = true
        }
        var names = PageNames()
        var comments = 0
        var rendered: [(page: String, comments: Int)] = []
        for input in inputs {
            do {
                let result = try Importer.read(bytes: try input.bytes().get(), file: input.display, options: options.importing)
                if !quiet { SharedOptions.noteDetected(result, file: input.display, console) }
                for thread in result.threads {
                    // A file of several threads gets a page per thread, named after each id.
                    let base = result.threads.count == 1 ? input.base : "\(input.base)-\(thread.info.id?.string ?? "thread")"
                    let page = names.claim(base)
                    let done = try renderer.page(thread)
                    if !failed { try staging?.write(page, done.html) }
                    comments += done.thread.totals.comments
                    rendered.append((page, done.thread.totals.comments))
                    if !quiet { SharedOptions.report(done.diagnostics, file: input.display, limit: 10, console) }
                }
            } catch let error as SiteError {
                staging?.abandon()
                SharedOptions.printErrors(error, console)
                return CLI.ExitCode.failure
            } catch {
                failed = true
                SharedOptions.printErrors(error, console)
            }
        }
        guard !failed, let staging else {
            staging?.abandon()
            console.err("Error: nothing was written; fix the errors above and run again.\n")
            return CLI.ExitCode.failure
        }
        do {
            for asset in assets { try staging.write(asset.name, asset.bytes) }
            try staging.commit()
        } catch {
            staging.abandon()
            SharedOptions.printErrors(error, console)
            return CLI.ExitCode.failure
        }
        if !quiet {
            let folder = output.standardizedFileURL
            console.out("Rendered \(Printable.count(rendered.count, "thread")) (\(Printable.count(comments, "comment"))) into \(Printable.escape(parsed.value("output") ?? "threadfold-site"))/\n")
            for page in rendered.prefix(10) {
                console.out("  \(folder.appendingPathComponent(page.page).absoluteString)\n")
            }
            if rendered.count > 10 { console.out("  … and \(rendered.count - 10) more pages\n") }
        }
        return CLI.ExitCode.success
    }
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
