/// The forms Threadfold reads, each an `ImporterForm`: adding a form is one `ImporterForm`, one
/// line in `forms` and one name in `SourceFormat`.
extension SourceFormat {
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

    /// The names of `forms`, in their order.
    static var formNames: [String] { forms.map { $0.name } }

    /// Whether `name` is one of `forms`.
    static func isForm(_ name: String) -> Bool { forms.contains { $0.name == name } }

    /// The form's reader; nil for `auto` and `mapped`.
    var form: (any ImporterForm.Type)? { Self.forms.first { $0.name == rawValue } }

    /// The form's own words for itself; nil for `auto` and `mapped`.
    var formDescribed: String? { form?.described }

    /// Recognises the form of parsed JSON from its structure (the first in `forms` that fits), or nil.
    static func detect(_ json: JSONReader) -> SourceFormat? {
        forms.first { $0.detect(json) }?.format
    }

    /// Whether parsed JSON, as one line of JSON Lines, is a whole thread in the form it is recognised as.
    static func isWholeThread(_ parsed: JSONDocument) -> Bool {
        let json = JSONReader(document: parsed, file: "")
        return forms.first { $0.detect(json) }?.isWholeThread(json) ?? false
    }
}
