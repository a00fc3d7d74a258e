/// Reddit as a form: a thread as `/comments/<id>.json` returns it (an array of two Listings), or a
/// comment dump (objects with `link_id` and `parent_id`, one per line or in an array). The
/// readers are `RedditImporter.decode` and `decodeDump`; this says which one a document goes to.
extension RedditImporter: ImporterForm {
    static let name = "reddit"
    static let described = "Reddit (a /comments/<id>.json thread, or dump comments and submissions)"
    static var markdownFlavor: MarkdownFlavor? { .reddit }

    static func detect(_ json: JSONReader) -> Bool {
        isListingPair(json) || isDump(json, parents: true)
    }

    static func isWholeThread(_ json: JSONReader) -> Bool {
        isListingPair(json) && json.size(json.root) == 2
    }

    static func decode(_ context: inout ImportContext) throws(ThreadfoldError) -> [ThreadRecord] {
        isDump(context.reader, parents: false) ? decodeDump(&context) : [decode(&context)]
    }

    /// An array whose first element is a Listing.
    static func isListingPair(_ json: JSONReader) -> Bool {
        guard let first = json.firstElement(json.root), let kind = json.member(first, "kind", is: .string) else { return false }
        return json.text(kind) == "Listing"
    }

    /// An array (or JSON Lines) of dump records: comments whose first has `link_id` (and, to be
    /// recognised unasked, `parent_id`), or a submission (`DumpForm.isRedditSubmission`).
    static func isDump(_ json: JSONReader, parents: Bool) -> Bool {
        guard let first = json.firstElement(json.root), json.isObject(first) else { return false }
        if DumpForm.isRedditSubmission(has: { json.has(first, $0) }) { return true }
        return json.has(first, "link_id") && (!parents || json.has(first, "parent_id"))
    }
}
