import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

@Suite("Dump forms and line streams")
struct DumpFormTests {
    static func form(_ line: String, _ options: ImportOptions = ImportOptions()) -> DumpForm? {
        DumpForm.detect(Array(line.utf8), options: options)
    }

    @Test("a dump is told by its first line: Reddit comments and submissions, flat Hacker News items, mapped comments; never a whole thread")
    func detect() {
        #expect(Self.form(#"{"id": "c1", "link_id": "t3_a", "parent_id": "t3_a", "body": "x"}"#) == .reddit)
        #expect(Self.form(#"{"id": "a", "title": "T", "selftext": "", "num_comments": 3}"#) == .reddit)
        #expect(Self.form(#"{"id": 15, "type": "comment", "by": "sama", "parent": 1, "text": "x"}"#) == .hn)
        // Stories with their comments nested (Algolia, HNPWA) are whole threads, not dump records.
        #expect(Self.form(#"{"id": 1, "type": "story", "author": "pg", "children": [{"id": 2}]}"#) == nil)
        #expect(Self.form(#"{"id": 1, "type": "story", "user": "pg", "comments": []}"#) == nil)
        #expect(Self.form(#"{"id": "t", "title": "A thread", "comments": []}"#) == nil)
        #expect(Self.form("[1, 2]") == nil && Self.form("not json") == nil)
        var mapped = ImportOptions()
        mapped.mapping = FieldMapping(paths: [.id: ["objectID"], .thread: ["story_id"]])
        #expect(Self.form(#"{"objectID": "1", "story_id": 9}"#, mapped) == .mapped)
    }

    @Test("the skim before the parse rules out only lines that are no dump record, whatever the form asked for")
    func skimRulesOutOnlyNonRecords() throws {
        var lines = try ["dumps/RC_sample.jsonl", "dumps/RS_sample.jsonl"].flatMap { try TestData.bytes($0).split(separator: 0x0A).map { Array($0) } }
        lines += try [
            "reddit-listing/comments.json", "discourse-topic/topic.json", "mastodon-context/context.json", "lemmy-post/post.json",
            "github-issue/issue.json",
        ].map { try TestData.bytes("fixtures/" + $0) }
        lines += [
            #"{"id": 15, "type": "comment", "by": "sama", "parent": 1, "text": "x"}"#, #"{"id": 1, "type": "story", "author": "pg", "children": []}"#,
            #"{"id": "a", "name": "t3_a", "title": "T", "is_self": true}"#, #"{"title": "T", "permalink": "/r/x"}"#,
            #"{"\u006cink_id": "t3_a", "parent_id": "t3_a"}"#, #"{"id": 2, "kids": [3]}"#, "not json", "[1]",
        ].map { Array($0.utf8) }
        var reddit = ImportOptions(), hn = ImportOptions(), mapped = ImportOptions()
        reddit.format = .reddit
        hn.format = .hn
        mapped.mapping = FieldMapping(paths: [.id: ["objectID"], .thread: ["story_id"]])
        var ruledOut = 0, found = 0
        for line in lines {
            for options in [ImportOptions(), reddit, hn, mapped] {
                let parsed = DumpForm.detectParsing(line, options: options)
                if parsed != nil { found += 1 }
                if !DumpForm.mayDetect(line, options: options) {
                    ruledOut += 1
                    #expect(parsed == nil, "\(String(decoding: line.prefix(200), as: UTF8.self))")
                }
                #expect(DumpForm.detect(line, options: options) == parsed)
            }
        }
        // Both sides are tried: records found, and thread files ruled out without a parse.
        #expect(found > 100 && ruledOut >= 10, "\(found) found, \(ruledOut) ruled out")
    }

