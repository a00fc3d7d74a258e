import Foundation
import TestSupport
import Testing

@testable import ThreadfoldCLI

/// `threadfold help --man`: threadfold(1), with a part per subcommand holding every option of its
/// table, which groff reads without a warning.
@Suite("Manual page")
struct ManPageTests {
    let cli = CLITests()

    @Test("a part per subcommand, in order, naming every option of its table")
    func everyOption() throws {
        let result = try cli.run(["help", "--man"])
        #expect(result.status == 0 && result.err.isEmpty, "\(result.err)")
        #expect(result.out.contains(".TH THREADFOLD 1 "))
        let parts = result.out.components(separatedBy: "\n.SS ").dropFirst()
        #expect(parts.count == CLI.ordered.count)
        for (part, command) in zip(parts, CLI.ordered) {
            #expect(part.hasPrefix("\"threadfold \(command.name)"), "\(part.prefix(60))")
            for option in command.allOptions {
                let long = "\\fB" + ("--" + option.long).replacingOccurrences(of: "-", with: "\\-") + "\\fR"
                #expect(part.contains(".TP\n" + (option.short.map { "\\fB\\-\($0)\\fR, " } ?? "") + long), "\(command.name) --\(option.long)")
            }
        }
    }

    @Test("roff escapes: backslashes, a leading dot, characters past ASCII")
    func escapes() {
        #expect(ManPage.lines("a \\ b\n.c\n'd\n  e — f") == "a \\e b\n\\&.c\n\\&'d\n.br\ne \\[u2014] f\n")
        #expect(ManPage.lines("--x and -y") == "\\-\\-x and -y\n")
    }

    @Test("groff formats it without a warning", .enabled(if: ExternalTools.canRun("groff")))
    func groff() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = try cli.write(try cli.run(["help", "--man"]).out, "threadfold.1", in: folder)
        let groff = try #require(ExternalTools.path(of: "groff"), "groff is missing: apt-get install groff-base (make test does)")
        let result = try ExternalTools.run(groff, ["-man", "-Tutf8", "-ww", "-z", page])
        #expect(result.status == 0 && result.output.isEmpty, "\(result.output)")
        let text = try ExternalTools.run(groff, ["-man", "-Tascii", "-P", "-cbou", page])
        #expect(text.output.contains("threadfold completions <shell>") && text.output.contains("--max-decompressed"))
    }

    @Test("--man takes no subcommand")
    func usage() throws {
        let result = try cli.run(["help", "--man", "build"])
        #expect(result.status == 64 && result.err.contains("'--man' prints the whole manual"), "\(result.err)")
    }
}
