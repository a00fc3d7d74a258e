import Foundation
import TestSupport
import Testing
import ThreadfoldKit

@testable import ThreadfoldCLI

#if canImport(Glibc)
    import Glibc
#endif

/// What a build script relies on: exit codes, reports, and a quiet terminal.
@Suite("threadfold in build scripts")
struct ScriptTests {
    let cli = CLITests()

    @Test("scripts: a site another build holds exits 75 and says to run again; the report lists the lock with its kind")
    func lockedExits75() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try cli.write(BuildCommandTests().thread("t1"), "t1.json", in: folder)
        #expect(try cli.run(["build", "-q", "--no-fsync", "-o", "site", input], in: folder).status == 0)
        // Another build: it holds the lock on the site's marker.
        let marker = open(folder.appendingPathComponent("site/.threadfold").path, O_RDONLY)
        #expect(marker >= 0 && flock(marker, LOCK_EX | LOCK_NB) == 0)
        defer { close(marker) }
        let blocked = try cli.run(["build", "--no-fsync", "-o", "site", input, "--report", "r.json"], in: folder)
        #expect(blocked.status == 75, "\(blocked.err)")
        #expect(blocked.err.contains("Another build is writing it: run this one again when that one has finished."), "\(blocked.err)")
        let report = String(decoding: try Data(contentsOf: folder.appendingPathComponent("r.json")), as: UTF8.self)
        #expect(report.contains("\"exit\": 75") && report.contains("\"kind\": \"locked\"") && report.contains("\"severity\": \"error\""), "\(report)")
        // Broken input is still exit 1, lock or not: the input is what to fix.
        let broken = try cli.write("{", "broken.json", in: folder)
        #expect(try cli.run(["build", "-q", "--no-fsync", "-o", "site", broken], in: folder).status == 1)
    }

    @Test("scripts: 'cp docs/examples/*.json .; threadfold build . -o public' twice: exit 0 both times, the same site, the site's own files never read")
    func buildsIntoItsOwnFolder() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let examples = TestData.folder.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/examples")
        let names = try FileManager.default.contentsOfDirectory(atPath: examples.path).filter { $0.hasSuffix(".json") }
        #expect(names.count >= 2)
        for name in names {
            try FileManager.default.copyItem(at: examples.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        func site() throws -> [String: Data] {
            let public_ = folder.appendingPathComponent("public")
            let files = try #require(FileManager.default.subpathsOfDirectory(atPath: public_.path) as [String]?)
            var contents: [String: Data] = [:]
            // The manifest records each file's stamp (inode, mtime), which a new build changes.
            for path in files where !path.hasPrefix(".threadfold-manifest") {
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: public_.appendingPathComponent(path).path, isDirectory: &isFolder), !isFolder.boolValue {
                    contents[path] = try Data(contentsOf: public_.appendingPathComponent(path))
                }
            }
            return contents
        }
        let first = try cli.run(["build", ".", "-o", "public"], in: folder)
        #expect(first.status == 0, "\(first.err)")
        let built = try site()
        #expect(built.keys.contains { $0.hasSuffix("/thread.json") })
        let second = try cli.run(["build", ".", "-o", "public"], in: folder)
        #expect(second.status == 0, "\(second.err)")
        #expect(second.out.contains("Built \(names.count) threads"), "\(second.out)")
        #expect(try site() == built)
        // Named as an input, a site is refused by name rather than read.
        let named = try cli.run(["build", "public", "-o", "other"], in: folder)
        #expect(named.status == 1)
        #expect(named.err.contains("public: error: is a folder Threadfold wrote (it holds .threadfold); expected a folder of inputs"), "\(named.err)")
    }

    @Test("scripts: --exclude is repeatable and checked; the help, man page and completions say so")
    func excludeOption() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for id in ["a", "b", "c"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("in/\(id)"), withIntermediateDirectories: true)
            _ = try cli.write(BuildCommandTests().thread(id), "in/\(id)/\(id).json", in: folder)
        }
        let run = try cli.run(["build", "-q", "--no-fsync", "in", "-o", "site", "--exclude", "b", "--exclude=c/*.json"], in: folder)
        #expect(run.status == 0, "\(run.err)")
        let threads = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("site/t").path)
        #expect(threads.count == 1 && threads[0].hasSuffix("-a"), "\(threads)")
        let empty = try cli.run(["build", "in", "-o", "site", "--exclude", "//"], in: folder)
        #expect(empty.status == 64)
        #expect(empty.err.contains("Error: '--exclude' must be a glob naming files or folders, like *.bak or drafts/; found '//'"), "\(empty.err)")
        #expect(try cli.run(["help", "build"]).out.contains("--exclude <glob> ..."))
        #expect(try cli.run(["help", "preview"]).out.contains("--exclude <glob> ..."))
        #expect(try cli.run(["completions", "zsh"]).out.contains("'*--exclude=["))
        #expect(try cli.run(["help", "--man"]).out.contains("\\fB\\-\\-exclude\\fR \\fIglob\\fR ..."))
    }

    @Test("scripts: a failed build or merge says the output was not made when it did not exist, and is as it was when it did")
    func failedOutputSaysWhatIsLeft() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = try cli.write(BuildCommandTests().thread("t1"), "t1.json", in: folder)
        let broken = try cli.write("{", "broken.json", in: folder)
        let shard = try cli.run(["build", "--no-fsync", "--shard", "1/2", "-o", "s1", broken], in: folder)
        #expect(shard.status == 1)
        #expect(shard.err.contains("Error: nothing was published; s1/ was not made. Fix the errors above and run again."), "\(shard.err)")
        let merge = try cli.run(["merge", "--no-fsync", "-o", "merged", "nothing"], in: folder)
        #expect(merge.status == 1)
        #expect(merge.err.contains("Error: nothing was published; merged/ was not made."), "\(merge.err)")
        #expect(try cli.run(["build", "-q", "--no-fsync", "-o", "site", good], in: folder).status == 0)
        let again = try cli.run(["build", "--no-fsync", "-o", "site", broken], in: folder)
        #expect(again.err.contains("Error: nothing was published; site/ is as it was. Fix the errors above and run again."), "\(again.err)")
    }

    @Test("scripts: --report lists a refused output folder; a report path that cannot be written is a usage error before anything is built")
    func reportAlwaysListsErrors() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try cli.write(BuildCommandTests().thread("t1"), "t1.json", in: folder)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("site"), withIntermediateDirectories: true)
        try cli.write("mine", "site/notes.txt", in: folder)
        let refused = try cli.run(["build", "--no-fsync", "-o", "site", input, "--report", "r.json"], in: folder)
        #expect(refused.status == 1)
        let report = String(decoding: try Data(contentsOf: folder.appendingPathComponent("r.json")), as: UTF8.self)
        #expect(report.contains("\"kind\": \"output\"") && report.contains("did not write"), "\(report)")
        for bad in ["nowhere/r.json", "."] {
            let run = try cli.run(["build", "--no-fsync", "-o", "fresh", input, "--report", bad], in: folder)
            #expect(run.status == 64, "\(bad): \(run.err)")
            #expect(run.err.contains("See 'threadfold help build' for more."), "\(run.err)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("fresh").path), "nothing published")
        }
    }

    @Test("scripts: the progress bar is drawn only when asked or on a real terminal; TERM=dumb and CI draw none")
    func progressEtiquette() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try cli.write(BuildCommandTests().thread("t1"), "t1.json", in: folder)
        let always = try cli.run(["build", "--progress", "always", "--no-fsync", "-o", "site", input], in: folder)
        #expect(always.status == 0 && always.err.contains("\r"), "\(always.err)")
        let never = try cli.run(["build", "--progress", "never", "--no-fsync", "-o", "site", input], in: folder)
        #expect(never.status == 0 && !never.err.contains("\r") && !never.err.contains("\u{1B}"))
        let auto = try cli.run(["build", "--no-fsync", "-o", "site", input], in: folder)
        #expect(!auto.err.contains("\r"), "a pipe is no terminal")
        #expect(try cli.run(["build", "--progress", "sometimes", "-o", "site", input], in: folder).status == 64)
        let terminal = Console(out: { _ in }, err: { _ in }, errIsTerminal: true)
        let parsed = ParsedArguments()
        #expect(ProgressBar.shows(parsed, terminal, environment: ["TERM": "xterm-256color"]))
        #expect(!ProgressBar.shows(parsed, terminal, environment: ["TERM": "dumb"]))
        #expect(!ProgressBar.shows(parsed, terminal, environment: [:]))
        #expect(!ProgressBar.shows(parsed, terminal, environment: ["TERM": "xterm", "CI": "true"]))
    }

    @Test("scripts: render with no input and no terminal is a usage error that names --example; nothing is written")
    func renderWithoutInput() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bare = try cli.run(["render", "-o", "site"], in: folder)
        #expect(bare.status == 64, "\(bare.err)")
        #expect(bare.err.contains("no input, and standard input is not a terminal") && bare.err.contains("--example"), "\(bare.err)")
        #expect(bare.err.contains("See 'threadfold help render'"))
        #expect(bare.out.isEmpty && cli.files(folder).isEmpty, "nothing written: \(cli.files(folder))")
        let example = try cli.run(["render", "--example", "-q", "-o", "site"], in: folder)
        #expect(example.status == 0 && cli.files(folder.appendingPathComponent("site")).contains("example.html"), "\(example.err)")
    }

    @Test("scripts: bare render shows the example only from a terminal; --example with inputs is refused")
    func renderInputProblem() throws {
        let bare = try parseArguments(["-o", "site"], specs: RenderCommand.command.options)
        #expect(RenderCommand.inputProblem(bare, inputIsTerminal: true) == nil)
        #expect(RenderCommand.inputProblem(bare, inputIsTerminal: false)?.contains("--example") == true)
        let example = try parseArguments(["--example"], specs: RenderCommand.command.options)
        #expect(RenderCommand.inputProblem(example, inputIsTerminal: false) == nil)
        let named = try parseArguments(["a.json"], specs: RenderCommand.command.options)
        #expect(RenderCommand.inputProblem(named, inputIsTerminal: false) == nil)
        let both = try parseArguments(["--example", "a.json"], specs: RenderCommand.command.options)
        #expect(RenderCommand.inputProblem(both, inputIsTerminal: true)?.contains("found inputs too: a.json") == true)
    }

    @Test(
        "scripts: preview reports a browser that did not start, with the command, the reason and the URL; exit 1 unless --no-open",
        arguments: [("missing", "is not an executable file"), ("exits 3", "exited with status 3")])
    func previewBrowserFails(_ browser: String, _ reason: String) throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let command =
            browser == "missing"
            ? folder.appendingPathComponent("nonexistent").path
            : try cli.write("#!/bin/sh\nexit 3\n", "browser.sh", in: folder)
        if browser != "missing" { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: command) }
        let environment = ["BROWSER": command, "TMPDIR": folder.path, "XDG_RUNTIME_DIR": ""]
        let run = try cli.run(["preview", "-q", "--example"], in: folder, environment: environment)
        #expect(run.status == 1, "\(run.out)\(run.err)")
        let url = try #require(run.out.components(separatedBy: "Preview: ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(url.hasPrefix("file://"))
        #expect(run.err.contains("Error: the browser did not start ($BROWSER): '\(command) \(url)' \(reason)"), "\(run.err)")
        #expect(run.err.contains("Open the preview yourself: \(url)\n"), "\(run.err)")
        let noOpen = try cli.run(["preview", "-q", "--no-open", "--example"], in: folder, environment: environment)
        #expect(noOpen.status == 0 && noOpen.err.isEmpty, "\(noOpen.err)")
    }

    @Test("scripts: preview tries each $BROWSER command in turn and stops at the first that starts; a browser still running counts as started")
    func previewBrowserList() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("opened.txt").path
        let slow = try cli.write("#!/bin/sh\necho \"$1\" > \(log)\nsleep 5\n", "slow.sh", in: folder)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: slow)
        let page = URL(fileURLWithPath: "/nowhere/index.html")
        let messages = Collected()
        let console = Console(out: { _ in }, err: { messages.add($0) })
        let started = PreviewCommand.open(page, console, environment: ["BROWSER": "/bin/false:\(slow)", "PATH": "/usr/bin:/bin"], patience: 0.5)
        #expect(started && messages.text.isEmpty, "\(messages.text)")
        #expect((try? String(contentsOfFile: log, encoding: .utf8)) == page.absoluteString + "\n")
        let failed = PreviewCommand.open(page, console, environment: ["BROWSER": "/bin/false:no-such-browser-here", "PATH": "/usr/bin:/bin"], patience: 0.5)
        #expect(!failed)
        #expect(messages.text.contains("'/bin/false \(page.absoluteString)' exited with status 1; 'no-such-browser-here \(page.absoluteString)' was not found in $PATH"), "\(messages.text)")
    }

    @Test("scripts: check --report writes each input's counts and every message; --strict and -q as for build")
    func checkReport() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try cli.write(BuildCommandTests().thread("t1", orphan: true), "t1.json", in: folder)
        let run = try cli.run(["check", "-q", input, "--report", "r.json"], in: folder)
        #expect(run.status == 0 && run.out.isEmpty && run.err.isEmpty, "\(run.out)\(run.err)")
        let report = String(decoding: try Data(contentsOf: folder.appendingPathComponent("r.json")), as: UTF8.self)
        #expect(report.contains("\"inputs\"") && report.contains("\"orphans\": 1") && report.contains("\"kind\": \"orphan\""), "\(report)")
        let strict = try cli.run(["check", "-q", "--strict", input], in: folder)
        #expect(strict.status == 2 && strict.err.contains("warning:") && strict.err.contains("--strict fails on 1 message (orphan)"), "\(strict.err)")
    }

    @Test("scripts: build's and check's reports, with errors, warnings and notes, are valid under docs/report.schema.json")
    func reportSchema() throws {
        let root = TestData.folder.deletingLastPathComponent().deletingLastPathComponent()
        let schema = root.appendingPathComponent("docs/report.schema.json")
        let text = try String(contentsOf: schema, encoding: .utf8)
        for kind in MessageKinds.names + ["input", "output", "locked", "diskFull"] { #expect(text.contains("\"\(kind)\""), "\(kind)") }
        let hasValidator = (try? ExternalTools.run("/usr/bin/env", ["python3", "-c", "import jsonschema"]).status) == 0
        guard hasValidator || ProcessInfo.processInfo.environment["CI"] != nil else { return }
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var comments = [#"{"id": "root", "author": "a", "body": "x"}"#, #"{"id": "d", "deleted": true}"#, #"{"id": "o", "parent_id": "gone", "author": "b", "body": "y"}"#]
        comments.append(#"{"id": "root", "author": "c", "body": "again"}"#)
        let input = try cli.write(#"{"id": "w", "title": "W", "comments": [\#(comments.joined(separator: ","))]}"#, "w.json", in: folder)
        let broken = try cli.write("{", "broken.json", in: folder)
        _ = try cli.run(["build", "-q", "--no-fsync", "--allow-duplicates", "-o", "site", input, "--report", "built.json"], in: folder)
        _ = try cli.run(["build", "-q", "--no-fsync", "-o", "site", broken, "--report", "failed.json"], in: folder)
        _ = try cli.run(["check", "-q", input, broken, "--report", "checked.json"], in: folder)
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            for path in sys.argv[2:]:
                jsonschema.validate(json.load(open(path)), schema)
            """
        let reports = ["built.json", "failed.json", "checked.json"].map { folder.appendingPathComponent($0).path }
        let (status, output) = try ExternalTools.run("/usr/bin/env", ["python3", "-c", script, schema.path] + reports)
        #expect(status == 0, "\(output)")
        let built = String(decoding: try Data(contentsOf: URL(fileURLWithPath: reports[0])), as: UTF8.self)
        #expect(built.contains("\"severity\": \"note\"") && built.contains("\"severity\": \"warning\""), "\(built)")
    }
}
