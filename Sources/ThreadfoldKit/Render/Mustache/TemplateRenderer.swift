/// Renders one template of a model into bytes. One renderer per page; it caches indented
/// partials. Generic over the model, so every lookup is a direct call on a plain value.
struct TemplateRenderer<Model: TemplateModel> {
    typealias Value = TemplateValue<Model.Node>
    typealias Op = Template.Program.Op
    let set: TemplateSet
    let model: Model
    var stack: [Value] = []
    /// The templates this page has used, linked: the set's link of the template rendered
    /// (`TemplateSet.linked(_:)`), and each partial of an indented tag when it is first included.
    var linked: TemplateLinker
    var partialDepth = 0
    /// The most bytes `out` may hold (`TemplateSet.outputLimit`).
    let limit: Int
    /// The partial innermost at this moment (an index into `templates`), for messages.
    var current: Int32 = 0
    /// What lookups have learnt of the model, kept for the whole page (`Lookups`).
    var learnt = Lookups()

    /// Deeper partial nesting than this is an error: it ends runaway recursion, even one that
    /// writes nothing (which the output cap would never stop).
    static var partialDepthLimit: Int { 500 }

    /// Where this page's output starts in the caller's buffer.
    var start = 0

    init(set: TemplateSet, model: Model, root: Template, limit: Int = Int.max) {
        self.set = set
        self.model = model
        self.limit = limit
        linked = set.linked(root)
    }

