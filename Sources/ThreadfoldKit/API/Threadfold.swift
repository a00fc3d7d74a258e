import Foundation

/// Threadfold turns forum discussions into static web pages: comment JSON in (its own format, or
/// exports from Reddit, Hacker News, Discourse and any JSON through a field mapping), HTML out, in
/// which every reply section is a native `<details>` with counts worked out in advance.
///
/// The library's face is two calls:
/// - ``renderPage(json:file:options:resources:)`` renders one thread to one standalone page;
/// - ``buildSite(inputs:output:options:progress:)`` builds a whole archive site into a folder,
///   atomically.
///
/// Both throw one error type, ``ThreadfoldError``, whose problems name the file, the line and
/// column or JSON path, what was found and what was expected. Every string from the input is
/// treated as hostile: escaped, links allowlisted, never a file name as it is.
public enum Threadfold {
    /// The library's version, written into every page's generator tag.
    public static let version = Release.version

    /// Renders the thread in `json` (any form Threadfold reads) to a standalone HTML page.
    ///
    /// The page links its stylesheet and script as `threadfold.css` and `threadfold.js` beside it;
    /// write `RenderedPage.assets` next to the page to serve it. Nothing is written to disk.
    ///
    /// - Parameters:
    ///   - json: the file's bytes, UTF-8.
    ///   - file: the name messages use for the input.
    ///   - options: how the thread is read, threaded, laid out and rendered.
    ///   - resources: the templates, locales and assets (the built-in ones by default).
    /// - Throws: ``ThreadfoldError`` when the input is not one valid thread, or a custom
    ///   template is broken.
    public static func renderPage(
        json: [UInt8], file: String = "input.json", options: RenderOptions = RenderOptions(),
        resources: Resources = Resources()
    ) throws(ThreadfoldError) -> RenderedPage {
        try page(json: json, file: file, options: options, resources: resources)
    }

    /// Builds an archive site from `inputs` into the folder `output`: an index of every thread,
    /// a page per thread at `t/<slug>-<id>/`, feeds, `thread.json` sidecars and (with a base URL)
    /// a sitemap.
    ///
    /// The folder is replaced whole and atomically, and only when every input succeeded: on any
    /// error nothing is published and the previous site stays as it was. A folder Threadfold did
    /// not write is refused.
    ///
    /// - Parameters:
    ///   - inputs: thread files, folders of them, JSON Lines files, in any form Threadfold reads.
    ///   - output: the site's folder, a path as the inputs are.
    ///   - options: the archive's options and how the build runs (jobs, incremental, shard).
    ///   - progress: called at each phase, and about ten times a second within one, with how far
    ///     the build is (``BuildProgress``), from one thread at a time.
    /// - Returns: what was built, with every warning.
    /// - Throws: ``ThreadfoldError`` with every input problem found, or the reason the site could
    ///   not be written.
    public static func buildSite(
        inputs: [String], output: String, options: BuildOptions = BuildOptions(),
        progress: (@Sendable (BuildProgress) -> Void)? = nil
    ) throws(ThreadfoldError) -> BuildReport {
        try site(inputs: inputs, output: output, options: options, progress: progress)
    }
}
