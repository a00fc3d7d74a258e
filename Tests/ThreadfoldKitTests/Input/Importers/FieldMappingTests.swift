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
        let result = try Importer.read(
            bytes: Array(Self.hits.utf8), file: "hits.json",
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
        let errors = try #require(throws: ThreadfoldError.self) {
            try Importer.read(bytes: Array(Self.hits.utf8), file: "hits.json", options: ImportOptions(mapping: try FieldMapping.parse(Self.map)))
        }
        #expect(errors.problems[0].description == "hits.json:5:2: error: $.hits[3].objectID: expected an id here (mapped as id=objectID), found none")
        #expect(errors.problems[0].hint == .lenient)
    }

    @Test(
        "mapping syntax errors say what is expected",
        arguments: [
            ("parent=parent_id", "the mapping has no id"),
            ("id=objectID,who=author", "found the key 'who'; expected one of id, parent"),
            ("id=objectID,author", "found 'author'; expected key=path"),
            ("id=a..b", "expected member names joined by dots"),
        ])
    func syntax(_ text: String, _ message: String) {
        #expect(throws: ThreadfoldError.self) { try FieldMapping.parse(text) }
        do { _ = try FieldMapping.parse(text) } catch { #expect(error.message.contains(message), "\(error.message)") }
    }

    @Test("a mapping file reads the same mapping, with top_level_parent")
    func file() throws {
        let json = #"{"id": "objectID", "parent": "parent_id", "author": "user.name", "top_level_parent": 0}"#
        let mapping = try FieldMapping.load(json: Array(json.utf8), file: "map.json")
        #expect(mapping.paths[.author] == ["user", "name"] && mapping.topLevelParent == "0")
        let bad = try #require(throws: ThreadfoldError.self) { try FieldMapping.load(json: Array(#"{"id": 5}"#.utf8), file: "map.json") }
        #expect(bad.description == "map.json:1:8: error: $.id: expected a member path as a string, found the number 5")
    }
}

@Suite("Field mapping: the list, nesting, the thread, prefixes, filters")
struct FullMappingTests {
    static func read(_ json: String, _ map: String, lenient: Bool = false) throws -> ImportResult {
        try Importer.read(bytes: Array(json.utf8), file: "m.json", options: ImportOptions(mapping: try FieldMapping.parse(map), lenient: lenient))
    }

