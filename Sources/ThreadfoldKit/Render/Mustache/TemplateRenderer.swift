/// Renders one template of a model into bytes. One renderer per page; it caches indented
/// partials. Generic over the model, so every lookup is a direct call on a plain value.
struct TemplateRenderer<Model: TemplateModel> {
    typealias Value = TemplateValue<Model.Node>
    typealias Op = Template.Program.Op
    let set: TemplateSet
    let model: Model
    var stack: [Value] = []
    /// The templates this page has used: the one rendered first, then each partial (with the
    /// indentation of its tag) when it is first included. Frames name them by index.
    var templates: [Template] = []
    /// For each template, where each of its partials resolved to: an index into `templates`,
    /// `unresolved`, or `missing` (a partial the set does not have renders nothing).
    var links: [[Int32]] = []
    /// Templates already in `templates`, by indentation and name.
    var loaded: [String: Int32] = [:]
    var partialDepth = 0
    /// The most bytes `out` may hold (`TemplateSet.outputLimit`).
    let limit: Int
    /// The partial innermost at this moment (an index into `templates`), for messages.
    var current: Int32 = 0

    private static var unresolved: Int32 { -1 }
    private static var missing: Int32 { -2 }

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
        templates = []
        links = []
        loaded = [:]
        _ = add(template, key: "\u{0}" + template.name)
        current = 0
        start = out.count
        try run(into: &out)
    }

    private mutating func add(_ template: Template, key: String) -> Int32 {
        let index = Int32(templates.count)
        templates.append(template)
        links.append(Array(repeating: Self.unresolved, count: template.program.partials.count))
        loaded[key] = index
        return index
    }

    /// Checked after each write: output past `limit` is an error naming the template.
    @inline(__always)
    private func checkSize(_ out: [UInt8]) throws(TemplateError) {
        if out.count - start > limit { throw tooLarge() }
    }

    private func tooLarge() -> TemplateError {
        let root = templates[0]
        let name = templates[Int(current)].name
        let inside = current == 0 || name == root.name ? "" : " (in partial '\(name)')"
        return TemplateError(file: root.file, line: 1, column: 1,
                            message: "template '\(root.name)' wrote more than \(limit) bytes\(inside), the cap for one page; expected a page under the cap, which is 64 MiB plus 4 times the page's estimated size (partials that include each other more than once per level grow exponentially)")
    }

    /// What a frame of the render loop restores when its ops are done.
    private enum FrameKind {
        case plain
        /// A section that pushed one value on the context stack.
        case context
        /// A section over a list: the items, and the next one to render.
        case list([Value], next: Int)
        /// A partial: the template around it.
        case partial(outer: Int32)
    }

    /// Ops `index..<end` of template `template` still to render.
    private struct Frame {
        let template: Int32
        let start: Int32
        var index: Int32
        let end: Int32
        var kind: FrameKind

        init(_ template: Int32, _ start: Int32, _ end: Int32, _ kind: FrameKind) {
            self.template = template
            self.start = start
            index = start
            self.end = end
            self.kind = kind
        }
    }

    /// Renders with a loop over an explicit stack of frames rather than recursion, so sections
    /// nested 16,000 deep (or more) cost heap, not call stack. The ops of the template on top
    /// are held in a local, taken again only when the frame on top changes template.
    private mutating func run(into out: inout [UInt8]) throws(TemplateError) {
        var frames: [Frame] = [Frame(0, 0, Int32(templates[0].program.ops.count), .plain)]
        var loadedTemplate: Int32 = 0
        var program = templates[0].program
        while let top = frames.indices.last {
            guard frames[top].index < frames[top].end else {
                let frame = frames.removeLast()
                switch frame.kind {
                case .plain: break
                case .context: stack.removeLast()
                case .list(let items, let next):
                    stack.removeLast()
                    if next < items.count {
                        stack.append(items[next])
                        frames.append(Frame(frame.template, frame.start, frame.end, .list(items, next: next + 1)))
                    }
                case .partial(let outer):
                    current = outer
                    partialDepth -= 1
                }
                continue
            }
            let template = frames[top].template
            if template != loadedTemplate {
                loadedTemplate = template
                program = templates[Int(template)].program
            }
            let i = frames[top].index
            let op = program.ops[Int(i)]
            frames[top].index = i + 1
            switch op.code {
            case .text:
                out.append(contentsOf: program.bytes[Int(op.a)..<Int(op.a + op.b)])
                try checkSize(out)
            case .escaped, .raw:
                guard let value = lookup(op, in: program) else { continue }
                write(value, escaped: op.code == .escaped, into: &out)
                try checkSize(out)
            case .section, .inverted:
                // The children are the ops up to `end`; this frame resumes after them.
                frames[top].index = op.end
                let value = lookup(op, in: program) ?? .null
                if op.code == .inverted {
                    if value.isFalsey { frames.append(Frame(template, i + 1, op.end, .plain)) }
                    continue
                }
                if value.isFalsey { continue }
                if case .list(let items) = value {
                    stack.append(items[0])
                    frames.append(Frame(template, i + 1, op.end, .list(items, next: 1)))
                } else {
                    stack.append(value)
                    frames.append(Frame(template, i + 1, op.end, .context))
                }
            case .partial:
                let target = partial(Int(op.a), of: template)
                guard target >= 0 else { continue }
                // Output is capped by size, but a partial that includes itself and writes nothing
                // would loop forever: depth stays capped too.
                partialDepth += 1
                guard partialDepth <= TemplateRenderer.partialDepthLimit else {
                    throw TemplateError(file: templates[Int(target)].name, line: 1, column: 1,
                                        message: "partials nested more than \(TemplateRenderer.partialDepthLimit) deep; expected the recursion to end")
                }
                frames.append(Frame(target, 0, Int32(templates[Int(target)].program.ops.count), .partial(outer: current)))
                current = target
            }
        }
    }

    /// Partial `index` of template `template`: an index into `templates`, or `missing`. Resolved
    /// once per page and template; when its tag stood alone on an indented line, the partial is
    /// re-parsed with that indentation before each of its lines (so values interpolated into it
    /// are not indented, as the spec requires).
    private mutating func partial(_ index: Int, of template: Int32) -> Int32 {
        let known = links[Int(template)][index]
        if known != Self.unresolved { return known }
        let (name, indent) = templates[Int(template)].program.partials[index]
        let key = indent + "\u{0}" + name
        let target: Int32
        if let cached = loaded[key] {
            target = cached
        } else if let base = set[name] {
            if indent.isEmpty {
                target = add(base, key: key)
            } else {
                var source = ""
                var atLineStart = true
                for character in base.source {
                    if atLineStart { source += indent }
                    source.append(character)
                    atLineStart = character == "\n" || character == "\r\n"
                }
                // Its names are the partial's own, so the set's table already holds every one of them.
                var keys = set.keys
                target = add((try? Template(name: name, source: source, file: base.file, keys: &keys)) ?? base, key: key)
            }
        } else {
            target = Self.missing
        }
        links[Int(template)][index] = target
        return target
    }

    /// The value of the name in `op` (its keys in `program.keys`), looked up from the top of the
    /// context stack down.
    private func lookup(_ op: Op, in program: Template.Program) -> Value? {
        if op.b == 0 { return stack.last }
        return program.keys.withUnsafeBufferPointer { keys -> Value? in
            let first = Int(op.a)
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
                    if let value = model.value(keys[first], of: node) {
                        found = value
                        break
                    }
                    if let kind { missed |= 1 << UInt64(kind) }
                }
                i -= 1
            }
            guard var value = found else { return nil }
            for part in (first + 1)..<(first + Int(op.b)) {
                guard case .node(let node) = value, let next = model.value(keys[part], of: node) else { return nil }
                value = next
            }
            return value
        }
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
