import Foundation
import TestSupport
import Testing

@testable import ThreadfoldCLI

/// `threadfold completions bash|zsh|fish`: each script parses in its shell, and bash's and fish's
/// answer with exactly the options and value words of the tables `--help` prints. A missing
/// shell skips its test outside CI and fails it in CI (`make test` installs zsh and fish).
@Suite("Shell completions")
struct CompletionsTests {
    let cli = CLITests()

    /// The script for `shell`, written to a file in `folder`.
    func script(_ shell: String, in folder: URL) throws -> String {
        let result = try cli.run(["completions", shell])
        #expect(result.status == 0 && result.err.isEmpty, "\(result.err)")
        return try cli.write(result.out, "threadfold.\(shell)", in: folder)
    }

    /// What bash's `_threadfold` offers for the command line `words` (the last one being typed),
    /// in `folder`.
    func bash(_ script: String, _ words: [String], in folder: URL) throws -> [String] {
        let shell = try #require(ExternalTools.path(of: "bash"))
        let code = #"source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _threadfold; printf '%s\n' "${COMPREPLY[@]}""#
        let result = try cli.run(["-c", code, "bash", script] + words, in: folder, executable: URL(fileURLWithPath: shell))
        #expect(result.status == 0, "\(result.err)")
        return result.out.split(separator: "\n").map(String.init)
    }

    /// What fish offers for the command line `line`, in `folder`: the words, without descriptions.
    func fish(_ script: String, _ line: String, in folder: URL) throws -> [String] {
        let shell = try #require(ExternalTools.path(of: "fish"), "fish is missing: apt-get install fish (make test does)")
        let result = try cli.run(
            ["-c", "source $argv[1]; complete -C $argv[2]", script, line], in: folder,
            executable: URL(fileURLWithPath: shell))
        #expect(result.status == 0, "\(result.err)")
        return result.out.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
    }

    @Test("a usage error without one known shell")
    func usage() throws {
        for arguments in [["completions"], ["completions", "tcsh"], ["completions", "bash", "zsh"]] {
            let result = try cli.run(arguments)
            #expect(result.status == 64 && result.err.contains("expected one shell: bash, zsh or fish"), "\(arguments): \(result.err)")
        }
    }

    @Test("bash: the script parses, and completes subcommands, each one's options and every value word of the tables")
    func bashCompletes() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try script("bash", in: folder)
        let empty = folder.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let shell = try #require(ExternalTools.path(of: "bash"))
        #expect(try ExternalTools.run(shell, ["-n", file]).status == 0)
        #expect(try bash(file, ["threadfold", ""], in: folder) == CLI.ordered.map(\.name) + ["-h", "--help", "--version"])
        for command in CLI.ordered {
            let options = try bash(file, ["threadfold", command.name, "-"], in: folder)
            #expect(Set(options) == Set(command.allOptions.flatMap(\.spellings)), "\(command.name)")
            // In an empty folder, where an option that may stand bare offers no input files.
            for option in command.allOptions {
                guard case .oneOf(let words) = option.kind else { continue }
                #expect(try bash(file, ["threadfold", command.name, "--" + option.long, ""], in: empty) == words)
                #expect(try bash(file, ["threadfold", command.name, "--" + option.long, "=", ""], in: empty) == words)
            }
        }
    }

    @Test("bash: paths where a path goes, lists after a comma, nothing after --")
    func bashPaths() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try script("bash", in: folder)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("shards"), withIntermediateDirectories: true)
        #expect(try bash(file, ["threadfold", "build", "-o", "s"], in: folder) == ["shards"])
        #expect(try bash(file, ["threadfold", "merge", "s"], in: folder) == ["shards"])
        #expect(try bash(file, ["threadfold", "render", "thr"], in: folder) == ["threadfold.bash"])
        #expect(try bash(file, ["threadfold", "build", "--report", "thr"], in: folder) == ["threadfold.bash"])
        #expect(try bash(file, ["threadfold", "build", "--orders", "top,n"], in: folder) == ["top,newest"])
        #expect(try bash(file, ["threadfold", "build", "--search", "p"], in: folder) == ["pagefind"])
        #expect(try bash(file, ["threadfold", "build", "--title", ""], in: folder).isEmpty)
        #expect(try bash(file, ["threadfold", "build", "--", "-"], in: folder).isEmpty)
        #expect(try bash(file, ["threadfold", "completions", ""], in: folder) == ["bash", "zsh", "fish"])
        #expect(try bash(file, ["threadfold", "help", "m"], in: folder) == ["merge"])
    }

    @Test(
        "fish: the script parses, and completes subcommands, each one's options and every value word of the tables",
        .enabled(if: ExternalTools.canRun("fish")))
    func fishCompletes() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try script("fish", in: folder)
        let empty = folder.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let shell = try #require(ExternalTools.path(of: "fish"))
        #expect(try ExternalTools.run(shell, ["-n", file]).status == 0)
        #expect(Set(try fish(file, "threadfold ", in: folder)) == Set(CLI.ordered.map(\.name)))
        for command in CLI.ordered {
            let options = try fish(file, "threadfold \(command.name) -", in: folder)
            #expect(Set(options) == Set(command.allOptions.flatMap(\.spellings)), "\(command.name)")
            for option in command.allOptions {
                guard case .oneOf(let words) = option.kind else { continue }
                #expect(Set(try fish(file, "threadfold \(command.name) --\(option.long) ", in: empty)) == Set(words))
            }
        }
        #expect(try fish(file, "threadfold build --orders top,n", in: folder) == ["top,newest"])
        #expect(try fish(file, "threadfold completions ", in: folder).sorted() == ["bash", "fish", "zsh"])
    }

    @Test(
        "zsh: the script parses, and each subcommand's function names every option and value word",
        .enabled(if: ExternalTools.canRun("zsh")))
    func zsh() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try script("zsh", in: folder)
        let shell = try #require(ExternalTools.path(of: "zsh"), "zsh is missing: apt-get install zsh (make test does)")
        let parsed = try ExternalTools.run(shell, ["-n", file])
        #expect(parsed.status == 0, "\(parsed.output)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasPrefix("#compdef threadfold\n"))
        for command in CLI.ordered {
            let start = try #require(text.range(of: "_threadfold_\(command.name)() {\n"))
            let end = try #require(text[start.upperBound...].range(of: "\n}\n"))
            let body = text[start.upperBound..<end.lowerBound]
            for option in command.allOptions {
                #expect(body.contains("--\(option.long)"), "\(command.name) --\(option.long)")
                if let short = option.short { #expect(body.contains("-\(short)"), "\(command.name) -\(short)") }
                if case .oneOf(let words) = option.kind { #expect(body.contains("(" + words.joined(separator: " ") + ")")) }
            }
            #expect(text.contains("'\(command.name):"), "the subcommand list names \(command.name)")
        }
    }
}
