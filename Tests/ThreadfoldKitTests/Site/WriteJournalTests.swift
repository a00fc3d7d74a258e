import Foundation
import Testing

@testable import ThreadfoldKit

@Suite("Write journal")
struct WriteJournalTests {
    func temporaryFolder() throws -> URL { try SiteWriterTests().temporaryFolder() }

    @Test("a build flushes the files it wrote and the folders whose entries it changed, not the files it linked")
    func recordsWrites() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let site = root.appendingPathComponent("site")
        let paths = ["t/a/index.html", "t/b/index.html"]
        try SiteWriter(output: site).publish(zip(paths, ["one", "two"]).map { ($0, Array($1.utf8)) })
        var info = stat()
        try #require(stat(site.appendingPathComponent(paths[0]).path, &info) == 0)
        let staging = try SiteWriter(output: site).begin()
        #expect(try staging.link([paths[0]], expected: [FileStamp(info)]))
        #expect(try staging.write("t/c/index.html", Array("three".utf8)))
        let recorded = try #require(staging.journalled, "a few files: each is flushed, not the file system")
        let prefix = site.path
        #expect(recorded.files.contains(prefix + "/t/c/index.html"))
        #expect(!recorded.files.contains(prefix + "/t/a/index.html"), "a linked file's data is not this build's to flush")
        #expect(recorded.folders.isSuperset(of: [prefix + "/t", prefix + "/t/a", prefix + "/t/c"]), "new entries: their folders are flushed")
        try staging.commit()
        #expect(FileManager.default.contents(atPath: site.appendingPathComponent("t/c/index.html").path) == Data("three".utf8))
    }

    @Test("more files than the journal holds, or another program writing, flush the whole file system")
    func overflows() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let site = root.appendingPathComponent("site")
        let many = try SiteWriter(output: site).begin()
        for i in 0...WriteJournal.fileLimit { _ = try many.write("f\(i).html", [0x61]) }
        #expect(many.journalled == nil)
        many.abandon()
        let handed = try SiteWriter(output: site).begin()
        _ = try handed.write("a.html", [0x61])
        #expect(handed.journalled != nil)
        handed.handedToAnotherProgram()
        #expect(handed.journalled == nil)
        handed.abandon()
        let undurable = try SiteWriter(output: site, durable: false).begin()
        _ = try undurable.write("a.html", [0x61])
        #expect(undurable.journalled == nil, "a writer that is not durable flushes nothing and records nothing")
        undurable.abandon()
    }
}
