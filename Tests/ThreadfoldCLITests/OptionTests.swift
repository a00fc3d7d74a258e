import Foundation
import TestSupport
import Testing
import ThreadfoldKit

@testable import ThreadfoldCLI

/// Typed options (`Option`, `Flag`, `Repeatable`): one helper per kind of value, each option
/// declared once in a table, and read by its declaration.
@Suite("Typed options")
struct OptionTests {
    let cli = CLITests()

    /// The usage error's message `option` gives for `text`; nil when it takes the text.
    static func message<Value>(_ option: Option<Value>, _ text: String) -> String? {
        do { _ = try option.parse(text) } catch { return error.message }
        return nil
    }

    /// What a choice option says of a word it does not take, and whether it reads each of its
    /// cases back as that case; nil when it reads them all.
    static func choiceProblem<Value: CaseIterable & RawRepresentable<String> & Equatable>(_ option: Option<Value>) -> String? {
        let names = Value.allCases.map(\.rawValue)
        guard option.spec.kind == .oneOf(names) else { return "offers \(option.spec.kind), not \(names)" }
        for choice in Value.allCases where (try? option.parse(choice.rawValue)) != choice { return "misreads \(choice.rawValue)" }
        let expected = "'--\(option.spec.long)' must be \(listed(names)); found 'nope'"
        do {
            _ = try option.parse("nope")
            return "took 'nope'"
        } catch {
            return error.message == expected ? nil : "said \(error.message), not \(expected)"
        }
    }

    @Test("every enum choice takes its cases and refuses another word in one message listing allCases in order")
    func choices() throws {
        let problems: [String: String?] = [
            "--from": nil,  // checked below: its cases are SourceFormat.named
            "--body-format": Self.choiceProblem(SharedOptions.bodyFormat),
            "--sort": Self.choiceProblem(SharedOptions.sort),
            "--reply-sort": Self.choiceProblem(SharedOptions.replySort),
            "--markdown": Self.choiceProblem(SharedOptions.markdown),
            "--sections": Self.choiceProblem(BuildCommand.sections),
            "--layout": Self.choiceProblem(BuildCommand.layout),
            "--search": Self.choiceProblem(BuildCommand.search),
            "--progress": Self.choiceProblem(ProgressBar.option),
        ]
        for (name, problem) in problems { #expect(problem == nil, "\(name): \(problem ?? "")") }
        #expect(BuildCommand.sections.spec.kind == .cases(of: ArchiveOptions.Sections.self))
        #expect(Self.message(BuildCommand.sections, "x") == "'--sections' must be none, category or month; found 'x'")
        let forms = SourceFormat.named.map(\.rawValue)
        #expect(SharedOptions.from.spec.kind == .oneOf(forms))
        #expect(Self.message(SharedOptions.from, "mapped") == "'--from' must be \(listed(forms)); found 'mapped'")
        #expect(try SharedOptions.from.parse("hn") == SourceFormat(rawValue: "hn"))
    }

    @Test("a bare choice stands alone as its bare case and takes only its cases after it")
    func bareChoice() throws {
        let spec = BuildCommand.search.spec
        #expect(spec.bare?.value == "titles" && spec.bare?.choices == ArchiveOptions.Search.allCases.map(\.rawValue))
        let bare = try parseArguments(["--search", "in.json"], specs: BuildCommand.command.options)
        #expect(try bare[BuildCommand.search] == .titles && bare.positionals == ["in.json"])
        #expect(try parseArguments(["--search", "none"], specs: BuildCommand.command.options)[BuildCommand.search] == ArchiveOptions.Search.none)
    }

    @Test("a list of choices: in order, each once, and one message for a word it does not take")
    func listOfChoices() throws {
        #expect(BuildCommand.orders.spec.kind == .listOf(CommentOrder.allCases.map(\.rawValue)))
        #expect(try BuildCommand.orders.parse("top, oldest") == [.top, .oldest])
        #expect(
            Self.message(BuildCommand.orders, "oldest,best")
                == "'--orders' takes a list of oldest, newest, top and input, like oldest,newest,top; found 'best'")
        #expect(Self.message(BuildCommand.orders, "top,top") == "'--orders' names 'top' twice")
    }

