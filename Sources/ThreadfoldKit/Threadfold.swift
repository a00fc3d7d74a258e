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
    public static let version = ThreadfoldVersion.current

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
        resources: ResourceStore = ResourceStore()
    ) throws(ThreadfoldError) -> RenderedPage {
        do {
            let pipeline = try ThreadPipeline(options: ArchiveOptions(render: options), resources: resources)
            let page = try pipeline.page(bytes: json, file: file)
            let assets = try resources.assets(search: false).map { RenderedPage.Asset(name: $0.name, bytes: $0.bytes) }
            return RenderedPage(
                html: page.html, assets: assets, warnings: page.diagnostics.map(\.error),
                comments: page.thread.totals.comments)
        } catch {
            throw ThreadfoldError(error)
        }
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
    ///   - output: the site's folder.
    ///   - options: the archive's options and how the build runs (jobs, incremental, shard).
    ///   - progress: called now and then with the units done and the units in all.
    /// - Returns: what was built, with every warning.
    /// - Throws: ``ThreadfoldError`` with every input problem found, or the reason the site could
    ///   not be written.
    public static func buildSite(
        inputs: [String], output: URL, options: BuildOptions = BuildOptions(),
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws(ThreadfoldError) -> BuildReport {
        let report: ArchiveBuilder.Report
        var globs: [FolderFilter.Glob] = []
        for pattern in options.exclude {
            guard let glob = FolderFilter.Glob(pattern) else {
                throw ThreadfoldError(kind: .input, problems: [Problem(file: "exclude", message: "'\(pattern)' matches nothing; expected a glob naming files or folders, like *.bak or drafts/")])
            }
            globs.append(glob)
        }
        let filter = FolderFilter(excludes: globs, output: output.path, marker: SiteWriter.markerName)
        do {
            let units = try ArchiveInput.units(
                inputs,
                readStandardInput: { () throws(Problem) -> [UInt8] in
                    throw Problem(file: "-", message: "standard input is not read by the library; expected a file or folder")
                }, linesAreThreads: options.archive.render.importing.mapping != nil ? false : nil,
                dumpForm: ArchiveInput.dumps(options.archive.render.importing), filter: filter)
            var builder = ArchiveBuilder(units: units, output: output, options: options.archive, resources: options.resources, jobs: options.jobs)
            builder.incremental = options.incremental
            builder.shard = options.shard
            builder.durable = options.durable
            builder.precompress = options.precompress
            builder.searchTimeout = options.searchTimeout
            report = try builder.run(progress: progress)
        } catch {
            throw ThreadfoldError(error)
        }
        if let error = report.siteError { throw ThreadfoldError(kind: .output, problems: report.errors + [error.problem]) }
        if !report.errors.isEmpty { throw ThreadfoldError(kind: .input, problems: report.errors) }
        return BuildReport(report)
    }
}

/// Everything that decides how a thread becomes a page.
public struct RenderOptions: Sendable {
    public var importing = ImportOptions()
    public var thread = ThreadOptions()
    public var layout = LayoutOptions()
    public var markdown = MarkdownOptions()
    /// The locale of the words on the page; nil means the input's `lang` if there is a locale
    /// for it, else English.
    public var locale: String?
    /// The source forum's absolute URL: relative links and images in HTML bodies resolve against
    /// it. Without it they keep their text (or alt text) only.
    public var sourceURL: String?

    public init(
        thread: ThreadOptions = ThreadOptions(), layout: LayoutOptions = LayoutOptions(),
        markdown: MarkdownOptions = MarkdownOptions(), locale: String? = nil
    ) {
        self.thread = thread
        self.layout = layout
        self.markdown = markdown
        self.locale = locale
    }
}
