import Foundation
import TestSupport
import Testing

@testable import ThreadfoldCLI

/// `threadfold render` on dumps, as a process: read together as `build` reads them, streamed
/// through a temporary folder (`$TMPDIR`) that is gone however the render ends; a page a thread.
@Suite("threadfold render of dumps")
struct RenderCommandTests {
    let cli = CLITests()

    /// Runs `render` with its temporary folder in `folder/tmp`, and expects nothing left there.
    func render(_ arguments: [String], in folder: URL) throws -> CLITests.Run {
        let temporary = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let run = try cli.run(["render", "--no-fsync"] + arguments, in: folder, environment: ["TMPDIR": temporary.path])
        #expect(cli.files(temporary).isEmpty, "nothing is left in the temporary folder: \(cli.files(temporary))")
        return run
    }

    @Test("RS and RC dumps render together: a page a thread, each submission joined to its comments, named after the dump of its first line")
    func joined() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dumps = try CheckCommandTests().sample(in: folder)
        let run = try render(["-o", "site"] + dumps, in: folder)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.hasPrefix("Rendered 13 threads (145 comments) into site/\n"), "\(run.out)")
        let pages = cli.files(folder.appendingPathComponent("site")).filter { $0.hasSuffix(".html") }.sorted()
        #expect(pages.count == 13)
        #expect(pages.filter { $0.hasPrefix("rs-sample-") }.count == 12, "\(pages)")
        #expect(pages.contains("rc-sample-zzz999.html"), "comments without their submission: \(pages)")
        // Listed in the dumps' order: the first submission first.
        let first = try Self.firstSubmissionID()
        #expect(run.out.split(separator: "\n")[1].hasSuffix("/site/rs-sample-\(first).html"), "\(run.out)")
        let page = try String(contentsOf: folder.appendingPathComponent("site/rs-sample-\(first).html"), encoding: .utf8)
        #expect(page.contains("<title>Post 0: "), "the submission's title")

        // Warnings at the dumps' own lines, in their order, ten of each kind, then how many more.
        let warned = run.err.split(separator: "\n").compactMap { line -> Int? in
            guard line.hasPrefix(dumps[1] + ":"), line.contains(": warning: ") || line.contains(": note: ") else { return nil }
            return Int(line.dropFirst(dumps[1].count + 1).prefix { $0 != ":" })
        }
        #expect(warned.count == 10 && warned == warned.sorted(), "\(warned)")
        #expect(run.err.contains("\(dumps[0]) + \(dumps[1]): note: 6 more warnings like these; 'threadfold check --all' with the same dumps lists every one"))
        #expect(run.err.contains("\(dumps[0]): note: read as a Reddit dump"))

        // The same bytes on every run.
        let again = try render(["-q", "-o", "again"] + dumps, in: folder)
        #expect(again.status == 0 && again.out.isEmpty && again.err.isEmpty, "\(again.err)")
        for name in pages {
            #expect(
                FileManager.default.contents(atPath: folder.appendingPathComponent("site/" + name).path)
                    == FileManager.default.contents(atPath: folder.appendingPathComponent("again/" + name).path), "\(name)")
        }
    }

    @Test("a bad line is an error at its line and nothing is written; --lenient renders the rest and says how many lines it skipped")
    func errors() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var lines = try TestData.lines("dumps/RC_sample.jsonl")
        lines[3] = "not json"
        let dump = try cli.write(lines.joined(separator: "\n") + "\n", "RC_some.jsonl", in: folder)
        let failed = try render(["-o", "site", dump], in: folder)
        #expect(failed.status == 1)
        #expect(failed.err.contains("\(dump):4:1: error: found 'n'; expected a JSON value"), "\(failed.err)")
        #expect(failed.err.contains("nothing was written"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("site").path))

        let lenient = try render(["-o", "site", "--lenient", dump], in: folder)
        #expect(lenient.status == 0, "\(lenient.err)")
        #expect(lenient.out.hasPrefix("Rendered 12 threads"), "\(lenient.out)")
        #expect(lenient.err.contains("\(dump): note: 1 of 161 lines skipped (--lenient)"), "\(lenient.err)")
    }

    @Test("a thread file and dumps in one render: each named after its file, a compressed file's name without both suffixes")
    func mixed() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let thread = try cli.write(#"[{"id": "a", "author": "x", "body": "hi"}]"#, "thread.json", in: folder)
        let dump = folder.appendingPathComponent("RC_2024-01.jsonl.zst").path
        try Data(TestData.bytes("dumps/RC_sample.zst")).write(to: URL(fileURLWithPath: dump))
        let run = try render(["-q", "-o", "site", thread, dump], in: folder)
        #expect(run.status == 0, "\(run.err)")
        let pages = cli.files(folder.appendingPathComponent("site")).filter { $0.hasSuffix(".html") }
        #expect(pages.contains("thread.html"))
        #expect(pages.filter { $0.hasPrefix("rc-2024-01-") }.count == 12, "\(pages)")
    }

    @Test("thread files before, between and after the dumps: each read once, the dumps' pages where the first dump is named")
    func threadsAroundDumps() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dumps = try CheckCommandTests().sample(in: folder)
        let before = try cli.write(#"[{"id": "a", "author": "x", "body": "before"}]"#, "before.json", in: folder)
        let between = try cli.write(#"[{"id": "b", "author": "y", "body": "between"}]"#, "between.json", in: folder)
        let after = try cli.write(#"[{"id": "c", "author": "z", "body": "after"}]"#, "after.json", in: folder)
        let run = try render(["-o", "site", before, dumps[0], between, dumps[1], after], in: folder)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.hasPrefix("Rendered 16 threads (148 comments) into site/\n"), "\(run.out)")
        // Listed in the order rendered: the file before the dumps, then the dumps' first submission.
        let listed = run.out.split(separator: "\n").dropFirst().prefix(2).map(String.init)
        #expect(listed.count == 2 && listed[0].hasSuffix("/site/before.html"), "\(run.out)")
        let first = try Self.firstSubmissionID()
        #expect(listed.count == 2 && listed[1].hasSuffix("/site/rs-sample-\(first).html"), "\(run.out)")
        let pages = cli.files(folder.appendingPathComponent("site")).filter { $0.hasSuffix(".html") }
        for name in ["before.html", "between.html", "after.html"] { #expect(pages.contains(name), "\(pages)") }
    }

    /// The id of the sample's first submission.
    static func firstSubmissionID() throws -> String {
        let first = try TestData.bytes("dumps/RS_sample.jsonl").split(separator: 0x0A)[0]
        let object = try JSONSerialization.jsonObject(with: Data(first)) as! [String: Any]
        return object["id"] as! String
    }
}
