import Testing

@testable import ThreadfoldKit

@Suite("Thread check")
struct ThreadCheckTests {
    static func record(_ json: String) throws -> ThreadRecord {
        try Importer.read(bytes: Array(json.utf8), file: "t.json").threads[0]
    }

    @Test("a thread is built and counted as a build takes it: its orphan and its deleted comment left out are counted")
    func counts() throws {
        let record = try Self.record(
            #"{"comments": [{"id": "a", "author": "ann", "body": "hi"}, {"id": "b", "parent_id": "gone", "author": "bob", "body": "yo"}, {"id": "c", "deleted": true}]}"#)
        let checked = try ThreadCheck(record, options: ThreadOptions())
        #expect(checked.counts.threads == 1)
        #expect(checked.counts.comments == 2)
        #expect(checked.counts.orphans == 1)
        #expect(checked.counts.deletedLeftOut == 1)
        #expect(checked.counts.records == 3)
        #expect(checked.diagnostics.count == 2)
        #expect(checked.emptyWarning(file: "t.json") == nil)
    }

    @Test("a thread with nothing to show gets the build's warning, kind emptyThread, at its start")
    func empty() throws {
        let checked = try ThreadCheck(try Self.record(#"{"id": "7", "comments": [{"id": "a", "deleted": true}]}"#), options: ThreadOptions())
        let warning = try #require(checked.emptyWarning(file: "t.json"))
        #expect(warning.kind == "emptyThread")
        #expect(warning.severity == .warning)
        #expect(warning.file == "t.json" && warning.line == 1)
        #expect(warning.message.contains("\"7\""))
    }

    @Test("duplicate ids stop the check as they stop a build, unless they are allowed")
    func duplicates() throws {
        let record = try Self.record(#"{"comments": [{"id": "a", "body": "x"}, {"id": "a", "body": "y"}]}"#)
        #expect(throws: ThreadfoldError.self) { try ThreadCheck(record, options: ThreadOptions()) }
        var options = ThreadOptions()
        options.allowDuplicates = true
        #expect(try ThreadCheck(record, options: options).counts.duplicates == 1)
    }
}
