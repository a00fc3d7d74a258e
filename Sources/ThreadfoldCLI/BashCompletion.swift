/// The bash completion script: `_threadfold` completes subcommands, each one's options, the
/// words an option's value may be, and files or folders where a value or input is a path.
///
/// bash splits `--sort=top` at `=` (COMP_WORDBREAKS), so the option may be two words back.
/// Option names and value words are plain `[a-z0-9-]` words and need no quoting.
enum BashCompletion {
    static func script(_ commands: [CLI.Command]) -> String {
        let names = commands.map(\.name).joined(separator: " ")
        return """
            # bash completion for threadfold, made by 'threadfold completions bash' from its option tables.
            _threadfold_words() { mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -W "$1" -- "$cur"); }
            _threadfold_list() {
                local head=
                [[ $cur == *,* ]] && head=${cur%,*},
                mapfile -t COMPREPLY < <(compgen -P "$head" -W "$1" -- "${cur##*,}")
                compopt -o nospace 2>/dev/null
            }
            _threadfold_files() { compopt -o filenames 2>/dev/null; mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$cur"); }
            _threadfold_dirs() { compopt -o filenames 2>/dev/null; mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -d -- "$cur"); }
            _threadfold() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev= option= ended= i
                COMPREPLY=()
                if (( COMP_CWORD <= 1 )); then
                    _threadfold_words "\(names) -h --help --version"
                    return
                fi
                prev=${COMP_WORDS[COMP_CWORD-1]}
                if [[ $cur == = ]]; then option=$prev cur=
                elif [[ $prev == = ]]; then option=${COMP_WORDS[COMP_CWORD-2]}
                else option=$prev
                fi
                # After --, every word is an input.
                for (( i = 2; i < COMP_CWORD; i++ )); do
                    [[ ${COMP_WORDS[i]} == -- ]] && ended=1 option=
                done
                case ${COMP_WORDS[1]} in

            """ + commands.map(arm).joined() + """
                    esac
                }
                complete -F _threadfold threadfold

                """
    }

    /// One subcommand's arm of the `case`: its options' values, then its options, then its inputs.
    static func arm(_ command: CLI.Command) -> String {
        var text = "    \(command.name))\n        case $option in\n"
        var groups: [(action: String, names: [String])] = []
        for spec in command.allOptions where spec.value != nil {
            // An option that may stand bare (`--search`) may be followed by an input too.
            let action = words(spec.kind) + (spec.bare == nil ? "; return" : "")
            if let at = groups.firstIndex(where: { $0.action == action }) {
                groups[at].names += spec.spellings
            } else {
                groups.append((action, spec.spellings))
            }
        }
        for group in groups {
            text += "            \(group.names.joined(separator: "|"))) \(group.action) ;;\n"
        }
        let options = command.allOptions.flatMap(\.spellings).joined(separator: " ")
        text += "        esac\n"
        text += "        if [[ -z $ended && $cur == -* ]]; then _threadfold_words \"\(options)\"; return; fi\n"
        text += "        \(inputAction(command.inputs)) ;;\n"
        return text
    }

    /// What completes an option's value, or a command's input.
    static func words(_ kind: OptionSpec.ValueKind) -> String {
        switch kind {
        case .text: ":"
        case .oneOf(let words): "_threadfold_words \"\(words.joined(separator: " "))\""
        case .listOf(let words): "_threadfold_list \"\(words.joined(separator: " "))\""
        case .file: "_threadfold_files"
        case .directory: "_threadfold_dirs"
        case .subcommand: "_threadfold_words \"\(CLI.ordered.map(\.name).joined(separator: " "))\""
        }
    }

    /// What completes a command's inputs: a word only as the first input, paths anywhere.
    static func inputAction(_ kind: OptionSpec.ValueKind) -> String {
        switch kind {
        case .text, .file, .directory: words(kind)
        case .oneOf, .listOf, .subcommand: "(( COMP_CWORD == 2 )) && \(words(kind))"
        }
    }
}
