import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

/// `check` reads dumps as a build does: streamed through a temporary spill, joined by thread,
/// counted without rendering.
@Suite("Dump checks")
struct DumpCheckTests {
    static func check(
        _ inputs: [String], in folder: URL, options: ImportOptions = ImportOptions(), jobs: Int = 2,
        each: Bool = false, perKind: Int = 10
    ) throws -> DumpCheck.Report {
        let units = try ArchiveInput.units(inputs, readStandardInput: { [] }, dumpForm: ArchiveInput.dumps(options))
        var check = DumpCheck(units: units, importing: options, jobs: jobs)
        check.temporaryDirectory = folder.path
        check.eachThread = each
        check.messagesPerKind = perKind
        #expect(check.files.count == inputs.count, "every input is a dump")
        let report = check.run()
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("threadfold-spill-") }
        #expect(left.isEmpty, "no temporary folder is left: \(left)")
        return report
    }

    /// Everything a report says, as text, to compare two.
    static func text(_ report: DumpCheck.Report) -> String {
        var lines = ["\(report.counts) \(report.lines) \(report.skippedLines) \(report.skippedComments) \(report.moreErrors) \(report.moreWarnings)"]
        lines += report.errors.map(\.description) + report.warnings.map(\.description)
        for thread in report.threads {
            lines.append("\(thread.source) \(thread.id ?? "-") \(thread.counts)")
            lines += thread.warnings.map(\.description)
        }
        return lines.joined(separator: "\n")
    }

    @Test("submissions and comments are checked joined: the threads and comments a build publishes, each submission with its comments")
    func join() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = try DumpBuildTests.sample(in: folder)
        let built = try ArchiveFixture.build(inputs, in: folder)
        #expect(built.errors.isEmpty)
        let report = try Self.check(inputs, in: folder, each: true)
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.counts.threads == built.threads && report.counts.comments == built.comments)
        #expect(report.counts.deletedLeftOut == built.warnings.count { $0.kind == "omittedDeleted" })
        // Each submission is its thread's first record, with the comments of its link id.
        let submissions = try DumpBuildTests.lines("RS_sample.jsonl")
        let comments = try DumpBuildTests.lines("RC_sample.jsonl")
        #expect(report.threads.count == submissions.count + 1)
        for (k, submission) in submissions.enumerated() {
            let id = submission["id"] as! String
            let thread = try #require(report.threads.first { $0.id == id })
            #expect(thread.source == inputs[0] + ":\(k + 1)")
            #expect(thread.counts.records == comments.count { $0["link_id"] as? String == "t3_" + id })
        }
        // The thread whose submission is missing is named by its first comment.
        let orphaned = try #require(report.threads.last)
        #expect(orphaned.source.hasPrefix(inputs[1] + ":"))
        #expect(report.threads.map(\.source) == report.threads.sorted { $0.order.lexicographicallyPrecedes($1.order) }.map(\.source))
        #expect(report.counts.records == comments.count)
    }

    @Test("the report does not depend on jobs, whatever the messages", arguments: [false, true])
    func jobs(_ each: Bool) throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var lines = try TestData.lines("dumps/RC_sample.jsonl")
        lines[5] = "not json"
        lines.append(lines[30])  // a duplicate id, warned of with allowDuplicates
        let dump = try ArchiveFixture.write(lines.joined(separator: "\n") + "\n", "RC_jobs.jsonl", in: folder)
        var options = ImportOptions()
        options.lenient = true
        let inputs = [dump] + (try DumpBuildTests.sample(in: folder)).prefix(1)
        let one = try Self.check(inputs, in: folder, options: options, jobs: 1, each: each, perKind: 3)
        let two = try Self.check(inputs, in: folder, options: options, jobs: 2, each: each, perKind: 3)
        #expect(!one.errors.isEmpty, "a duplicate id is an error")
        #expect(Self.text(one) == Self.text(two))
    }

    @Test("messages name each dump's own line and element, in the dumps' order; only the first of each kind are kept, the rest counted")
    func messages() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var lines = try TestData.lines("dumps/RC_sample.jsonl")
        lines[9] = #"{"id": "x1", "link_id": 5, "parent_id": "t3_a"}"#
        lines[19] = #"{"id": "x2", broken"#
        lines.insert("", at: 30)
        lines[50] = #"{"id": "x3", "body": "no thread"}"#
        let bad = try ArchiveFixture.write(lines.joined(separator: "\n") + "\n", "RC_bad.jsonl", in: folder)
        let failed = try Self.check([bad], in: folder)
        #expect(failed.errors.map(\.line) == [10, 20, 51])
        #expect(failed.errors.allSatisfy { $0.file == bad })
        #expect(failed.errors[0].path == "$[9].link_id" && failed.errors[2].path == "$[49]")
        #expect(failed.counts.threads == 0, "a dump that cannot be read is not counted")

        // Warnings from threads, over both files, at their lines: all of them, or the first few of each kind.
        let inputs = try DumpBuildTests.sample(in: folder)
        let all = try Self.check(inputs, in: folder, each: true)
        let every = all.threads.flatMap(\.warnings)
        let comments = try DumpBuildTests.lines("RC_sample.jsonl")
        #expect(every.count == all.counts.deletedLeftOut && every.count > 5)
        for warning in every {
            let line = try #require(warning.line)
            #expect(warning.file == inputs[1] && warning.path == "$[\(line - 1)]")
            #expect(["[deleted]", "[removed]"].contains(comments[line - 1]["body"] as? String), "line \(line)")
        }
        let first = try Self.check(inputs, in: folder, perKind: 4)
        #expect(first.threads.isEmpty)
        #expect(first.warnings.map { $0.line! } == Array(every.map { $0.line! }.sorted().prefix(4)))
        #expect(first.warnings.count + first.moreWarnings == every.count)
    }

    @Test("with lenient, lines that are not records are skipped and counted; past the share allowed the dump is refused")
    func lenient() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = try TestData.lines("dumps/RC_sample.jsonl")
        let dump = try ArchiveFixture.write(try TestData.commentDumpWithBadLines(), "RC_some.jsonl", in: folder)
        var options = ImportOptions()
        options.lenient = true
        let report = try Self.check([dump], in: folder, options: options)
        #expect(report.errors.isEmpty)
        #expect(report.lines == lines.count && report.skippedLines == 2 && report.counts.records == lines.count - 2)
        #expect(report.warnings.filter { $0.kind == "skippedLine" }.map(\.line) == [4, 8])
        #expect(try Self.check([dump], in: folder).errors.map(\.line) == [4, 8], "without lenient they are errors")

        let mostlyBad = try ArchiveFixture.write((lines.prefix(3) + Array(repeating: "{\"x\": 1}", count: 10)).joined(separator: "\n"), "RC_bad.jsonl", in: folder)
        let refused = try Self.check([mostlyBad], in: folder, options: options)
        #expect(refused.errors.count == 1 && refused.errors[0].message.contains("10 of its 13 lines"), "\(refused.errors)")
    }

    @Test("a dump cut short is an error naming it, and no temporary folder is left")
    func damaged() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Long enough that its first lines come out before the cut.
        let text =
            (0..<3_000).map { i in
                #"{"id": "c\#(i)", "link_id": "t3_\#(i % 40)", "parent_id": "t3_\#(i % 40)", "author": "u\#(i % 7)", "body": "comment \#(i) \#(String(repeating: "words ", count: i % 50))", "created_utc": \#(1_700_000_000 + i)}"#
            }.joined(separator: "\n") + "\n"
        let compressed = ZstdFrame.stored(Array(text.utf8))
        let cut = folder.appendingPathComponent("RC_cut.zst").path
        try Data(compressed.prefix(compressed.count * 2 / 3)).write(to: URL(fileURLWithPath: cut))
        let report = try Self.check([cut], in: folder)
        #expect(report.errors.contains { $0.file == cut && $0.message.contains("ends in the middle of a zstd frame") }, "\(report.errors)")
        #expect(report.counts.threads == 0)
    }

    @Test("Hacker News items are checked by story, as a build reads them")
    func hackerNews() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let items = [
            #"{"id": 1, "type": "story", "by": "pg", "time": 1160418111, "title": "Y Combinator"}"#,
            #"{"id": 15, "type": "comment", "by": "sama", "parent": 1, "time": 1160423461, "text": "First"}"#,
            #"{"id": 17, "type": "comment", "by": "pg", "parent": 16, "time": 1160423500, "text": "Reply to a later line"}"#,
            #"{"id": 16, "type": "comment", "by": "jl", "parent": 15, "time": 1160423495, "text": "Second"}"#,
            #"{"id": 30, "type": "comment", "by": "y", "parent": 999, "time": 1160423700, "text": "Its story is not here"}"#,
        ]
        let dump = try ArchiveFixture.write(items.joined(separator: "\n") + "\n", "items.jsonl", in: folder)
        let report = try Self.check([dump], in: folder, each: true)
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.threads.map(\.id) == ["1", "999"])
        #expect(report.threads[0].counts.comments == 3 && report.threads[0].counts.levels == 3)
    }
}
