/// The pipeline in one place: bytes → records → thread → page model → HTML.
///
/// Stages live in their own folders (Input, Thread, Layout, Render, Site) and data flows one
/// way through them; this type only wires them together for callers that want a page.
public enum Threadfold {
    public static let version = "0.1.0"
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

    public init(thread: ThreadOptions = ThreadOptions(), layout: LayoutOptions = LayoutOptions(),
                markdown: MarkdownOptions = MarkdownOptions(), locale: String? = nil) {
        self.thread = thread
        self.layout = layout
        self.markdown = markdown
        self.locale = locale
    }
}

/// A rendered thread: its page and what the build noticed on the way.
public struct RenderedThread: Sendable {
    public var thread: ThreadTree
    public var html: [UInt8]
    public var diagnostics: [Diagnostic] { thread.diagnostics }
}

/// Renders threads with one set of templates and options. Immutable and Sendable, so one
/// instance can render many threads at once.
public struct ThreadPipeline: Sendable {
    public let options: RenderOptions
    let templates: TemplateSet
    let resources: ResourceStore
    let defaultStrings: StringsTable

    public init(options: RenderOptions = RenderOptions(), resources: ResourceStore = ResourceStore()) throws {
        self.options = options
        self.resources = resources
        self.templates = try resources.templateSet()
        self.defaultStrings = try resources.strings(locale: options.locale ?? "en")
    }

    /// Reads a file's threads in any supported form (`options.importing`).
    public func read(bytes: [UInt8], file: String) throws -> ImportResult {
        try Importer.read(bytes: bytes, file: file, options: options.importing)
    }

    /// Reads, builds, lays out and renders a file that holds one thread.
    public func render(bytes: [UInt8], file: String, assets: String = "") throws -> RenderedThread {
        let threads = try read(bytes: bytes, file: file).threads
        guard threads.count == 1 else {
            throw InputErrors([InputError(file: file, message: "holds \(threads.count) threads; expected one (render them with read(bytes:file:) and render(record:))")])
        }
        return try render(record: threads[0], assets: assets)
    }

    /// The words for a thread's pages: the explicit locale, else the input's `lang` when it is a
    /// language tag naming a locale (`ResourceStore.strings(locale:)` matches names, never
    /// builds a path from them), else the default.
    func strings(for info: ThreadInfo) -> StringsTable {
        if options.locale == nil, let lang = info.lang, let table = try? resources.strings(locale: lang) {
            return table
        }
        return defaultStrings
    }

    public func render(record: ThreadRecord, assets: String = "") throws -> RenderedThread {
        let thread = try ThreadBuilder.build(record, options: options.thread)
        let model = PageLayout.make(thread, options: options.layout)
        let strings = strings(for: thread.info)
        let renderer = PageRenderer(templates: templates, strings: strings,
                                    markdown: MarkdownRenderer(options: options.markdown))
        // An explicit locale sets the page language; otherwise the input's does.
        let html = try renderer.render(model, assets: assets, lang: options.locale ?? thread.info.lang ?? strings.locale)
        return RenderedThread(thread: thread, html: html)
    }
}
