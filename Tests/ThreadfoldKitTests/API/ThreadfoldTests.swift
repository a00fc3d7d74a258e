import Foundation
import TestSupport
import Testing
import ThreadfoldKit

/// The library's public face, `Threadfold.buildSite`, as another package calls it.
@Suite("Threadfold library")
struct ThreadfoldTests {
    @Test("buildSite's report counts every form auto recognised, Threadfold's own included")
    func formats() throws {
        let folder = try ArchiveFixture.folder()
        let own = try ArchiveFixture.write(ArchiveFixture.thread(id: "a"), "in/a.json", in: folder)
        let reddit = folder.appendingPathComponent("in/reddit.json")
        try Data(TestData.bytes("fixtures/reddit-listing/comments.json")).write(to: reddit)
        let report = try Threadfold.buildSite(
            inputs: [own, reddit.path], output: folder.appendingPathComponent("site").path,
            options: BuildOptions(jobs: 1, durable: false))
        #expect(report.formats == ["threadfold": 1, "reddit": 1])
    }

    @Test("buildSite leaves its own output and its exclude globs out of a folder input, and refuses an empty glob")
    func folderInputs() throws {
        let folder = try ArchiveFixture.folder()
        for id in ["a", "b"] { try ArchiveFixture.write(ArchiveFixture.thread(id: id), "\(id).json", in: folder) }
        var options = BuildOptions(jobs: 1, durable: false)
        options.exclude = ["b.json"]
        let site = folder.appendingPathComponent("public")
        for _ in 0..<2 {
            let report = try Threadfold.buildSite(inputs: [folder.path], output: site.path, options: options)
            #expect(report.threads == 1)
        }
        options.exclude = [""]
        #expect(throws: ThreadfoldError.self) { try Threadfold.buildSite(inputs: [folder.path], output: site.path, options: options) }
    }
}
