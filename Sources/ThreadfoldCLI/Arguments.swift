import ThreadfoldKit

/// A command's options, declared once for parsing and for help.
struct OptionSpec: Sendable {
    let long: String
    let short: Character?
    /// The value's name in help (`DIR`, `N`), or nil for a flag.
    let value: String?
    let help: String
    /// For an option whose value may be left out (`--search`, `--search pagefind`): its value
    /// when bare, and the words that are taken as its value when they follow it.
    let bare: (value: String, choices: [String])?
    /// What the value is, for the shell completions and the man page.
    let kind: ValueKind
    /// Whether the option may be given more than once, each value kept (`--exclude`); any other
    /// option keeps its last value.
    let repeatable: Bool

    /// What an option's value (or a command's input) is: free text, one of some words, a
    /// comma-separated list of them, a file or a folder. Completions offer the words, or the
    /// file system.
    enum ValueKind: Sendable, Equatable {
        case text
        case oneOf([String])
        case listOf([String])
        case file
        case directory
        /// The name of a subcommand (`help`'s input).
        case subcommand

        /// The raw values of an enum's cases, in declaration order.
        static func cases<Choice: CaseIterable & RawRepresentable>(of type: Choice.Type) -> ValueKind where Choice.RawValue == String {
            .oneOf(type.allCases.map(\.rawValue))
        }
    }

    /// `kind` defaults to the words of `bare`, else free text (and to nothing for a flag).
    init(
        _ long: String, short: Character? = nil, value: String? = nil, bare: (value: String, choices: [String])? = nil,
        kind: ValueKind? = nil, repeatable: Bool = false, _ help: String
    ) {
        self.long = long
        self.repeatable = repeatable
        self.short = short
        self.value = value
        self.bare = bare
        self.kind = kind ?? bare.map { .oneOf($0.choices) } ?? .text
        self.help = help
    }
}

/// Parsed command-line words: options by long name, flags, and positional arguments. Commands
/// read them through their typed declarations (`Option`, `Flag`, `Repeatable`).
struct ParsedArguments {
    var values: [String: String] = [:]
    /// Every value of a repeatable option, in the order given.
    var repeated: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
    /// Flags and bare options turned off with `--no-NAME`: a config file does not turn them on.
    var negated: Set<String> = []
    /// Where each value taken from a config file stands in it (`threadfold.json:3:14`), so a
    /// bad value's message names its place.
    var origins: [String: String] = [:]

    /// The text stored under a long name, as the parser and the config file keep it. Commands
    /// read their options typed instead (`parsed[SharedOptions.sort]`, `Option`).
    func value(_ long: String) -> String? { values[long] }
}

/// Parses `--opt value`, `--opt=value`, `-o value`, `-ovalue`, flags, and `--` (everything
/// after it is positional). A lone `-` is positional (standard input). A repeated option keeps
/// its last value, as most Unix tools do, unless it is `repeatable`: then each value is kept.
func parseArguments(_ words: [String], specs: [OptionSpec]) throws -> ParsedArguments {
    var parsed = ParsedArguments()
    var i = 0
    func spec(long: String) -> OptionSpec? { specs.first { $0.long == long } }
    func spec(short: Character) -> OptionSpec? { specs.first { $0.short == short } }
    func set(_ spec: OptionSpec, _ value: String) throws {
        // An empty path (`-o "$OUT"` with OUT unset) is never the working folder by accident.
        if value.isEmpty && (spec.kind == .file || spec.kind == .directory) {
            throw ThreadfoldError.usage("'--\(spec.long)' needs a \(spec.kind == .file ? "file" : "folder") name; found an empty one")
        }
        parsed.values[spec.long] = value
        if spec.repeatable { parsed.repeated[spec.long, default: []].append(value) }
    }
    func takeValue(_ spec: OptionSpec, inline: String?, shown: String) throws {
        if let inline {
            try set(spec, inline)
        } else if let bare = spec.bare {
            if i + 1 < words.count, bare.choices.contains(words[i + 1]) {
                i += 1
                try set(spec, words[i])
            } else {
                try set(spec, bare.value)
            }
        } else {
            guard i + 1 < words.count else { throw ThreadfoldError.usage("missing value for '\(shown) <\(spec.value!)>'") }
            i += 1
            try set(spec, words[i])
        }
    }
    while i < words.count {
        let word = words[i]
        if word == "--" {
            parsed.positionals.append(contentsOf: words[(i + 1)...])
            break
        }
        if word.hasPrefix("--") {
            let body = word.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            let inline = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
            // `--no-NAME` turns off a flag (or a bare option such as --strict) a config file sets.
            if spec(long: name) == nil, name.hasPrefix("no-"), let negated = spec(long: String(name.dropFirst(3))),
                negated.value == nil || negated.bare != nil
            {
                guard inline == nil else { throw ThreadfoldError.usage("'--\(name)' takes no value") }
                parsed.negated.insert(negated.long)
                parsed.flags.remove(negated.long)
                parsed.values[negated.long] = nil
                i += 1
                continue
            }
            guard let spec = spec(long: name) else {
                let near = ConfigFile.nearest(name, among: Set(specs.map(\.long))).map { " (did you mean '--\($0)'?)" } ?? ""
                throw ThreadfoldError.usage("unknown option '--\(name)'" + near)
            }
            if spec.value != nil {
                try takeValue(spec, inline: inline, shown: "--\(name)")
            } else {
                guard inline == nil else { throw ThreadfoldError.usage("'--\(name)' takes no value") }
                parsed.flags.insert(spec.long)
            }
        } else if word.hasPrefix("-") && word.count > 1 {
            let letter = word[word.index(after: word.startIndex)]
            guard let spec = spec(short: letter) else { throw ThreadfoldError.usage("unknown option '-\(letter)'") }
            let rest = String(word.dropFirst(2))
            if spec.value != nil {
                try takeValue(spec, inline: rest.isEmpty ? nil : (rest.hasPrefix("=") ? String(rest.dropFirst()) : rest), shown: "-\(letter)")
            } else {
                guard rest.isEmpty else { throw ThreadfoldError.usage("'-\(letter)' takes no value") }
                parsed.flags.insert(spec.long)
            }
        } else {
            parsed.positionals.append(word)
        }
        i += 1
    }
    return parsed
}

/// The OPTIONS: block of a help text, aligned.
func optionsHelp(_ specs: [OptionSpec]) -> String {
    let rows = specs.map { spec -> (String, String) in
        var left = spec.short.map { "-\($0), " } ?? ""
        left += "--\(spec.long)"
        if let value = spec.value {
            // A bare option whose value is never a word of its own (`--strict=orphan,cycle`) takes it after '='.
            left += spec.bare == nil ? " <\(value)>" : spec.bare!.choices.isEmpty ? "[=<\(value)>]" : " [<\(value)>]"
        }
        if spec.repeatable { left += " ..." }
        return (left, spec.help)
    }
    let width = min((rows.map { $0.0.count }.max() ?? 0) + 2, 30)
    return rows.map { left, help in
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        let pad = String(repeating: " ", count: width)
        var text = left.count >= width - 1 ? "  \(left)\n  \(pad)\(lines[0])" : "  \(left)\(String(repeating: " ", count: width - left.count))\(lines[0])"
        for line in lines.dropFirst() { text += "\n  \(pad)\(line)" }
        return text
    }.joined(separator: "\n")
}
