/// A form Threadfold reads, by name: one of the forms below, `auto` (recognise it), or `mapped`
/// (read through a field mapping).
public struct SourceFormat: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    init(name: String) { rawValue = name }

    /// The form of that name, `auto` or `mapped`; nil for any other name.
    public init?(rawValue: String) {
        guard rawValue == "auto" || rawValue == "mapped" || Self.isForm(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    public static let auto = SourceFormat(name: "auto")
    /// Any JSON, read through a field mapping (`--map`); never detected, never named by `--from`.
    public static let mapped = SourceFormat(name: "mapped")
    /// A Reddit thread as returned by `/comments/<id>.json`, or a comment dump.
    public static let reddit = SourceFormat(name: "reddit")
    /// Hacker News: the Firebase item API (items as an array or one per line), the Algolia API,
    /// or HNPWA's item API.
    public static let hn = SourceFormat(name: "hn")
    /// A Discourse topic as returned by `/t/<id>.json`.
    public static let discourse = SourceFormat(name: "discourse")
    /// A Lobsters story as returned by `/s/<short_id>.json`.
    public static let lobsters = SourceFormat(name: "lobsters")
    /// A Lemmy post and its comments (`/api/v3/post` with `/api/v3/comment/list`'s comments).
    public static let lemmy = SourceFormat(name: "lemmy")
    /// A Mastodon status with its context, the context alone, or an array of statuses.
    public static let mastodon = SourceFormat(name: "mastodon")
    /// GitHub issue or pull request comments (`/repos/<owner>/<repo>/issues/<n>/comments`).
    public static let github = SourceFormat(name: "github")
    /// A Disqus XML export.
    public static let disqus = SourceFormat(name: "disqus")
    /// Threadfold's own format (docs/input-format.md).
    public static let threadfold = SourceFormat(name: "threadfold")

    /// The forms `--from` can name: `auto`, then every form, in the order detection tries them.
    public static var named: [SourceFormat] { [.auto] + formNames.map(SourceFormat.init(name:)) }

    /// What the form is, in words: "Reddit JSON".
    public var described: String {
        switch rawValue {
        case "auto": return "automatic detection"
        case "mapped": return "comments through a field mapping"
        default: return formDescribed ?? rawValue
        }
    }

    public var description: String { rawValue }
}
