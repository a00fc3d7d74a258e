import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

@Suite("Nothing lost without a word")
struct ImportAuditTests {
    /// A Hacker News thread in the HNPWA shape, written here: `user` and `content` where
    /// Threadfold says `author` and `body`, and replies nested under `comments`.
    static let hnpwa: String = {
        var top: [String] = []
        for t in 0..<5 {
            var replies: [String] = []
            for r in 0..<6 {
                replies.append(#"{"id": \#(1000 + t * 10 + r), "level": 1, "user": "u\#(r)", "time": 1700000100, "time_ago": "2 hours ago", "content": "<p>reply \#(r)</p>", "comments": []}"#)
            }
            top.append(
                #"{"id": \#(100 + t), "level": 0, "user": "top\#(t)", "time": 1700000000, "time_ago": "3 hours ago", "content": "<p>comment \#(t)</p>", "comments": [\#(replies.joined(separator: ", "))]}"#
            )
        }
        return
            #"{"id": 8863, "title": "My YC app", "points": 111, "user": "dhouston", "time": 1175714200, "type": "link", "url": "http://www.getdropbox.com/u/2/screencast.html", "domain": "getdropbox.com", "comments_count": 35, "comments": [\#(top.joined(separator: ", "))]}"#
    }()

    @Test("an HNPWA-like thread guessed to be Threadfold's own format is refused, naming the form, the arrays and their fields")
    func hnpwa() throws {
        // Detected, it is read as Hacker News, every comment with its body and author.
        let detected = try Importer.read(bytes: Array(Self.hnpwa.utf8), file: "hn.json")
        #expect(detected.format == .hn && detected.threads[0].comments.count == 35)
        #expect(detected.threads[0].comments.allSatisfy { !$0.body.isEmpty && $0.author != nil })
        // Named with --from, the form is read as named: the audit is for guesses.
        let named = try Importer.read(bytes: Array(Self.hnpwa.utf8), file: "hn.json", options: ImportOptions(format: .threadfold))
        #expect(named.threads[0].comments.count == 5 && named.threads[0].comments.allSatisfy(\.body.isEmpty))
        // Without HNPWA's own fields nothing tells it from Threadfold's format but the audit.
        let guessed = Self.hnpwa.replacingOccurrences(of: #""comments_count": 35, "#, with: "")
        let errors = try #require(throws: ThreadfoldError.self) {
            try Importer.read(bytes: Array(guessed.utf8), file: "hn.json")
        }
        let lines = errors.problems.map(\.description)
        #expect(
            lines[0]
                == "hn.json:1:1: error: $: read as a Threadfold thread, of 5 comments read, 5 have no body; 30 objects in nested arrays were not read; expected a file of that form, in which most comments have a body and an author and every list of comments is read"
        )
        #expect(errors.problems[0].hint == .otherForm)
        #expect(lines.contains("hn.json:1:1: error: $.comments: an array of 5 objects, with the fields id, level, user, time, time_ago, content, comments"))
        #expect(lines.contains("hn.json:1:1: error: $.comments[*].comments: an array of 30 objects, with the fields id, level, user, time, time_ago, content, comments"))
        #expect(
            lines.last
                == "hn.json:1:1: error: $.comments: to read these comments by their own field names, try --map comments=$.comments,replies=comments,id=id,author=user,body=content,time=time,thread.title=$.title,thread.url=$.url,thread.author=$.user,thread.created=$.time,format=html"
        )
        // Run as suggested, every comment arrives with its body, nested under its parent, and the page renders.
        let line = String(try #require(errors.problems.last?.message.split(separator: " ").last))
        let result = try Importer.read(bytes: Array(guessed.utf8), file: "hn.json", options: ImportOptions(mapping: try FieldMapping.parse(line)))
        let thread = try #require(result.threads.first)
        #expect(thread.comments.count == 35 && thread.comments.allSatisfy { $0.body.hasPrefix("<p>") && $0.author != nil && $0.bodyFormat == .html })
        #expect(thread.comments.filter { $0.parentID != nil }.count == 30)
        #expect(thread.info.title == "My YC app" && thread.info.author == "dhouston")
        let page = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(thread).html, as: UTF8.self)
        #expect(page.contains("<p>reply 5</p>") && page.contains("<p>comment 4</p>") && page.contains("My YC app"))
    }

    @Test("a file no form recognises lists its arrays and a --map line with the list's path and its nesting, which reads it")
    func undetected() throws {
        var items: [String] = []
        for t in 0..<4 {
            let kids = (0..<3).map { #"{"key": "k\#(t)\#($0)", "poster": "p\#($0)", "message": "nested \#(t).\#($0)", "posted": 1700000100, "children": []}"# }
            items.append(#"{"key": "k\#(t)", "poster": "top\#(t)", "message": "top \#(t)", "posted": 1700000000, "children": [\#(kids.joined(separator: ", "))]}"#)
        }
        let json = #"{"export": {"version": 2}, "data": {"items": [\#(items.joined(separator: ", "))]}}"#
        let errors = try #require(throws: ThreadfoldError.self) { try Importer.read(bytes: Array(json.utf8), file: "x.json") }
        let lines = errors.problems.map(\.description)
        #expect(lines[0].hasPrefix("x.json:1:1: error: $: cannot tell which form this is"))
        #expect(lines.contains("x.json:1:1: error: $.data.items: an array of 4 objects, with the fields key, poster, message, posted, children"))
        // No id field among these names: no line is suggested.
        #expect(!lines.last!.contains("--map"))
        let withID = json.replacingOccurrences(of: #""key""#, with: #""id""#)
        let again = try #require(throws: ThreadfoldError.self) { try Importer.read(bytes: Array(withID.utf8), file: "x.json") }
        let suggestion = try #require(again.problems.last?.message)
        #expect(suggestion == "to read these comments by their own field names, try --map comments=$.data.items,replies=children,id=id,author=poster,body=message,time=posted")
        let line = String(suggestion.split(separator: " ").last!)
        let result = try Importer.read(bytes: Array(withID.utf8), file: "x.json", options: ImportOptions(mapping: try FieldMapping.parse(line)))
        #expect(result.threads[0].comments.count == 16 && result.threads[0].comments.filter { $0.parentID != nil }.count == 12)
        let page = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(result.threads[0]).html, as: UTF8.self)
        #expect(page.contains("<p>nested 3.2</p>") && page.contains("top3"))
    }

    @Test("a flat list under other field names is refused with a --map line that, run as suggested, reads every body")
    func flatSuggestion() throws {
        let json =
            #"[{"id": 1, "user": "ann", "text": "first", "time": 1700000000}, {"id": 2, "parent": 1, "user": "bo", "text": "second", "time": 1700000060}, {"id": 3, "parent": 1, "user": "cy", "text": "third", "time": 1700000120}]"#
        let errors = try #require(throws: ThreadfoldError.self) { try Importer.read(bytes: Array(json.utf8), file: "flat.json") }
        let suggestion = try #require(errors.problems.last?.message)
        #expect(suggestion == "to read these comments by their own field names, try --map id=id,parent=parent,author=user,body=text,time=time")
        let line = String(suggestion.split(separator: " ").last!)
        let result = try Importer.read(bytes: Array(json.utf8), file: "flat.json", options: ImportOptions(mapping: try FieldMapping.parse(line)))
        #expect(result.threads[0].comments.map(\.body) == ["first", "second", "third"])
        #expect(result.threads[0].comments.map { $0.author ?? "" } == ["ann", "bo", "cy"])
    }

    @Test("flat comments of many stories: the suggested --map names thread= and title=, and pasted, gives one page per story with every reply in place")
    func threadKeySuggestion() throws {
        // Hacker News comments as Algolia's search returns them: each with its story's id and title.
        var hits: [String] = []
        for story in [8863, 121003] {
            for k in 0..<4 {
                let id = story * 10 + k
                let parent = k < 2 ? story : story * 10 + k - 2
                hits.append(
                    #"{"objectID": "\#(id)", "parent_id": \#(parent), "story_id": \#(story), "story_title": "Story \#(story)", "author": "u\#(k)", "comment_text": "<p>c \#(id)</p>", "created_at": "2024-01-01T00:00:0\#(k)Z", "points": null}"#
                )
            }
        }
        let json = "[" + hits.joined(separator: ",\n") + "]"
        let errors = try #require(throws: ThreadfoldError.self) { try Importer.read(bytes: Array(json.utf8), file: "hits.json") }
        let suggestion = try #require(errors.problems.last?.message)
        #expect(
            suggestion
                == "to read these comments by their own field names, try --map id=objectID,parent=parent_id,author=author,body=comment_text,time=created_at,thread=story_id,title=story_title,format=html"
        )
        let line = String(suggestion.split(separator: " ").last!)
        let result = try Importer.read(bytes: Array(json.utf8), file: "hits.json", options: ImportOptions(mapping: try FieldMapping.parse(line)))
        #expect(result.threads.map { $0.info.title ?? "-" } == ["Story 8863", "Story 121003"])
        #expect(result.threads.map { $0.info.id?.string ?? "-" } == ["8863", "121003"])
        for thread in result.threads {
            let tree = try ThreadBuilder.build(thread)
            #expect(tree.totals.comments == 4 && tree.roots.count == 2 && tree.diagnostics.isEmpty, "no orphans: \(tree.diagnostics.map(\.error))")
        }
    }

    @Test("lenient reading never turns a file into an empty page: past --max-skipped the file is refused")
    func maxSkipped() throws {
        let json = #"{"title": "Lobsters", "comments": [{"short_id": "a", "comment": "x"}, {"short_id": "b", "comment": "y"}, {"id": "c", "body": "z", "author": "k"}]}"#
        let errors = try #require(throws: ThreadfoldError.self) {
            try Importer.read(bytes: Array(json.utf8), file: "l.json", options: ImportOptions(lenient: true))
        }
        #expect(errors.problems[0].message.hasPrefix("read as a Threadfold thread, 2 comments of 3 were skipped for a missing field, more than 50% of the file"))
        var options = ImportOptions(lenient: true)
        options.maxSkipped = 0.7
        #expect(try Importer.read(bytes: Array(json.utf8), file: "l.json", options: options).threads[0].comments.count == 1)
    }

    @Test("files of the right form pass: the example, real Reddit and Discourse exports, the Lemmy, Mastodon and GitHub fixtures, deleted and anonymous comments")
    func rightForms() throws {
        _ = try Importer.read(bytes: ResourceStore.exampleThread, file: "example.json")
        _ = try Importer.read(bytes: TestData.bytes("fixtures/reddit-listing/comments.json"), file: "reddit.json")
        _ = try Importer.read(bytes: TestData.bytes("fixtures/discourse-topic/topic.json"), file: "topic.json")
        for fixture in ["lemmy-post/post.json", "mastodon-context/context.json", "github-issue/issue.json"] {
            _ = try Importer.read(bytes: TestData.bytes("fixtures/" + fixture), file: fixture)
        }
        let deleted =
            #"[{"id": 1, "author": "a", "body": "kept"}, {"id": 2, "parent_id": 1, "deleted": true}, {"id": 3, "parent_id": 2, "deleted": true}, {"id": 4, "parent_id": 3, "removed": true}, {"id": 5, "parent_id": 4, "author": "b", "body": "x"}]"#
        _ = try Importer.read(bytes: Array(deleted.utf8), file: "d.json")
        let anonymous = #"[{"id": 1, "body": "one"}, {"id": 2, "body": "two"}, {"id": 3, "parent_id": 1, "body": "three"}]"#
        _ = try Importer.read(bytes: Array(anonymous.utf8), file: "a.json")
    }

    @Test(
        "a file that matches docs/thread.schema.json is read whatever its authors, its unknown fields ignored, guessed or named",
        arguments: [SourceFormat.auto, .threadfold])
    func schemaFile(format: SourceFormat) throws {
        // issue 40's example: no authors, and `likes`, which the format does not read.
        let json = #"{"comments":[{"id":1,"body":"a","likes":1},{"id":2,"parent_id":1,"body":"b","likes":2},{"id":3,"parent_id":1,"body":"c","likes":0}]}"#
        let result = try Importer.read(bytes: Array(json.utf8), file: "own.json", options: ImportOptions(format: format))
        #expect(result.format == .threadfold)
        #expect(result.threads[0].comments.map(\.body) == ["a", "b", "c"])
        #expect(result.threads[0].comments.allSatisfy { $0.author == nil })
        let page = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(result.threads[0]).html, as: UTF8.self)
        #expect(page.contains("<p>b</p>") && page.contains("<p>c</p>"))
    }
}
