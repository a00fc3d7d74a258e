import Foundation
import ThreadfoldKit

/// `threadfold theme DIR [--force]`: writes the built-in templates, locales and assets into DIR,
/// with a README listing every template variable, as a theme to edit.
enum ThemeCommand {
    static let force = Flag("force", short: "f", "Replace theme files that exist (a link is replaced, never\nfollowed). Other files in <dir> are left alone.")

    static let command = CLI.Command(
        name: "theme",
        abstract: "Write the built-in templates and assets into a folder, to edit.",
        usage: "threadfold theme <dir> [--force]",
        options: [force.spec, SharedOptions.quiet.spec],
        discussion: """
            Writes <dir>/templates (the Mustache templates, and locales/ with the locales),
            <dir>/assets (the stylesheet and scripts) and <dir>/README.md (how to use them,
            and every template variable, as docs/templates.md lists them). <dir> is made when
            it is missing. A build given --templates <dir>/templates --assets <dir>/assets
            writes the same pages as one given neither.
            A file that already exists is not replaced without --force, and then nothing is
            written. Files are created anew, never through a symbolic link; a link where a
            theme folder goes is an error.
            """,
        run: run,
        inputs: .directory)

    static func run(_ parsed: ParsedArguments, _ console: Console) -> Int32 {
        guard parsed.positionals.count == 1, let directory = parsed.positionals.first, !directory.isEmpty else {
            let found = parsed.positionals.isEmpty ? "none" : parsed.positionals.map { "'\(Printable.escape($0))'" }.joined(separator: " ")
            return CLI.usageError("expected one folder to write the theme into; found \(found)", usage: command.usage, console)
        }
        let force = parsed[Self.force]
        let problems = ThemeExport.problems(in: directory, replacing: force)
        if !problems.isEmpty {
            for problem in problems { console.err("\(problem)\n") }
            let exists = problems.contains { $0.errno == EEXIST }
            console.err("Error: nothing was written\(exists ? "; pass --force to replace the files that exist" : "").\n")
            return CLI.ExitCode.failure
        }
        let written: [String]
        do { written = try ThemeExport.write(to: directory, replacing: force) } catch {
            console.err("\(error)\n")
            return CLI.ExitCode.failure
        }
        if !parsed[SharedOptions.quiet] {
            let shown = Printable.escape(directory)
            console.out("Wrote \(Printable.count(written.count, "file")) into \(shown)/ (README.md lists every template variable).\n")
            console.out("Build with it: threadfold build <input> ... --templates \(shown)/templates --assets \(shown)/assets\n")
        }
        return CLI.ExitCode.success
    }
}
