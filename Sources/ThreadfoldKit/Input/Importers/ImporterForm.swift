/// One form of export Threadfold reads: how it is named and recognised, and how it becomes
/// threads. A form is one type conforming to this protocol and one line in `SourceFormat.forms`;
/// `Importer.read`, detection, `--from` and `ArchiveInput` find it there.
protocol ImporterForm: SendableMetatype {
    /// The name `--from` takes and a thread's `sourceFormat` records ("reddit").
    static var name: String { get }
    /// What a file of this form is, for messages ("a Reddit thread (/comments/<id>.json)").
    static var described: String { get }
    /// The Markdown its bodies are written in; nil reads as GFM.
    static var markdownFlavor: MarkdownFlavor? { get }
    /// Whether `ImportAudit` also looks for arrays of objects the form left unread; only for forms
    /// whose lists of comments its walk knows (Threadfold's own).
    static var auditsUnreadArrays: Bool { get }

    /// Whether the JSON is of this form, from its structure alone. Forms are tried in
    /// `SourceFormat.forms` order and the first that says yes is taken, so a rule only has to
    /// tell its form from the ones after it.
    static func detect(_ json: JSONReader) -> Bool
    /// Whether the JSON, as one line of a JSON Lines file, is one whole thread, so that a file
    /// whose first line is one is read a line at a time (`ArchiveInput`); otherwise the lines are
    /// parts of one file (comments, items) and the file is read whole.
    static func isWholeThread(_ json: JSONReader) -> Bool
    /// The threads in the file. Problems go into `context.errors`, located; a form may throw
    /// when it has its own way of collecting them.
    static func decode(_ context: inout ImportContext) throws(ThreadfoldError) -> [ThreadRecord]

    /// Whether the form is read from the file's bytes rather than from a JSON document (an XML
    /// export): `Importer.read` tries `recognises` before parsing JSON, and such a file goes to
    /// `decode(bytes:file:options:)`.
    static var readsBytes: Bool { get }
    /// Whether the bytes are of this form (only for forms that read bytes).
    static func recognises(_ bytes: [UInt8]) -> Bool
    /// The threads in the bytes, and comments left out as warnings.
    static func decode(bytes: [UInt8], file: String, options: ImportOptions) throws(ThreadfoldError) -> (threads: [ThreadRecord], skipped: [Problem])
}

extension ImporterForm {
    static var markdownFlavor: MarkdownFlavor? { nil }
    static var auditsUnreadArrays: Bool { false }
    static func isWholeThread(_ json: JSONReader) -> Bool { false }
    static var readsBytes: Bool { false }
    static func recognises(_ bytes: [UInt8]) -> Bool { false }
    static func decode(bytes: [UInt8], file: String, options: ImportOptions) throws(ThreadfoldError) -> (threads: [ThreadRecord], skipped: [Problem]) {
        ([], [])
    }

    /// The form's `SourceFormat` value.
    static var format: SourceFormat { SourceFormat(name: name) }
}
