/// The words of a page and its `lang` tag, as `ThreadRenderer.language(for:)` chose them, with
/// every message a template names already looked up (`{{s.key}}` is then an array index).
struct PageLanguage: Sendable {
    let strings: StringsTable
    /// The page's `lang`: always a BCP 47-shaped tag.
    let tag: String
    /// Each message by the slot of its name in the template set's table.
    let messages: [String]
    /// The counted messages a thread page asks for on every comment and reply section.
    let counts: Counts
    /// "latest {date}", in every reply section's summary.
    let latest: StringsTable.FieldMessage
    /// " ({list})" after "Show 1 more reply" (its space, if any, is the locale's), and the list's separator.
    let foldDetails: StringsTable.FieldMessage
    let listSeparator: String

    struct Counts: Sendable {
        let foldHidden, points, replies, inThread, people, hideReplies, moreReplies, comments, foldPeople: StringsTable.CountedMessage

        init(_ strings: StringsTable) {
            foldHidden = strings.counted("fold_hidden")
            points = strings.counted("points")
            replies = strings.counted("replies")
            inThread = strings.counted("in_thread")
            people = strings.counted("people")
            hideReplies = strings.counted("hide_replies")
            moreReplies = strings.counted("more_replies")
            comments = strings.counted("comments")
            foldPeople = strings.counted("fold_people")
        }
    }

    init(strings: StringsTable, tag: String, keys: TemplateKeys, messages: [String]? = nil) {
        self.strings = strings
        self.tag = tag
        self.messages = messages ?? keys.names.map { strings.text($0) }
        counts = Counts(strings)
        latest = strings.withField("latest")
        foldDetails = strings.withField("fold_details")
        listSeparator = strings.text("list_separator")
    }

    /// The message named by `key`, a key of the template set this language was made for (whose
    /// every name has its message).
    @inline(__always)
    func message(_ key: TemplateKey) -> String {
        assert(Int(key.slot) < messages.count, "a key of another template set")
        return Int(key.slot) < messages.count ? messages[Int(key.slot)] : ""
    }
}
