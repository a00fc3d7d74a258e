import Foundation
import Testing

@testable import ThreadfoldKit

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The hostile corpus through an archive: every payload as a thread's title, author, category,
/// tag and comments, in one site with sections, split threads and branch pages. Every listing and
/// thread page is held to the allowlist, every feed must parse, every folder must be safe.
@Suite("Hostile input in archives")
struct ArchiveHostileTests {
    /// The thread page's allowlist, plus what listing and navigation markup uses.
    static let allowed: [String: Set<String>] = HostileInputTests.allowed.merging([
        "nav": ["class", "aria-label"], "strong": ["aria-current"], "a": ["rel", "href", "title", "class"],
        "ol": ["class", "start"], "details": ["class", "open"], "h2": ["class"], "header": ["class"],
    ]) { $0.union($1) }

    /// `text` as a JSON string literal.
    static func json(_ text: String) -> String {
        var writer = JSONWriter(pretty: false)
        writer.string(text)
        return String(decoding: writer.out, as: UTF8.self)
    }

    @Test("255 payloads in every archive field come out as text, with safe folders and well-formed feeds")
    func corpus() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var lines: [String] = []
        for (n, payload) in HostileCorpus.all.enumerated() {
            let p = Self.json(payload.text)
            var comments = [#"{"id": \#(p), "author": \#(p), "body": \#(p), "created_at": \#(1_700_000_000 + n * 100), "author_flair": \#(p), "score": 5}"#]
            for d in 0..<4 {
                comments.append(#"{"id": "d\#(d)", "parent_id": \#(d == 0 ? p : "\"d\(d - 1)\""), "author": \#(p), "body": \#(p), "created_at": \#(1_700_000_001 + n * 100 + d)}"#)
            }
            comments.append(#"{"id": "second", "author": "x", "body": "second top-level"}"#)
            lines.append(
                #"{"id": \#(Self.json("t\(n)-" + payload.text)), "title": \#(p), "author": \#(p), "category": \#(p), "tags": [\#(p)], "url": \#(p), "lang": \#(p), "body": \#(p), "created_at": \#(1_700_000_000 + n * 100), "comments": [\#(comments.joined(separator: ", "))]}"#
            )
        }
        let input = try ArchiveFixture.write(lines.joined(separator: "\n") + "\n", "hostile.jsonl", in: folder)
        var options = ArchiveOptions()
        options.sections = .category
        options.pageDepth = 2
        options.pageSize = 1
        options.perPage = 20
        options.orders = [.oldest, .top]
        let report = try ArchiveFixture.build([input], in: folder, options: options)
        #expect(report.published && report.threads == HostileCorpus.all.count, "\(report.errors.prefix(3))")

        let site = folder.appendingPathComponent("site")
        let files = ArchiveFixture.files(site)
        var checked = 0
        for (path, bytes) in files {
            #expect(RelativePath.isSafe(path), "\(path)")
            let text = String(decoding: bytes, as: UTF8.self)
            if path.hasSuffix(".html") {
                let issues = HostileInputTests.problems(content(of: text), allowed: Self.allowed)
                #expect(issues.isEmpty, "\(path): \(issues.prefix(3))")
                let title = text.components(separatedBy: "<title>")[1].components(separatedBy: "</title>")[0]
                #expect(!title.contains("<"), "\(path)")
                checked += 1
            } else if path.hasSuffix(".xml") {
                let parser = XMLParser(data: Data(bytes))
                #expect(parser.parse(), "\(path): \(parser.parserError.map { "\($0)" } ?? "")")
            } else if path.hasSuffix("thread.json") {
                #expect((try? ThreadSummary.decode(bytes, file: path)) != nil, "\(path)")
            }
        }
        // Index pages, section pages, two orders of two parts and branch pages for every thread (the
        // first comment's score puts it first in the top order, so that order is not the oldest one's).
        #expect(checked > HostileCorpus.all.count * 6)
        let folders = try FileManager.default.contentsOfDirectory(atPath: site.appendingPathComponent("t").path)
        #expect(folders.count == HostileCorpus.all.count)
        #expect(Set(folders.map { $0.lowercased() }).count == folders.count)
        let sections = try FileManager.default.contentsOfDirectory(atPath: site.appendingPathComponent("s").path)
        #expect(sections.allSatisfy { $0.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D } })
    }

    @Test("255 payloads in every field of a Reddit dump's submissions and comments, streamed through partitions, come out as text with safe folders")
    func dump() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var submissions: [String] = []
        var comments: [String] = []
        for (n, payload) in HostileCorpus.all.enumerated() {
            let p = Self.json(payload.text)
            let id = Self.json("s\(n)" + payload.text)
            let link = Self.json("t3_s\(n)" + payload.text)
            submissions.append(
                #"{"id": \#(id), "title": \#(p), "selftext": \#(p), "url": \#(p), "is_self": \#(n % 2 == 0), "author": \#(p), "created_utc": \#(1_700_000_000 + n), "score": 3, "num_comments": 9, "subreddit": \#(p), "permalink": \#(p), "stickied": true}"#
            )
            comments.append(
                #"{"id": "a\#(n)", "link_id": \#(link), "parent_id": \#(link), "author": \#(p), "body": \#(p), "created_utc": \#(1_700_000_100 + n), "author_flair_text": \#(p), "distinguished": \#(p), "link_title": \#(p)}"#
            )
            comments.append(#"{"id": \#(p), "link_id": \#(link), "parent_id": "t1_a\#(n)", "author": "x", "body": \#(p), "created_utc": \#(1_700_000_200 + n)}"#)
        }
        let rs = try ArchiveFixture.write(submissions.joined(separator: "\n") + "\n", "RS_hostile.jsonl", in: folder)
        let rc = try ArchiveFixture.write(comments.joined(separator: "\n") + "\n", "RC_hostile.jsonl", in: folder)
        var options = ArchiveOptions()
        options.sections = .category
        let report = try ArchiveFixture.build([rs, rc], in: folder, options: options)
        #expect(report.published && report.threads == HostileCorpus.all.count, "\(report.errors.prefix(3))")
        let site = folder.appendingPathComponent("site")
        var checked = 0
        for (path, bytes) in ArchiveFixture.files(site) {
            #expect(RelativePath.isSafe(path), "\(path)")
            if path.hasSuffix(".html") {
                let issues = HostileInputTests.problems(content(of: String(decoding: bytes, as: UTF8.self)), allowed: Self.allowed)
                #expect(issues.isEmpty, "\(path): \(issues.prefix(3))")
                checked += 1
            } else if path.hasSuffix(".xml") {
                #expect(XMLParser(data: Data(bytes)).parse(), "\(path)")
            }
        }
        #expect(checked > HostileCorpus.all.count)
        let folders = try FileManager.default.contentsOfDirectory(atPath: site.appendingPathComponent("t").path)
        #expect(Set(folders.map { $0.lowercased() }).count == HostileCorpus.all.count)
    }
}
