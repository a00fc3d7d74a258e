/// The zsh completion script (`_threadfold`, for a folder on `$fpath` or `source`): `_arguments`
/// specs for each subcommand's options, with the words an option's value may be and `_files`
/// where a value or input is a path.
enum ZshCompletion {
    static func script(_ commands: [CLI.Command]) -> String {
        var text = """
            #compdef threadfold
            # zsh completion for threadfold, made by 'threadfold completions zsh' from its option tables.


            """
        for command in commands { text += function(command) }
        text += """
            _threadfold() {
                local curcontext=$curcontext state line
                _arguments -C \\
                    '(- *)'{-h,--help}'[Show help.]' \\
                    '(- *)--version[Show the version.]' \\
                    '1:subcommand:->subcommand' \\
                    '*::argument:->argument'
                case $state in
                subcommand)
                    local -a subcommands=(

            """
        for command in commands { text += "            \(quoted(command.name + ":" + command.abstract))\n" }
        text += """
                    )
                    _describe -t subcommands 'threadfold subcommand' subcommands ;;
                argument)
                    case $words[1] in

            """
        for command in commands { text += "            \(command.name)) _threadfold_\(command.name) ;;\n" }
        text += """
                    esac ;;
                esac
            }

            if [[ $funcstack[1] == _threadfold ]]; then _threadfold "$@"; else compdef _threadfold threadfold; fi

            """
        return text
    }

    /// `_threadfold_<name>`: the subcommand's `_arguments` call.
    static func function(_ command: CLI.Command) -> String {
        var specs = command.allOptions.map(spec)
        switch command.inputs {
        case .file, .directory, .text: specs.append(quoted("*:input:" + action(command.inputs)))
        case .oneOf, .listOf, .subcommand: specs.append(quoted("1:input:" + action(command.inputs)))
        }
        return "_threadfold_\(command.name)() {\n    _arguments -S \\\n        " + specs.joined(separator: " \\\n        ") + "\n}\n\n"
    }

    /// One option's spec: `'(-o --output)'{-o+,--output=}'[Help.]:dir:_files -/'`, or
    /// `'*--exclude=[Help.]:glob: '` for one that may be repeated.
    static func spec(_ option: OptionSpec) -> String {
        let description = "[" + bracketed(option.summary) + "]"
        var value = ""
        if let name = option.value {
            value = (option.bare == nil ? ":" : "::") + name + ":" + action(option.kind)
        }
        let takes = option.value == nil ? "" : "="
        // `*`: the option may be given again.
        let again = option.repeatable ? "*" : ""
        guard let short = option.short else {
            return quoted(again + "--" + option.long + takes + description + value)
        }
        let shortTakes = option.value == nil ? "" : "+"
        return quoted(option.repeatable ? again : "(-\(short) --\(option.long))") + "{-\(short)\(shortTakes),--\(option.long)\(takes)}" + quoted(description + value)
    }

    /// An `_arguments` action: nothing for free text, the words, or `_files`.
    static func action(_ kind: OptionSpec.ValueKind) -> String {
        switch kind {
        case .text: " "
        case .oneOf(let words): "(" + words.joined(separator: " ") + ")"
        case .listOf(let words): "_sequence compadd - " + words.joined(separator: " ")
        case .file: "_files"
        case .directory: "_files -/"
        case .subcommand: "(" + CLI.ordered.map(\.name).joined(separator: " ") + ")"
        }
    }

    /// Text inside an `_arguments` description's brackets.
    static func bracketed(_ text: String) -> String {
        var out = ""
        for character in text {
            if "[]\\:".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    /// `text` in single quotes for zsh.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
