import Foundation
import Testing

@testable import ThreadfoldKit

/// The hostile corpus through every form's own fields: each group of payloads becomes one export in
/// each form, every payload in every string the form reads (titles, names, bodies, flair, ids,
/// links, tags, content warnings, media). The file must be recognised as its form and its page
/// must hold no markup but Threadfold's own.
@Suite("Hostile input in every form")
struct FormHostileTests {
    static func json(_ text: String) -> String {
        var writer = JSONWriter(pretty: false)
        writer.string(text)
        return String(decoding: writer.out, as: UTF8.self)
    }

    /// An export in `form` with `payloads` everywhere.
    static func export(_ form: SourceFormat, _ payloads: [String]) -> String {
        let t = json(payloads.joined(separator: " ")), p0 = json(payloads[0])
        let items = payloads.enumerated().map { (n: $0, p: json($1), id: json($1 + "#\($0)")) }
        func list(_ make: ((n: Int, p: String, id: String)) -> String) -> String { items.map(make).joined(separator: ", ") }
        switch form {
        case .reddit:
            return
                #"[{"kind": "Listing", "data": {"children": [{"kind": "t3", "data": {"name": \#(p0), "title": \#(t), "author": \#(p0), "created_utc": 1700000000, "permalink": \#(p0), "selftext": \#(p0), "subreddit": \#(p0)}}]}}, {"kind": "Listing", "data": {"children": [\#(list { #"{"kind": "t1", "data": {"id": \#($0.id), "author": \#($0.p), "body": \#($0.p), "created_utc": \#(1700000000 + $0.n), "author_flair_text": \#($0.p), "distinguished": \#($0.p), "replies": ""}}"# })]}}]"#
        case .hn:
            return
                #"{"id": 1, "type": "story", "title": \#(t), "author": \#(p0), "text": \#(p0), "url": \#(p0), "created_at_i": 1700000000, "children": [\#(list { #"{"id": \#($0.id), "type": "comment", "author": \#($0.p), "text": \#($0.p), "created_at_i": \#(1700000000 + $0.n), "children": []}"# })]}"#
        case .discourse:
            return
                #"{"id": 1, "title": \#(t), "tags": [\#(p0)], "post_stream": {"posts": [{"post_number": 1, "username": \#(p0), "cooked": \#(p0)}, \#(list { #"{"post_number": \#($0.n + 2), "username": \#($0.p), "\#($0.n % 2 == 0 ? "raw" : "cooked")": \#($0.p), "user_title": \#($0.p), "reply_to_post_number": \#($0.n == 0 ? "null" : "\($0.n + 1)")}"# })]}}"#
        case .lobsters:
            return
                #"{"short_id": "s", "title": \#(t), "url": \#(p0), "description": \#(p0), "submitter_user": \#(p0), "short_id_url": \#(p0), "tags": [\#(p0)], "comments": [\#(list { #"{"short_id": \#($0.id), "commenting_user": {"username": \#($0.p)}, "comment": \#($0.p), "parent_comment": null}"# })]}"#
        case .lemmy:
            return
                #"{"post_view": {"post": {"id": 1, "name": \#(t), "body": \#(p0), "url": \#(p0), "ap_id": \#(p0)}, "creator": {"name": \#(p0), "local": false, "actor_id": \#(json("https://" + payloads[0]))}, "community": {"name": \#(p0)}}, "comments": [\#(list { #"{"comment": {"id": \#($0.n + 1), "path": "0.\#($0.n + 1)", "content": \#($0.p)}, "creator": {"name": \#($0.p), "local": false, "actor_id": "https://x.example/u/a"}, "creator_is_moderator": true}"# })]}"#
        case .mastodon:
            let media = #"[{"type": "image", "url": \#(p0), "preview_url": \#(p0), "description": \#(p0)}, {"type": "video", "url": \#(p0), "description": \#(p0)}]"#
            return
                #"{"status": {"id": "r", "in_reply_to_id": null, "content": \#(t), "spoiler_text": \#(p0), "url": \#(p0), "account": {"acct": \#(p0), "display_name": \#(p0), "url": \#(p0)}, "media_attachments": \#(media), "tags": [{"name": \#(p0)}]}, "context": {"ancestors": [], "descendants": [\#(list { #"{"id": \#($0.id), "in_reply_to_id": "r", "content": \#($0.p), "spoiler_text": \#($0.p), "visibility": "public", "account": {"acct": \#($0.p), "display_name": \#($0.p), "url": "https://x.example/@a"}, "media_attachments": \#(media)}"# })]}}"#
        case .github:
            return
                #"{"issue": {"id": 1, "number": 1, "title": \#(t), "body": \#(p0), "user": {"login": \#(p0)}, "html_url": \#(p0), "labels": [{"name": \#(p0)}]}, "comments": [\#(list { #"{"id": \#($0.id), "user": {"login": \#($0.p), "type": "Bot"}, "body": \#($0.p), "author_association": \#($0.p), "html_url": \#($0.p), "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-02T00:00:00Z"}"# })]}"#
        case .disqus:
            func x(_ text: String) -> String { xml(text) }
            let posts = payloads.enumerated().map { n, p in
                #"<post dsq:id="\#(x(p + "#\(n)"))"><id/><message>\#(x(p))</message><createdAt>2024-01-01T00:00:\#(10 + n)Z</createdAt><isDeleted>false</isDeleted><isSpam>false</isSpam><author><name>\#(x(p))</name><isAnonymous>false</isAnonymous><username>\#(x(p))</username></author><thread dsq:id="\#(x(payloads[0]))"/></post>"#
            }
            return
                #"<?xml version="1.0" encoding="utf-8"?><disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals"><category dsq:id="\#(x(payloads[0]))"><title>\#(x(payloads[0]))</title></category><thread dsq:id="\#(x(payloads[0]))"><link>\#(x(payloads[0]))</link><title>\#(x(payloads.joined(separator: " ")))</title><message>\#(x(payloads[0]))</message><author><name>\#(x(payloads[0]))</name><username>\#(x(payloads[0]))</username></author><category dsq:id="\#(x(payloads[0]))"/></thread>\#(posts.joined())</disqus>"#
        default:
            return ""
        }
    }

