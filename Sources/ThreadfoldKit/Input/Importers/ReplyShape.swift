/// Exports in every form whose replies make one of the parent graphs an import must stay linear
/// on. Nothing in the pipeline calls this: the tests check that each shape imports with the
/// right counts, and `threadfold-bench --import-scaling` times them at growing sizes.
///
/// Items are numbered 0..<n; each becomes one comment. Item k's id is `k + 2` (so no form's
/// opening post or thread id, which are 1, is a comment's).
package enum ReplyShape: String, CaseIterable, Sendable {
    /// Item 0 answers the thread; item k answers item k - 1. Listed 0, 1, 2, …
    case chain
    /// The chain, listed from its deepest item up: every item comes before its parent.
    case reversedChain
    /// Items 0 and 1 answer each other; every other item answers item 0.
    case cycle

    /// The item that item `k` answers; nil for the thread itself.
    package func parent(of k: Int) -> Int? {
        switch self {
        case .chain, .reversedChain: return k == 0 ? nil : k - 1
        case .cycle: return k == 0 ? 1 : 0
        }
    }

    /// The items in the order the export lists them.
    package func order(_ n: Int) -> [Int] {
        self == .reversedChain ? Array((0..<n).reversed()) : Array(0..<n)
    }

    /// Reply cycles in the shape, which the tree breaks and reports.
    package var cycles: Int { self == .cycle ? 1 : 0 }

    /// Levels of the tree once any cycle is broken at its first item in the export.
    package func levels(_ n: Int) -> Int { self == .cycle ? min(n, 2) : n }
}

/// The forms `ReplyShape` writes: every importer, each in the shape that names a parent by id.
package enum ReplyShapeForm: String, CaseIterable, Sendable {
    case reddit, hn, discourse, lobsters, lemmy, mastodon, github, disqus, threadfold, mapped

    /// The file name's extension: a Reddit or Hacker News export is JSON Lines, as dumps are.
    package var fileExtension: String {
        switch self {
        case .reddit, .hn: return "jsonl"
        case .disqus: return "xml"
        default: return "json"
        }
    }

    /// The mapping a mapped export is read with (`--map` on the command line), else nil.
    package static let mapping = "id=key,parent=answers,author=who,body=says,time=at"

    /// `n` items in `shape`, as this form's export.
    package func export(_ shape: ReplyShape, _ n: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(n * 120)
        out += Array(header.utf8)
        for (position, k) in shape.order(n).enumerated() {
            out += Array(item(k, parent: shape.parent(of: k), first: position == 0).utf8)
        }
        out += Array(footer.utf8)
        return out
    }

    private var header: String {
        switch self {
        case .reddit: return #"{"id": "s1", "title": "A shape", "selftext": "", "author": "op", "created_utc": 1700000000}"# + "\n"
        case .hn: return ""
        case .discourse:
            return #"{"id": 1, "title": "A shape", "post_stream": {"posts": [{"post_number": 1, "username": "op", "raw": "The topic"}"#
        case .lobsters: return #"{"short_id": "s1", "title": "A shape", "submitter_user": "op", "comments": ["#
        case .lemmy: return #"{"post_view": {"post": {"id": 1, "name": "A shape"}}, "comments": ["#
        case .mastodon: return #"[{"id": "1", "account": {"acct": "op"}, "content": "<p>The post</p>", "in_reply_to_id": null}"#
        case .github: return #"{"issue": {"number": 1, "title": "A shape", "user": {"login": "op"}, "body": "The issue"}, "comments": ["#
        case .disqus:
            return #"<?xml version="1.0" encoding="utf-8"?>"# + "\n"
                + #"<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals">"# + "\n"
                + #"<thread dsq:id="1"><title>A shape</title></thread>"# + "\n"
        case .threadfold: return #"{"id": "1", "title": "A shape", "comments": ["#
        case .mapped: return "["
        }
    }

    private var footer: String {
        switch self {
        case .reddit, .hn: return ""
        case .discourse: return "]}}"
        case .lobsters, .lemmy, .github, .threadfold: return "]}"
        case .mastodon, .mapped: return "]"
        case .disqus: return "</disqus>\n"
        }
    }

    /// Item `k`, answering item `parent` (nil: the thread), with what separates it from the item
    /// before (`first`: none came before, in a list the header did not open with an item).
    private func item(_ k: Int, parent: Int?, first: Bool) -> String {
        let id = k + 2, time = 1_700_000_000 + k
        let comma = first ? "" : ","
        switch self {
        case .reddit:
            let answers = parent.map { "t1_c\($0 + 2)" } ?? "t3_s1"
            return #"{"id": "c\#(id)", "link_id": "t3_s1", "parent_id": "\#(answers)", "author": "u\#(k % 7)", "body": "Item \#(k)", "created_utc": \#(time)}"# + "\n"
        case .hn:
            let answers = parent.map { "\($0 + 2)" } ?? "1"
            // The story, when an item answers it (a cycle answers none).
            let story = k == 0 && parent == nil ? #"{"id": 1, "type": "story", "by": "op", "title": "A shape", "time": 1700000000}"# + "\n" : ""
            let line = #"{"id": \#(id), "type": "comment", "by": "u\#(k % 7)", "text": "Item \#(k)", "time": \#(time), "parent": \#(answers)}"# + "\n"
            // The story is listed beside item 0: first in the chain, last in the reversed chain.
            return story.isEmpty ? line : (first ? story + line : line + story)
        case .discourse:
            let answers = parent.map { "\($0 + 2)" } ?? "1"
            return #", {"post_number": \#(id), "username": "u\#(k % 7)", "raw": "Item \#(k)", "reply_to_post_number": \#(answers)}"#
        case .lobsters:
            let answers = parent.map { #""c\#($0 + 2)""# } ?? "null"
            return comma + #"{"short_id": "c\#(id)", "commenting_user": "u\#(k % 7)", "comment": "Item \#(k)", "parent_comment": \#(answers)}"#
        case .lemmy:
            let path = "0" + (parent.map { ".\($0 + 2)" } ?? "") + ".\(id)"
            return comma + #"{"comment": {"id": \#(id), "path": "\#(path)", "content": "Item \#(k)"}, "creator": {"name": "u\#(k % 7)"}}"#
        case .mastodon:
            let answers = parent.map { "\($0 + 2)" } ?? "1"
            return #", {"id": "\#(id)", "account": {"acct": "u\#(k % 7)"}, "content": "<p>Item \#(k)</p>", "in_reply_to_id": "\#(answers)"}"#
        case .github:
            let answers = parent.map { #", "in_reply_to_id": \#($0 + 2)"# } ?? ""
            return comma + #"{"id": \#(id), "user": {"login": "u\#(k % 7)"}, "body": "Item \#(k)"\#(answers)}"#
        case .disqus:
            let answers = parent.map { #"<parent dsq:id="\#($0 + 2)"/>"# } ?? ""
            return #"<post dsq:id="\#(id)"><thread dsq:id="1"/>\#(answers)<message>Item \#(k)</message><author><name>u\#(k % 7)</name></author></post>"# + "\n"
        case .threadfold:
            let answers = parent.map { #""\#($0 + 2)""# } ?? "null"
            return comma + #"{"id": "\#(id)", "parent_id": \#(answers), "author": "u\#(k % 7)", "body": "Item \#(k)", "created_at": \#(time)}"#
        case .mapped:
            let answers = parent.map { "\($0 + 2)" } ?? "null"
            return comma + #"{"key": \#(id), "answers": \#(answers), "who": "u\#(k % 7)", "says": "Item \#(k)", "at": \#(time)}"#
        }
    }
}
