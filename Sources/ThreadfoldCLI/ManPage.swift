import ThreadfoldKit

/// threadfold(1) in roff (`threadfold help --man`), made from the overview, each subcommand's
/// usage, abstract, discussion and option table: the same text `--help` prints.
enum ManPage {
    static func roff(_ commands: [CLI.Command]) -> String {
        var text = """
            .\\" threadfold(1), made by 'threadfold help --man' from its option tables.
            .TH THREADFOLD 1 "" "threadfold \(Threadfold.version)" "User Commands"
            .SH NAME
            threadfold \\- turn forum comment JSON into static HTML pages whose replies fold
            .SH SYNOPSIS
            .B threadfold
            .I subcommand
            .RI [ options ]
            .br
            .B threadfold \\-\\-version
            .SH DESCRIPTION
            Threadfold reads threads of comments as JSON (its own format, or exports from Reddit,
            Hacker News, Discourse and other forums) and writes static HTML pages in which every
            reply section folds, with counts worked out in advance.
            .B threadfold render
            writes a page per thread file;
            .B threadfold build
            writes a whole site with an index, a page per thread and feeds.
            .PP
            .B \\-h, \\-\\-help
            after any subcommand shows its help;
            .B \\-\\-version
            shows the version, the commit it was built from and the versions of cmark, Gumbo and zstd.
            .SH COMMANDS

            """
        for command in commands { text += section(command) }
        text += """
            .SH EXIT STATUS
            0 success; 1 input or output errors (nothing is published); 2 done, but
            .B \\-\\-strict
            failed on warnings (build, merge, check);
            64 usage errors (nothing is read);
            75 another build holds the site (its lock, or it made the site first): nothing is
            wrong with the input, run the build again.
            .SH SEE ALSO
            .BR man (1),
            the README and docs/ folder of Threadfold's source tree.

            """
        return text
    }

    /// A subcommand's part: usage, abstract, discussion, and each option with its help.
    static func section(_ command: CLI.Command) -> String {
        var text = ".SS \(quotedArgument(command.usage))\n" + lines(command.abstract)
        if !command.discussion.isEmpty { text += ".PP\n" + lines(command.discussion) }
        for option in command.allOptions {
            var head = option.short.map { "\\fB\\-\($0)\\fR, " } ?? ""
            head += "\\fB" + ("--" + option.long).replacingOccurrences(of: "-", with: "\\-") + "\\fR"
            if let value = option.value {
                head +=
                    option.bare == nil
                    ? " \\fI\(escaped(value))\\fR"
                    : option.bare!.choices.isEmpty ? "[=\\fI\(escaped(value))\\fR]" : " [\\fI\(escaped(value))\\fR]"
                if option.repeatable { head += " ..." }
            }
            text += ".TP\n" + head + "\n" + lines(option.help)
        }
        return text
    }

    /// Text as roff input lines: each line escaped, none starting as a request, `--` as minus
    /// signs (options are typed so). An indented line (an example) stands on a line of its own.
    static func lines(_ text: String) -> String {
        var out = ""
        var afterIndented = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let indented = line.hasPrefix(" ")
            if indented || afterIndented { out += ".br\n" }
            afterIndented = indented
            let body = escaped(line.drop { $0 == " " }).replacingOccurrences(of: "--", with: "\\-\\-")
            out += (body.hasPrefix(".") || body.hasPrefix("'") ? "\\&" : "") + body + "\n"
        }
        return out
    }

    /// `text` for roff: backslashes as `\e`, and every character past ASCII as `\[uXXXX]`, so
    /// groff reads it the same without preconv.
    static func escaped<Text: StringProtocol>(_ text: Text) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar == "\\" {
                out += "\\e"
            } else if scalar.isASCII {
                out.unicodeScalars.append(scalar)
            } else {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            }
        }
        return out
    }

    /// A macro argument in double quotes (`"` doubled inside, as groff reads it).
    static func quotedArgument(_ text: String) -> String {
        "\"" + escaped(text).replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
