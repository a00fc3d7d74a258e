import Testing

@testable import ThreadfoldKit

@Suite("Thread decoder")
struct ThreadDecoderTests {
    @Test("an object with comments: thread fields are read")
    func threadObject() throws {
        let record = try Fixtures.record(
            #"""
            {"id": 7, "title": "Hi", "author": "ann", "created_at": "2024-03-03T10:00:00Z",
             "url": "https://x.example/t/7", "lang": "de", "extra": {"ignored": true}, "comments": []}
            """#)
        #expect(record.info.id == CommentID("7"))
        #expect(record.info.title == "Hi")
        #expect(record.info.author == "ann")
        #expect(record.info.createdAt?.iso8601 == "2024-03-03T10:00:00Z")
        #expect(record.info.url == "https://x.example/t/7")
        #expect(record.info.lang == "de")
        #expect(record.comments.isEmpty)
    }

    @Test("a bare array of comments is a thread too")
    func bareArray() throws {
        let record = try Fixtures.record(#"[{"id": "a", "body": "x"}, {"id": "b", "parent_id": "a"}]"#)
        #expect(record.comments.map(\.id.string) == ["a", "b"])
        #expect(record.comments[1].parentID == CommentID("a"))
    }

    @Test("each parent key is understood", arguments: ["parent_id", "parentID", "parent"])
    func parentKeys(_ key: String) throws {
        let record = try Fixtures.record(#"[{"id": 1}, {"id": 2, "\#(key)": 1}]"#)
        #expect(record.comments[1].parentID == CommentID("1"))
    }

    @Test(
        "every top-level marker means no parent",
        arguments: [
            #""parent_id": null"#, #""parent_id": """#, #""parent_id": 0"#, #""parent_id": "0""#,
            #""parent_id": "t9""#, #""parent": 0"#, #""other": 1"#,
        ])
    func topLevelMarkers(_ field: String) throws {
        let record = try Fixtures.record(#"{"id": "t9", "comments": [{"id": 1, \#(field)}]}"#)
        #expect(record.comments[0].parentID == nil)
    }

    @Test("integer ids keep every digit; string and integer ids with the same text are the same id")
    func integerIDs() throws {
        let record = try Fixtures.record(#"[{"id": 123456789012345678901234567890}, {"id": "2", "parent_id": 123456789012345678901234567890}]"#)
        #expect(record.comments[0].id.string == "123456789012345678901234567890")
        #expect(record.comments[1].parentID == record.comments[0].id)
    }

    @Test("nested replies and children arrays: parents come from nesting, in pre-order", arguments: ["replies", "children"])
    func nested(_ key: String) throws {
        let record = try Fixtures.record(
            #"""
            [{"id": "a", "\#(key)": [{"id": "b", "\#(key)": [{"id": "c"}]}, {"id": "d"}]}, {"id": "e"}]
            """#)
        #expect(record.comments.map(\.id.string) == ["a", "b", "c", "d", "e"])
        #expect(record.comments.map { $0.parentID?.string } == [nil, "a", "b", "a", nil])
        #expect(record.path(of: 2) == "$[0].\(key)[0].\(key)[0]")
        #expect(record.path(of: 3) == "$[0].\(key)[1]")
    }

    @Test("a nested chain 1,000 deep and one 100,000 deep both decode")
    func deepNested() throws {
        for depth in [1_000, 100_000] {
            var json = ""
            for i in 0..<depth { json += #"{"id": \#(i), "replies": ["# }
            json += String(repeating: "]}", count: depth)
            let record = try Fixtures.record("[" + json + "]")
            #expect(record.comments.count == depth)
            #expect(record.comments.last?.parentID == CommentID(String(depth - 2)))
        }
    }

    @Test("optional fields: score, edits, deleted, removed, flair, timestamps of every kind")
    func optionalFields() throws {
        let record = try Fixtures.record(
            #"""
            [{"id": 1, "score": 12, "edited_at": "2024-03-04T00:00:00Z", "author_flair": "mod", "created_at": 1709461200},
             {"id": 2, "edited": true, "deleted": true, "created_at": "1709461200000"},
             {"id": 3, "edited": 1709461300, "removed": true, "score": -3.0, "time": "2024-03-03"},
             {"id": 4, "edited": false, "deleted": null, "created": null}]
            """#)
        let c = record.comments
        #expect(c[0].score == 12 && c[0].edited && c[0].editedAt?.iso8601 == "2024-03-04T00:00:00Z" && c[0].authorFlair == "mod")
        #expect(c[0].createdAt?.iso8601 == "2024-03-03T10:20:00Z")
        #expect(c[1].edited && c[1].editedAt == nil && c[1].deleted && c[1].createdAt == c[0].createdAt)
        #expect(c[2].edited && c[2].editedAt?.iso8601 == "2024-03-03T10:21:40Z" && c[2].removed && c[2].score == -3)
        #expect(c[2].createdAt?.iso8601 == "2024-03-03T00:00:00Z")
        #expect(!c[3].edited && !c[3].deleted && c[3].createdAt == nil)
    }

    @Test(
        "wrong types are errors with file, line:column, JSON path, found and expected",
        arguments: [
            (#"{"comments": [{"id": 1}, {"id": 2, "parent_id": {"x": 1}}]}"#, "test.json:1:49: error: $.comments[1].parent_id: expected a string, an integer or null, found an object"),
            (#"[{"id": 1.5}]"#, "test.json:1:9: error: $[0].id: expected a string or an integer, found the number 1.5"),
            (#"[{"body": "x"}]"#, "test.json:1:2: error: $[0].id: expected an \"id\" (a string or an integer), found none"),
            (#"[{"id": 1, "created_at": "last week"}]"#, #"test.json:1:26: error: $[0].created_at: expected an ISO 8601 date or Unix seconds or milliseconds, found the string "last week""#),
            (#"[{"id": 1, "replies": [{"id": 2, "score": "high"}]}]"#, #"test.json:1:43: error: $[0].replies[0].score: expected an integer, found the string "high""#),
            (#"[{"id": 1, "replies": {}}]"#, "test.json:1:23: error: $[0].replies: expected an array of replies or null, found an object"),
            (#"[1]"#, "test.json:1:2: error: $[0]: expected a comment object, found a number"),
            (#"{"comments": 5}"#, "test.json:1:14: error: $.comments: expected an array of comments, found a number"),
            (#"{"title": "x"}"#, "test.json:1:1: error: $: found an object without \"comments\"; expected a thread object with a \"comments\" array, or an array of comments"),
            (#""hello""#, "test.json:1:1: error: $: found a string; expected a thread object or an array of comments"),
            (#"{"title": 5, "comments": []}"#, "test.json:1:11: error: $.title: expected a string or null, found the number 5"),
            ("[{\"id\": 1,\n  \"deleted\": \"yes\"}]", "test.json:2:14: error: $[0].deleted: expected true or false, found the string \"yes\""),
        ])
    func typeErrors(_ json: String, _ message: String) throws {
        let errors = try #require(throws: ThreadfoldError.self) { try Fixtures.record(json) }
        #expect(errors.problems.first?.description == message)
    }

    @Test("syntax errors carry line and column")
    func syntaxError() throws {
        let errors = try #require(throws: ThreadfoldError.self) { try Fixtures.record("[\n  {\"id\": 1,,}\n]") }
        #expect(errors.description == "test.json:2:12: error: found ','; expected a member name in double quotes")
    }

    @Test("--lenient skips a comment without an id and reports it")
    func lenient() throws {
        let json = try JSONReader(bytes: Array(#"[{"id": 1}, {"body": "no id"}, {"id": 3}]"#.utf8), file: "t.json")
        var skipped: [Problem] = []
        let record = try ThreadDecoder.decode(json, at: json.root, path: "", lenient: true, skipped: &skipped)
        #expect(record.comments.map(\.id.string) == ["1", "3"])
        #expect(skipped.map(\.description) == ["t.json:1:13: warning: $[1].id: has no id; skipped"])
        #expect(skipped.map(\.hint) == [.skipped])
    }

    @Test("several errors are reported together")
    func manyErrors() throws {
        let errors = try #require(throws: ThreadfoldError.self) { try Fixtures.record(#"[{"id": []}, {"id": {}}, {"id": 3}]"#) }
        #expect(errors.problems.count == 2)
    }
}