    @Test("numbers, sizes and durations within their bounds")
    func bounded() throws {
        #expect(try BuildCommand.perPage.parse("100000") == 100_000)
        #expect(Self.message(BuildCommand.perPage, "0") == "'--per-page' must be a whole number from 1 to 100000; found '0'")
        #expect(Self.message(SharedOptions.preview, "-1") == "'--preview' must be a whole number 0 or more; found '-1'")
        #expect(try SharedOptions.maxWindow.parse("1K") == 1024 && SharedOptions.maxDecompressed.parse("256MiB") == 256 << 20)
        #expect(
            Self.message(SharedOptions.maxWindow, "100")
                == "'--max-window' must be a size from 1024 bytes to 2 GiB, as bytes or with KiB, MiB or GiB (e.g. 256MiB); found '100'")
        #expect(try BuildCommand.searchTimeout.parse("10m") == 600 && BuildCommand.searchTimeout.parse("90") == 90)
        #expect(
            Self.message(BuildCommand.searchTimeout, "8d")
                == "'--search-timeout' must be a duration above 0 and at most a week: seconds, or a number with s, m or h, like 90s or 10m; found '8d'")
    }

    @Test("flags, values and repeated values are read by their declarations")
    func typedReads() throws {
        let parsed = try parseArguments(
            ["-q", "--per-page=7", "--exclude", "*.bak", "--exclude", "drafts/", "--sort", "top", "x.json"],
            specs: BuildCommand.command.options)
        #expect(parsed[SharedOptions.quiet] && !parsed[BuildCommand.authors])
        #expect(try parsed[BuildCommand.perPage] == 7 && parsed[BuildCommand.title] == nil)
        #expect(try parsed[SharedOptions.sort] == .top && parsed.given(SharedOptions.sort) == "top")
        #expect(try parsed[SharedOptions.exclude].count == 2)
        let bad = try parseArguments(["--exclude", "//"], specs: BuildCommand.command.options)
        #expect(throws: ThreadfoldError.self) { try bad[SharedOptions.exclude] }
        do { _ = try SharedOptions.exclude.parse("//") } catch {
            #expect(error.message == "'--exclude' must be a glob naming files or folders, like *.bak or drafts/; found '//'")
        }
    }

    @Test("each command's table names every option once: no long name or short letter twice")
    func declaredOnce() {
        for command in CLI.ordered {
            var longs: Set<String> = []
            var shorts: Set<Character> = []
            for spec in command.allOptions {
                #expect(longs.insert(spec.long).inserted, "\(command.name): --\(spec.long) twice")
                if let short = spec.short { #expect(shorts.insert(short).inserted, "\(command.name): -\(short) twice") }
            }
        }
    }

    @Test("an option named alike in two commands is one option: the same short letter, value, kind and bare value")
    func sameEverywhere() {
        var first: [String: (command: String, spec: OptionSpec)] = [:]
        for command in CLI.ordered {
            for spec in command.allOptions {
                guard let (name, seen) = first[spec.long] else {
                    first[spec.long] = (command.name, spec)
                    continue
                }
                let same =
                    seen.short == spec.short && seen.value == spec.value && seen.kind == spec.kind
                    && seen.repeatable == spec.repeatable && seen.bare?.value == spec.bare?.value && seen.bare?.choices == spec.bare?.choices
                #expect(same, "--\(spec.long) differs between \(name) and \(command.name)")
            }
        }
    }

    @Test("a choice's message is the same through the command line, and a config file's value is told by its place")
    func endToEnd() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try cli.run(["build", "x.json", "--layout", "tree"], in: folder)
        #expect(run.status == 64 && run.err.hasPrefix("Error: '--layout' must be nested, flat or auto; found 'tree'\n"), "\(run.err)")
        _ = try cli.write(#"{"layout": "tree"}"#, "threadfold.json", in: folder)
        let fromFile = try cli.run(["build", "x.json"], in: folder)
        #expect(fromFile.status == 64 && fromFile.err.hasPrefix("Error: threadfold.json:1:12: '--layout' must be nested, flat or auto; found 'tree'\n"), "\(fromFile.err)")
    }

    @Test("commands name no option by a string: they read typed declarations")
    func noStringKeys() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/ThreadfoldCLI")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(names.contains("BuildCommand.swift"))
        // The parser and the config file keep the long name as the storage key; nothing else reads it.
        let pattern = try Regex(#"parsed\.(value|has|all)\("|parsed\.(values|flags|repeated)\[""#)
        for name in names where name != "Arguments.swift" && name != "ConfigFile.swift" {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            #expect(!text.contains(pattern), "\(name) reads an option by its name")
        }
    }
}
