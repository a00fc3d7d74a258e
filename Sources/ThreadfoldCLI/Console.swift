import Foundation
import ThreadfoldKit

/// Where a command writes, and what it reads from standard input. The binary uses the real
/// streams; tests pass closures that collect the text.
package struct Console: Sendable {
    package var out: @Sendable (String) -> Void
    package var err: @Sendable (String) -> Void
    /// Standard input, read to its end (at most `InputLimits.maxDocumentBytes`, else an error).
    package var readStandardInput: @Sendable () throws(ThreadfoldError) -> [UInt8] = { [] }
    /// Whether standard error is a terminal (colour and progress are for terminals only).
    package var errIsTerminal = false
    /// Whether standard input is a terminal: someone typing, not a pipe or a file. `render`
    /// with no input shows the bundled example only then; a script that passed no input
    /// (an empty glob) gets a usage error instead.
    package var inputIsTerminal = false

    /// This console with what it would print on standard output sent to standard error, so
    /// standard output carries one document (`--report -`).
    package var summaryOnError: Console {
        var console = self
        console.out = err
        return console
    }

    /// This console with a usage error about an option whose value came from a config file
    /// (`Error: '--per-page' must be …`) told where that value stands (`Error:
    /// threadfold.json:3:15: '--per-page' must be …`).
    func locating(_ origins: [String: String]) -> Console {
        var console = self
        let err = self.err
        console.err = { text in
            let prefix = "Error: '--"
            guard text.hasPrefix(prefix) else { return err(text) }
            let name = String(text.dropFirst(prefix.count).prefix { $0 != "'" && $0 != " " && $0 != "=" })
            guard let place = origins[name] else { return err(text) }
            err("Error: \(place): " + text.dropFirst("Error: ".count))
        }
        return console
    }

    /// The process's standard streams.
    package static var standard: Console {
        Console(
            out: { FileHandle.standardOutput.write(Data($0.utf8)) },
            err: { FileHandle.standardError.write(Data($0.utf8)) },
            readStandardInput: { () throws(ThreadfoldError) in try InputFile.readStandardInput() },
            errIsTerminal: isatty(2) == 1,
            inputIsTerminal: isatty(0) == 1)
    }
}
