/// A set of parsed templates that can include each other as partials. Immutable and Sendable,
/// so one set serves every thread being rendered at once.
public struct TemplateSet: Sendable {
    public private(set) var templates: [String: Template]

    public init(templates: [String: Template] = [:]) { self.templates = templates }

    /// Parses `sources` (name to source text). Errors name the file given in `files`.
    public init(sources: [String: String], files: [String: String] = [:]) throws(TemplateError) {
        var templates: [String: Template] = [:]
        for name in sources.keys.sorted() {
            templates[name] = try Template(name: name, source: sources[name]!, file: files[name] ?? name)
        }
        self.templates = templates
    }

    public subscript(name: String) -> Template? { templates[name] }

    /// Renders template `name` with `context` as the root of the context stack.
    /// - Parameters:
    ///   - expectedSize: a guess of the output's size in bytes, to allocate once. It also sets
    ///     the default cap on the output (`outputLimit(expectedSize:)`).
    ///   - limit: the most bytes the output may hold; past it rendering stops with an error.
    public func render(_ name: String, _ context: MustacheValue, expectedSize: Int = 64 * 1024,
                       limit: Int? = nil) throws(TemplateError) -> [UInt8] {
        guard let template = templates[name] else {
            throw TemplateError(file: name, line: 1, column: 1, message: "no template named '\(name)'")
        }
        var renderer = TemplateRenderer(set: self, limit: limit ?? Self.outputLimit(expectedSize: expectedSize))
        renderer.out.reserveCapacity(min(expectedSize, renderer.limit))
        return try renderer.render(template, context)
    }

    /// The cap on one rendered template's output: 64 MiB plus 4 times the caller's estimate of
    /// the page's size (for a thread page, 8 KiB plus 768 bytes per comment plus the bodies' HTML).
    ///
    /// Partials can include each other more than once per level, so a template of a few lines
    /// can ask for exponential output (28 levels of doubling asked for 4.7 GB and aborted). The
    /// cap turns that into an error, while legitimate pages stay far below it: measured on the
    /// generated threads of `make check-slow`, the estimate is 1.13 times the page the built-in
    /// templates write (10 MB of JSON: 13,115 comments, estimate 21.4 MB, page 18.9 MB; 50 MB:
    /// 65,602 comments, estimate 107.1 MB, page 94.6 MB). Its 200 MB thread (262,097 comments)
    /// makes a page of about 380 MB and a cap of about 1.8 GB, room for user templates with four
    /// times the markup. The 64 MiB floor keeps small pages with wordy templates working.
    public static func outputLimit(expectedSize: Int) -> Int {
        let floor = 64 << 20
        let expected = max(expectedSize, 0)
        return expected > (Int.max - floor) / 4 ? Int.max : floor + 4 * expected
    }
}

/// Renders templates into bytes. One renderer per page; it caches indented partials.
struct TemplateRenderer {
    let set: TemplateSet
    var out: [UInt8] = []
    var stack: [MustacheValue] = []
    /// Partials re-parsed with a standalone tag's indentation, keyed by name and indentation.
    var indented: [String: Template] = [:]
    var partialDepth = 0
    /// The most bytes `out` may hold (`TemplateSet.outputLimit`).
    let limit: Int
    /// The template being rendered and the partial innermost at this moment, for messages.
    var root: Template?
    var current = ""

    /// Deeper partial nesting than this is an error: it ends runaway recursion, even one that
    /// writes nothing (which the output cap would never stop).
    static let partialDepthLimit = 500

    init(set: TemplateSet, limit: Int = Int.max) {
        self.set = set
        self.limit = limit
    }

    mutating func render(_ template: Template, _ context: MustacheValue) throws(TemplateError) -> [UInt8] {
        stack = [context]
        root = template
        current = template.name
        try render(template.nodes)
        return out
    }

    /// Checked after each write: output past `limit` is an error naming the template.
    private func checkSize() throws(TemplateError) {
        guard out.count > limit else { return }
        let name = root?.name ?? current
        let inside = current == name ? "" : " (in partial '\(current)')"
        throw TemplateError(file: root?.file ?? name, line: 1, column: 1,
                            message: "template '\(name)' wrote more than \(limit) bytes\(inside), the cap for one page; expected a page under the cap, which is 64 MiB plus 4 times the page's estimated size (partials that include each other more than once per level grow exponentially)")
    }

    /// What a frame of the render loop restores when its nodes are done.
    private enum FrameKind {
        case plain
        /// A section that pushed one value on the context stack.
        case context
        /// A section over a list: the items, and the next one to render.
        case list([MustacheValue], next: Int)
        /// A partial: the name of the template around it.
        case partial(outer: String)
    }

    /// Nodes `index..<end` of one template's flat node array still to render.
    private struct Frame {
        let nodes: [Template.Node]
        let start: Int
        var index: Int
        let end: Int
        var kind: FrameKind

        init(_ nodes: [Template.Node], _ range: Range<Int>, _ kind: FrameKind) {
            self.nodes = nodes
            start = range.lowerBound
            index = range.lowerBound
            end = range.upperBound
            self.kind = kind
        }
    }