    @Test("root members that rule out every form rule out what mayDetect would for any form but a mapping's, on every set of the names the rules ask about")
    func rootMembersRuleOutAlike() {
        let names = ["link_id", "parent_id", "title", "id", "name", "selftext", "num_comments", "permalink", "is_self", "type", "children", "comments"]
        var reddit = ImportOptions(), hn = ImportOptions()
        reddit.format = .reddit
        hn.format = .hn
        var ruledOut = 0
        // Every subset of the twelve names, with a member no rule asks about and `threads`.
        for mask in 0..<(1 << names.count) {
            let members = names.indices.filter { mask & (1 << $0) != 0 }.map { names[$0] } + ["threads", "extra"]
            let line = Array(("{" + members.map { "\"\($0)\": 1" }.joined(separator: ", ") + "}").utf8)
            let any = DumpForm.mayDetectAny(rootMembers: members.map { Array($0.utf8) })
            if !any { ruledOut += 1 }
            for options in [ImportOptions(), reddit, hn] where DumpForm.mayDetect(line, options: options) {
                #expect(any, "\(members) under \(options.format)")
            }
        }
        #expect(ruledOut > 100, "\(ruledOut) sets ruled out")
    }

    @Test("thread keys: t3_ dropped, submissions keyed by their id, mismatches located by path")
    func keys() throws {
        func key(_ line: String, _ form: DumpForm) throws -> DumpForm.Key {
            let reader = try JSONReader(bytes: Array(line.utf8), file: "d.jsonl")
            do throws(JSONError) {
                return try form.key(reader, reader.root, path: "$[4]", mapping: nil)
            } catch {
                throw ThreadfoldError.input(reader.error(error))
            }
        }
        #expect(try key(#"{"link_id": "t3_abc", "parent_id": "t1_x"}"#, .reddit) == .thread(Array("abc".utf8)))
        #expect(try key(#"{"id": "abc", "title": "T", "selftext": "x"}"#, .reddit) == .thread(Array("abc".utf8)))
        #expect(try key(#"{"id": 17, "parent": 16}"#, .hn) == .item(id: 17, parent: 16))
        #expect(try key(#"{"id": 1, "type": "story"}"#, .hn) == .item(id: 1, parent: nil))
        let error = try #require(throws: ThreadfoldError.self) { try key(#"{"link_id": 5, "parent_id": "t3_a"}"#, .reddit) }.problems[0]
        #expect(error.path == "$[4].link_id" && error.message.contains("expected a string, found the number 5"))
        #expect(throws: ThreadfoldError.self) { try key(#"{"body": "no thread"}"#, .reddit) }
    }

    @Test("a line stream cuts lines across chunks, counts blank lines but gives no element for them, and names a line over the limit")
    func lines() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tf-lines-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = "{\"a\": 1}\n\n   \n{\"b\": \"" + String(repeating: "x", count: 50) + "\"}\r\n{\"c\": 3}"
        let path = folder.appendingPathComponent("d.jsonl").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        for chunk in [1, 3, 7, 64, 1 << 20] {
            var stream = LineStream(path: path, display: "d.jsonl")
            stream.chunkBytes = chunk
            var seen: [(String, Int, Int64, Int)] = []
            try stream.forEachLine { (line) throws(ThreadfoldError) -> Bool in
                seen.append((String(decoding: line.bytes, as: UTF8.self), line.number, line.offset, line.position))
                return true
            }
            #expect(seen.map(\.1) == [1, 4, 5] && seen.map(\.3) == [0, 1, 2], "chunks of \(chunk)")
            #expect(seen.map(\.2) == [0, 14, Int64(text.utf8.count - 8)])
            #expect(seen[2].0 == "{\"c\": 3}" && seen[1].0.hasSuffix("\r"))
        }
        var short = LineStream(path: path, display: "d.jsonl")
        short.maxLineBytes = 20
        short.chunkBytes = 5
        let error = try #require(throws: ThreadfoldError.self) { try short.forEachLine { _ throws(ThreadfoldError) in true } }.problems[0]
        #expect(error.line == 4 && error.message.contains("line 4 (from byte 14) is longer than 20 bytes"))
    }
}