    /// Renders the root template with `context` at the bottom of the context stack, appending
    /// to `out`. Into an empty `out`, the page is written straight into a new array of
    /// `capacity` bytes (the page's estimated size), and only what goes past it is copied again.
    mutating func render(_ context: Value, into out: inout [UInt8], capacity: Int = 0) throws(ThreadfoldError) {
        stack = [context]
        learnt = Lookups(root: Array(repeating: .unknown, count: linked.ops.count))
        current = 0
        start = out.count
        if out.isEmpty && capacity > 0 {
            var failure: ThreadfoldError?
            var overflow: [UInt8] = []
            out = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                var writer = ByteWriter(into: buffer)
                do throws(ThreadfoldError) {
                    try run(into: &writer)
                } catch {
                    failure = error
                }
                (count, overflow) = writer.finishInto()
            }
            out.append(contentsOf: overflow)
            if let failure { throw failure }
            return
        }
        // The page is written through a writer's block, and moved into `out` a block at a time.
        var taken: [UInt8] = []
        swap(&taken, &out)
        var writer = ByteWriter(appendingTo: consume taken)
        do throws(ThreadfoldError) {
            try run(into: &writer)
        } catch {
            out = writer.finish()
            throw error
        }
        out = writer.finish()
    }

    /// Checked after each write: output past `limit` is an error naming the template.
    @inline(__always)
    private func checkSize(_ out: borrowing ByteWriter) throws(ThreadfoldError) {
        if out.count - start > limit { throw tooLarge() }
    }

    private func tooLarge() -> ThreadfoldError {
        let root = linked.templates[0]
        let name = linked.templates[Int(current)].name
        let inside = current == 0 || name == root.name ? "" : " (in partial '\(name)')"
        return ThreadfoldError.template(
            file: root.file, line: 1, column: 1,
            message:
                "template '\(root.name)' wrote more than \(limit) bytes\(inside), the cap for one page; expected a page under the cap, which is 64 MiB plus 4 times the page's estimated size (partials that include each other more than once per level grow exponentially)"
        )
    }

    /// What the render loop does when a frame's ops are done.
    private enum FrameKind: UInt8 {
        case plain
        /// A section that pushed one value on the context stack.
        case context
        /// A section over a list (the top of `lists`): the next item, or the list is done.
        case list
        /// A partial: the template around it (`outer`) becomes current again.
        case partial
    }

    /// A section or partial being rendered: its ops start at `start` (a list's body runs again
    /// from there), and when they are done the loop goes back to the ops around it,
    /// `resume..<outerStop`. Plain integers, so pushing and popping a frame retains nothing.
    private struct Frame {
        let kind: FrameKind
        let start: Int32
        let resume: Int32
        let outerStop: Int32
        let outer: Int32
    }

    /// Renders with a loop over an explicit stack of frames rather than recursion, so sections
    /// nested 16,000 deep (or more) cost heap, not call stack. The ops left to run, `i..<stop`,
    /// are two locals; a frame is pushed only when a section or partial starts.
    private mutating func run(into out: inout ByteWriter) throws(ThreadfoldError) {
        // The model, read once a page: read from `self` inside this mutating loop, Swift would
        // copy the whole struct before every lookup.
        let model = self.model
        var frames: [Frame] = []
        /// Each list section being rendered: its items and the next one.
        var lists: [(items: [Value], next: Int)] = []
        var (i, stop) = linked.spans[0]
        while true {
            guard i < stop else {
                guard let frame = frames.popLast() else { return }
                switch frame.kind {
                case .plain: break
                case .context: stack.removeLast()
                case .list:
                    stack.removeLast()
                    let top = lists.count - 1
                    if lists[top].next < lists[top].items.count {
                        stack.append(lists[top].items[lists[top].next])
                        lists[top].next += 1
                        frames.append(frame)
                        i = frame.start
                        continue
                    }
                    lists.removeLast()
                case .partial:
                    current = frame.outer
                    partialDepth -= 1
                }
                (i, stop) = (frame.resume, frame.outerStop)
                continue
            }
            let op = linked.ops[Int(i)]
            i += 1
            if op.textCount > 0 {
                linked.bytes.withUnsafeBufferPointer { bytes in
                    out.write(UnsafeBufferPointer(rebasing: bytes[Int(op.text)..<Int(op.text + op.textCount)]))
                }
                try checkSize(out)
            }
            switch op.code {
            case .text: break
            case .escaped, .raw:
                guard let value = op.b == 0 ? stack.last : Self.lookup(op, at: i - 1, stack: stack, keys: linked.keys, model: model, learnt: &learnt) else { continue }
                Self.write(value, escaped: op.code == .escaped, into: &out)
                try checkSize(out)
            case .section, .inverted:
                // The children are the ops from `i` up to `op.end`; the ops around resume after them.
                let value = (op.b == 0 ? stack.last : Self.lookup(op, at: i - 1, stack: stack, keys: linked.keys, model: model, learnt: &learnt)) ?? .null
                guard let kind = enter(value, inverted: op.code == .inverted, lists: &lists) else {
                    i = op.end
                    continue
                }
                frames.append(Frame(kind: kind, start: i, resume: op.end, outerStop: stop, outer: 0))
                stop = op.end
            case .partial:
                let target = partial(Int(op.a))
                guard target >= 0 else { continue }
                // Output is capped by size, but a partial that includes itself and writes nothing
                // would loop forever: depth stays capped too.
                partialDepth += 1
                guard partialDepth <= TemplateRenderer.partialDepthLimit else { throw recursion(Int(op.a)) }
                let span = linked.spans[Int(target)]
                frames.append(Frame(kind: .partial, start: span.start, resume: i, outerStop: stop, outer: current))
                (i, stop) = span
                current = target
            }
        }
    }

    /// How a section whose value is `value` runs its ops: nil when it skips them; else the kind
    /// of its frame, with the value pushed on the context stack (a list's first item, the list
    /// itself on `lists`).
    @inline(__always)
    private mutating func enter(_ value: Value, inverted: Bool, lists: inout [(items: [Value], next: Int)]) -> FrameKind? {
        if inverted { return value.isFalsey ? .plain : nil }
        if value.isFalsey { return nil }
        if case .list(let items) = value {
            stack.append(items[0])
            lists.append((items, 1))
            return .list
        }
        stack.append(value)
        return .context
    }

    /// The error for partial tag `index` nesting past the limit, located at that tag in the
    /// file of the template that holds it (`current`).
    private func recursion(_ index: Int) -> ThreadfoldError {
        let template = linked.templates[Int(current)]
        let partial = linked.partials[index]
        let (line, column) = JSONDocument.location(in: Array(template.source.utf8), offset: Int(partial.offset))
        return ThreadfoldError.template(
            file: template.file, line: line, column: column,
            message: "partial recursion: '{{>\(partial.name)}}' nests partials more than \(TemplateRenderer.partialDepthLimit) deep; expected the recursion to end")
    }

    /// Partial tag `index` of the linked ops (`TemplateLinker.partial(_:of:)`), the page's
    /// lookups told of any ops it links.
    private mutating func partial(_ index: Int) -> Int32 {
        let target = linked.partial(index, of: set)
        if learnt.root.count < linked.ops.count {
            learnt.root.append(contentsOf: repeatElement(.unknown, count: linked.ops.count - learnt.root.count))
        }
        return target
    }

    /// What a page's lookups learn, which holds for the whole page because the model's answers
    /// are pure functions of the key and the node: for each linked op, its value when the lookup
    /// fell through to the root context and the root had the name (`s.…`, `pagefind` and the
    /// page's own fields, inside every comment), made once. A name the root lacks is asked again:
    /// remembering that too would keep the compiler from inlining the lookup into the render
    /// loop, which costs more than asking.
    struct Lookups {
        enum Root { case unknown, none, value(Value) }
        var root: [Root] = []
    }

    /// The value of the name in `op` (its keys in `keys`; `op.b` of them, at least one), looked
    /// up from the top of the context stack down; `index` is the op's place in `ops`. Static, on
    /// the parts of the renderer it reads: as a method that borrowed `self` in a closure, each
    /// call copied the whole renderer (696 bytes) first.
    private static func lookup(
        _ op: Op, at index: Int32, stack: borrowing [Value], keys: borrowing [TemplateKey], model: borrowing Model,
        learnt: inout Lookups
    ) -> Value? {
        let first = Int(op.a)
        var found: Value?
        // Kinds of node that lack this key, or missed it already (only kinds whose keys depend on
        // the kind alone), as bits: a lookup must not allocate.
        var missed: UInt64 = ~model.kinds(answering: keys[first])
        var i = stack.count - 1
        while i >= 0 {
            if case .node(let node) = stack[i] {
                let kind = model.kind(of: node)
                if let kind, missed & (1 << UInt64(kind)) != 0 {
                    i -= 1
                    continue
                }
                if i == 0 {
                    switch learnt.root[Int(index)] {
                    case .value(let value): return value
                    case .none: return nil
                    case .unknown: break
                    }
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
            guard case .node(let node) = value, let next = model.value(keys[part], of: node) else {
                if i == 0 { learnt.root[Int(index)] = .none }
                return nil
            }
            value = next
        }
        if i == 0 { learnt.root[Int(index)] = .value(value) }
        return value
    }

    private static func write(_ value: Value, escaped: Bool, into out: inout ByteWriter) {
        switch value {
        case .null, .list, .node:
            break
        case .bool(let flag):
            out.write(flag ? "true" : "false")
        case .int(let number):
            out.write(String(number))
        case .double(let number):
            if number.rounded() == number, abs(number) < 1e15 {
                out.write(String(Int64(number)))
            } else {
                out.write(String(number))
            }
        case .text(let text):
            // Input text is escaped even in `{{{x}}}`: only HTML values are ever raw.
            HTML.escape(text, into: &out)
        case .literal(let text):
            if escaped { HTML.escape(text, into: &out) } else { out.write(text) }
        case .html(let html):
            out.write(html.raw)
        }
    }
}
