/// `threadfold help [<subcommand>]`: the overview, or a subcommand's help; `--man` prints the
/// manual page, made from the same tables as the help.
enum HelpCommand {
    static let man = Flag("man", "Print the manual page (roff, for man -l or\n/usr/share/man/man1/threadfold.1) instead.")
    static let configSchema = Flag("config-schema", "Print the JSON Schema of threadfold.json (as\ndocs/threadfold.schema.json).")

    static let command = CLI.Command(
        name: "help",
        abstract: "Show help for a subcommand, or the manual page.",
        usage: "threadfold help [<subcommand>] [--man | --config-schema]",
        options: [man.spec, configSchema.spec],
        discussion: "",
        run: run,
        inputs: .subcommand)

    static func run(_ parsed: ParsedArguments, _ console: Console) -> Int32 {
        if parsed[man] {
            guard parsed.positionals.isEmpty else {
                return CLI.usageError("'--man' prints the whole manual; it takes no subcommand", usage: command.usage, console)
            }
            console.out(ManPage.roff(CLI.ordered))
            return CLI.ExitCode.success
        }
        if parsed[configSchema] {
            console.out(ConfigFile.schema(commands: CLI.ordered))
            return CLI.ExitCode.success
        }
        guard let name = parsed.positionals.first else {
            console.out(CLI.overview)
            return CLI.ExitCode.success
        }
        guard parsed.positionals.count == 1, let chosen = CLI.commands[name] else {
            let what = parsed.positionals.count == 1 ? "unknown subcommand '\(name)'" : "expected one subcommand"
            // The overview lists the subcommands.
            return CLI.usageError(what, usage: command.usage, see: "threadfold help", console)
        }
        console.out(chosen.help)
        return CLI.ExitCode.success
    }
}
