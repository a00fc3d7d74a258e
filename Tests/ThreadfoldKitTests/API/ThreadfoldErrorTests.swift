import Foundation
import TestSupport
import Testing
import ThreadfoldKit

/// The one error type: each way a call can fail is a kind of `ThreadfoldError`, with its problems
/// located where they have a place.
@Suite("ThreadfoldError kinds")
struct ThreadfoldErrorTests {
    static let thread = Array(#"{"comments": [{"id": 1, "body": "hi"}]}"#.utf8)

    @Test("an input that is not valid is an input error, located at its line and column")
    func input() throws {
        let error = try #require(throws: ThreadfoldError.self) {
            try Threadfold.renderPage(json: Array(#"{"comments": [{"id": 1, "parent_id": [2]}]}"#.utf8), file: "broken.json")
        }
        #expect(error.kind == .input)
        let problem = try #require(error.problems.first)
        #expect(problem.file == "broken.json" && problem.line == 1 && problem.path == "$.comments[0].parent_id")
        #expect(error.description.hasPrefix("broken.json:1:"))
    }

    @Test("a field mapping's bad text and an empty exclude glob are usage errors, told by their message alone")
    func usage() throws {
        let mapping = try #require(throws: ThreadfoldError.self) { try FieldMapping.parse("id") }
        #expect(mapping.kind == .usage)
        #expect(mapping.description == "found 'id'; expected key=path, like id=objectID")
        let folder = try ArchiveFixture.folder()
        var options = BuildOptions(jobs: 1, durable: false)
        options.exclude = [""]
        let glob = try #require(throws: ThreadfoldError.self) {
            try Threadfold.buildSite(inputs: [folder.path], output: folder.appendingPathComponent("site").path, options: options)
        }
        #expect(glob.kind == .usage)
    }

    @Test("a locale that does not exist is a usage error; a template folder that does not exist, a resources error")
    func resources() throws {
        var options = RenderOptions()
        options.locale = "xx-nowhere"
        let locale = try #require(throws: ThreadfoldError.self) { try Threadfold.renderPage(json: Self.thread, options: options) }
        #expect(locale.kind == .usage)
        #expect(locale.description.hasPrefix("no locale 'xx-nowhere'"))
        let missing = "/nonexistent/threadfold-templates-\(UUID().uuidString)"
        let folder = try #require(throws: ThreadfoldError.self) {
            try Threadfold.renderPage(json: Self.thread, resources: Resources(templatesDirectory: missing))
        }
        #expect(folder.kind == .resources)
        #expect(folder.description == "\(missing): not a folder; expected a folder of templates or assets")
    }

    @Test("a template that does not parse is a template error at its line and column")
    func template() throws {
        let folder = try ArchiveFixture.folder()
        try Data("{{#open}}never closed".utf8).write(to: folder.appendingPathComponent("page.mustache"))
        let error = try #require(throws: ThreadfoldError.self) {
            try Threadfold.renderPage(json: Self.thread, resources: Resources(templatesDirectory: folder.path))
        }
        #expect(error.kind == .template)
        let problem = try #require(error.problems.first)
        #expect(problem.file.hasSuffix("page.mustache") && problem.line != nil && problem.column != nil)
    }

    @Test("an output folder Threadfold did not write is an output error naming it; nothing is published")
    func output() throws {
        let folder = try ArchiveFixture.folder()
        let input = try ArchiveFixture.write(ArchiveFixture.thread(id: "a"), "a.json", in: folder)
        let site = folder.appendingPathComponent("mine")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: site.appendingPathComponent("notes.txt"))
        let error = try #require(throws: ThreadfoldError.self) {
            try Threadfold.buildSite(inputs: [input], output: site.path, options: BuildOptions(jobs: 1, durable: false))
        }
        #expect(error.kind == .output)
        #expect(error.problems.contains { $0.file.contains("mine") })
        #expect(FileManager.default.fileExists(atPath: site.appendingPathComponent("notes.txt").path))
    }
}