    /// Renders `nodes` with a loop over an explicit stack of frames rather than recursion, so
    /// sections nested 16,000 deep (or more) cost heap, not call stack.
    private mutating func render(_ nodes: [Template.Node]) throws(TemplateError) {
        var frames: [Frame] = [Frame(nodes, 0..<nodes.count, .plain)]
        while !frames.isEmpty {
            let top = frames.count - 1
            guard frames[top].index < frames[top].end else {
                let frame = frames.removeLast()
                switch frame.kind {
                case .plain: break
                case .context: stack.removeLast()
                case .list(let items, let next):
                    stack.removeLast()
                    if next < items.count {
                        stack.append(items[next])
                        frames.append(Frame(frame.nodes, frame.start..<frame.end, .list(items, next: next + 1)))
                    }
                case .partial(let outer):
                    current = outer
                    partialDepth -= 1
                }
                continue
            }
            let node = frames[top].nodes[frames[top].index]
            frames[top].index += 1
            switch node {
            case .text(let bytes):
                out.append(contentsOf: bytes)
                try checkSize()
            case .variable(let name, let escaped):
                guard let value = lookup(name) else { continue }
                write(value, escaped: escaped)
                try checkSize()
            case .section(let name, let inverted, let end):
                // The children are the nodes up to `end`; this frame resumes after them.
                let children = frames[top].index..<end
                frames[top].index = end
                let nodes = frames[top].nodes
                let value = lookup(name) ?? .null
                if inverted {
                    if value.isFalsey { frames.append(Frame(nodes, children, .plain)) }
                    continue
                }
                if value.isFalsey { continue }
                if case .list(let items) = value {
                    stack.append(items[0])
                    frames.append(Frame(nodes, children, .list(items, next: 1)))
                } else {
                    stack.append(value)
                    frames.append(Frame(nodes, children, .context))
                }
            case .partial(let name, let indent):
                guard let template = partial(name, indent: indent) else { continue }
                // Output is capped by size, but a partial that includes itself and writes nothing
                // would loop forever: depth stays capped too.
                partialDepth += 1
                guard partialDepth <= TemplateRenderer.partialDepthLimit else {
                    throw TemplateError(file: name, line: 1, column: 1,
                                        message: "partials nested more than \(TemplateRenderer.partialDepthLimit) deep; expected the recursion to end")
                }
                frames.append(Frame(template.nodes, 0..<template.nodes.count, .partial(outer: current)))
                current = name
            }
        }
    }

    /// The partial `name`; when its tag stood alone on an indented line, the partial re-parsed
    /// with that indentation before each of its lines (so values interpolated into it are not
    /// indented, as the spec requires).
    private mutating func partial(_ name: String, indent: String) -> Template? {
        guard let base = set[name] else { return nil }
        guard !indent.isEmpty else { return base }
        let key = indent + "\u{0}" + name
        if let cached = indented[key] { return cached }
        var source = ""
        var atLineStart = true
        for character in base.source {
            if atLineStart { source += indent }
            source.append(character)
            atLineStart = character == "\n" || character == "\r\n"
        }
        let template = (try? Template(name: name, source: source, file: base.file)) ?? base
        indented[key] = template
        return template
    }

    private func lookup(_ name: Template.Name) -> MustacheValue? {
        if name.isImplicit { return stack.last }
        let first = name.parts[0]
        var found: MustacheValue?
        // Types that missed this key already (only those whose keys depend on type alone),
        // kept inline: a lookup must not allocate.
        var missed = MissedTypes()
        var i = stack.count - 1
        while i >= 0 {
            if case .object(let object) = stack[i] {
                let type = type(of: object)
                let fixed = type.keysDependOnTypeOnly
                let id = ObjectIdentifier(type)
                if !(fixed && missed.contains(id)) {
                    if let value = object.value(forKey: first) {
                        found = value
                        break
                    }
                    if fixed { missed.insert(id) }
                }
            }
            i -= 1
        }
        guard var value = found else { return nil }
        for part in name.parts.dropFirst() {
            guard let next = value.member(part) else { return nil }
            value = next
        }
        return value
    }

    private mutating func write(_ value: MustacheValue, escaped: Bool) {
        switch value {
        case .null, .list, .object:
            break
        case .bool(let flag):
            out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int(let number):
            out.append(contentsOf: String(number).utf8)
        case .double(let number):
            if number.rounded() == number, abs(number) < 1e15 {
                out.append(contentsOf: String(Int64(number)).utf8)
            } else {
                out.append(contentsOf: String(number).utf8)
            }
        case .string(let text):
            if escaped { HTML.escape(text, into: &out) } else { out.append(contentsOf: text.utf8) }
        case .html(let html):
            out.append(contentsOf: html.raw.utf8)
        }
    }
}

/// A few type identities held inline; past four, lookups simply stop skipping.
private struct MissedTypes {
    private var a, b, c, d: ObjectIdentifier?

    func contains(_ id: ObjectIdentifier) -> Bool { a == id || b == id || c == id || d == id }

    mutating func insert(_ id: ObjectIdentifier) {
        if a == nil { a = id } else if b == nil { b = id } else if c == nil { c = id } else if d == nil { d = id }
    }
}
