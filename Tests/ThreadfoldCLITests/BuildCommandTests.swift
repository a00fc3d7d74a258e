import Foundation
import TestSupport
import Testing
import ThreadfoldKit

@testable import ThreadfoldCLI

/// `threadfold build`, `merge` and `preview` as processes: exit codes, messages, reports.
@Suite("threadfold build, merge and preview")
struct BuildCommandTests {
    let cli = CLITests()

    func thread(_ id: String, orphan: Bool = false, day: Int = 0) -> String {
        let extra = orphan ? #", {"id": "o", "parent_id": "nowhere", "body": "lost"}"# : ""
        return
            #"{"id": "\#(id)", "title": "Thread \#(id)", "created_at": \#(1_700_000_000 + day * 86_400), "comments": [{"id": "a", "author": "ann", "body": "hi"}, {"id": "b", "parent_id": "a", "author": "bob", "body": "yo"}\#(extra)]}"#
    }

    @Test("builds a folder and says where the index is; exit 0")
    func builds() throws {
        let folder = try cli.temporaryFolder()
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("in"), withIntermediateDirectories: true)
        for i in 0..<3 { _ = try cli.write(thread("x\(i)", day: i), "in/x\(i).json", in: folder) }
        let run = try cli.run(["build", "in", "-o", "site"], in: folder)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("Built 3 threads (6 comments) into site/"))
        #expect(run.out.contains("file://") && run.out.contains("site/index.html"))
        #expect(run.err.isEmpty, "no progress bar when standard error is not a terminal: \(run.err)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("site/t/thread-x1-x1/index.html").path))
    }

    @Test("--search takes titles or pagefind or nothing; --authors; both in help, and refused values named")
    func searchOptions() throws {
        let specs = BuildCommand.command.options
        #expect(try parseArguments(["--search", "in.json"], specs: specs).value("search") == "titles")
        #expect(try parseArguments(["--search", "pagefind", "in.json"], specs: specs).value("search") == "pagefind")
        #expect(try parseArguments(["--search=pagefind"], specs: specs).value("search") == "pagefind")
        #expect(try parseArguments(["in.json", "--search"], specs: specs).positionals == ["in.json"])
        let folder = try cli.temporaryFolder()
        _ = try cli.write(thread("s1"), "s1.json", in: folder)
        let run = try cli.run(["build", "s1.json", "-o", "site", "--search", "--authors", "-q"], in: folder)
        #expect(run.status == 0, "\(run.err)")
        for file in ["search/index.html", "search/index-0.js", "threadfold-search.js", "u/\(ThreadPaths.authorFolder("ann"))/index.html"] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("site/" + file).path), "\(file)")
        }
        let bad = try cli.run(["build", "s1.json", "-o", "site", "--search=words"], in: folder)
        #expect(bad.status == 64 && bad.err.contains("'--search' must be none, titles or pagefind; found 'words'"))
        let help = try cli.run(["build", "--help"], in: folder)
        #expect(help.out.contains("--search [<kind>]") && help.out.contains("--authors") && help.out.contains("pagefind[bin]"))
        let merge = try cli.run(["merge", "--help"], in: folder)
        #expect(merge.out.contains("--search [<kind>]") && merge.out.contains("--authors"))
    }

    @Test("standard input, a {\"threads\": [...]} document and a folder build together")
    func inputForms() throws {
        let folder = try cli.temporaryFolder()
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("in"), withIntermediateDirectories: true)
        _ = try cli.write(thread("f1"), "in/f1.json", in: folder)
        let many = try cli.write(#"{"threads": [\#(thread("m1")), \#(thread("m2"))]}"#, "many.json", in: folder)
        let run = try cli.run(["build", "-", many, "in", "-o", "site", "--report", "r.json"], stdin: thread("s1"), in: folder)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("Built 4 threads"))
        for id in ["s1", "m1", "m2", "f1"] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("site/t/thread-\(id)-\(id)/index.html").path), "\(id)")
        }
    }

    @Test("warnings on the terminal are counted by kind, the first few of each shown, notes as a count; --report lists every one with its kind and severity")
    func warningKinds() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var comments = [#"{"id": "root", "author": "a", "body": "x"}"#]
        for i in 0..<12 { comments.append(#"{"id": "d\#(i)", "deleted": true}"#) }
        for i in 0..<5 { comments.append(#"{"id": "o\#(i)", "parent_id": "gone\#(i)", "author": "b", "body": "y"}"#) }
        let input = try cli.write(#"{"id": "w", "title": "Warnings", "comments": [\#(comments.joined(separator: ","))]}"#, "w.json", in: folder)
        let built = try cli.run(["build", "--no-fsync", "-o", "site", input, "--report", "report.json"], in: folder)
        #expect(built.status == 0, "\(built.err)")
        let lines = built.err.split(separator: "\n").map(String.init)
        #expect(!lines.contains { $0.contains("is deleted and has no replies") }, "deleted comments left out are notes, counted: \(built.err)")
        #expect(lines.contains("note: 12 deleted or removed comments without replies were left out; --report FILE lists each"), "\(built.err)")
        #expect(lines.contains("warning: 5 replies whose parent is not in their thread were shown at top level in all, 3 shown above; --report FILE lists every one"), "\(built.err)")
        let report = String(decoding: try Data(contentsOf: folder.appendingPathComponent("report.json")), as: UTF8.self)
        #expect(report.components(separatedBy: "\"message\"").count - 1 == 17)
        #expect(report.components(separatedBy: "\"severity\": \"note\"").count - 1 == 12)
        #expect(report.components(separatedBy: "\"kind\": \"omittedDeleted\"").count - 1 == 12)
        #expect(report.components(separatedBy: "\"kind\": \"orphan\"").count - 1 == 5)
        #expect(built.out.contains(", 5 warnings, 12 notes."), "\(built.out)")
        // --strict fails on the warnings, not the notes; with -q the failing ones are still shown.
        let strict = try cli.run(["build", "-q", "--strict", "--no-fsync", "-o", "site", input], in: folder)
        #expect(strict.status == 2)
        #expect(strict.err.contains("warning: $.comments[13]: is a reply to"), "\(strict.err)")
        #expect(strict.err.contains("--strict fails on 5 messages (orphan)"), "\(strict.err)")
        let onlyCycles = try cli.run(["build", "-q", "--strict=cycle", "--no-fsync", "-o", "site", input], in: folder)
        #expect(onlyCycles.status == 0, "\(onlyCycles.err)")
        let deleted = try cli.run(["build", "-q", "--strict=omittedDeleted,cycle", "--no-fsync", "-o", "site", input], in: folder)
        #expect(deleted.status == 2 && deleted.err.contains("(omittedDeleted)"), "\(deleted.err)")
        let unknown = try cli.run(["build", "--strict=orphans", "-o", "site", input], in: folder)
        #expect(unknown.status == 64 && unknown.err.contains("found 'orphans'"), "\(unknown.err)")
    }

    @Test("a zstd-compressed JSON Lines archive (in a folder, under a dump's name) builds the same thread pages as the plain file")
    func compressed() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dumps = folder.appendingPathComponent("dumps")
        try FileManager.default.createDirectory(at: dumps, withIntermediateDirectories: true)
        try Data(TestData.bytes("compressed/archive.jsonl.zst")).write(to: dumps.appendingPathComponent("RS_2024-01.zst"))
        let repository = TestData.folder.deletingLastPathComponent().deletingLastPathComponent()
        let plain = try cli.run(["build", "-q", "--no-fsync", "-o", "plain", repository.appendingPathComponent("docs/examples/archive.jsonl").path], in: folder)
        let packed = try cli.run(["build", "-q", "--no-fsync", "-o", "packed", "dumps"], in: folder)
        #expect(plain.status == 0 && packed.status == 0, "\(plain.err)\(packed.err)")
        let pages = try FileManager.default.subpathsOfDirectory(atPath: folder.appendingPathComponent("plain/t").path).sorted()
        #expect(pages.count > 10)
        #expect(try FileManager.default.subpathsOfDirectory(atPath: folder.appendingPathComponent("packed/t").path).sorted() == pages)
        for page in pages where page.hasSuffix(".html") || page.hasSuffix(".json") {
            #expect(
                FileManager.default.contents(atPath: folder.appendingPathComponent("plain/t/" + page).path)
                    == FileManager.default.contents(atPath: folder.appendingPathComponent("packed/t/" + page).path), "\(page)")
        }
        // Cut short, it is an error and nothing is published.
        let bytes = try TestData.bytes("compressed/archive.jsonl.zst")
        try Data(bytes.prefix(bytes.count - 20)).write(to: dumps.appendingPathComponent("RS_2024-01.zst"))
        let cut = try cli.run(["build", "-q", "--no-fsync", "-o", "cut", "dumps"], in: folder)
        #expect(cut.status == 1)
        #expect(cut.err.contains("dumps/RS_2024-01.zst: error: ends in the middle of a zstd frame"), "\(cut.err)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("cut").path))
    }

    @Test("the README's --thread-key example: an Algolia comment export, grouped by story")
    func threadKeyWithMap() throws {
        let folder = try cli.temporaryFolder()
        let input = try cli.write(
            #"""
            [{"objectID":"11","parent_id":1,"story_id":1,"story_title":"Show HN: Threadfold","author":"pg","comment_text":"<p>Nice <script>x</script>","created_at_i":1709460000},
             {"objectID":"12","parent_id":11,"story_id":1,"story_title":"Show HN: Threadfold","author":"dang","comment_text":"Agreed","created_at_i":1709460100},
             {"objectID":"21","parent_id":2,"story_id":2,"story_title":"Ask HN: Archives?","author":"tptacek","comment_text":"Yes","created_at_i":1709470000}]
            """#, "hn-comments.json", in: folder)
        let run = try cli.run(
            [
                "build", input, "-o", "site", "--body-format", "html", "--thread-key", "story_id", "--thread-title-key", "story_title",
                "--map", "id=objectID,parent=parent_id,author=author,body=comment_text,time=created_at_i",
            ], in: folder)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("Built 2 threads (3 comments)"))
        let page = try String(contentsOf: folder.appendingPathComponent("site/t/show-hn-threadfold-1/index.html"), encoding: .utf8)
        #expect(page.contains("Agreed") && page.contains("tf-replies") && !page.contains("<script>x"))
    }

    @Test("exit codes: 1 for input errors (nothing published), 2 for warnings with --strict, 64 for usage")
    func exitCodes() throws {
        let folder = try cli.temporaryFolder()
        let good = try cli.write(thread("g"), "good.json", in: folder)
        let warned = try cli.write(thread("w", orphan: true), "warned.json", in: folder)
        let bad = try cli.write(#"{"id": "b", "comments": [{"id": "1", "score": "lots"}]}"#, "bad.json", in: folder)

        let ok = try cli.run(["build", good, warned, "-o", "site"], in: folder)
        #expect(ok.status == 0)
        #expect(ok.err.contains("warned.json:1:") && ok.err.contains("not in this thread"))
        let strict = try cli.run(["build", good, warned, "-o", "site", "--strict"], in: folder)
        #expect(strict.status == 2 && strict.err.contains("--strict"))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("site/t/thread-w-w/index.html").path), "built and published")

        let failed = try cli.run(["build", good, bad, "-o", "site"], in: folder)
        #expect(failed.status == 1)
        #expect(failed.err.contains("bad.json:1:47: error: $.comments[0].score: expected an integer, found the string \"lots\""))
        #expect(failed.err.contains("nothing was published"))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("site/t/thread-w-w/index.html").path), "old site kept")

        for arguments in [
            ["build"], ["build", good, "--per-page", "0"], ["build", good, "--sections", "year"], ["build", good, "--layout", "grid"],
            ["build", good, "--orders", "oldest,best"], ["build", good, "--orders", "top,top"], ["build", good, "--shard", "3/2"],
            ["build", good, "--base-url", "javascript:alert(1)"], ["build", good, "--thread-title-key", "t"],
            ["build", good, "--sort", "top", "--orders", "oldest,top"], ["merge"], ["build", good, "--jobs", "0"],
        ] {
            let run = try cli.run(arguments, in: folder)
            #expect(run.status == 64, "\(arguments): \(run.err)")
            #expect(run.err.contains("Usage:"))
        }
    }

    @Test("the site does not depend on the machine's time zone or locale")
    func timeZoneAndLocale() throws {
        let folder = try cli.temporaryFolder()
        let lines = (0..<6).map { thread("z\($0)", day: $0 * 40) }.joined(separator: "\n")
        let input = try cli.write(lines, "z.jsonl", in: folder)
        let a = try cli.run(["build", input, "-o", "utc", "-q", "--sections", "month"], in: folder, environment: ["TZ": "UTC", "LC_ALL": "C", "LANG": "C"])
        let b = try cli.run(
            ["build", input, "-o", "tokyo", "-q", "--sections", "month"], in: folder,
            environment: ["TZ": "Pacific/Kiritimati", "LC_ALL": "de_DE.UTF-8", "LANG": "tr_TR.UTF-8"])
        #expect(a.status == 0 && b.status == 0)
        let diff = try ExternalDiff.run(folder.appendingPathComponent("utc").path, folder.appendingPathComponent("tokyo").path)
        #expect(diff.isEmpty, "\(diff)")
    }

    @Test("on a terminal, progress shows threads done of the total, the rate and the time left")
    func progress() throws {
        let folder = try cli.temporaryFolder()
        let input = try cli.write((0..<5).map { thread("p\($0)") }.joined(separator: "\n"), "p.jsonl", in: folder)
        let err = Collected()
        let console = Console(out: { _ in }, err: { err.add($0) }, errIsTerminal: true)
        // `always`: in CI (where `auto` draws no bar) as on a developer's terminal.
        let status = CLI.run(["build", input, "--progress", "always", "-o", folder.appendingPathComponent("site").path], console: console)
        #expect(status == 0)
        #expect(err.text.contains("5/5 threads") && err.text.contains("/s ETA"), "\(err.text)")
        #expect(err.text.hasSuffix("\r\u{1B}[2K"), "the bar clears its line when done")
        let quiet = Collected()
        _ = CLI.run(
            ["build", input, "--progress", "always", "-o", folder.appendingPathComponent("site").path, "-q"],
            console: Console(out: { _ in }, err: { quiet.add($0) }, errIsTerminal: true))
        #expect(quiet.text.isEmpty)
    }

    @Test("--report writes JSON with counts, warnings with places, and timings")
    func report() throws {
        let folder = try cli.temporaryFolder()
        let warned = try cli.write(thread("w", orphan: true), "warned.json", in: folder)
        let run = try cli.run(["build", warned, "-o", "site", "--report", "report.json", "-q"], in: folder)
        #expect(run.status == 0 && run.out.isEmpty)
        let data = try #require(FileManager.default.contents(atPath: folder.appendingPathComponent("report.json").path))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["threads"] as? Int == 1 && json["comments"] as? Int == 3 && json["exit"] as? Int == 0)
        #expect((json["filesWritten"] as? Int ?? 0) >= 5)
        #expect(json["pagesWritten"] as? Int == 2 && json["pagesReused"] as? Int == 0, "the thread page and the index")
        let warnings = try #require(json["warnings"] as? [[String: Any]])
        #expect(warnings.count == 1 && warnings[0]["line"] as? Int == 1 && (warnings[0]["path"] as? String)?.hasPrefix("$.comments[2]") == true)
        let timings = try #require(json["milliseconds"] as? [String: Any])
        #expect(timings["total"] is Int && timings["read and render"] is Int)
    }

    @Test("--incremental reuses unchanged threads; the report says how many")
    func incremental() throws {
        let folder = try cli.temporaryFolder()
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("in"), withIntermediateDirectories: true)
        for i in 0..<4 { _ = try cli.write(thread("x\(i)", day: i), "in/x\(i).json", in: folder) }
        let first = try cli.run(["build", "in", "-o", "site", "--incremental"], in: folder)
        #expect(first.status == 0)
        _ = try cli.write(thread("x2", orphan: true, day: 9), "in/x2.json", in: folder)
        let second = try cli.run(["build", "in", "-o", "site", "--incremental", "--report", "r.json"], in: folder)
        #expect(second.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("r.json"))) as? [String: Any])
        #expect(json["threadsRendered"] as? Int == 1 && json["threadsReused"] as? Int == 3 && json["incremental"] as? Bool == true)
    }

    @Test("inputs are listed while the spare is cleaned: a missing input or a broken document is an error with its place, exit 1, the site as it was, in the report too")
    func incrementalListingErrors() throws {
        let folder = try cli.temporaryFolder()
        let document = #"{"threads": [\#(thread("d1")), \#(thread("d2"))]}"#
        _ = try cli.write(document, "forum.json", in: folder)
        for _ in 0..<3 { #expect(try cli.run(["build", "forum.json", "-o", "site", "--incremental", "-q"], in: folder).status == 0) }
        let index = folder.appendingPathComponent("site/index.html")
        let before = try Data(contentsOf: index)

        let missing = try cli.run(["build", "forum.json", "gone.json", "-o", "site", "--incremental", "--report", "r.json"], in: folder)
        #expect(missing.status == 1)
        #expect(missing.err.contains("gone.json") && missing.err.contains("nothing was published"), "\(missing.err)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("r.json"))) as? [String: Any])
        #expect(json["published"] as? Bool == false && (json["errors"] as? [Any])?.count == 1)
        // The same without --incremental: the report is written all the same.
        let full = try cli.run(["build", "gone.json", "-o", "other", "--report", "r2.json"], in: folder)
        #expect(full.status == 1 && full.err.contains("gone.json"))
        let fullJSON = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("r2.json"))) as? [String: Any])
        #expect(fullJSON["exit"] as? Int == 1 && (fullJSON["errors"] as? [Any])?.count == 1)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("other").path))
        // Without --incremental the inputs are listed first: nothing beside the output is touched,
        // not even a folder the output would be made in.
        let nested = try cli.run(["build", "gone.json", "-o", "out/new/site"], in: folder)
        #expect(nested.status == 1 && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("out").path))

        // A folder with no input in it: refused when it is listed, the site as it was.
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("empty"), withIntermediateDirectories: true)
        let empty = try cli.run(["build", "forum.json", "empty", "-o", "site", "--incremental"], in: folder)
        #expect(empty.status == 1)
        #expect(empty.err.contains("empty: error: holds no .json"), "\(empty.err)")
        #expect(try Data(contentsOf: index) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".site.staging") }
        #expect(leftovers.isEmpty)
        // An output that cannot be written and an input that cannot be listed: both are said.
        _ = try cli.write("not a folder", "taken", in: folder)
        let both = try cli.run(["build", "gone.json", "-o", "taken", "--incremental"], in: folder)
        #expect(both.status == 1 && both.err.contains("gone.json") && both.err.contains("taken: error: is a file"), "\(both.err)")

        // Fixed, the next build publishes, reusing what the live site holds.
        _ = try cli.write(document, "forum.json", in: folder)
        let fixed = try cli.run(["build", "forum.json", "-o", "site", "--incremental", "--report", "r.json"], in: folder)
        #expect(fixed.status == 0, "\(fixed.err)")
        let after = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("r.json"))) as? [String: Any])
        #expect(after["threadsRendered"] as? Int == 0 && after["threadsReused"] as? Int == 2)
    }

    @Test("a build killed at any moment leaves the previous site whole, and the next build succeeds")
    func interrupted() throws {
        let folder = try cli.temporaryFolder()
        let lines = (0..<300).map { thread("k\($0)", day: $0) }.joined(separator: "\n")
        let input = try cli.write(lines, "all.jsonl", in: folder)
        #expect(try cli.run(["build", input, "-o", "site", "-q", "--incremental"], in: folder).status == 0)
        let site = folder.appendingPathComponent("site")
        let before = try ExternalDiff.snapshot(site.path)
        let changed = try cli.write(lines.replacingOccurrences(of: "\"hi\"", with: "\"changed\""), "all.jsonl", in: folder)
        for delay: useconds_t in [20_000, 60_000, 150_000] {
            let process = Process()
            process.executableURL = CLITests.binary
            process.arguments = ["build", changed, "-o", "site", "-q", "--incremental", "--jobs", "1"]
            process.currentDirectoryURL = folder
            process.standardError = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            usleep(delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let now = try ExternalDiff.snapshot(site.path)
            // Either the old site, untouched, or (if the build won the race) the finished new one.
            if now != before {
                #expect(process.terminationReason == .exit, "after \(delay) µs the site changed, so the build must have finished")
            }
        }
        let finished = try cli.run(["build", changed, "-o", "site", "-q", "--incremental"], in: folder)
        #expect(finished.status == 0, "\(finished.err)")
        #expect(try cli.run(["build", changed, "-o", "full", "-q"], in: folder).status == 0)
        #expect(try ExternalDiff.run(site.path, folder.appendingPathComponent("full").path).isEmpty)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("staging") || $0.contains(".old-") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test("merge refuses sidecar counts that are negative or absurd, with the file and JSON path, instead of trapping on their sum")
    func mergeCounts() throws {
        let folder = try cli.temporaryFolder()
        let lines = (0..<12).map { thread("c\($0)", day: $0) }.joined(separator: "\n")
        let input = try cli.write(lines, "all.jsonl", in: folder)
        for k in 1...3 { #expect(try cli.run(["build", input, "-o", "shard-\(k)", "--shard", "\(k)/3", "-q"], in: folder).status == 0) }
        func sidecars(_ shard: String) throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("\(shard)/t").path)
                .filter { !$0.hasPrefix(".") }.sorted().map { "\(shard)/t/\($0)/thread.json" }
        }
        func edit(_ sidecar: String, _ from: String, _ to: String) throws {
            let url = folder.appendingPathComponent(sidecar)
            let text = try String(contentsOf: url, encoding: .utf8)
            #expect(text.contains(from))
            try Data(text.replacingOccurrences(of: from, with: to).utf8).write(to: url)
        }
        let first = try #require(try sidecars("shard-1").first)
        let second = try #require(try sidecars("shard-2").first)
        // Int64.max comments in a thread of each shard: the index's sum used to trap (SIGILL).
        try edit(first, #""comments": 2,"#, #""comments": 9223372036854775807,"#)
        try edit(second, #""comments": 2,"#, #""comments": 9223372036854775807,"#)
        let huge = try cli.run(["merge", "shard-1", "shard-2", "shard-3", "-o", "merged"], in: folder)
        #expect(huge.status == 1, "\(huge.err)")
        #expect(
            huge.err.contains(
                "\(first):16:17: error: $.stats.comments: expected a count from 0 to 1099511627776, found the number 9223372036854775807, as in a thread.json that 'threadfold build' writes\n"),
            "\(huge.err)")
        #expect(huge.err.contains("\(second):16:17: error: $.stats.comments: expected a count from 0 to 1099511627776, found the number 9223372036854775807"), "\(huge.err)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("merged").path))

        try edit(first, #""comments": 9223372036854775807,"#, #""comments": 2,"#)
        try edit(second, #""comments": 9223372036854775807,"#, #""comments": 2,"#)
        try edit(first, #""levels": 2,"#, #""levels": -1,"#)
        try edit(second, "\"depthHistogram\": [\n      1,", "\"depthHistogram\": [\n      1099511627777,")
        let bad = try cli.run(["merge", "shard-1", "shard-2", "shard-3", "-o", "merged"], in: folder)
        #expect(bad.status == 1, "\(bad.err)")
        #expect(bad.err.contains("\(first):19:15: error: $.stats.levels: expected a count from 0 to 1099511627776, found the number -1"), "\(bad.err)")
        #expect(bad.err.contains("error: $.stats.depthHistogram[0]: expected a count from 0 to 1099511627776, found the number 1099511627777"), "\(bad.err)")

        try edit(first, #""levels": -1,"#, #""levels": 2,"#)
        try edit(second, "\"depthHistogram\": [\n      1099511627777,", "\"depthHistogram\": [\n      1,")
        let fixed = try cli.run(["merge", "shard-1", "shard-2", "shard-3", "-o", "merged"], in: folder)
        #expect(fixed.status == 0, "\(fixed.err)")
    }

    @Test("shards built separately and merged equal one build")
    func shardsAndMerge() throws {
        let folder = try cli.temporaryFolder()
        let lines = (0..<12).map { thread("s\($0)", day: $0) }.joined(separator: "\n")
        let input = try cli.write(lines, "all.jsonl", in: folder)
        #expect(try cli.run(["build", input, "-o", "whole", "-q"], in: folder).status == 0)
        for k in 1...3 {
            let run = try cli.run(["build", input, "-o", "shard-\(k)", "--shard", "\(k)/3"], in: folder)
            #expect(run.status == 0 && run.out.contains("left to other shards"))
        }
        let merged = try cli.run(["merge", "shard-1", "shard-2", "shard-3", "-o", "merged"], in: folder)
        #expect(merged.status == 0, "\(merged.err)")
        #expect(merged.out.contains("Built 12 threads"))
        let diff = try ExternalDiff.run(folder.appendingPathComponent("whole").path, folder.appendingPathComponent("merged").path)
        #expect(diff.isEmpty, "\(diff)")
        let notShard = try cli.run(["merge", "whole", "-o", "again"], in: folder)
        #expect(notShard.status == 1 && notShard.err.contains("is not a shard folder"))
    }

    @Test(
        "--precompress: a .gz and a .br beside every text file, which gzip and brotli decode; counted as files; merge --precompress equals build --precompress",
        .enabled(if: ExternalTools.runs(when: SiblingCheck.hasBrotli)))
    func precompress() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = (0..<12).map { thread("z\($0)", day: $0) }.joined(separator: "\n")
        let input = try cli.write(lines, "all.jsonl", in: folder)
        let built = try cli.run(["build", input, "-o", "whole", "--precompress", "--no-fsync", "--report", "r.json"], in: folder)
        #expect(built.status == 0, "\(built.err)")
        let whole = folder.appendingPathComponent("whole")
        let files = try ExternalDiff.snapshot(whole.path)
        for path in ["index.html", "atom.xml", "threadfold.css", "threadfold.js", "t/thread-z3-z3/index.html", "t/thread-z3-z3/thread.json"] {
            #expect(files[path + ".gz"] != nil && files[path + ".br"] != nil, "\(path)")
        }
        #expect(built.out.contains("\(files.count) files written, 0 unchanged"), "\(built.out)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("r.json"))) as? [String: Any])
        #expect(json["filesWritten"] as? Int == files.count && json["pagesWritten"] as? Int == files.keys.filter { $0.hasSuffix(".html") }.count)
        try #require(SiblingCheck.hasBrotli, "the brotli command is missing: apt-get install brotli (make test-deps installs it)")
        let check = SiblingCheck.check(whole)
        #expect(check.problems.isEmpty && check.missing.isEmpty, "\(check.problems) \(check.missing)")
        #expect(check.checked == files.keys.filter { $0.hasSuffix(".gz") || $0.hasSuffix(".br") }.count)

        for k in 1...3 {
            #expect(try cli.run(["build", input, "-o", "shard-\(k)", "--shard", "\(k)/3", "--precompress", "-q"], in: folder).status == 0)
        }
        let merged = try cli.run(["merge", "shard-1", "shard-2", "shard-3", "-o", "merged", "--precompress"], in: folder)
        #expect(merged.status == 0, "\(merged.err)")
        let diff = try ExternalDiff.run(whole.path, folder.appendingPathComponent("merged").path)
        #expect(diff.isEmpty, "\(diff)")
        for command in ["build", "merge"] {
            #expect(try cli.run(["help", command]).out.contains("--precompress"), "\(command)")
        }
    }

    @Test("preview builds into a temporary folder, prints the file:// URL and opens it with $BROWSER")
    func preview() throws {
        let folder = try cli.temporaryFolder()
        let input = try cli.write(thread("p"), "p.json", in: folder)
        let log = folder.appendingPathComponent("opened.txt").path
        let browser = try cli.write("#!/bin/sh\necho \"$1\" > \(log)\n", "browser.sh", in: folder)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: browser)
        let run = try cli.run(["preview", input], in: folder, environment: ["BROWSER": browser, "TMPDIR": folder.path, "XDG_RUNTIME_DIR": ""])
        #expect(run.status == 0, "\(run.err)")
        let url = try #require(run.out.components(separatedBy: "Preview: ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(url.hasPrefix("file://" + folder.path) && url.hasSuffix("/t/thread-p-p/index.html"))
        var opened = ""
        for _ in 0..<50 where opened.isEmpty {
            opened = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            usleep(100_000)
        }
        #expect(opened.trimmingCharacters(in: .whitespacesAndNewlines) == url)
        #expect(FileManager.default.fileExists(atPath: URL(string: url)!.path))

        let example = try cli.run(["preview", "--no-open", "--example"], in: folder, environment: ["TMPDIR": folder.path, "BROWSER": "/bin/false", "XDG_RUNTIME_DIR": ""])
        #expect(example.status == 0 && example.out.contains("Preview: file://"))
    }

    /// Names and bytes of every file under `folder`, links listed by their target, never followed.
    func snapshot(_ folder: URL) -> [String: String] {
        var out: [String: String] = [:]
        for name in (FileManager.default.subpaths(atPath: folder.path) ?? []) {
            let path = folder.appendingPathComponent(name).path
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
                out[name] = "-> " + target
                continue
            }
            out[name] = FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? "dir"
        }
        return out
    }

    @Test(
        "preview refuses a planted preview folder of another user and leaves the victim's files alone",
        .enabled(if: getuid() == 0, "needs root, to make a folder owned by another user (chown 65534)"))
    func previewPlantedFolder() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try cli.write(thread("p"), "p.json", in: folder)
        let victim = folder.appendingPathComponent("victim")
        try FileManager.default.createDirectory(at: victim, withIntermediateDirectories: true)
        _ = try cli.write("precious", "victim/notes.txt", in: folder)
        _ = try cli.write("{}", "victim/.threadfold", in: folder)
        let before = snapshot(victim)
        let tmp = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        // What another user can pre-create: the private parent's name, and the old per-input
        // name, each 0777 and theirs, holding a site with Threadfold's marker, a planted manifest
        // and links to the victim's folder (as the site, a spare and an entry).
        let key = StableHash.hex(StableHash.content(Array(input.utf8)))
        let parent = tmp.appendingPathComponent("threadfold-preview-\(getuid())")
        var planted: [URL] = []
        for base in [parent.appendingPathComponent(key), tmp.appendingPathComponent("threadfold-preview-\(getuid())-\(key)")] {
            let site = base.appendingPathComponent("site")
            try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: site.appendingPathComponent(".threadfold"))
            try Data(#"{"version": 1, "units": [], "files": ["notes.txt", "v/notes.txt"]}"#.utf8).write(to: site.appendingPathComponent(".threadfold-manifest.json"))
            try FileManager.default.createSymbolicLink(at: site.appendingPathComponent("v"), withDestinationURL: victim)
            try FileManager.default.createSymbolicLink(at: base.appendingPathComponent(".site.spare"), withDestinationURL: victim)
            planted.append(base)
        }
        for url in [parent, parent.appendingPathComponent(key), planted[1]] + planted.map({ $0.appendingPathComponent("site") }) {
            #expect(chmod(url.path, 0o777) == 0 && chown(url.path, 65534, 65534) == 0)
        }
        let run = try cli.run(
            ["preview", "--no-open", input], in: folder,
            environment: ["TMPDIR": tmp.path, "XDG_RUNTIME_DIR": "", "BROWSER": "/bin/false"])
        #expect(run.status == 0, "\(run.err)")
        #expect(
            run.err.contains("warning: refusing the preview folder \(parent.path): it is owned by uid 65534, not \(getuid()); expected a directory owned by uid \(getuid()) with mode 0700"),
            "\(run.err)")
        let url = try #require(URL(string: run.out.components(separatedBy: "Preview: ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""))
        #expect(!url.path.hasPrefix(parent.path + "/") && !url.path.hasPrefix(planted[1].path))
        #expect(url.path.hasPrefix(tmp.path + "/threadfold-preview-") && FileManager.default.fileExists(atPath: url.path))
        #expect(snapshot(victim) == before)
        #expect(FileManager.default.fileExists(atPath: planted[0].appendingPathComponent("site/.threadfold-manifest.json").path))
    }

    @Test("preview builds in a private 0700 folder, reuses it, and removes previews older than a day without following links")
    func previewPrivateFolder() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try cli.write(thread("p"), "p.json", in: folder)
        let tmp = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        let environment = ["TMPDIR": tmp.path, "XDG_RUNTIME_DIR": "", "BROWSER": "/bin/false"]
        let first = try cli.run(["preview", "--no-open", input], in: folder, environment: environment)
        #expect(first.status == 0 && first.err.isEmpty, "\(first.err)")
        let parent = tmp.appendingPathComponent("threadfold-preview-\(getuid())")
        #expect(first.out.contains("Preview: file://\(parent.path)/"))
        var info = stat()
        #expect(lstat(parent.path, &info) == 0 && info.st_mode & 0o777 == 0o700 && info.st_uid == getuid())

        // A stale preview holding a link to a victim's folder, an old link, and a fresh preview.
        let victim = folder.appendingPathComponent("victim")
        try FileManager.default.createDirectory(at: victim, withIntermediateDirectories: true)
        _ = try cli.write("precious", "victim/notes.txt", in: folder)
        let stale = parent.appendingPathComponent("stale")
        try FileManager.default.createDirectory(at: stale.appendingPathComponent("site"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: stale.appendingPathComponent("site/v"), withDestinationURL: victim)
        try FileManager.default.createSymbolicLink(at: parent.appendingPathComponent("old-link"), withDestinationURL: victim)
        let fresh = parent.appendingPathComponent("fresh")
        try FileManager.default.createDirectory(at: fresh, withIntermediateDirectories: true)
        let twoDaysAgo = Date().addingTimeInterval(-2 * 86_400)
        for url in [stale, stale.appendingPathComponent("site")] {
            try FileManager.default.setAttributes([.modificationDate: twoDaysAgo], ofItemAtPath: url.path)
        }
        var times = [timespec(tv_sec: Int(twoDaysAgo.timeIntervalSince1970), tv_nsec: 0), timespec(tv_sec: Int(twoDaysAgo.timeIntervalSince1970), tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, parent.appendingPathComponent("old-link").path, &times, AT_SYMLINK_NOFOLLOW) == 0)

        let second = try cli.run(["preview", "--no-open", input], in: folder, environment: environment)
        #expect(second.status == 0 && second.err.isEmpty, "\(second.err)")
        #expect(second.out == first.out, "the same inputs reuse the same folder")
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        #expect(FileManager.default.fileExists(atPath: fresh.path))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: parent.appendingPathComponent("old-link").path)) == victim.path)
        #expect(FileManager.default.contents(atPath: victim.appendingPathComponent("notes.txt").path) == Data("precious".utf8))
    }

    @Test("incremental builds that recycle the spare hold one descriptor per folder level: 600 threads build under a limit of 256 open files")
    func fewDescriptors() throws {
        let folder = try cli.temporaryFolder()
        let lines = (0..<600).map { thread("f\($0)", day: $0 % 30).replacingOccurrences(of: "\n", with: " ") }
        _ = try cli.write(lines.joined(separator: "\n") + "\n", "many.jsonl", in: folder)
        for round in 0..<3 {
            let run = try cli.run(
                ["-c", "ulimit -n 256 && exec \"$0\" build many.jsonl -o site -q --incremental --no-fsync", CLITests.binary.path],
                in: folder, executable: URL(fileURLWithPath: "/bin/sh"))
            #expect(run.status == 0, "round \(round): \(run.err)")
        }
    }

    @Test("preview --watch renders again when the input changes")
    func watch() throws {
        let folder = try cli.temporaryFolder()
        let input = try cli.write(thread("w"), "w.json", in: folder)
        let process = Process()
        process.executableURL = CLITests.binary
        process.arguments = ["preview", "--watch", "--no-open", input]
        process.currentDirectoryURL = folder
        process.environment = ["TMPDIR": folder.path, "PATH": "/usr/bin:/bin"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // SIGKILL: a test runner may block SIGTERM for the processes it starts.
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        // The first render: wait for the URL.
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while !text.contains("\n") && Date() < deadline {
            text += String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        }
        let url = try #require(URL(string: text.components(separatedBy: "Preview: ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""))
        #expect(!((try? String(contentsOf: url, encoding: .utf8)) ?? "").contains("Changed body"))
        sleep(1)
        _ = try cli.write(thread("w").replacingOccurrences(of: "\"hi\"", with: "\"Changed body\""), "w.json", in: folder)
        var changed = false
        let until = Date().addingTimeInterval(30)
        while !changed && Date() < until {
            usleep(200_000)
            changed = ((try? String(contentsOf: url, encoding: .utf8)) ?? "").contains("Changed body")
        }
        #expect(changed, "the page was rendered again")
        #expect(process.isRunning)
    }

    @Test(
        "--search-timeout takes seconds or a number with s, m or h, on build and merge; anything else is a usage error naming it",
        arguments: [
            ("600", 600.0 as Double?), ("90s", 90), ("10m", 600), ("1.5h", 5400), ("0.5", 0.5),
            ("0", nil), ("-5s", nil), ("10x", nil), ("m", nil), ("nan", nil), ("8d", nil), (" 9s", nil), ("9999999h", nil),
        ])
    func searchTimeout(_ text: String, _ seconds: Double?) throws {
        for options in [BuildCommand.command.options, MergeCommand.command.options] {
            let parsed = try parseArguments(["--search-timeout", text, "in"], specs: options)
            if let seconds {
                #expect(try BuildCommand.searchTimeout(parsed) == seconds)
            } else {
                let error = try #require(throws: ThreadfoldError.self) { try BuildCommand.searchTimeout(parsed) }
                #expect(error.message.hasPrefix("'--search-timeout' must be a duration above 0 and at most a week"))
            }
        }
        #expect(try BuildCommand.searchTimeout(parseArguments(["in"], specs: BuildCommand.command.options)) == 600)
        #expect(BuildCommand.command.help.contains("--search-timeout <duration>") && MergeCommand.command.help.contains("--search-timeout"))
    }

    @Test("attack: a theme's link to a secret file, an asset named index.html and a recursive template are each one message naming the theme's file; nothing is published")
    func themeMessages() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try cli.write((0..<4).map { thread("x\($0)", day: $0) }.joined(separator: "\n"), "all.jsonl", in: folder)
        let shadow = try cli.write("root:SHADOW-SECRET:19000::::::\n", "shadow", in: folder)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("assets"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("assets/theme.css").path, withDestinationPath: shadow)
        let linked = try cli.run(["build", "all.jsonl", "-o", "site", "--assets", "assets"], in: folder)
        #expect(linked.status == 1)
        #expect(
            linked.err.hasPrefix("assets/theme.css: error: is a symbolic link (to \(shadow)); expected a regular file or folder (links in the assets folder are never followed)\n"), "\(linked.err)")
        try FileManager.default.removeItem(atPath: folder.appendingPathComponent("assets/theme.css").path)

        _ = try cli.write("<p>mine</p>", "assets/index.html", in: folder)
        let clash = try cli.run(["build", "all.jsonl", "-o", "site", "--assets", "assets"], in: folder)
        #expect(clash.status == 1)
        #expect(clash.err.hasPrefix("assets/index.html: error: would overwrite the page index.html; expected an asset name no page uses\n"), "\(clash.err)")
        #expect(!clash.err.contains("staging"))

        try FileManager.default.createDirectory(at: folder.appendingPathComponent("tpl"), withIntermediateDirectories: true)
        _ = try cli.write("<html>\n{{>page}}", "tpl/page.mustache", in: folder)
        let recursion = try cli.run(["build", "all.jsonl", "-o", "site", "--templates", "tpl"], in: folder)
        #expect(recursion.status == 1)
        let lines = recursion.err.split(separator: "\n")
        #expect(lines.first == "tpl/page.mustache:2:1: error: partial recursion: '{{>page}}' nests partials more than 500 deep; expected the recursion to end")
        #expect(lines.filter { $0.contains("error:") }.count == 1, "once, not once per thread: \(recursion.err)")
        #expect(!recursion.err.contains("all.jsonl"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("site").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy { !$0.contains("staging") })
    }
}

/// Text written from any thread, collected.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var parts: [String] = []
    func add(_ text: String) {
        lock.lock()
        parts.append(text)
        lock.unlock()
    }
    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return parts.joined()
    }
}

/// `diff -r` of two folders, ignoring Threadfold's hidden bookkeeping; empty when equal.
enum ExternalDiff {
    /// Every file under `folder` (hidden bookkeeping left out) with its bytes.
    static func snapshot(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return files }
        while let relative = walker.nextObject() as? String {
            guard !relative.hasPrefix(".threadfold") else { continue }
            var isDirectory: ObjCBool = false
            let path = folder + "/" + relative
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[relative] = FileManager.default.contents(atPath: path)
            }
        }
        return files
    }

    static func run(_ a: String, _ b: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/diff")
        process.arguments = ["-r", "-x", ".threadfold*", a, b]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
