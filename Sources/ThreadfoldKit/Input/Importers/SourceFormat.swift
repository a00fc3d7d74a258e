/// The forms Threadfold reads. `auto` recognises the others from their structure.
public enum SourceFormat: String, Sendable, CaseIterable {
    case auto
    /// Threadfold's own format (docs/input-format.md).
    case threadfold
    /// A Reddit thread as returned by `/comments/<id>.json`.
    case reddit
    /// Hacker News: the Firebase item API (items as an array or one per line), the Algolia API,
    /// or HNPWA's item API.
    case hn
    /// A Discourse topic as returned by `/t/<id>.json`.
    case discourse
    /// A Lobsters story as returned by `/s/<short_id>.json`.
    case lobsters
    /// Any JSON, read through a field mapping (`--map`); never detected, never named by `--from`.
    case mapped

    /// The forms `--from` can name.
    public static var named: [SourceFormat] { [.auto, .threadfold, .reddit, .hn, .discourse, .lobsters] }

    public var described: String {
        switch self {
        case .auto: return "automatic detection"
        case .threadfold: return "a Threadfold thread"
        case .reddit: return "a Reddit thread (/comments/<id>.json)"
        case .hn: return "Hacker News items (Firebase, Algolia or HNPWA API)"
        case .discourse: return "a Discourse topic (/t/<id>.json)"
        case .lobsters: return "a Lobsters story (/s/<short_id>.json)"
        case .mapped: return "comments through a field mapping"
        }
    }

    /// Recognises a document's form from its structure, or nil when none fits.
    static func detect(_ document: JSONDocument) -> SourceFormat? {
        let root = document.root
        switch document.kind(root) {
        case .array:
            guard document.count(root) > 0 else { return .threadfold }
            let first = root + 1
            guard document.kind(first) == .object else { return nil }
            if let kind = document.member(first, "kind"), document.kind(kind) == .string, document.string(kind) == "Listing" {
                return .reddit
            }
            if isHackerNewsItem(document, first) { return .hn }
            if DumpForm.isRedditComment(document, first) || DumpForm.isRedditSubmission(document, first) { return .reddit }
            if document.member(first, "comments") != nil { return .threadfold } // threads, one per element or line
            if document.member(first, "id") != nil { return .threadfold }
            return nil
        case .object:
            if document.member(root, "post_stream") != nil { return .discourse }
            if isHackerNewsItem(document, root) || isHNPWAItem(document, root) { return .hn }
            if isLobstersStory(document, root) { return .lobsters }
            if document.member(root, "comments") != nil { return .threadfold }
            if let threads = document.member(root, "threads"), document.kind(threads) == .array { return .threadfold }
            return nil
        default:
            return nil
        }
    }

    /// A Lobsters story: a `short_id`, and `submitter_user` or comments with `commenting_user`.
    static func isLobstersStory(_ document: JSONDocument, _ object: Int) -> Bool {
        guard document.member(object, "short_id") != nil else { return false }
        if document.member(object, "submitter_user") != nil { return true }
        guard let comments = document.member(object, "comments"), document.kind(comments) == .array, document.count(comments) > 0 else { return false }
        return document.member(comments + 1, "commenting_user") != nil
    }

    /// HNPWA's item (`api.hnpwa.com/v0/item/<id>.json`): `comments` nested, and the fields only
    /// HNPWA writes (`time_ago`, `comments_count`), or `user` with `content`.
    static func isHNPWAItem(_ document: JSONDocument, _ object: Int) -> Bool {
        guard document.kind(object) == .object, let comments = document.member(object, "comments"), document.kind(comments) == .array else { return false }
        return document.member(object, "time_ago") != nil || document.member(object, "comments_count") != nil
            || (document.member(object, "user") != nil && document.member(object, "content") != nil)
    }

    static func isHackerNewsItem(_ document: JSONDocument, _ object: Int) -> Bool {
        guard let type = document.member(object, "type"), document.kind(type) == .string else { return false }
        let kind = document.string(type)
        guard ["story", "comment", "job", "poll", "pollopt"].contains(kind) else { return false }
        return document.member(object, "by") != nil || document.member(object, "kids") != nil
            || document.member(object, "story_id") != nil || document.member(object, "children") != nil
            || document.member(object, "author") != nil
    }
}
