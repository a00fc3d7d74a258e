import Foundation
import TestSupport
import Testing

@testable import ThreadfoldCLI

/// `threadfold check` on dumps, as a process: read as `build` reads them, streamed through a
/// temporary folder (`$TMPDIR`) that is gone however the check ends.
@Suite("threadfold check of dumps")
struct CheckCommandTests {
    let cli = CLITests()

    /// The sample subreddit's submissions and comments, written into `folder`.
    func sample(in folder: URL) throws -> [String] {
        try ["RS_sample.jsonl.gz", "RC_sample.zst"].map { name in
            let path = folder.appendingPathComponent(name).path
            try Data(TestData.bytes("dumps/" + name)).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    /// Runs `check` with its temporary folder in `folder/tmp`, and expects nothing left there.
    func check(_ arguments: [String], in folder: URL) throws -> CLITests.Run {
        let temporary = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let run = try cli.run(["check"] + arguments, in: folder, environment: ["TMPDIR": temporary.path])
        #expect(cli.files(temporary).isEmpty, "nothing is left in the temporary folder: \(cli.files(temporary))")
        return run
    }

    @Test("RS and RC dumps are checked together: the threads and comments build publishes, each submission joined to its comments")
    func joined() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dumps = try sample(in: folder)
        let checked = try check(dumps, in: folder)
        #expect(checked.status == 0, "\(checked.err)")
        let lines = checked.out.split(separator: "\n")
        #expect(lines.count == 2, "\(checked.out)")
        let label = "\(dumps[0]) + \(dumps[1])"
        #expect(lines[0].hasPrefix("\(label): ok: 13 threads, 145 comments; at most "), "\(lines[0])")
        #expect(lines[0].hasSuffix(" deleted comments left out (--all lists each thread)"))
        #expect(
            lines[1].hasPrefix("\(label): read as a Reddit dump (comments with link_id, or submissions): ")
                && lines[1].contains(" of 161 comments with a body"))
        #expect(checked.err.contains("\(dumps[0]): note: read as a Reddit dump (comments with link_id, or submissions); --from reddit says so explicitly"))
        let built = try cli.run(["build", "-q", "--no-fsync", "-o", "site"] + dumps, in: folder)
        let summary = try cli.run(["build", "--no-fsync", "-o", "site"] + dumps, in: folder)
        #expect(built.status == 0 && summary.out.hasPrefix("Built 13 threads (145 comments)"), "\(summary.out)")

        // --all: each thread, named by its first record: a submission, so its comments are joined to it.
        let all = try check(["--all"] + dumps, in: folder)
        #expect(all.status == 0)
        let each = all.out.split(separator: "\n").dropLast(2)
        #expect(each.count == 26)
        #expect(each.filter { $0.hasPrefix(dumps[0] + ":") }.count == 24, "12 submissions with their comments")
        #expect(each.first!.hasPrefix("\(dumps[0]):1 (thread ") && each.first!.contains(": ok: 12 comments"), "\(each.first!)")
        #expect(all.out.split(separator: "\n").suffix(2).first!.hasSuffix("left out"), "no hint to --all when it was given")
        #expect(!all.err.contains("more warnings like these"))
    }

