import Foundation
import ThreadfoldKit

/// Threadfold's command line: `render`, `build`, `merge`, `preview`, `check`, `theme`,
/// `completions`, `help`, `--version`.
///
/// Exit codes: 0 success, 1 input or output errors (nothing is published), 2 built with
/// warnings (`build --strict`), 64 usage errors.
package enum CLI {
    package enum ExitCode {
        package static let success: Int32 = 0
        package static let failure: Int32 = 1
        /// `build --strict` built the site, with warnings.
        package static let warnings: Int32 = 2
        package static let usage: Int32 = 64
        /// Another build held the site (its lock, or it made the site first): run again later
        /// (EX_TEMPFAIL).
        package static let temporaryFailure: Int32 = 75
    }

    package static let overview = """
        OVERVIEW: Turn forum comment JSON into static HTML pages whose replies fold.

        USAGE: threadfold <subcommand> [<options>]

        SUBCOMMANDS:
          render    Render thread files to HTML pages (--example: the bundled example).
          build     Build a static site from many threads: index, thread pages, feeds.
          merge     Join shard builds (build --shard K/N) into one site.
          preview   Render into a temporary folder and open it in a browser.
          check     Validate thread files and report what they hold.
          theme     Write the built-in templates and assets into a folder, to edit.
          completions
                    Print a completion script for bash, zsh or fish.
          help      Show help for a subcommand (--man: the manual page).

        OPTIONS:
          -h, --help    Show help.
          --version     Show the version.

          See 'threadfold help <subcommand>' for a subcommand's options.

        """

    /// On SIGINT or SIGTERM, removes the staging folders of builds in progress (nothing is
    /// published, nothing is left beside the output), then ends as the signal would. Call it
    /// before any other thread starts: the two signals are blocked in every thread, and one
    /// thread waits for them with sigwait, where the removal may run safely.
    package static func removeStagingOnSignals() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let waiter = Thread {
            var signals = sigset_t()
            sigemptyset(&signals)
            sigaddset(&signals, SIGINT)
            sigaddset(&signals, SIGTERM)
            var received: Int32 = 0
            guard sigwait(&signals, &received) == 0 else { return }
            SiteWriter.removeStagingFolders()
            signal(received, SIG_DFL)
            pthread_sigmask(SIG_UNBLOCK, &signals, nil)
            raise(received)
            _exit(128 + received)
        }
        waiter.start()
    }

    /// Ends the process with `code`; but when a command ended because SIGINT or SIGTERM came,
    /// waits for the signal's thread, which removes the staging folders and then ends the
    /// process as the signal would (exiting first would cut that removal short and leave them).
    package static func exit(_ code: Int32) -> Never {
        if SiteWriter.interrupted {
            while true { pause() }
        }
        Foundation.exit(code)
    }

    /// Runs one command line (without the program name) and returns the exit code.
    package static func run(_ arguments: [String], console: Console = .standard) -> Int32 {
        guard let first = arguments.first else {
            console.out(overview)
            return ExitCode.success
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "-h", "--help":
            console.out(overview)
            return ExitCode.success
        case "--version", "version":
            console.out(versionText)
            return ExitCode.success
        default:
            guard let command = commands[first] else {
                if first.hasPrefix("-") {
                    return usageError("unknown option '\(first)'", usage: "threadfold <subcommand> [<options>]", console)
                }
                let names = ordered.map(\.name)
                let expected = names.dropLast().joined(separator: ", ") + " or " + names.last!
                return usageError("unknown subcommand '\(first)'; expected \(expected)", usage: "threadfold <subcommand> [<options>]", console)
            }
            let beforeTerminator = rest.prefix { $0 != "--" }
            if beforeTerminator.contains("-h") || beforeTerminator.contains("--help") {
                console.out(command.help)
                return ExitCode.success
            }
            do {
                var parsed = try parseArguments(rest, specs: command.options)
                if ConfigFile.subcommands.contains(command.name) {
                    try ConfigFile.apply(to: &parsed, command: command, all: ordered)
                }
                return command.run(parsed, parsed.origins.isEmpty ? console : console.locating(parsed.origins))
            } catch let error as ThreadfoldError where error.kind == .usage {
                return usageError(error.message, usage: command.usage, console)
            } catch {
                return usageError("\(error)", usage: command.usage, console)
            }
        }
    }

    static func usageError(_ message: String, usage: String, see: String? = nil, _ console: Console) -> Int32 {
        // The usage line names its subcommand ("threadfold build <input> ..."): its help is the place to look.
        let words = usage.split(separator: " ")
        let help = see ?? (words.count > 1 && words[0] == "threadfold" && !words[1].hasPrefix("<") && !words[1].hasPrefix("-") ? "threadfold help \(words[1])" : "threadfold help")
        console.err("Error: \(Printable.escapeLines(message))\nUsage: \(usage)\n  See '\(help)' for more.\n")
        return ExitCode.usage
    }

    /// `threadfold --version`: the version alone on the first line (scripts read it), then the
    /// commit and the versions of the C libraries it was built with.
    static var versionText: String {
        """
        threadfold \(Threadfold.version)
        commit: \(BuildInfo.commit ?? "unknown")
        built with: cmark \(MarkdownRenderer.cmarkVersion), gumbo \(BuildInfo.gumbo ?? "unknown"), zstd \(Zstd.headerVersion)

        """
    }

    /// A subcommand: its help, its options (parsing, help, manual page and completions are all
    /// made from `options`), and what its inputs (positional arguments) are.
    struct Command: Sendable {
        let name: String
        let abstract: String
        let usage: String
        let options: [OptionSpec]
        let discussion: String
        let run: @Sendable (ParsedArguments, Console) -> Int32
        var inputs: OptionSpec.ValueKind = .file

        /// `options` and `-h, --help`, as help lists them.
        var allOptions: [OptionSpec] { options + [OptionSpec("help", short: "h", "Show help for this subcommand.")] }

        var help: String {
            var text = "OVERVIEW: \(abstract)\n\nUSAGE: \(usage)\n\n"
            if !discussion.isEmpty { text += discussion + "\n\n" }
            text += "OPTIONS:\n" + optionsHelp(allOptions) + "\n"
            return text
        }
    }

    /// Every subcommand, in the order the manual page and the completions list them.
    static let ordered: [Command] = [
        RenderCommand.command, BuildCommand.command, MergeCommand.command, PreviewCommand.command,
        CheckCommand.command, ThemeCommand.command, CompletionsCommand.command, HelpCommand.command,
    ]

    static let commands: [String: Command] = Dictionary(uniqueKeysWithValues: ordered.map { ($0.name, $0) })
}
