/// `threadfold completions bash|zsh|fish`: a completion script for the shell, made from the
/// subcommands' option tables, as swift-argument-parser tools print theirs.
enum CompletionsCommand {
    enum Shell: String, CaseIterable, Sendable {
        case bash, zsh, fish
    }

    static let command = CLI.Command(
        name: "completions",
        abstract: "Print a completion script for bash, zsh or fish.",
        usage: "threadfold completions <shell>",
        options: [],
        discussion: """
            The script completes subcommands, their options, the words an option takes
            (--sort, --from, --search, …) and files or folders where a path goes.
            To try it in the running shell:
              bash:  source <(threadfold completions bash)
              zsh:   source <(threadfold completions zsh)   (after compinit)
              fish:  threadfold completions fish | source
            The Debian package and 'make install' put it where each shell looks:
            share/bash-completion/completions/threadfold, share/zsh/vendor-completions/_threadfold
            (site-functions under /usr/local) and share/fish/vendor_completions.d/threadfold.fish.
            """,
        run: run,
        inputs: .cases(of: Shell.self))

    static func run(_ parsed: ParsedArguments, _ console: Console) -> Int32 {
        guard parsed.positionals.count == 1, let shell = Shell(rawValue: parsed.positionals[0]) else {
            let found = parsed.positionals.isEmpty ? "none" : "'\(parsed.positionals.joined(separator: " "))'"
            return CLI.usageError("expected one shell: bash, zsh or fish; found \(found)", usage: command.usage, console)
        }
        console.out(script(for: shell, CLI.ordered))
        return CLI.ExitCode.success
    }

    static func script(for shell: Shell, _ commands: [CLI.Command]) -> String {
        switch shell {
        case .bash: BashCompletion.script(commands)
        case .zsh: ZshCompletion.script(commands)
        case .fish: FishCompletion.script(commands)
        }
    }
}

extension OptionSpec {
    /// The help's first sentence on one line, for the completions' descriptions.
    var summary: String {
        let text = help.split(separator: "\n").joined(separator: " ")
        var end = text.endIndex
        var index = text.startIndex
        // A sentence ends at ". " before a capital letter ("e.g. oldest" goes on).
        while let dot = text[index...].firstIndex(of: ".") {
            let next = text.index(after: dot)
            if next == text.endIndex { break }
            if text[next] == " ", let after = text[next...].dropFirst().first, after.isUppercase {
                end = next
                break
            }
            index = next
        }
        return String(text[..<end])
    }

    /// How the option is written: `--long`, and `-s` when it has a short form.
    var spellings: [String] { ["--" + long] + (short.map { ["-" + String($0)] } ?? []) }
}