    @Test("every payload in every field a full mapping reads comes out as text, Markdown and HTML bodies alike", arguments: HostileCorpus.groups.indices)
    func mapped(_ index: Int) throws {
        let payloads = HostileCorpus.groups[index].1
        let t = Self.json(payloads.joined(separator: " ")), p0 = Self.json(payloads[0])
        let items = payloads.enumerated().map { n, p in
            #"{"kind": "c", "id": \#(Self.json(p + "#\(n)")), "who": \#(Self.json(p)), "text": \#(Self.json(p)), "cat": \#(Self.json(p)), "link": \#(Self.json(p)), "kids": [{"kind": "c", "id": \#(Self.json(p + "#r\(n)")), "who": \#(Self.json(p)), "text": \#(Self.json(p))}]}"#
        }
        let input = #"{"post": {"title": \#(t), "body": \#(p0), "by": \#(p0), "url": \#(p0), "cat": \#(p0)}, "items": [\#(items.joined(separator: ", ")), {"kind": "x"}]}"#
        for format in ["markdown", "html"] {
            let map =
                "comments=$.items,replies=kids,where.kind=c,id=id,author=who,body=text,category=cat,url=link,thread.title=$.post.title,thread.body=$.post.body,thread.author=$.post.by,thread.url=$.post.url,thread.category=$.post.cat,format=\(format)"
            let result = try Importer.read(bytes: Array(input.utf8), file: "hostile.json", options: ImportOptions(mapping: try FieldMapping.parse(map)))
            let record = try #require(result.threads.first)
            #expect(record.comments.count == payloads.count * 2)
            let page = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(record).html, as: UTF8.self)
            let issues = HostileInputTests.problems(content(of: page))
            #expect(issues.isEmpty, "\(format): \(issues.prefix(5))")
            let title = page.components(separatedBy: "<title>")[1].components(separatedBy: "</title>")[0]
            #expect(!title.contains("<"))
        }
    }

    /// Text as XML character data or an attribute value: markup characters escaped, characters
    /// XML 1.0 does not allow at all replaced by U+FFFD.
    static func xml(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out += "&#\(scalar.value);"
            default:
                let v = scalar.value
                out.unicodeScalars.append(v < 0x20 || v == 0xFFFE || v == 0xFFFF ? "\u{FFFD}" : scalar)
            }
        }
        return out
    }

    static let cases: [(form: String, group: String)] = SourceFormat.forms.map { $0.name }.filter { $0 != "threadfold" }
        .flatMap { form in HostileCorpus.groups.map { (form, $0.0) } }

    @Test("every payload in every field of every form comes out as text", arguments: cases.indices)
    func form(_ index: Int) throws {
        let (name, group) = Self.cases[index]
        let format = try #require(SourceFormat(rawValue: name))
        let payloads = try #require(HostileCorpus.groups.first { $0.0 == group }?.1)
        let input = Self.export(format, payloads)
        #expect(!input.isEmpty, "no export written for \(name)")
        let result = try Importer.read(bytes: Array(input.utf8), file: "hostile.json")
        #expect(result.format == format, "\(name), \(group)")
        for record in result.threads {
            #expect(record.comments.count == payloads.count, "\(name), \(group)")
            let page = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(record).html, as: UTF8.self)
            let issues = HostileInputTests.problems(content(of: page))
            #expect(issues.isEmpty, "\(name), \(group): \(issues.prefix(5))")
            let title = page.components(separatedBy: "<title>")[1].components(separatedBy: "</title>")[0]
            #expect(!title.contains("<"), "\(name), \(group)")
        }
    }
}
