import Foundation
import TestSupport
import Testing
import ThreadfoldKit

@testable import ThreadfoldCLI

/// `threadfold.json`: the same options for every build, shard, merge and check.
@Suite("threadfold.json")
struct ConfigFileTests {
    let cli = CLITests()

    /// The bundled archive example in a fresh folder.
    func project() throws -> URL {
        let folder = try cli.temporaryFolder()
        let examples = TestData.folder.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/examples")
        for name in ["archive.jsonl", "thread.json", "nested.json"] {
            try FileManager.default.copyItem(at: examples.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        return folder
    }

    /// Every file of a site but its manifest (whose stamps differ from build to build).
    func pages(_ site: URL) -> [String: Data] {
        var out: [String: Data] = [:]
        for path in FileManager.default.subpaths(atPath: site.path) ?? [] where !path.hasPrefix(".threadfold") {
            var isFolder: ObjCBool = false
            let url = site.appendingPathComponent(path)
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            out[path] = FileManager.default.contents(atPath: url.path)
        }
        return out
    }

    static let config = """
        {
          "$schema": "../docs/threadfold.schema.json",
          "title": "Config forum",
          "per-page": 5,
          "sections": "category",
          "no-fsync": true,
          "inputs": ["archive.jsonl", "thread.json", "nested.json"],
          "output": "public",
          "build": {"orders": ["oldest", "top"], "quiet": true},
          "check": {"all": true}
        }
        """

    @Test("a build reading threadfold.json is the build given the same flags; the command line wins over the file")
    func sameAsFlags() throws {
        let folder = try project()
        defer { try? FileManager.default.removeItem(at: folder) }
        try cli.write(Self.config, "threadfold.json", in: folder)
        let configured = try cli.run(["build"], in: folder)
        #expect(configured.status == 0 && configured.out.isEmpty, "quiet from the build object: \(configured.out)\(configured.err)")
        let flagged = try cli.run(
            [
                "build", "--no-config", "-q", "--no-fsync", "--title", "Config forum", "--per-page", "5", "--sections", "category",
                "--orders", "oldest,top", "-o", "flags", "archive.jsonl", "thread.json", "nested.json",
            ], in: folder)
        #expect(flagged.status == 0, "\(flagged.err)")
        let published = pages(folder.appendingPathComponent("public"))
        #expect(!published.isEmpty && published == pages(folder.appendingPathComponent("flags")))
        // Flags win: another title and output; the file's inputs stand.
        let over = try cli.run(["build", "--title", "Flag title", "-o", "over"], in: folder)
        #expect(over.status == 0, "\(over.err)")
        #expect(String(decoding: pages(folder.appendingPathComponent("over"))["index.html"] ?? Data(), as: UTF8.self).contains("<title>Flag title"))
        // check takes its own object and the top level's options it has; --no-config reads none.
        let check = try cli.run(["check"], in: folder)
        #expect(check.status == 0 && check.out.contains("(thread t1): ok:"), "\(check.out)\(check.err)")
        #expect(try cli.run(["check", "--no-config"], in: folder).status == 64, "no inputs without the file")
    }

    @Test("shards and merge read one file: the merged site is the whole build's")
    func shardsAndMerge() throws {
        let folder = try project()
        defer { try? FileManager.default.removeItem(at: folder) }
        try cli.write(Self.config, "threadfold.json", in: folder)
        #expect(try cli.run(["build"], in: folder).status == 0)
        for k in 1...2 { #expect(try cli.run(["build", "--shard", "\(k)/2", "-o", "shard-\(k)"], in: folder).status == 0) }
        let merged = try cli.run(["merge", "shard-1", "shard-2", "-o", "merged", "-q"], in: folder)
        #expect(merged.status == 0, "\(merged.err)")
        let whole = pages(folder.appendingPathComponent("public")), joined = pages(folder.appendingPathComponent("merged"))
        #expect(joined["index.html"] != nil && joined["index.html"] == whole["index.html"])
        #expect(joined.keys.filter { $0.hasPrefix("s/") }.sorted() == whole.keys.filter { $0.hasPrefix("s/") }.sorted())
    }

    @Test(
        "a wrong key or value is a usage error at the file's line and column, with what was expected",
        arguments: [
            (#"{"titel": "x"}"#, #"threadfold.json:1:2: "titel": no subcommand has an option of that name; expected a long option as typed on the command line (did you mean "title"?)"#),
            ("{\n  \"build\": {\"per-page\": true}}", #"threadfold.json:2:25: "per-page": found true; expected --per-page's <n> as a string (or a number)"#),
            (#"{"render": {"sections": "category"}}"#, #"threadfold.json:1:13: "sections": 'render' has no option of that name; expected a long option as typed on the command line"#),
            (#"{"quiet": "yes"}"#, #"threadfold.json:1:11: "quiet": found a string; expected true or false (it is a flag)"#),
            (#"{"inputs": "a.json"}"#, #"threadfold.json:1:12: "inputs": found a string; expected an array of paths"#),
            (#"{"build": []}"#, #"threadfold.json:1:11: "build": found an array; expected an object of build's options"#),
            (#"["title"]"#, #"threadfold.json:1:1: found an array; expected an object of options, like {"title": "My forum"}"#),
            (#"{"title": "x",}"#, #"threadfold.json:1:15: found '}'; expected a member name in double quotes"#),
        ])
    func errors(_ text: String, _ message: String) throws {
        let folder = try project()
        defer { try? FileManager.default.removeItem(at: folder) }
        try cli.write(text, "threadfold.json", in: folder)
        let run = try cli.run(["build", "thread.json", "-o", "site"], in: folder)
        #expect(run.status == 64)
        #expect(run.err.hasPrefix("Error: " + message + "\n"), "\(run.err)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("site").path))
        let missing = try cli.run(["build", "--config", "nowhere.json", "thread.json"], in: folder)
        #expect(missing.status == 64 && missing.err.contains("nowhere.json"), "\(missing.err)")
    }

    @Test("docs/threadfold.schema.json is the schema the option tables give, and it accepts the example and refuses a wrong key")
    func schema() throws {
        let root = TestData.folder.deletingLastPathComponent().deletingLastPathComponent()
        let shipped = try String(contentsOf: root.appendingPathComponent("docs/threadfold.schema.json"), encoding: .utf8)
        #expect(shipped == ConfigFile.schema(commands: CLI.ordered), "run 'threadfold help --config-schema > docs/threadfold.schema.json'")
        for spec in CLI.ordered.filter({ ConfigFile.subcommands.contains($0.name) }).flatMap(\.options) where !["config", "no-config"].contains(spec.long) {
            #expect(shipped.contains("\"\(spec.long)\": {"), "\(spec.long)")
        }
        let hasValidator = (try? ExternalTools.run("/usr/bin/env", ["python3", "-c", "import jsonschema"]).status) == 0
        guard hasValidator || ProcessInfo.processInfo.environment["CI"] != nil else { return }
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = try cli.write(Self.config, "good.json", in: folder)
        let bad = try cli.write(#"{"titel": "x"}"#, "bad.json", in: folder)
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.validate(json.load(open(sys.argv[2])), schema)
            try:
                jsonschema.validate(json.load(open(sys.argv[3])), schema)
                sys.exit("the wrong key passed")
            except jsonschema.ValidationError:
                pass
            """
        let (status, output) = try ExternalTools.run("/usr/bin/env", ["python3", "-c", script, root.appendingPathComponent("docs/threadfold.schema.json").path, good, bad])
        #expect(status == 0, "\(output)")
    }

    @Test("a repeatable option takes an array: exclude from the file, as --exclude twice")
    func repeatable() throws {
        let folder = try project()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("in/drafts"), withIntermediateDirectories: true)
        for name in ["archive.jsonl", "thread.json"] {
            try FileManager.default.moveItem(at: folder.appendingPathComponent(name), to: folder.appendingPathComponent("in/\(name)"))
        }
        try FileManager.default.moveItem(at: folder.appendingPathComponent("nested.json"), to: folder.appendingPathComponent("in/drafts/nested.json"))
        try cli.write(#"{"inputs": ["in"], "output": "site", "no-fsync": true, "build": {"exclude": ["drafts/", "thread.json"]}}"#, "threadfold.json", in: folder)
        let run = try cli.run(["build"], in: folder)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("Built 7 threads"), "archive.jsonl alone: \(run.out)")
        try cli.write(#"{"build": {"exclude": "drafts/"}}"#, "one.json", in: folder)
        #expect(try cli.run(["build", "--config", "one.json", "in", "-o", "one", "--no-fsync"], in: folder).out.contains("Built 8 threads"))
    }

    @Test("near names are suggested; far ones are not")
    func suggestions() {
        #expect(ConfigFile.distance("titel", "title") == 2)
        #expect(ConfigFile.distance("", "abc") == 3 && ConfigFile.distance("abc", "abc") == 0)
        #expect(ConfigFile.suggestion("per_page", among: ["per-page", "title"]) == #" (did you mean "per-page"?)"#)
        #expect(ConfigFile.suggestion("zzzzzz", among: ["per-page", "title"]).isEmpty)
    }
}
