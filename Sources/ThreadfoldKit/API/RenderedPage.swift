/// One thread rendered to a standalone page by ``Threadfold/renderPage(json:file:options:resources:)``.
public struct RenderedPage: Sendable {
    /// A file the page links to, to be written beside it.
    public struct Asset: Sendable {
        /// The file's name, relative to the page (`threadfold.css`, `threadfold.js`).
        public var name: String
        public var bytes: [UInt8]
    }

    /// The page, UTF-8 HTML5.
    public var html: [UInt8]
    /// The stylesheet and script the page links to.
    public var assets: [Asset]
    /// What reading the thread noticed: orphans shown at top level, cycles broken, deleted
    /// comments left out.
    public var warnings: [Problem]
    /// The comments on the page.
    public var comments: Int
}