    @Test("--jobs 1 and --jobs 2 print the same bytes")
    func jobs() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dumps = try sample(in: folder)
        for flags in [[], ["--all"]] {
            let one = try check(flags + ["--jobs", "1"] + dumps, in: folder)
            let two = try check(flags + ["-j", "2"] + dumps, in: folder)
            #expect(one.status == 0 && two.status == 0)
            #expect(one.out == two.out && one.err == two.err)
        }
    }

    @Test("messages name the dump's own lines; --lenient skips bad lines and counts them; errors exit 1")
    func messages() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dump = try cli.write(try TestData.commentDumpWithBadLines(), "RC_some.jsonl", in: folder)
        let failed = try check([dump], in: folder)
        #expect(failed.status == 1)
        #expect(failed.out.isEmpty)
        #expect(failed.err.contains("\(dump):4:1: error: found 'n'; expected a JSON value"), "\(failed.err)")
        #expect(failed.err.contains("\(dump):8:1: error: $[7]: expected a Reddit comment (with link_id) or submission"))

        let lenient = try check([dump, "--lenient"], in: folder)
        #expect(lenient.status == 0, "\(lenient.err)")
        #expect(lenient.out.contains(": 136 of 159 comments with a body, 141 with an author, 159 with a time; 2 of 161 lines skipped (--lenient)\n"), "\(lenient.out)")
        #expect(lenient.err.contains("\(dump):4:1: warning: found 'n'") && lenient.err.contains("the line was skipped (--lenient)"))
        // Warnings about threads are at the dump's lines too, in its order: at most 10 of each kind.
        let warned = lenient.err.split(separator: "\n").compactMap { line -> Int? in
            guard line.hasPrefix(dump + ":"), line.contains(": warning: ") || line.contains(": note: ") else { return nil }
            return Int(line.dropFirst(dump.count + 1).prefix { $0 != ":" })
        }
        #expect(warned.count == 12 && warned == warned.sorted() && warned.prefix(3) == [4, 8, 22], "\(warned)")
        #expect(lenient.err.contains("more warnings like these; 'threadfold check --all' with the same dumps lists every one"))

        // A duplicate id across two dumps of one subreddit is an error at its line, as in a build.
        let again = try cli.write(try TestData.lines("dumps/RC_sample.jsonl")[20] + "\n", "RC_again.jsonl", in: folder)
        let duplicate = try check([dump, again, "--lenient"], in: folder)
        #expect(duplicate.status == 1)
        #expect(duplicate.err.contains("\(again):1:"), "\(duplicate.err)")
        #expect(try check([dump, again, "--lenient", "--allow-duplicates"], in: folder).status == 0)
    }

    @Test("a .zst dump cut short is an error naming it, exit 1, nothing left in the temporary folder", arguments: [true, false])
    func truncated(_ streamed: Bool) throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes: [UInt8]
        if streamed {
            // Many blocks: its first lines come out, and it is checked as a dump until the cut.
            let text =
                (0..<3_000).map { i in
                    #"{"id": "c\#(i)", "link_id": "t3_\#(i % 40)", "parent_id": "t3_\#(i % 40)", "author": "u\#(i % 7)", "body": "comment \#(i)", "created_utc": \#(1_700_000_000 + i)}"#
                }.joined(separator: "\n") + "\n"
            bytes = ZstdFrame.stored(Array(text.utf8))
        } else {
            bytes = try TestData.bytes("dumps/RC_sample.zst")
        }
        let cut = folder.appendingPathComponent("RC_cut.zst").path
        try Data(bytes.prefix(bytes.count * 2 / 3)).write(to: URL(fileURLWithPath: cut))
        let run = try check([cut, "--jobs", "2"], in: folder)
        #expect(run.status == 1)
        #expect(run.out.isEmpty)
        #expect(run.err.contains("\(cut): error: ends in the middle of a zstd frame"), "\(run.err)")
        #expect(run.err.contains("note: read as a Reddit dump") == streamed)
    }

    @Test("other inputs are checked as before, each on its own, beside the dumps checked together")
    func mixed() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dumps = try sample(in: folder)
        let thread = try cli.write(#"[{"id": "a", "author": "x"}, {"id": "b", "parent_id": "gone"}]"#, "thread.json", in: folder)
        let run = try check([thread, dumps[0], "missing.json", dumps[1]], in: folder)
        #expect(run.status == 1, "the missing file")
        let lines = run.out.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("\(thread): ok: 2 comments, 1 person, 1 level; 1 orphan"))
        #expect(lines[2].hasPrefix("\(dumps[0]) + \(dumps[1]): ok: 13 threads, 145 comments"))
        #expect(run.err.contains("missing.json: error: no such file"))
    }

    @Test("--thread-key checks a list of comments by thread, as build reads it")
    func threadKey() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let comments = (0..<40).map { i in
            #"{"id": "c\#(i)", "story": \#(i % 4), "parent_id": \#(i < 4 ? "null" : "\"c\(i - 4)\""), "author": "a\#(i % 3)", "body": "hi \#(i)", "created_at": \#(1_700_000_000 + i)}"#
        }
        let path = try cli.write(comments.joined(separator: "\n") + "\n", "comments.jsonl", in: folder)
        let run = try check([path, "--thread-key", "story"], in: folder)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.hasPrefix("\(path): ok: 4 threads, 40 comments; at most 3 people and 10 levels in one thread;"), "\(run.out)")
        #expect(run.out.contains("read as comments through the field mapping: 40 of 40 comments with a body"))
        #expect(try cli.run(["check", path, "--thread-title-key", "t"]).status == 64)
    }

    @Test("one of a kind is said in the singular: 1 more warning, 1 byte")
    func singular() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Eleven orphans: ten are shown, one is counted.
        let comments = (0..<11).map { #"{"id": "c\#($0)", "parent_id": "x\#($0)", "author": "a", "body": "b", "created_at": \#(1_700_000_000 + $0)}"# }
        let path = try cli.write(#"{"id": "t", "title": "T", "comments": [\#(comments.joined(separator: ", "))]}"#, "orphans.json", in: folder)
        let run = try cli.run(["check", path])
        #expect(run.err.contains("\(path): note: 1 more warning like these; 'threadfold check --all \(path)' lists every one"), "\(run.err)")
        // One blank line, compressed.
        let blank = folder.appendingPathComponent("blank.json.gz")
        try Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xE3, 0x02, 0x00, 0x93, 0x06, 0xD7, 0x32, 0x01, 0x00, 0x00, 0x00]).write(to: blank)
        let empty = try cli.run(["check", blank.path])
        #expect(empty.status == 1)
        #expect(empty.err.contains("the file is empty (1 byte of blank lines once decompressed)"), "\(empty.err)")
    }
}
