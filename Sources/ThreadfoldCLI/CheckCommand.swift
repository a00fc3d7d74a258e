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
            OptionSpec("all", "List every warning (default: at most 10 of each kind per file), and each\nthread of a file of many."),
        ] + SharedOptions.thread,
        discussion: """
            Prints, per file (or per thread, for one thread or with --all): comments, people and
            levels; orphans (replies to missing comments),
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
                // A file of many threads (a dump, a document of threads) is summed up in two lines;
                // --all lists each thread.
                let each = result.threads.count == 1 || parsed.has("all")
                var sum = (threads: 0, comments: 0, people: 0, levels: 0, records: 0, bodies: 0, authors: 0, times: 0, notices: 0)
                var counts: [Diagnostic.Kind: Int] = [:]
                var diagnostics: [Diagnostic] = []
                for record in result.threads {
                    let thread = try ThreadBuilder.build(record, options: options)
                    let count = { (kind: Diagnostic.Kind) in thread.diagnostics.filter { $0.kind == kind }.count }
                    let totals = thread.totals
                    // What the form gave: a wrong form shows as comments without bodies or authors.
                    let comments = record.comments
                    let bodies = comments.count { !$0.body.isEmpty }, authors = comments.count { !($0.author ?? "").isEmpty }
                    let times = comments.count { $0.createdAt != nil }
                    sum.threads += 1
                    sum.comments += totals.comments
                    sum.people = max(sum.people, totals.participants)
                    sum.levels = max(sum.levels, totals.levels)
                    sum.records += comments.count
                    sum.bodies += bodies
                    sum.authors += authors
                    sum.times += times
                    sum.notices += record.notices.count
                    for kind in [Diagnostic.Kind.orphan, .cycle, .duplicate, .omittedDeleted] { counts[kind, default: 0] += count(kind) }
                    diagnostics += thread.diagnostics
                    guard each else { continue }
                    let label = Printable.escape(result.threads.count == 1 ? display : "\(display) (thread \(record.info.id?.string ?? "?"))")
                    console.out("\(label): ok: \(Printable.count(totals.comments, "comment", "comments")), \(Printable.count(totals.participants, "person", "people")), \(Printable.count(totals.levels, "level", "levels")); "
                        + "\(Printable.count(count(.orphan), "orphan", "orphans")), \(Printable.count(count(.cycle), "cycle broken", "cycles broken")), "
                        + "\(Printable.count(count(.duplicate), "duplicate", "duplicates")), \(Printable.count(count(.omittedDeleted), "deleted comment", "deleted comments")) left out\n")
                    console.out("\(label): read as \(result.format.described): \(bodies) of \(Printable.count(comments.count, "comment", "comments")) with a body, \(authors) with an author, \(times) with a time\(Self.notices(record.notices.count))\n")
                    SharedOptions.report(thread.diagnostics, file: display, limit: parsed.has("all") ? Int.max : 10, console)
                }
                if !each {
                    let label = Printable.escape(display)
                    console.out("\(label): ok: \(Printable.count(sum.threads, "thread", "threads")), \(Printable.count(sum.comments, "comment", "comments")); "
                        + "at most \(Printable.count(sum.people, "person", "people")) and \(Printable.count(sum.levels, "level", "levels")) in one thread; "
                        + "\(Printable.count(counts[.orphan]!, "orphan", "orphans")), \(Printable.count(counts[.cycle]!, "cycle broken", "cycles broken")), "
                        + "\(Printable.count(counts[.duplicate]!, "duplicate", "duplicates")), \(Printable.count(counts[.omittedDeleted]!, "deleted comment", "deleted comments")) left out (--all lists each thread)\n")
                    console.out("\(label): read as \(result.format.described): \(sum.bodies) of \(Printable.count(sum.records, "comment", "comments")) with a body, \(sum.authors) with an author, \(sum.times) with a time\(Self.notices(sum.notices))\n")
                    // In the file's order, whichever thread each came from.
                    let ordered = diagnostics.enumerated().sorted { ($0.element.error.line ?? 0, $0.offset) < ($1.element.error.line ?? 0, $1.offset) }
                    SharedOptions.report(ordered.map(\.element), file: display, limit: 10, console)
                }
            } catch {
                failed = true
                SharedOptions.printErrors(error, console)
            }
        }
        return failed ? CLI.ExitCode.failure : CLI.ExitCode.success
    }

    /// "; and 5 notices, which are not comments" when a form read any (Discourse's small actions), else nothing.
    static func notices(_ count: Int) -> String {
        count == 0 ? "" : "; and \(Printable.count(count, "notice", "notices")), which are not comments"
    }
}
