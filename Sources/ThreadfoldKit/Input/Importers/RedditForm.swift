/// Reddit as a form: a thread as `/comments/<id>.json` returns it (an array of two Listings), or a
/// comment dump (objects with `link_id` and `parent_id`, one per line or in an array). The
/// readers are `RedditImporter.decode` and `decodeDump`; this says which one a document goes to.
extension RedditImporter: ImporterForm {
    static let name = "reddit"
    static let described = "Reddit (a /comments/<id>.json thread, or dump comments and submissions)"
    static var markdownFlavor: MarkdownFlavor? { .reddit }

    static func detect(_ document: JSONDocument) -> Bool {
        isListingPair(document) || isDump(document, parents: true)
    }

    static func isWholeThread(_ document: JSONDocument) -> Bool {
        isListingPair(document) && document.count(document.root) == 2
    }

    static func decode(_ context: inout ImportContext) throws(ThreadfoldError) -> [ThreadRecord] {
        isDump(context.document, parents: false) ? decodeDump(&context) : [decode(&context)]
    }

    /// An array whose first element is a Listing.
    static func isListingPair(_ document: JSONDocument) -> Bool {
        let root = document.root
        guard document.kind(root) == .array, document.count(root) > 0, document.kind(root + 1) == .object,
            let kind = document.member(root + 1, "kind"), document.kind(kind) == .string
        else { return false }
        return document.string(kind) == "Listing"
    }

    /// An array (or JSON Lines) of dump records: comments whose first has `link_id` (and, to be
    /// recognised unasked, `parent_id`), or a submission (`DumpForm.isRedditSubmission`).
    static func isDump(_ document: JSONDocument, parents: Bool) -> Bool {
        let root = document.root
        guard document.kind(root) == .array && document.count(root) > 0 && document.kind(root + 1) == .object else { return false }
        if DumpForm.isRedditSubmission(document, root + 1) { return true }
        return document.member(root + 1, "link_id") != nil && (!parents || document.member(root + 1, "parent_id") != nil)
    }
}
