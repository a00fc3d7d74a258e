/// The fish completion script: a `complete` line per subcommand and per option of each, with the
/// words an option's value may be, and files or folders where a value or input is a path.
enum FishCompletion {
    static func script(_ commands: [CLI.Command]) -> String {
        var lines = [
            "# fish completion for threadfold, made by 'threadfold completions fish' from its option tables.",
            "complete -c threadfold -f",
            "complete -c threadfold -n __fish_use_subcommand -s h -l help -d 'Show help.'",
            "complete -c threadfold -n __fish_use_subcommand -l version -d 'Show the version.'",
        ]
        for command in commands {
            lines.append("complete -c threadfold -n __fish_use_subcommand -a \(command.name) -d \(quoted(command.abstract))")
        }
        for command in commands {
            let condition = "-n " + quoted("__fish_seen_subcommand_from \(command.name)")
            for option in command.allOptions {
                var line = "complete -c threadfold \(condition)"
                if let short = option.short { line += " -s \(short)" }
                line += " -l \(option.long)"
                if option.value != nil { line += " " + value(option.kind) }
                lines.append(line + " -d " + quoted(option.summary))
            }
            lines.append("complete -c threadfold \(condition) " + input(command.inputs))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The flags for an option's value: `-r -F` for a file, `-x -a '…'` for words or folders.
    static func value(_ kind: OptionSpec.ValueKind) -> String {
        switch kind {
        case .text: "-x"
        case .file: "-r -F"
        default: "-x " + input(kind)
        }
    }

    /// What completes a command's inputs (or an option's words).
    static func input(_ kind: OptionSpec.ValueKind) -> String {
        switch kind {
        case .text: "-f"
        case .oneOf(let words): "-a " + quoted(words.joined(separator: " "))
        case .listOf(let words): "-a " + quoted("(__fish_complete_list , \"string join \\n \(words.joined(separator: " "))\")")
        case .file: "-F"
        case .directory: "-a '(__fish_complete_directories)'"
        case .subcommand: "-a " + quoted(CLI.ordered.map(\.name).joined(separator: " "))
        }
    }

    /// `text` in single quotes for fish, where only `\\` and `\'` are escapes.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
