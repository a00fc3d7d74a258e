/// How input files are read.
public struct ImportOptions: Sendable {
    /// The form of the input; `auto` recognises it.
    public var format: SourceFormat = .auto
    /// Overrides the importer's choice of body format for every body.
    public var bodyFormat: BodyFormat?
    /// Reads any JSON list of comments through this mapping instead of a known form.
    public var mapping: FieldMapping?
    /// A comment missing a required field is skipped and reported instead of failing the file.
    public var lenient = false
    /// With `lenient`, the most comments of a file that may be skipped, as a share: past it the
    /// file is refused, so lenient reading never turns a file into an empty page.
    public var maxSkipped = 0.5
    /// Discourse category names by id (from the forum's `/categories.json` or `/site.json`);
    /// without a name, a topic's category is "Category N".
    public var categoryNames: [String: String] = [:]

    public init(format: SourceFormat = .auto, bodyFormat: BodyFormat? = nil, mapping: FieldMapping? = nil, lenient: Bool = false) {
        self.format = format
        self.bodyFormat = bodyFormat
        self.mapping = mapping
        self.lenient = lenient
    }
}
