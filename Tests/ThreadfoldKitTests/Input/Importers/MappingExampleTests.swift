import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

/// The worked mappings of docs/importers.md, read from the page itself and run against fixtures of
/// the same shape: every body in the file must arrive, and the page must render.
@Suite("Worked mappings in docs/importers.md")
struct MappingExampleTests {
    /// Each example's `--map` by the file name it renders.
    static func examples() throws -> [String: String] {
        let page = TestData.folder.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/importers.md")
        let text = try String(contentsOf: page, encoding: .utf8)
        var found: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("threadfold render ") && line.contains(" --map '") {
            let file = String(line.split(separator: " ")[2])
            let map = line.components(separatedBy: " --map '")[1].components(separatedBy: "'")[0]
            found[file] = map
        }
        return found
    }

    static func json(_ path: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(TestData.bytes(path)))
    }

    /// The input for each example, and the bodies it holds (the thread's body first when the
    /// mapping reads one).
    static func input(_ file: String) throws -> (bytes: [UInt8], threadBody: String?, bodies: [String]) {
        switch file {
        case "issue.json":
            let all = try json("fixtures/github-issue/issue.json") as! [String: Any]
            let comments = all["comments"] as! [[String: Any]]
            return (
                try TestData.bytes("fixtures/github-issue/issue.json"), (all["issue"] as! [String: Any])["body"] as? String,
                comments.map { $0["body"] as! String }
            )
        case "review-comments.json":
            let comments = try json("fixtures/github-pull/review-comments.json") as! [[String: Any]]
            return (try TestData.bytes("fixtures/github-pull/review-comments.json"), nil, comments.map { $0["body"] as! String })
        case "post.json":
            let all = try json("fixtures/lemmy-post/post.json") as! [String: Any]
            let post = (all["post_view"] as! [String: Any])["post"] as! [String: Any]
            let bodies = (all["comments"] as! [[String: Any]]).compactMap { view -> String? in
                let comment = view["comment"] as! [String: Any]
                return comment["deleted"] as? Bool == true || comment["removed"] as? Bool == true ? nil : comment["content"] as? String
            }
            return (try TestData.bytes("fixtures/lemmy-post/post.json"), post["body"] as? String, bodies)
        case "statuses.json":
            // As the page's jq line makes it: [.context.ancestors[], .status, .context.descendants[]].
            let all = try json("fixtures/mastodon-context/context.json") as! [String: Any]
            let context = all["context"] as! [String: Any]
            let statuses = (context["ancestors"] as! [Any]) + [all["status"]!] + (context["descendants"] as! [Any])
            let bodies = statuses.compactMap { status -> String? in
                let status = status as! [String: Any]
                return ["public", "unlisted"].contains(status["visibility"] as! String) ? status["content"] as? String : nil
            }
            return ([UInt8](try JSONSerialization.data(withJSONObject: statuses)), nil, bodies)
        case "thread.json":
            // Every t1 comment's body, however deep, found by a walk over the reply Listings.
            let all = try json("fixtures/reddit-listing/comments.json") as! [[String: Any]]
            var bodies: [String] = []
            var stack: [Any] = [all[1]]
            while let next = stack.popLast() {
                guard let object = next as? [String: Any], let data = object["data"] as? [String: Any] else { continue }
                if object["kind"] as? String == "t1", let body = data["body"] as? String { bodies.append(body) }
                if let children = data["children"] as? [Any] { stack.append(contentsOf: children) }
                if let replies = data["replies"] as? [String: Any] { stack.append(replies) }
            }
            let post = ((all[0]["data"] as! [String: Any])["children"] as! [[String: Any]])[0]["data"] as! [String: Any]
            return (try TestData.bytes("fixtures/reddit-listing/comments.json"), post["selftext"] as? String, bodies)
        default:
            Issue.record("no fixture for the example rendering \(file)")
            return ([], nil, [])
        }
    }

    @Test("the page has the five worked mappings")
    func listed() throws {
        #expect(try Self.examples().keys.sorted() == ["issue.json", "post.json", "review-comments.json", "statuses.json", "thread.json"])
    }

    @Test(
        "each worked mapping reads every body of its fixture, and the page renders",
        arguments: ["issue.json", "review-comments.json", "post.json", "statuses.json", "thread.json"])
    func example(_ file: String) throws {
        let map = try #require(try Self.examples()[file])
        let (bytes, threadBody, bodies) = try Self.input(file)
        #expect(!bodies.isEmpty)
        let result = try Importer.read(bytes: bytes, file: file, options: ImportOptions(mapping: try FieldMapping.parse(map)))
        #expect(result.threads.count == 1)
        let thread = try #require(result.threads.first)
        let read = thread.comments.filter { !$0.deleted && !$0.removed }.map(\.body)
        #expect(read.sorted() == bodies.sorted(), "\(file)")
        #expect(thread.comments.allSatisfy { $0.deleted || $0.removed || $0.author != nil }, "\(file)")
        if let threadBody, !threadBody.isEmpty { #expect(thread.info.body == threadBody, "\(file)") }
        let tree = try ThreadBuilder.build(thread, options: ThreadOptions())
        #expect(tree.diagnostics.filter { $0.kind == .orphan }.isEmpty, "\(file): \(tree.diagnostics.map(\.error.description))")
        let page = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(thread).html, as: UTF8.self)
        #expect(page.contains("tf-comment"), "\(file)")
    }
}