    @Test("comments= picks the array, replies= nests, where= counts what it leaves, strip= takes prefixes off, thread.* reads the root")
    func listing() throws {
        let json = #"""
            {"meta": {"tags": ["x"]}, "page": {"post": {"id": "t3_p", "title": "Post", "by": "op", "at": 1700000000, "text": "Hello", "sub": "swift"},
             "items": [
              {"kind": "t1", "data": {"name": "t1_a", "parent": "t3_p", "who": "ann", "text": "one", "at": 1700000100, "ed": 1700000100,
                "kids": [{"kind": "t1", "data": {"name": "t1_b", "who": "bob", "text": "two", "at": 1700000200, "ed": 1700000300, "kids": ""}},
                         {"kind": "more", "data": {"name": "t1_m", "kids": [{"kind": "t1", "data": {"name": "t1_z"}}]}}]}},
              {"kind": "more", "data": {"count": 5}},
              {"kind": "t1", "data": {"name": "t1_c", "parent": "t3_p", "who": "cy", "text": "three", "at": 1700000400}}]}}
            """#
        let map =
            "comments=$.page.items,replies=data.kids,where.kind=t1,id=data.name,parent=data.parent,author=data.who,body=data.text,time=data.at,edited=data.ed,"
            + "thread.id=$.page.post.id,thread.title=$.page.post.title,thread.author=page.post.by,thread.created=$.page.post.at,thread.body=$.page.post.text,thread.category=$.page.post.sub,strip=t1_,t3_"
        let mapping = try FieldMapping.parse(map)
        #expect(mapping.strip == ["t1_", "t3_"] && mapping.comments == ["page", "items"] && mapping.replies == ["data", "kids"])
        let result = try Self.read(json, map)
        let thread = try #require(result.threads.first)
        #expect(result.threads.count == 1)
        #expect(thread.info.id == CommentID("p") && thread.info.title == "Post" && thread.info.author == "op" && thread.info.body == "Hello")
        #expect(thread.info.category == "swift" && thread.info.createdAt == Timestamp(unix: 1_700_000_000))
        #expect(thread.comments.map(\.id.string) == ["a", "b", "c"])
        #expect(thread.comments.map(\.body) == ["one", "two", "three"])
        #expect(thread.comments[0].parentID == nil && thread.comments[1].parentID == CommentID("a") && thread.comments[2].parentID == nil)
        // An edit time equal to the creation time is no edit.
        #expect(!thread.comments[0].edited && thread.comments[0].editedAt == nil)
        #expect(thread.comments[1].edited && thread.comments[1].editedAt == Timestamp(unix: 1_700_000_300))
        #expect(thread.path(of: 1) == "$.page.items[0].data.kids[0]")
        // Two stubs and the reply inside one are left out and counted, in one warning.
        let note = try #require(result.skipped.first { $0.kind == "filtered" })
        #expect(note.description == "m.json:2:11: note: $.page.items: 3 items left out by where.kind=t1 (with any replies nested in them)")
        #expect(result.skipped.count == 1)
        // Rendered, every body is there.
        let page = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(thread).html, as: UTF8.self)
        for body in ["one", "two", "three", "Hello"] { #expect(page.contains("<p>\(body)</p>"), "\(body)") }
    }

    @Test("paths take element indices; a list that is not there, or not an array, is an error at its place")
    func paths() throws {
        #expect(try FieldMapping.splitPath("$[1].data.children", root: true) == ["1", "data", "children"])
        #expect(try FieldMapping.splitPath("tags[0]") == ["tags", "0"])
        #expect(try FieldMapping.splitPath("$", root: true) == [])
        #expect(throws: ThreadfoldError.self) { try FieldMapping.splitPath("$") }
        #expect(throws: ThreadfoldError.self) { try FieldMapping.splitPath("a[x]") }
        let json = #"[{"kind": "post"}, {"list": [{"id": 1, "tags": ["first", "second"]}]}]"#
        let result = try Self.read(json, "comments=$[1].list,id=id,category=tags[1]")
        #expect(result.threads[0].comments.count == 1 && result.threads[0].info.category == "second")
        let missing = try #require(throws: ThreadfoldError.self) { try Self.read(json, "comments=$[1].other,id=id") }
        #expect(missing.problems[0].description.hasPrefix("m.json:1:1: error: $[1].other: expected the array of comments here (mapped as comments=$[1].other), found nothing"))
        let notArray = try #require(throws: ThreadfoldError.self) { try Self.read(json, "comments=$[0].kind,id=id") }
        #expect(notArray.problems[0].description.hasPrefix("m.json:1:11: error: $[0].kind: expected the array of comments (mapped as comments=$[0].kind), found a string"))
        let badReplies = try #require(throws: ThreadfoldError.self) { try Self.read(#"[{"id": 1, "r": 5}]"#, "id=id,replies=r") }
        #expect(badReplies.problems[0].description.hasPrefix("m.json:1:17: error: $[0].r: expected an array of replies (mapped as replies=r), found a number"))
    }

    @Test("a reply chain 100,000 deep through replies= reads in a loop, each reply under its parent")
    func deep() throws {
        let depth = 100_000
        var json = "[" + String(repeating: #"{"id": 1, "c": ["#, count: 1)
        json = "["
        for level in 0..<depth { json += #"{"id": \#(level), "b": "x", "c": ["# }
        json += String(repeating: "]}", count: depth) + "]"
        let start = ContinuousClock.now
        let result = try Self.read(json, "id=id,body=b,replies=c")
        let comments = result.threads[0].comments
        #expect(comments.count == depth)
        #expect(comments[depth - 1].parentID == CommentID(String(depth - 2)))
        #expect(ContinuousClock.now - start < .seconds(20))
        // A message about the deepest comment still names its path.
        #expect(result.threads[0].path(of: 2) == "$[0].c[0].c[0]")
    }

    @Test("with --lenient, a skipped comment's nested replies go with it, counted in a warning")
    func skippedNested() throws {
        let json = #"[{"id": 1, "r": [{"id": 2}]}, {"r": [{"id": 3, "r": [{"id": 4}]}]}, {"id": 5}]"#
        let result = try Self.read(json, "id=id,replies=r", lenient: true)
        #expect(result.threads[0].comments.map(\.id.string) == ["1", "2", "5"])
        #expect(
            result.skipped.map(\.message) == ["2 replies nested in skipped comments were left out with them", "has no id (mapped as id=id); skipped"]
                || result.skipped.map(\.message) == ["has no id (mapped as id=id); skipped", "2 replies nested in skipped comments were left out with them"])
    }

    @Test("Lemmy's path chain gives parents; where takes a|b; removed is read")
    func chain() throws {
        let json = #"[{"id": 1, "p": "0.1", "v": "public"}, {"id": 2, "p": "0.1.2", "v": "unlisted", "gone": true}, {"id": 3, "p": "0.1.2.3", "v": "direct"}]"#
        let result = try Self.read(json, "id=id,path=p,where.v=public|unlisted,removed=gone")
        let comments = result.threads[0].comments
        #expect(comments.map(\.id.string) == ["1", "2"] && comments[0].parentID == nil && comments[1].parentID == CommentID("1"))
        #expect(comments[1].removed)
    }

    @Test("a mapping file holds every key; --map's keys win over it one by one")
    func combined() throws {
        let json = #"""
            {"comments": "$.data.children", "replies": "data.replies", "id": "data.name", "strip": ["t1_", "t3_"], "where.kind": "t1",
             "thread.title": "$.title", "format": "html", "top_level_parent": 0}
            """#
        let file = try FieldMapping.load(json: Array(json.utf8), file: "map.json")
        #expect(file.comments == ["data", "children"] && file.strip == ["t1_", "t3_"] && file.conditions == [.init(path: ["kind"], value: "t1")])
        #expect(file.thread[.title] == ["title"] && file.bodyFormat == .html && file.topLevelParent == "0")
        let both = try FieldMapping.combined(file: file, command: "where.kind=t1|more,id=data.id,format=markdown")
        #expect(both.paths[.id] == ["data", "id"] && both.conditions == [.init(path: ["kind"], value: "t1|more")] && both.bodyFormat == .markdown)
        #expect(both.comments == ["data", "children"] && both.strip == ["t1_", "t3_"])
        // Without an id in the file, --map may give it; with neither, the mapping is refused.
        let noID = try FieldMapping.load(json: Array(#"{"body": "text"}"#.utf8), file: "map.json", requireID: false)
        #expect(try FieldMapping.combined(file: noID, command: "id=n").paths[.id] == ["n"])
        #expect(throws: ThreadfoldError.self) { try FieldMapping.combined(file: noID, command: "author=a") }
        let bad = try #require(throws: ThreadfoldError.self) { try FieldMapping.load(json: Array(#"{"id": "a", "comments": "a..b"}"#.utf8), file: "map.json") }
        #expect(bad.description == "map.json:1:25: error: $.comments: expected member names joined by dots, like user.name, found the path 'a..b'")
        let unknown = try #require(throws: ThreadfoldError.self) { try FieldMapping.load(json: Array(#"{"id": "a", "nope": "x"}"#.utf8), file: "map.json") }
        #expect(unknown.description.hasPrefix("map.json:1:21: error: $.nope: expected one of id, parent") && unknown.description.hasSuffix("found the key 'nope'"))
    }

    @Test("--sort input keeps the file's order at every level")
    func inputOrder() throws {
        let json = #"[{"id": "b", "t": 300, "s": 1}, {"id": "a", "t": 100, "s": 9}, {"id": "c", "t": 200}, {"id": "r2", "p": "b", "t": 50}, {"id": "r1", "p": "b", "t": 40}]"#
        let record = try Self.read(json, "id=id,parent=p,time=t,score=s").threads[0]
        let tree = try ThreadBuilder.build(record, options: ThreadOptions(sort: .input))
        #expect(tree.roots.map { tree.records[Int($0)].id.string } == ["b", "a", "c"])
        let oldest = try ThreadBuilder.build(record, options: ThreadOptions(sort: .oldest))
        #expect(oldest.roots.map { oldest.records[Int($0)].id.string } == ["a", "c", "b"])
        let b = Int(tree.roots[0])
        #expect(tree.childList[Int(tree.childStart[b])..<Int(tree.childStart[b + 1])].map { tree.records[Int($0)].id.string } == ["r2", "r1"])
    }
}
