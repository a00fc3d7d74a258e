import Foundation
import TestSupport
import Testing
import ThreadfoldKit

@testable import ThreadfoldCLI

/// The CLI end to end: the built `threadfold` binary run as a process, with its stdout,
/// stderr and exit code checked, writing into temporary folders.
@Suite("threadfold command line")
struct CLITests {
    struct Run {
        var status: Int32
        var out: String
        var err: String
    }

    static let binary: URL = {
        // The test bundle sits in the build products folder, beside the binary.
        var url = Bundle.main.bundleURL
        for _ in 0..<3 {
            let candidate = url.appendingPathComponent("threadfold")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            url.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("threadfold")
    }()

    /// Runs the binary (or `executable`, such as a shell around it) with `arguments`.
    func run(
        _ arguments: [String], stdin: String? = nil, in folder: URL? = nil, environment: [String: String] = [:],
        executable: URL? = nil
    ) throws -> Run {
        let process = Process()
        process.executableURL = executable ?? Self.binary
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let folder { process.currentDirectoryURL = folder }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self),
            err: String(decoding: errData, as: UTF8.self))
    }

    @Test(
        "the command line adds the flag that helps to the library's messages",
        arguments: [
            (#"{"comments": [{"body": "no id"}]}"#, [] as [String], "$.comments[0].id: expected an \"id\" (a string or an integer), found none; --lenient skips such comments"),
            (#"{"comments": [{"id": 1}, {"body": "no id"}]}"#, ["--lenient"], "$.comments[1].id: has no id; skipped (--lenient)"),
            (#"{"what": 1}"#, [], ". Name it with --from, or map its fields with --map"),
            (#"{"comments": [{"id": "a"}, {"id": "a"}]}"#, [], "expected unique ids (first used at 1:15 ($.comments[0])) (--allow-duplicates keeps the first)"),
            (
                #"[{"kind": "Listing", "data": {"children": []}}, {"kind": "Listing", "data": {"children": [{"kind": "t1", "data": {"id": 5.5}}]}}]"#, [],
                "found the number 5.5 (read as Reddit (a /comments/<id>.json thread, or dump comments and submissions)); --from picks another form"
            ),
        ])
    func hints(_ json: String, _ flags: [String], _ expected: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try write(json, "t.json", in: folder)
        let result = try run(["check", file] + flags)
        #expect(result.err.contains(expected), "\(result.err)")
    }

    /// A new temporary folder, removed when the tests end.
    func temporaryFolder() throws -> URL { try TemporaryFolders.make("tf-cli") }

    func write(_ text: String, _ name: String, in folder: URL) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func files(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    @Test("--example renders the bundled example and says where it is")
    func demo() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try run(["render", "--example", "-o", "out"], in: folder)
        #expect(result.status == 0)
        #expect(result.out.hasPrefix("Rendered 1 thread (20 comments) into out/\n"))
        #expect(result.out.contains("file://") && result.out.contains("/out/example.html"))
        #expect(result.err.contains("warning: $.comments[15]: is a reply to \"c99\""))
        #expect(files(folder.appendingPathComponent("out")) == [".threadfold", "example.html", "threadfold.css", "threadfold.js"])
    }

    @Test("renders files and standard input; --opt=value and --opt value both work")
    func renderFiles() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = try write(#"[{"id": 1, "body": "a"}]"#, "First Thread.json", in: folder)
        let result = try run(
            ["render", a, "-", "--output=site", "--preview", "1", "--max-depth=2", "--sort", "newest"],
            stdin: #"{"title": "From stdin", "comments": [{"id": "x", "body": "*hi*"}]}"#, in: folder)
        #expect(result.status == 0, "\(result.err)")
        #expect(files(folder.appendingPathComponent("site")).contains("first-thread.html"))
        let page = try String(contentsOf: folder.appendingPathComponent("site/thread.html"), encoding: .utf8)
        #expect(page.contains("<em>hi</em>") && page.contains("From stdin"))
        // Each page's address, as the README shows: standard input's page is thread.html.
        let lines = result.out.split(separator: "\n")
        #expect(lines.first == "Rendered 2 threads (2 comments) into site/", "\(result.out)")
        #expect(lines.dropFirst().map { $0.hasPrefix("  file:///") } == [true, true], "\(result.out)")
        #expect(lines.last?.hasSuffix("/site/thread.html") == true, "\(result.out)")
    }

    @Test("output is byte-identical across runs")
    func deterministic() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try run(["render", "--example", "-o", "one"], in: folder)
        _ = try run(["render", "--example", "-o", "two"], in: folder)
        for name in ["example.html", "threadfold.css", "threadfold.js"] {
            let one = FileManager.default.contents(atPath: folder.appendingPathComponent("one/\(name)").path)
            let two = FileManager.default.contents(atPath: folder.appendingPathComponent("two/\(name)").path)
            #expect(one != nil && one == two)
        }
    }

    @Test("--map-file with --map: the command line wins key by key; --sort input keeps the file's order; a bad mapping file is located")
    func mapFile() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try write(
            #"""
            {"topic": {"name": "Mapped topic"}, "list": [
             {"kind": "c", "n": "c_2", "who": "zed", "said": "second in the file", "at": 1700000200},
             {"kind": "c", "n": "c_1", "who": "amy", "said": "first in time", "at": 1700000100},
             {"kind": "ad", "n": "c_9", "said": "an advert"}]}
            """#, "topic.json", in: folder)
        let map = try write(
            #"{"comments": "$.list", "id": "n", "author": "who", "body": "body", "time": "at", "thread.title": "$.topic.name", "where.kind": "c", "strip": ["c_"]}"#,
            "map.json", in: folder)
        let result = try run(["render", input, "-o", "site", "--map-file", map, "--map", "body=said", "--sort", "input"], in: folder)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.err.contains("1 item left out by where.kind=c"), "\(result.err)")
        let page = try String(contentsOf: folder.appendingPathComponent("site/topic.html"), encoding: .utf8)
        let second = try #require(page.range(of: "second in the file")), first = try #require(page.range(of: "first in time"))
        #expect(page.contains("Mapped topic") && second.lowerBound < first.lowerBound && !page.contains("an advert"))
        let bad = try write(#"{"id": "n", "comments": 5}"#, "bad-map.json", in: folder)
        let refused = try run(["check", input, "--map-file", bad], in: folder)
        #expect(refused.status != 0 && refused.err.contains("bad-map.json:1:25: error: $.comments: expected a member path as a string, found the number 5"), "\(refused.err)")
    }

    @Test("--categories names a Discourse topic's category from the forum's /site.json")
    func categories() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let topic = try write(
            #"{"id": 77, "slug": "s", "title": "Installing on Debian", "category_id": 12, "post_stream": {"posts": [{"post_number": 1, "username": "a", "cooked": "<p>x</p>"}, {"post_number": 2, "username": "b", "cooked": "<p>y</p>"}]}}"#,
            "topic.json", in: folder)
        let site = try write(#"{"categories": [{"id": 5, "name": "Support"}, {"id": 12, "name": "Installing", "parent_category_id": 5}]}"#, "site.json", in: folder)
        let result = try run(["build", topic, "-o", "site", "--sections", "category", "--categories", site], in: folder)
        #expect(result.status == 0, "\(result.err)")
        let index = try String(contentsOf: folder.appendingPathComponent("site/index.html"), encoding: .utf8)
        #expect(index.contains("Support / Installing") && !index.contains("Category 12"))
        let bad = try write(#"{"users": []}"#, "users.json", in: folder)
        let refused = try run(["build", topic, "-o", "site2", "--categories", bad], in: folder)
        #expect(refused.status != 0 && refused.err.contains("users.json:1:1: error: $: expected category_list.categories"), "\(refused.err)")
    }

    @Test("input errors: located message, exit 1, and the earlier output untouched")
    func inputErrors() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try run(["render", "--example", "-o", "site"], in: folder).status == 0)
        let before = files(folder.appendingPathComponent("site"))
        let bad = try write("{\"comments\": [\n  {\"id\": 1},\n  {\"id\": 2, \"parent_id\": [1]}\n]}", "bad.json", in: folder)
        let result = try run(["render", bad, "-o", "site"], in: folder)
        #expect(result.status == 1)
        #expect(result.err.contains("bad.json:3:26: error: $.comments[1].parent_id: expected a string, an integer or null, found an array"))
        #expect(result.err.contains("nothing was written"))
        #expect(!result.err.contains("Fatal") && !result.err.contains("Stack"))
        #expect(files(folder.appendingPathComponent("site")) == before)
    }

    @Test("a missing file and a folder are clear errors")
    func missingFile() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = try run(["render", "nope.json", "-o", "site"], in: folder)
        #expect(missing.status == 1)
        #expect(missing.err.hasPrefix("nope.json: error: no such file"))
        let dir = try run(["check", folder.path])
        #expect(dir.status == 1 && dir.err.contains("is a folder"))
    }

    @Test("devices are refused with a message; pipes (process substitution, FIFOs) are read as streams")
    func specialFiles() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for arguments in [["build", "/dev/zero", "-o", "site"], ["render", "/dev/urandom", "-o", "site"], ["check", "/dev/zero"]] {
            let refused = try run(arguments, in: folder)
            #expect(refused.status == 1, "\(arguments)")
            #expect(refused.err.hasPrefix("\(arguments[1]): error: is a character device; expected a regular file, a pipe or '-'\n"), "\(refused.err)")
        }
        _ = try write(#"{"comments": [{"id": "a", "body": "hi"}, {"id": "b", "parent_id": "a", "body": "yo"}]}"#, "t.json", in: folder)
        // `<(cat t.json)` is /dev/fd/N, a pipe: bash runs the binary as a shell would.
        for command in ["check <(cat t.json)", "render <(cat t.json) -o site", "build <(cat t.json) -o archive"] {
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: "/bin/bash")
            shell.arguments = ["-c", "\"$0\" \(command)", Self.binary.path]
            shell.currentDirectoryURL = folder
            let err = Pipe()
            shell.standardError = err
            shell.standardOutput = FileHandle.nullDevice
            try shell.run()
            let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            shell.waitUntilExit()
            #expect(shell.terminationStatus == 0, "\(command): \(message)")
        }
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("archive/index.html").path))
    }

    @Test("file names and input strings in messages cannot drive the terminal: controls are escaped")
    func escapedMessages() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let name = "evil\u{1B}]0;owned\u{07}\u{202E}.json"
        _ = try write(#"{"comments": [{"id": "a\u001b[31m", "parent_id": [1]}]}"#, name, in: folder)
        for arguments in [
            ["check", name], ["render", name, "-o", "site"], ["build", name, "-o", "site"], ["build", ".", "-o", "site"],
            ["check", "missing\u{1B}[2J.json"], ["render", "--sort", "x\u{1B}[2J"],
        ] {
            let result = try run(arguments, in: folder)
            #expect(result.status != 0, "\(arguments)")
            #expect(!result.err.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{202E}" }, "\(arguments): \(result.err)")
            #expect(result.err.contains(#"\x1B"#), "\(arguments): \(result.err)")
        }
        let check = try run(["check", name], in: folder)
        #expect(check.err.hasPrefix(#"evil\x1B]0;owned\x07\u{202E}.json:1:"#), "\(check.err)")
        // One message a line, still.
        #expect(check.err.split(separator: "\n").count == 1, "\(check.err)")
    }

    @Test(
        "usage errors exit 64 with the usage line",
        arguments: [
            ["render", "--preview", "many"], ["render", "--max-depth", "0"], ["render", "--sort=random"],
            ["render", "--bogus"], ["render", "-o"], ["frobnicate"], ["check"], ["render", "--smart=yes"],
            ["render", "-", "-"], ["render", "--hard-breaks", "--no-hard-breaks"], ["render", "--locale", "xx"],
            ["render", "--from", "myspace"], ["check", "x.json", "--body-format=rtf"], ["render", "--example", "x.json"],
        ])
    func usageErrors(_ arguments: [String]) throws {
        let result = try run(arguments)
        #expect(result.status == 64)
        #expect(result.err.hasPrefix("Error: "))
        #expect(result.err.contains("\nUsage: threadfold"))
        #expect(result.out.isEmpty)
    }

    @Test("a usage error points to its own subcommand's help; an unknown subcommand to the overview")
    func usageErrorsPointToHelp() throws {
        for command in CLI.ordered {
            let result = try run([command.name, "--bogus"])
            #expect(result.status == 64)
            #expect(result.err.hasSuffix("\n  See 'threadfold help \(command.name)' for more.\n"), "\(command.name): \(result.err)")
        }
        for arguments in [["help", "build", "--bogus"], ["help", "build", "--man"]] {
            #expect(try run(arguments).err.hasSuffix("See 'threadfold help help' for more.\n"), "\(arguments)")
        }
        for arguments in [["help", "nothing"], ["help", "build", "check"], ["frobnicate"]] {
            let result = try run(arguments)
            #expect(result.status == 64)
            #expect(result.err.hasSuffix("\n  See 'threadfold help' for more.\n"), "\(arguments): \(result.err)")
        }
    }

    @Test("--map's help lists every key FieldMapping takes, and FieldMapping takes every key the help lists")
    func mapHelpKeys() throws {
        let spec = try #require(SharedOptions.thread.first { $0.long == "map" })
        let help = spec.help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(try run(["help", "render"]).out.contains(spec.help.split(separator: "\n")[0]))
        // Keys shown as key=value, and the lists of comment keys and thread keys.
        var listed = Set(
            help.split(separator: " ").compactMap { word -> String? in
                guard let equals = word.firstIndex(of: "=") else { return nil }
                return word[..<equals].split(separator: ",").last.map(String.init)
            })
        let commentKeys = try #require(help.range(of: "(comment keys: ")).upperBound
        listed.formUnion(help[commentKeys...].prefix { $0 != ";" }.split(separator: " ").map(String.init))
        let threadKeys = try #require(help.range(of: "thread.title=$.title (")).upperBound
        listed.formUnion(help[threadKeys...].prefix { $0 != ")" }.split(separator: " ").map(String.init))
        listed = Set(listed.map { $0.hasPrefix("where.") ? "where.<path>" : $0 })
        #expect(listed == Set(FieldMapping.keys))
        #expect(FieldMapping.keys.contains("removed") && FieldMapping.keys.contains("path"))
        for key in FieldMapping.keys where key != "id" {
            let value = key == "format" ? "html" : "x"
            #expect(throws: Never.self, "\(key)") { try FieldMapping.parse("id=a,\(key.replacingOccurrences(of: "<path>", with: "kind"))=\(value)") }
        }
    }

    @Test("--help, -h, help, --version")
    func help() throws {
        let overview = try run(["--help"])
        #expect(overview.status == 0 && overview.out.hasPrefix("OVERVIEW: ") && overview.out.contains("SUBCOMMANDS:"))
        let render = try run(["render", "-h"])
        #expect(render.status == 0 && render.out.contains("USAGE: threadfold render") && render.out.contains("--max-depth <d>"))
        #expect(try run(["help", "check"]).out.contains("USAGE: threadfold check"))
        #expect(try run(["help", "completions"]).out.contains("USAGE: threadfold completions <shell>"))
        for command in CLI.ordered {
            #expect(overview.out.contains("\n  \(command.name) ") || overview.out.contains("\n  \(command.name)\n"), "the overview lists \(command.name)")
        }
        let unknown = try run(["help", "nothing"])
        #expect(unknown.status == 64 && unknown.err.contains("unknown subcommand 'nothing'"))
    }

    @Test("--version: the version on the first line, then the commit and the C libraries' versions")
    func version() throws {
        let result = try run(["--version"])
        let lines = result.out.split(separator: "\n").map(String.init)
        #expect(result.status == 0 && lines.count == 3, "\(result.out)")
        #expect(lines.first == "threadfold \(Threadfold.version)")
        // Built from this checkout: its commit (with -dirty for local changes), or unknown without .git.
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let commit = try #require(lines.dropFirst().first?.split(separator: " ").last)
        if FileManager.default.fileExists(atPath: repository.appendingPathComponent(".git").path) {
            #expect(lines[1].hasPrefix("commit: ") && commit.prefix(40).allSatisfy(\.isHexDigit) && commit.count >= 40, "\(lines[1])")
        } else {
            #expect(lines[1] == "commit: unknown")
        }
        let versions = try ExternalTools.run("/usr/bin/env", ["pkg-config", "--modversion", "libcmark", "gumbo", "libzstd"])
        let installed = versions.output.split(separator: "\n")
        try #require(versions.status == 0 && installed.count == 3, "\(versions.output)")
        #expect(lines.last == "built with: cmark \(installed[0]), gumbo \(installed[1]), zstd \(installed[2])")
        #expect(try run(["version"]).out == result.out)
    }

    @Test("check reports counts and problems with places; exit 0, or 1 on errors")
    func check() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = try write(#"[{"id": "a", "author": "x"}, {"id": "b", "parent_id": "gone"}, {"id": "c", "parent_id": "c"}]"#, "good.json", in: folder)
        let result = try run(["check", good])
        #expect(result.status == 0)
        #expect(
            result.out == "\(good): ok: 3 comments, 1 person, 1 level; 1 orphan, 1 cycle broken, 0 duplicates, 0 deleted comments left out\n"
                + "\(good): read as a Threadfold thread: 0 of 3 comments with a body, 1 with an author, 0 with a time\n")
        #expect(result.err.contains("$[1]: is a reply to \"gone\""))
        let dup = try write(#"[{"id": "a"}, {"id": "a"}]"#, "dup.json", in: folder)
        let failed = try run(["check", dup])
        #expect(failed.status == 1)
        #expect(failed.err.contains("dup.json:1:15: error: $[1].id: found the id \"a\" again; expected unique ids (first used at 1:2 ($[0])) (--allow-duplicates keeps the first)"))
        #expect(try run(["check", dup, "--allow-duplicates"]).status == 0)
    }

    @Test("real exports are recognised and say so; --from forces a form")
    func importers() throws {
        let reddit = TestData.url("fixtures/reddit-listing/comments.json").path
        let discourse = TestData.url("fixtures/discourse-topic/topic.json").path
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try run(["render", reddit, discourse, "-o", "site"], in: folder)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.err.contains("comments.json: note: read as Reddit (a /comments/<id>.json thread"))
        #expect(result.err.contains("topic.json: note: read as a Discourse topic"))
        #expect(result.out.contains("Rendered 2 threads (28 comments)"))
        let forced = try run(["check", reddit, "--from", "discourse"])
        #expect(forced.status == 1)
        #expect(forced.err.contains("read as a Discourse topic"))
        // Small-action posts are notices: named by check, counted in no comment count, and warned of by nobody.
        let actions = TestData.url("fixtures/discourse-small-actions/topic.json").path
        let checked = try run(["check", actions])
        #expect(checked.status == 0 && !checked.err.contains("warning"), "\(checked.err)")
        #expect(checked.out.hasPrefix("\(actions): ok: 3 comments, 3 people, 1 level;"))
        #expect(checked.out.contains(": 3 of 3 comments with a body, 3 with an author, 3 with a time; and 5 notices, which are not comments\n"))
        let built = try run(["build", actions, "-o", "site"], in: folder)
        #expect(built.status == 0 && built.out.hasPrefix("Built 1 thread (3 comments)"), "\(built.out)\(built.err)")
    }

    @Test("an all-private Mastodon context has nothing to show: render writes no page and fails, check warns")
    func emptyThread() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let statuses = (1...2).map { n -> String in
            let parent = n == 1 ? "null" : #""1""#
            return
                #"{"id": "\#(n)", "account": {"acct": "u\#(n)", "url": "https://social.example/@u\#(n)"}, "content": "<p>only for followers \#(n)</p>", "in_reply_to_id": \#(parent), "visibility": "private", "created_at": "2024-01-01T00:00:0\#(n)Z"}"#
        }
        let input = try write("[" + statuses.joined(separator: ", ") + "]", "private.json", in: folder)
        let render = try run(["render", input, "-o", "site"], in: folder)
        #expect(render.status == 1, "\(render.err)")
        #expect(render.err.contains("private.json:1:1: error: $: the thread"), "\(render.err)")
        #expect(render.err.contains("expected a thread with something to show (nothing was written)"), "\(render.err)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("site").path))
        let check = try run(["check", input])
        #expect(check.status == 0 && check.err.contains("warning: $: the thread"), "\(check.err)")
        #expect(try run(["check", "--strict", input]).status == 2)
    }

    @Test("Lemmy, Mastodon and GitHub exports are recognised by themselves: check names the form, render renders them")
    func newForms() throws {
        let files = ["fixtures/lemmy-post/post.json", "fixtures/mastodon-context/context.json", "fixtures/github-issue/issue.json"].map { TestData.url($0).path }
        let check = try run(["check"] + files)
        #expect(check.status == 0, "\(check.err)")
        #expect(check.out.contains("post.json: read as a Lemmy post and its comments (/api/v3/post, /api/v3/comment/list): 6 of 8 comments with a body"))
        #expect(check.out.contains("context.json: read as a Mastodon status and its context (/api/v1/statuses/:id/context): 4 of 4 comments"))
        #expect(check.out.contains("issue.json: read as GitHub issue or pull request comments (/repos/<owner>/<repo>/issues/<n>/comments): 5 of 5 comments"))
        #expect(check.err.contains("context.json:239:7: warning: $.context.descendants[1].visibility: is a direct message; left out"))
        // Comments the export counts but lacks: a located note each, which --strict=notArchived can fail on.
        #expect(
            check.err.contains(
                ": note: $.issue.comments: 1 of 6 comments is not in this export; page through /repos/threadfold-example/forum-archive/issues/128/comments?per_page=100&page=1, 2, … for the rest"))
        #expect(check.err.contains(": note: $.post_view.counts.comments: 3 of 11 comments are not in this export"))
        #expect(try run(["check", "--strict=notArchived", files[2]]).status == 2)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try run(["render"] + files + ["-o", "site"], in: folder)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.err.contains("post.json: note: read as a Lemmy post and its comments (/api/v3/post, /api/v3/comment/list); --from lemmy says so explicitly"))
        #expect(result.err.contains("--from mastodon says so explicitly") && result.err.contains("--from github says so explicitly"))
        #expect(result.out.contains("Rendered 3 threads (16 comments)"))
        let page = try String(contentsOf: folder.appendingPathComponent("site/context.html"), encoding: .utf8)
        #expect(page.contains("<bdi class=\"tf-author\" itemprop=\"name\">cho@hachyderm.io</bdi>"))
        let help = try run(["help", "render"])
        #expect(help.out.contains("Input form: auto, reddit, hn, discourse, lobsters, lemmy,\n") && help.out.contains("mastodon, github, disqus or threadfold"))
        let wrong = try run(["check", files[0], "--from", "myspace"])
        #expect(wrong.status == 64 && wrong.err.contains("'--from' must be auto, reddit, hn, discourse, lobsters, lemmy, mastodon, github, disqus or threadfold; found 'myspace'"))
    }

    @Test("templates and assets can be overridden from folders")
    func overrides() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let templates = folder.appendingPathComponent("tpl")
        let assets = folder.appendingPathComponent("pub")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: assets, withIntermediateDirectories: true)
        _ = try write("<p>{{title}}: {{#comments}}[{{author}}]{{/comments}}</p>\n", "tpl/page.mustache", in: folder)
        _ = try write("body{}", "pub/threadfold.css", in: folder)
        let result = try run(["render", "--example", "--templates", templates.path, "--assets", assets.path, "-o", "site"], in: folder)
        #expect(result.status == 0, "\(result.err)")
        let page = try String(contentsOf: folder.appendingPathComponent("site/example.html"), encoding: .utf8)
        #expect(page.hasPrefix("<p>How do you keep forum archives readable after the forum shuts down?: [marguerite]"))
        #expect(try String(contentsOf: folder.appendingPathComponent("site/threadfold.css"), encoding: .utf8) == "body{}")
        _ = try write("{{#comments}}\n", "tpl/page.mustache", in: folder)
        let broken = try run(["render", "--example", "--templates", templates.path, "-o", "site"], in: folder)
        #expect(broken.status == 1)
        #expect(broken.err.contains("tpl/page.mustache:1:1: error: section 'comments' is never closed"))
    }

    @Test("an output folder holding someone else's files is refused")
    func foreignOutput() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try write("mine", "notes.txt", in: folder)
        let result = try run(["render", "--example", "-o", folder.path])
        #expect(result.status == 1)
        #expect(result.err.contains("holds files Threadfold did not write"))
    }
    @Test("check sums up a dump in two lines, its warnings in the file's order; --all lists each thread, then the sum")
    func checkDump() throws {
        let dump = TestData.url("dumps/RC_sample.zst").path
        let result = try run(["check", dump])
        #expect(result.status == 0, "\(result.err)")
        let lines = result.out.split(separator: "\n")
        #expect(lines.count == 2, "\(result.out)")
        #expect(lines[0].hasPrefix("\(dump): ok: 12 threads, ") && lines[0].hasSuffix("left out (--all lists each thread)"))
        #expect(lines[1].hasPrefix("\(dump): read as a Reddit dump (comments with link_id, or submissions): "))
        let warned = result.err.split(separator: "\n").compactMap { line -> Int? in
            guard line.hasPrefix(dump + ":"), line.contains(": warning: ") || line.contains(": note: ") else { return nil }
            return Int(line.dropFirst(dump.count + 1).prefix { $0 != ":" })
        }
        #expect(!warned.isEmpty && warned == warned.sorted())
        let all = try run(["check", "--all", dump])
        #expect(all.out.split(separator: "\n").count == 26)
        let submissions = try run(["check", TestData.url("dumps/RS_sample.jsonl").path])
        #expect(submissions.out.contains("ok: 12 threads, 0 comments"), "\(submissions.out)")
    }
}

@Suite("Page names")
struct PageNamesTests {
    @Test("names are safe, unique and never reserved")
    func names() {
        var names = PageNames()
        #expect(names.claim("My Thread!") == "my-thread.html")
        #expect(names.claim("my thread") == "my-thread-2.html")
        #expect(names.claim("../../etc/passwd") == "etc-passwd.html")
        #expect(names.claim("日本語") == "thread.html")
        #expect(names.claim("CON") == "con-thread.html")
        #expect(names.claim("index") == "index-thread.html")
        #expect(names.claim(String(repeating: "a", count: 300)).count == 60 + 5)
    }

    @Test(
        "a usual file name is read without URL, and gives the base URL gives",
        arguments: [
            "thread.json", "/tmp/a/thread-00001.json", "RC_2024-01.jsonl.zst", "x.JSON.GZ", "a.b.c.json", "dir/My Thread!.json",
            "日本語.json", "a.json/", "archive.zst", ".hidden.json", "noext", "a.", "a.j son", "a.jsön", "./x.json", "../t.json.gz",
        ])
    func plainBase(_ path: String) {
        var url = URL(fileURLWithPath: path)
        if Compression.fileExtensions.contains(url.pathExtension.lowercased()) { url = url.deletingPathExtension() }
        let expected = url.deletingPathExtension().lastPathComponent
        #expect(pageBase(path) == expected)
        if let plain = plainPageBase(path) { #expect(plain == expected) }
        if ["thread.json", "/tmp/a/thread-00001.json", "RC_2024-01.jsonl.zst", "x.JSON.GZ"].contains(path) {
            #expect(plainPageBase(path) != nil, "read without URL")
        }
    }

    @Test(
        "errors folded into ThreadfoldError keep their exit codes: a bad option's value 64, an input or output error 1",
        arguments: [
            (["render", "IN", "--map", "id", "-o", "OUT"], CLI.ExitCode.usage, "'--map': found 'id'; expected key=path"),
            (["render", "IN", "--locale", "xx-nowhere", "-o", "OUT"], CLI.ExitCode.usage, "no locale 'xx-nowhere'"),
            (["build", "IN", "-o", "FOREIGN"], CLI.ExitCode.failure, "FOREIGN"),
            (["render", "BROKEN", "-o", "OUT"], CLI.ExitCode.failure, "broken.json:1:"),
        ])
    func foldedErrors(arguments: [String], code: Int32, message: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tf-errors-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let foreign = folder.appendingPathComponent("foreign")
        try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: foreign.appendingPathComponent("notes.txt"))
        let input = folder.appendingPathComponent("thread.json"), broken = folder.appendingPathComponent("broken.json")
        try Data(#"{"comments": [{"id": 1, "body": "hi"}]}"#.utf8).write(to: input)
        try Data(#"{"comments": [{"id": 1, "parent_id": [2]}]}"#.utf8).write(to: broken)
        let places = ["IN": input.path, "BROKEN": broken.path, "OUT": folder.appendingPathComponent("out").path, "FOREIGN": foreign.path]
        let result = try CLITests().run(arguments.map { places[$0] ?? $0 })
        #expect(result.status == code, "\(result.err)")
        #expect(result.err.contains(message.replacingOccurrences(of: "FOREIGN", with: foreign.path)), "\(result.err)")
    }
}
