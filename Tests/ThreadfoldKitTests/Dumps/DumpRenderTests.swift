import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

/// `render` reads dumps as a build does: streamed through a temporary spill, joined by thread,
/// one standalone page per thread, in an order that follows from the input alone.
@Suite("Dump renders")
struct DumpRenderTests {
    static func render(
        _ inputs: [String], in folder: URL, options: ImportOptions = ImportOptions(), jobs: Int = 2,
        deliver: (DumpRender.Page) throws(ThreadfoldError) -> Void = { _ in }
    ) throws -> DumpRender.Report {
        let units = try ArchiveInput.units(inputs, readStandardInput: { [] }, dumpForm: ArchiveInput.dumps(options))
        var render = DumpRender(units: units, importing: options, jobs: jobs)
        render.temporaryDirectory = folder.path
        #expect(render.files.count == inputs.count, "every input is a dump")
        defer {
            let left = (try? FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("threadfold-spill-") }) ?? []
            #expect(left.isEmpty, "no temporary folder is left: \(left)")
        }
        var rendering = RenderOptions()
        rendering.importing = options
        return try render.run(pipeline: try ThreadPipeline(options: ArchiveOptions(render: rendering)), deliver: deliver)
    }

    /// A thread's page from dump lines of its own: the submission and its comments.
    static func alone(_ submission: String, _ comments: [String], in folder: URL) throws -> DumpRender.Page {
        let rs = folder.appendingPathComponent("RS_one.jsonl").path
        let rc = folder.appendingPathComponent("RC_one.jsonl").path
        try Data((submission + "\n").utf8).write(to: URL(fileURLWithPath: rs))
        try Data((comments.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: rc))
        var pages: [DumpRender.Page] = []
        let report = try render([rs, rc], in: folder) { pages.append($0) }
        #expect(report.errors.isEmpty && pages.count == 1)
        return pages[0]
    }

    @Test("a dump's thread with nothing to show gets no page but a warning at its line; a dump of nothing but such threads fails")
    func emptyThreads() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = [
            #"{"id": "c1", "link_id": "t3_gone", "parent_id": "t3_gone", "author": "[deleted]", "body": "[deleted]", "created_utc": 1700000000}"#,
            #"{"id": "c2", "link_id": "t3_kept", "parent_id": "t3_kept", "author": "ann", "body": "here", "created_utc": 1700000001}"#,
        ]
        let rc = folder.appendingPathComponent("RC_x.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: rc)
        var pages: [DumpRender.Page] = []
        let report = try Self.render([rc.path], in: folder) { pages.append($0) }
        #expect(report.errors.isEmpty && pages.map(\.id) == ["kept"] && report.threads == 1)
        let warning = try #require(report.warnings.first { $0.kind == "emptyThread" })
        #expect(warning.file == rc.path && warning.line == 1 && warning.message.hasPrefix("the thread \"gone\" has none of its 1 comment left to show"))
        try Data((lines[0] + "\n").utf8).write(to: rc)
        let none = try Self.render([rc.path], in: folder) { _ in Issue.record("no page is delivered") }
        #expect(none.errors.first?.message.hasPrefix("no thread has anything to show") == true)
    }

    @Test("submissions join their comments across files: each thread's page is the page of its own lines alone, and the threads and comments are a build's")
    func join() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = try DumpBuildTests.sample(in: folder)
        var pages: [DumpRender.Page] = []
        let report = try Self.render(inputs, in: folder) { pages.append($0) }
        #expect(report.errors.isEmpty, "\(report.errors)")
        let built = try ArchiveFixture.build(inputs, in: folder.appendingPathComponent("built"))
        #expect(report.threads == built.threads && report.comments == built.comments)
        #expect(pages.count == report.threads && Set(pages.map(\.id)).count == pages.count)
        #expect(report.warnings.count == 10 && report.moreWarnings == built.warnings.count - 10)
        #expect(report.warnings.map { $0.line ?? 0 } == report.warnings.map { $0.line ?? 0 }.sorted(), "in the dump's order")
        #expect(report.warnings.allSatisfy { $0.file == inputs[1] })

        // Each submission's page holds its title, and equals the page of its lines on their own.
        let submissions = try TestData.lines("dumps/RS_sample.jsonl")
        let comments = try TestData.lines("dumps/RC_sample.jsonl")
        for k in [0, 5] {
            let submission = try DumpBuildTests.lines("RS_sample.jsonl")[k]
            let id = submission["id"] as! String
            let page = try #require(pages.first { $0.id == id })
            #expect(page.place[0] == 0, "its first record is in \(inputs[0])")
            let title = (submission["title"] as! String).prefix { $0.isLetter || $0.isNumber || $0 == " " || $0 == ":" }
            #expect(title.count > 8 && String(decoding: page.html, as: UTF8.self).contains("<title>" + title), "\(title)")
            let own = comments.filter { $0.contains("\"t3_\(id)\"") }
            #expect(!own.isEmpty)
            let alone = try Self.alone(submissions[k], own, in: folder.appendingPathComponent("alone-\(k)", isDirectory: true).creatingFolder())
            #expect(alone.html == page.html, "thread \(id)")
            #expect(alone.comments == page.comments)
        }
    }

    @Test("pages come in the same order with the same bytes for --jobs 1 and 2, compressed or plain")
    func deterministic() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var runs: [[DumpRender.Page]] = []
        for (jobs, compressed) in [(1, true), (2, true), (2, false)] {
            let inputs = try DumpBuildTests.sample(
                in: folder.appendingPathComponent("\(jobs)-\(compressed)", isDirectory: true).creatingFolder(),
                compressed: compressed)
            var pages: [DumpRender.Page] = []
            _ = try Self.render(inputs, in: folder, jobs: jobs) { pages.append($0) }
            runs.append(pages)
        }
        #expect(runs[0].map(\.html) == runs[1].map(\.html) && runs[0].map(\.id) == runs[1].map(\.id))
        #expect(runs[1].map(\.html) == runs[2].map(\.html))
    }

    @Test("a line that is not JSON and a line that is not a record are errors at their lines; no page is handed out after an error")
    func errors() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = try TestData.lines("dumps/RC_sample.jsonl")
        let text = try TestData.commentDumpWithBadLines()
        let dump = folder.appendingPathComponent("RC_bad.jsonl").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: dump))
        var delivered = 0
        let failed = try Self.render([dump], in: folder) { _ in delivered += 1 }
        #expect(delivered == 0 && failed.threads == 0)
        #expect(failed.errors.map { $0.line } == [4, 8], "\(failed.errors)")

        var options = ImportOptions()
        options.lenient = true
        var order: [String?] = []
        let lenient = try Self.render([dump], in: folder, options: options) { order.append($0.id) }
        #expect(lenient.errors.isEmpty && lenient.skippedLines == 2 && lenient.lines == 161)
        #expect(order.count == lenient.threads && order.count == 12)

        // A thread that fails as a whole (a duplicate id) is an error at its line; the others
        // are still rendered and counted, but only those before it are handed out.
        let again = folder.appendingPathComponent("RC_again.jsonl").path
        try Data((lines[20] + "\n").utf8).write(to: URL(fileURLWithPath: again))
        var handed: [String?] = []
        let duplicate = try Self.render([dump, again], in: folder, options: options) { handed.append($0.id) }
        #expect(duplicate.errors.count == 1 && duplicate.errors[0].file == again, "\(duplicate.errors)")
        let link = try #require(lines[20].firstMatch(of: #/"link_id": *"t3_([a-z0-9]+)"/#)?.output.1)
        let failing = try #require(order.firstIndex(of: String(link)))
        #expect(failing > 0 && failing < 11, "a thread between others: \(order)")
        #expect(duplicate.threads == 11 && handed == Array(order[..<failing]), "\(handed)")
    }

    @Test("an error writing a page ends the run, is thrown, and the temporary folder is removed")
    func deliveryFails() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = try DumpBuildTests.sample(in: folder)
        var delivered = 0
        #expect(throws: ThreadfoldError.self) {
            _ = try Self.render(inputs, in: folder) { (_) throws(ThreadfoldError) in
                delivered += 1
                if delivered == 3 { throw ThreadfoldError.output(path: "page.html", message: "disk full") }
            }
        }
        #expect(delivered == 3)
    }
}

private extension URL {
    func creatingFolder() throws -> URL {
        try FileManager.default.createDirectory(at: self, withIntermediateDirectories: true)
        return self
    }
}
