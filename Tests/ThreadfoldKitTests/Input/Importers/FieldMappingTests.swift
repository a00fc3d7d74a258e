import Testing
@testable import ThreadfoldKit

@Suite("Field mapping")
struct FieldMappingTests {
    static let hits = #"""
        {"nbHits": 4, "hits": [
         {"objectID": "11", "story_id": 10, "parent_id": 10, "user": {"name": "ann"}, "comment_text": "<p>Top <i>level</i>", "created_at": "2024-03-03T10:00:00Z", "story_title": "A story", "points": 3, "tags": {"cat": "ask"}},
         {"objectID": "12", "story_id": 10, "parent_id": 11, "user": {"name": "bob"}, "comment_text": "reply", "created_at": 1709460300, "story_title": "A story"},
         {"objectID": "21", "story_id": 20, "parent_id": "root", "user": {"name": "cy"}, "comment_text": "other story", "story_title": "B story"},
         {"story_id": 20, "parent_id": 21, "user": {"name": "dee"}, "comment_text": "no id"}
        ]}
        """#
    static let map = "id=objectID,parent=parent_id,author=user.name,body=comment_text,time=created_at,thread=story_id,title=story_title,score=points,category=tags.cat"

    @Test("groups by thread, follows dotted paths, treats the thread id and --top-level-parent as top level; --lenient skips and reports")
    func mapped() throws {
        var mapping = try FieldMapping.parse(Self.map)
        mapping.topLevelParent = "root"
        let result = try Importer.read(bytes: Array(Self.hits.utf8), file: "hits.json",
                                       options: ImportOptions(bodyFormat: .html, mapping: mapping, lenient: true))
        #expect(result.format == .mapped && result.threads.count == 2)
        let first = result.threads[0]
        #expect(first.info.id == CommentID("10") && first.info.title == "A story" && first.info.category == "ask")
        #expect(first.comments.map(\.id.string) == ["11", "12"])
        #expect(first.comments[0].parentID == nil && first.comments[1].parentID == CommentID("11"))
        #expect(first.comments[0].author == "ann" && first.comments[0].score == 3 && first.comments[0].bodyFormat == .html)
        #expect(first.comments[1].createdAt == Timestamp(unix: 1_709_460_300))
        #expect(result.threads[1].comments[0].parentID == nil)
        #expect(result.skipped.count == 1)
        #expect(result.skipped[0].description.hasPrefix("hits.json:5:2: warning: $.hits[3].objectID: has no id"))
    }

    @Test("thread keys that differ only by Unicode normalisation are different threads")
    func normalisation() throws {
        let json = #"[{"id": 1, "t": "caf\u00e9"}, {"id": 2, "t": "cafe\u0301"}]"#
        let result = try Importer.read(bytes: Array(json.utf8), file: "n.json", options: ImportOptions(mapping: try FieldMapping.parse("id=id,thread=t")))
        #expect(result.threads.count == 2)
    }

    @Test("without lenient reading a missing id is an error naming the mapping, with a hint to skip such comments")
    func strict() throws {
        let errors = try #require(throws: InputErrors.self) {
            try Importer.read(bytes: Array(Self.hits.utf8), file: "hits.json", options: ImportOptions(mapping: try FieldMapping.parse(Self.map)))
        }
        #expect(errors.errors[0].description == "hits.json:5:2: error: $.hits[3].objectID: expected an id here (mapped as id=objectID), found none")
        #expect(errors.errors[0].hint == .lenient)
    }

    @Test("mapping syntax errors say what is expected", arguments: [
        ("parent=parent_id", "the mapping has no id"),
        ("id=objectID,who=author", "found the key 'who'; expected one of id, parent"),
        ("id=objectID,author", "found 'author'; expected key=path"),
        ("id=a..b", "expected member names joined by dots"),
    ])
    func syntax(_ text: String, _ message: String) {
        #expect(throws: MappingError.self) { try FieldMapping.parse(text) }
        do { _ = try FieldMapping.parse(text) } catch { #expect(error.message.contains(message), "\(error.message)") }
    }

    @Test("a mapping file reads the same mapping, with top_level_parent")
    func file() throws {
        let json = #"{"id": "objectID", "parent": "parent_id", "author": "user.name", "top_level_parent": 0}"#
        let mapping = try FieldMapping.load(json: Array(json.utf8), file: "map.json")
        #expect(mapping.paths[.author] == ["user", "name"] && mapping.topLevelParent == "0")
        let bad = try #require(throws: InputErrors.self) { try FieldMapping.load(json: Array(#"{"id": 5}"#.utf8), file: "map.json") }
        #expect(bad.description == "map.json:1:8: error: $.id: expected a member path as a string, found the number 5")
    }
}
