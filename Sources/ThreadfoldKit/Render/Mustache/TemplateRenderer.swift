/// Renders one template of a model into bytes. One renderer per page; it caches indented
/// partials. Generic over the model, so every lookup is a direct call on a plain value.
struct TemplateRenderer<Model: TemplateModel> {
    typealias Value = TemplateValue<Model.Node>
    let set: TemplateSet
    let model: Model
    var stack: [Value] = []
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
    static var partialDepthLimit: Int { 500 }

    /// Where this page's output starts in the caller's buffer.
    var start = 0

    init(set: TemplateSet, model: Model, limit: Int = Int.max) {
        self.set = set
        self.model = model
        self.limit = limit
    }

    mutating func render(_ template: Template, _ context: Value, into out: inout [UInt8]) throws(TemplateError) {
        stack = [context]
        root = template
        current = template.name
        start = out.count
        try render(template.nodes, into: &out)
    }

    /// Checked after each write: output past `limit` is an error naming the template.
    private func checkSize(_ out: [UInt8]) throws(TemplateError) {
        guard out.count - start > limit else { return }
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
        case list([Value], next: Int)
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
    private mutating func render(_ nodes: [Template.Node], into out: inout [UInt8]) throws(TemplateError) {
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
                try checkSize(out)
            case .variable(let name, let escaped):
                guard let value = lookup(name) else { continue }
                write(value, escaped: escaped, into: &out)
                try checkSize(out)
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
        // Its names are the partial's own, so the set's table already holds every one of them.
        var keys = set.keys
        let template = (try? Template(name: name, source: source, file: base.file, keys: &keys)) ?? base
        indented[key] = template
        return template
    }

    private func lookup(_ name: Template.Name) -> Value? {
        if name.isImplicit { return stack.last }
        let first = name.parts[0]
        var found: Value?
        // Kinds of node that missed this key already (only kinds whose keys depend on the kind
        // alone), as bits: a lookup must not allocate.
        var missed: UInt64 = 0
        var i = stack.count - 1
        while i >= 0 {
            if case .node(let node) = stack[i] {
                let kind = model.kind(of: node)
                if let kind, missed & (1 << UInt64(kind)) != 0 {
                    i -= 1
                    continue
                }
                if let value = model.value(first, of: node) {
                    found = value
                    break
                }
                if let kind { missed |= 1 << UInt64(kind) }
            }
            i -= 1
        }
        guard var value = found else { return nil }
        for part in name.parts.dropFirst() {
            guard case .node(let node) = value, let next = model.value(part, of: node) else { return nil }
            value = next
        }
        return value
    }

    private func write(_ value: Value, escaped: Bool, into out: inout [UInt8]) {
        switch value {
        case .null, .list, .node:
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
        case .text(let text):
            // Input text is escaped even in `{{{x}}}`: only HTML values are ever raw.
            HTML.escape(text, into: &out)
        case .literal(let text):
            if escaped { HTML.escape(text, into: &out) } else { out.append(contentsOf: text.utf8) }
        case .html(let html):
            out.append(contentsOf: html.raw.utf8)
        }
    }
}
