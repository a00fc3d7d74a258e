import Foundation
import ThreadfoldKit

/// `threadfold check INPUT...`: reads and builds each thread without writing anything, and
/// says what it found. Exit 0 when every file can be rendered, 1 otherwise.
enum CheckCommand {
    static let command = CLI.Command(
        name: "check",
        abstract: "Validate thread files and report what they hold.",
        usage: "threadfold check <input> ... [<options>]",
        options: [
            OptionSpec("all", "List every warning (default: at most 10 of each kind per file)."),
        ] + SharedOptions.thread,
        discussion: """
            Prints, per file: comments, people and levels; orphans (replies to missing comments),
            broken reply cycles, duplicate ids, and deleted comments left out, each with its place;
            then the form it was read as, and how many comments have a body, an author and a time.
            """,
        run: run)

    static func run(_ parsed: ParsedArguments, _ console: Console) -> Int32 {
        guard !parsed.positionals.isEmpty else {
            return CLI.usageError("missing <input>", usage: command.usage, console)
        }
        var options = ThreadOptions()
        let importing: ImportOptions
        do {
            if let sort = try SharedOptions.sortOrder(parsed, "sort") { options.sort = sort }
            options.replySort = try SharedOptions.sortOrder(parsed, "reply-sort")
            importing = try SharedOptions.importOptions(parsed)
        } catch {
            return CLI.usageError("\(error)", usage: command.usage, console)
        }
        options.allowDuplicates = parsed.has("allow-duplicates")
        var failed = false
        for input in parsed.positionals {
            let display = input == "-" ? "<stdin>" : input
            do {
                let bytes = try SharedOptions.read(input, console).get()
                let result = try Importer.read(bytes: bytes, file: display, options: importing)
                SharedOptions.noteDetected(result, file: display, console)
                for record in result.threads {
                    let thread = try ThreadBuilder.build(record, options: options)
                    let count = { (kind: Diagnostic.Kind) in thread.diagnostics.filter { $0.kind == kind }.count }
                    let totals = thread.totals
                    let label = Printable.escape(result.threads.count == 1 ? display : "\(display) (thread \(record.info.id?.string ?? "?"))")
                    console.out("\(label): ok: \(Printable.count(totals.comments, "comment", "comments")), \(Printable.count(totals.participants, "person", "people")), \(Printable.count(totals.levels, "level", "levels")); "
                        + "\(Printable.count(count(.orphan), "orphan", "orphans")), \(Printable.count(count(.cycle), "cycle broken", "cycles broken")), "
                        + "\(Printable.count(count(.duplicate), "duplicate", "duplicates")), \(Printable.count(count(.omittedDeleted), "deleted comment", "deleted comments")) left out\n")
                    // What the form gave: a wrong form shows as comments without bodies or authors.
                    let comments = record.comments
                    let bodies = comments.count { !$0.body.isEmpty }, authors = comments.count { !($0.author ?? "").isEmpty }
                    let times = comments.count { $0.createdAt != nil }
                    console.out("\(label): read as \(result.format.described): \(bodies) of \(Printable.count(comments.count, "comment", "comments")) with a body, \(authors) with an author, \(times) with a time\n")
                    SharedOptions.report(thread.diagnostics, file: display, limit: parsed.has("all") ? Int.max : 10, console)
                }
            } catch {
                failed = true
                SharedOptions.printErrors(error, console)
            }
        }
        return failed ? CLI.ExitCode.failure : CLI.ExitCode.success
    }
}
