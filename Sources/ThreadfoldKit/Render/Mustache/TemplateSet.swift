/// A set of parsed templates that can include each other as partials, sharing one table of
/// names. Immutable and Sendable, so one set serves every page being rendered at once.
package struct TemplateSet: Sendable {
    package private(set) var templates: [String: Template]
    /// Every name the templates use, with its slot (`TemplateKey`).
    package let keys: TemplateKeys
    /// Each template linked with the partials of its tags that are not indented, by name: what
    /// every page rendering it would link first (`TemplateLinker.linked(_:of:)`), done once.
    private var links: [String: TemplateLinker] = [:]

    /// Parses `sources` (name to source text). Errors name the file given in `files`.
    package init(sources: [String: String], files: [String: String] = [:]) throws(ThreadfoldError) {
        var templates: [String: Template] = [:]
        var keys = TemplateKeys()
        for name in sources.keys.sorted() {
            templates[name] = try Template(name: name, source: sources[name]!, file: files[name] ?? name, keys: &keys)
        }
        self.templates = templates
        self.keys = keys
        var links: [String: TemplateLinker] = [:]
        for (name, template) in templates { links[name] = TemplateLinker.linked(template, of: self) }
        self.links = links
    }

    package subscript(name: String) -> Template? { templates[name] }

    /// `template` linked with the partials of its tags that are not indented.
    func linked(_ template: Template) -> TemplateLinker {
        links[template.name] ?? TemplateLinker.linked(template, of: self)
    }

    /// Renders template `name` of `model`, with `root` as the bottom of the context stack,
    /// appending to `out`. An empty `out` is replaced by a new array of `expectedSize` bytes that
    /// the page is written into directly (`TemplateRenderer.render(_:into:capacity:)`).
    /// - Parameters:
    ///   - expectedSize: a guess of the output's size in bytes, to allocate once. It also sets
    ///     the default cap on the output (`outputLimit(expectedSize:)`).
    ///   - limit: the most bytes the output may add; past it rendering stops with an error.
    package func render<Model: TemplateModel>(
        _ name: String, model: Model, root: TemplateValue<Model.Node>,
        into out: inout [UInt8], expectedSize: Int = 64 * 1024,
        limit: Int? = nil
    ) throws(ThreadfoldError) {
        guard let template = templates[name] else {
            throw ThreadfoldError.template(file: name, line: 1, column: 1, message: "no template named '\(name)'")
        }
        var renderer = TemplateRenderer(set: self, model: model, root: template, limit: limit ?? Self.outputLimit(expectedSize: expectedSize))
        let capacity = min(max(expectedSize, 0), renderer.limit)
        if !out.isEmpty { out.reserveCapacity(out.count + capacity) }
        try renderer.render(root, into: &out, capacity: capacity)
    }

    /// Renders template `name` into a new array.
    package func render<Model: TemplateModel>(
        _ name: String, model: Model, root: TemplateValue<Model.Node>,
        expectedSize: Int = 64 * 1024, limit: Int? = nil
    ) throws(ThreadfoldError) -> [UInt8] {
        var out: [UInt8] = []
        try render(name, model: model, root: root, into: &out, expectedSize: expectedSize, limit: limit)
        return out
    }

    /// The cap on one rendered template's output: 64 MiB plus 4 times the caller's estimate of
    /// the page's size (for a thread page, 8 KiB plus 1,152 bytes per comment plus the bodies' HTML).
    ///
    /// Partials can include each other more than once per level, so a template of a few lines
    /// can ask for exponential output (28 levels of doubling ask for 4.7 GB). The cap turns that
    /// into an error, while legitimate pages stay far below it: on the generated threads of
    /// `make check-slow` the estimate is above the page the built-in templates write, so a 200 MB
    /// thread (262,097 comments) makes a page of about 380 MB under a cap of over 2 GB, room
    /// for user templates with four times the markup. The 64 MiB floor keeps small pages with
    /// wordy templates working.
    package static func outputLimit(expectedSize: Int) -> Int {
        let floor = 64 << 20
        let expected = max(expectedSize, 0)
        return expected > (Int.max - floor) / 4 ? Int.max : floor + 4 * expected
    }
}
