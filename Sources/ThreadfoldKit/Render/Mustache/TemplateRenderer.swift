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
    /// - Parameter expectedSize: a guess of the output's size in bytes, to allocate once.
    public func render(_ name: String, _ context: MustacheValue, expectedSize: Int = 64 * 1024) throws(TemplateError) -> [UInt8] {
        guard let template = templates[name] else {
            throw TemplateError(file: name, line: 1, column: 1, message: "no template named '\(name)'")
        }
        var renderer = TemplateRenderer(set: self)
        renderer.out.reserveCapacity(expectedSize)
        return try renderer.render(template, context)
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

    /// Deeper partial nesting than this is an error rather than a stack overflow.
    static let partialDepthLimit = 500

    init(set: TemplateSet) { self.set = set }

    mutating func render(_ template: Template, _ context: MustacheValue) throws(TemplateError) -> [UInt8] {
        stack = [context]
        try render(template.nodes)
        return out
    }

    private mutating func render(_ nodes: [Template.Node]) throws(TemplateError) {
        for node in nodes {
            switch node {
            case .text(let bytes):
                out.append(contentsOf: bytes)
            case .variable(let name, let escaped):
                guard let value = lookup(name) else { continue }
                write(value, escaped: escaped)
            case .section(let name, let inverted, let children):
                let value = lookup(name) ?? .null
                if inverted {
                    if value.isFalsey { try render(children) }
                    continue
                }
                if value.isFalsey { continue }
                if case .list(let items) = value {
                    for item in items {
                        stack.append(item)
                        try render(children)
                        stack.removeLast()
                    }
                } else {
                    stack.append(value)
                    try render(children)
                    stack.removeLast()
                }
            case .partial(let name, let indent):
                guard let template = partial(name, indent: indent) else { continue }
                partialDepth += 1
                guard partialDepth <= TemplateRenderer.partialDepthLimit else {
                    throw TemplateError(file: name, line: 1, column: 1,
                                        message: "partials nested more than \(TemplateRenderer.partialDepthLimit) deep; expected the recursion to end")
                }
                try render(template.nodes)
                partialDepth -= 1
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
