/// The templates, locales and assets a page or a site is made with: the built-in ones (embedded
/// in the library), each replaced or joined by a file of the same name in a folder named here.
public struct Resources: Sendable, Hashable {
    /// A folder whose `*.mustache` files replace or add to the built-in templates, and whose
    /// `locales/*.json` files replace or add locales.
    public var templatesDirectory: String?
    /// A folder whose files replace or add to the built-in stylesheet and script.
    public var assetsDirectory: String?

    public init(templatesDirectory: String? = nil, assetsDirectory: String? = nil) {
        self.templatesDirectory = templatesDirectory
        self.assetsDirectory = assetsDirectory
    }
}
