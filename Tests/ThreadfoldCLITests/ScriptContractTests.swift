import Foundation
import TestSupport
import Testing
import ThreadfoldKit

@testable import ThreadfoldCLI

#if canImport(Glibc)
    import Glibc
#endif

/// The command-line contract a build script relies on, beyond exit codes: report paths, empty
/// arguments, names given twice, flags that turn the config file's off, and messages that say
/// where a bad value came from.
@Suite("threadfold's command-line contract")
struct ScriptContractTests {
    let cli = CLITests()

    func folder() throws -> (URL, String) {
        let folder = try cli.temporaryFolder()
        return (folder, try cli.write(BuildCommandTests().thread("t1"), "t1.json", in: folder))
    }

    @Test("render into a folder another build holds exits 75 and says to run again; broken input is still 1")
    func renderLocked() throws {
        let (folder, input) = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try cli.run(["render", "-q", "--no-fsync", "-o", "out", input], in: folder).status == 0)
        let marker = open(folder.appendingPathComponent("out/.threadfold").path, O_RDONLY)
        #expect(marker >= 0 && flock(marker, LOCK_EX | LOCK_NB) == 0)
        defer { close(marker) }
        let blocked = try cli.run(["render", "--no-fsync", "-o", "out", input], in: folder)
        #expect(blocked.status == 75, "\(blocked.err)")
        #expect(blocked.err.contains("run this one again"), "\(blocked.err)")
        let broken = try cli.write("{", "broken.json", in: folder)
        #expect(try cli.run(["render", "-q", "--no-fsync", "-o", "out", broken], in: folder).status == 1)
    }

    @Test("--report: an empty path, a link, a pipe are usage errors before anything is built; - writes the report on standard output alone")
    func reportPaths() throws {
        let (folder, input) = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(symlink("elsewhere.json", folder.appendingPathComponent("link.json").path) == 0)
        #expect(mkfifo(folder.appendingPathComponent("fifo").path, 0o600) == 0)
        for (path, words) in [("", "needs a file name"), ("link.json", "is a symbolic link"), ("fifo", "is a pipe (FIFO)")] {
            for command in ["build", "check"] {
                let run = try cli.run([command, input, "--report", path] + (command == "build" ? ["-o", "site", "--no-fsync"] : []), in: folder)
                #expect(run.status == 64 && run.err.contains(words), "\(command) --report '\(path)': \(run.err)")
            }
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("site").path))
        }
        let linked = try FileManager.default.destinationOfSymbolicLink(atPath: folder.appendingPathComponent("link.json").path)
        #expect(linked == "elsewhere.json", "the link is left as it was")
        let built = try cli.run(["build", "--no-fsync", input, "-o", "site", "--report", "-"], in: folder)
        #expect(built.status == 0, "\(built.err)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(built.out.utf8)) as? [String: Any], "standard output is the report alone: \(built.out)")
        #expect(report["exit"] as? Int == 0)
        #expect(built.err.contains("Built 1 thread"), "the summary goes to standard error: \(built.err)")
        let checked = try cli.run(["check", input, "--report", "-"], in: folder)
        #expect(checked.status == 0 && (try? JSONSerialization.jsonObject(with: Data(checked.out.utf8))) != nil, "\(checked.out)")
    }

    @Test("check --report lists every message of a dump, not the first ten of each kind")
    func checkReportComplete() throws {
        let (folder, _) = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dumps = ["RS_sample.jsonl", "RC_sample.jsonl"].map { TestData.url("dumps/" + $0).path }
        #expect(try cli.run(["build", "-q", "--no-fsync", "-o", "site", "--report", "b.json"] + dumps, in: folder).status == 0)
        #expect(try cli.run(["check", "-q", "--report", "c.json"] + dumps, in: folder).status == 0)
        func messages(_ name: String) throws -> [String] {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(name))) as? [String: Any])
            return ((json["warnings"] as? [[String: Any]] ?? []) + (json["notes"] as? [[String: Any]] ?? [])).compactMap { $0["kind"] as? String }
        }
        let built = try messages("b.json"), checked = try messages("c.json")
        #expect(built.filter { $0 == "omittedDeleted" }.count > 10, "\(built)")
        #expect(checked.filter { $0 == "omittedDeleted" }.count == built.filter { $0 == "omittedDeleted" }.count, "\(checked)")
    }

    @Test("an empty -o or --templates is a usage error, never the working folder; an unknown flag suggests the near one")
    func emptyPaths() throws {
        let (folder, input) = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try cli.run(["build", input, "-o", ""], in: folder)
        #expect(output.status == 64 && output.err.contains("'--output' needs a folder name; found an empty one"), "\(output.err)")
        let templates = try cli.run(["render", input, "--templates="], in: folder)
        #expect(templates.status == 64 && templates.err.contains("'--templates' needs a folder name"), "\(templates.err)")
        let typo = try cli.run(["build", input, "--incremantal"], in: folder)
        #expect(typo.status == 64 && typo.err.contains("unknown option '--incremantal' (did you mean '--incremental'?)"), "\(typo.err)")
    }

    @Test("a file named twice, or named and in a folder given, is read once")
    func namedTwice() throws {
        let (folder, input) = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("in"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: input, toPath: folder.appendingPathComponent("in/t1.json").path)
        let run = try cli.run(["build", "--no-fsync", "in", "in/t1.json", "in", "-o", "site"], in: folder)
        #expect(run.status == 0 && run.out.contains("Built 1 thread"), "\(run.out)\(run.err)")
    }

    @Test("threadfold.json: --no-NAME turns off its flag; a bad value names its place in the file; a key twice is an error; preview is an option or the subcommand by its value")
    func configContract() throws {
        let (folder, input) = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try cli.write(#"{"incremental": true, "no-fsync": true, "preview": 3}"#, "threadfold.json", in: folder)
        #expect(try cli.run(["build", "-q", input, "-o", "site", "--no-incremental"], in: folder).status == 0)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(".site.spare").path), "--no-incremental won over the file")
        #expect(try cli.run(["build", "-q", input, "-o", "site"], in: folder).status == 0)
        #expect(try cli.run(["build", "-q", input, "-o", "site"], in: folder).status == 0)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(".site.spare").path), "the file's incremental")
        try cli.write("{\"no-fsync\": true,\n \"per-page\": 1.5}", "threadfold.json", in: folder)
        let bad = try cli.run(["build", input, "-o", "site"], in: folder)
        #expect(bad.status == 64 && bad.err.hasPrefix("Error: threadfold.json:2:14: '--per-page' must be a whole number"), "\(bad.err)")
        let flag = try cli.run(["build", input, "-o", "site", "--per-page", "x"], in: folder)
        #expect(flag.status == 64 && flag.err.hasPrefix("Error: '--per-page' must be"), "a flag's own value is not the file's: \(flag.err)")
        try cli.write(#"{"title": "a", "title": "b"}"#, "threadfold.json", in: folder)
        let twice = try cli.run(["build", input, "-o", "site"], in: folder)
        #expect(twice.status == 64 && twice.err.contains("threadfold.json:1:16: \"title\" is given twice"), "\(twice.err)")
        try cli.write(#"{"no-fsync": true, "strict": true, "render": {"preview": 0}, "preview": {"no-open": true}}"#, "threadfold.json", in: folder)
        let strict = try cli.run(["build", "-q", input, "-o", "site2"], in: folder)
        #expect(strict.status == 0, "\(strict.err)")
        let orphan = try cli.write(BuildCommandTests().thread("t2", orphan: true), "t2.json", in: folder)
        #expect(try cli.run(["build", "-q", orphan, "-o", "site3"], in: folder).status == 2, "the file's --strict")
        #expect(try cli.run(["build", "-q", orphan, "-o", "site4", "--no-strict"], in: folder).status == 0, "--no-strict won over it")
    }

    @Test("merge refuses shards built with other options than its own, naming the shard; the same options merge")
    func mergeMismatch() throws {
        let (folder, input) = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let other = try cli.write(BuildCommandTests().thread("t2"), "t2.json", in: folder)
        for k in 1...2 {
            #expect(try cli.run(["build", "-q", "--no-fsync", input, other, "--shard", "\(k)/2", "-o", "shard-\(k)", "--authors"], in: folder).status == 0)
        }
        let refused = try cli.run(["merge", "shard-1", "shard-2", "-o", "merged", "--no-fsync"], in: folder)
        #expect(refused.status == 1 && refused.err.contains("shard-1/shard.json: error: $.settings: this shard was built with other options"), "\(refused.err)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("merged").path))
        #expect(try cli.run(["merge", "-q", "shard-1", "shard-2", "-o", "merged", "--no-fsync", "--authors"], in: folder).status == 0)
    }

    @Test("--progress always on a dumb terminal draws with carriage returns and spaces, never an escape code")
    func dumbProgress() throws {
        let (folder, input) = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try cli.run(["build", "--no-fsync", input, "-o", "site", "--progress", "always"], in: folder, environment: ["TERM": "dumb"])
        #expect(run.status == 0 && run.err.contains("\r") && !run.err.contains("\u{1B}"), "\(run.err.debugDescription)")
    }
}
