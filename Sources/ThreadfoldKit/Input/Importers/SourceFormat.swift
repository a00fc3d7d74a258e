/// A form Threadfold reads, by name: one of `forms`, `auto` (recognise it), or `mapped` (read
/// through a field mapping). Adding a form is one `ImporterForm` and one line in `forms`.
public struct SourceFormat: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Every form, in the order detection tries them: specific shapes first, Threadfold's own
    /// format (which takes any object with `comments` and any array of objects with `id`) last.
    static let forms: [any ImporterForm.Type] = [
        RedditImporter.self,
        HackerNewsImporter.self,
        DiscourseImporter.self,
        LobstersImporter.self,
        LemmyImporter.self,
        MastodonImporter.self,
        GitHubImporter.self,
        DisqusImporter.self,
        ThreadfoldForm.self,
    ]

    init(name: String) { rawValue = name }

    /// The form of that name, `auto` or `mapped`; nil for any other name.
    public init?(rawValue: String) {
        guard rawValue == "auto" || rawValue == "mapped" || Self.forms.contains(where: { $0.name == rawValue }) else { return nil }
        self.rawValue = rawValue
    }

    public static let auto = SourceFormat(name: "auto")
    /// Any JSON, read through a field mapping (`--map`); never detected, never named by `--from`.
    public static let mapped = SourceFormat(name: "mapped")

    /// The forms `--from` can name: `auto`, then every form.
    public static var named: [SourceFormat] { [.auto] + forms.map { $0.format } }

    /// The form's reader; nil for `auto` and `mapped`.
    var form: (any ImporterForm.Type)? { Self.forms.first { $0.name == rawValue } }

    public var described: String {
        switch rawValue {
        case "auto": return "automatic detection"
        case "mapped": return "comments through a field mapping"
        default: return form?.described ?? rawValue
        }
    }

    public var description: String { rawValue }

    /// Recognises a document's form from its structure (the first in `forms` that fits), or nil.
    static func detect(_ document: JSONDocument) -> SourceFormat? {
        forms.first { $0.detect(document) }?.format
    }

    /// Whether a document, as one line of JSON Lines, is a whole thread in the form it is recognised as.
    static func isWholeThread(_ document: JSONDocument) -> Bool {
        forms.first { $0.detect(document) }?.isWholeThread(document) ?? false
    }
}
