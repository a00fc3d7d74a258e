/// Templates linked for rendering: a root template and the partials it includes, their ops in
/// one array, so the render loop reads one array of plain values and never switches between
/// templates. Offsets into `ops`, `bytes`, `keys` and `partials` are rebased as each template is
/// added.
///
/// A `TemplateSet` links each of its templates once, with every partial whose tag is not
/// indented (`linked(_:)`); a page's renderer starts from that copy and links the rest, the
/// partials re-parsed for an indented tag, when a tag first includes them.
struct TemplateLinker: Sendable {
    typealias Op = Template.Program.Op

    /// The linked templates: the root first, then each partial (with the indentation of its
    /// tag) when it was first included.
    private(set) var templates: [Template] = []
    private(set) var ops: [Op] = []
    private(set) var bytes: [UInt8] = []
    private(set) var keys: [TemplateKey] = []
    /// Each partial tag of the linked ops: its name and indentation, where it resolved to (an
    /// index into `templates`, `unresolved`, or `missing`: a partial the set does not have renders
    /// nothing), and where the tag starts in its template's source (for messages).
    private(set) var partials: [(name: String, indent: String, target: Int32, offset: Int32)] = []
    /// Where each template's ops start and end in `ops`.
    private(set) var spans: [(start: Int32, end: Int32)] = []
    /// Templates already in `templates`, by indentation and name.
    private var loaded: [String: Int32] = [:]

    static var unresolved: Int32 { -1 }
    static var missing: Int32 { -2 }

    /// `template` alone, its partials unresolved.
    init(_ template: Template) {
        _ = link(template, key: "\u{0}" + template.name)
    }

    /// Adds `template` to the linked templates, its ops rebased onto the linked arrays.
    private mutating func link(_ template: Template, key: String) -> Int32 {
        let index = Int32(templates.count)
        templates.append(template)
        loaded[key] = index
        let program = template.program
        let base = Int32(ops.count), byteBase = Int32(bytes.count), keyBase = Int32(keys.count), partialBase = Int32(partials.count)
        ops.reserveCapacity(ops.count + program.ops.count)
        for op in program.ops {
            let (a, end): (Int32, Int32)
            switch op.code {
            case .text: (a, end) = (0, 0)
            case .escaped, .raw: (a, end) = (op.a + keyBase, 0)
            case .section, .inverted: (a, end) = (op.a + keyBase, op.end + base)
            case .partial: (a, end) = (op.a + partialBase, 0)
            }
            ops.append(Op(code: op.code, a: a, b: op.b, end: end, text: op.text + byteBase, textCount: op.textCount))
        }
        bytes.append(contentsOf: program.bytes)
        keys.append(contentsOf: program.keys)
        partials.append(contentsOf: program.partials.map { ($0.name, $0.indent, Self.unresolved, $0.offset) })
        spans.append((base, Int32(ops.count)))
        return index
    }

    /// Partial tag `index` of the linked ops: an index into `templates`, or `missing`. Resolved
    /// once per tag; when its tag stood alone on an indented line, the partial is re-parsed with
    /// that indentation before each of its lines (so values interpolated into it are not
    /// indented, as the spec requires).
    mutating func partial(_ index: Int, of set: TemplateSet) -> Int32 {
        let known = partials[index].target
        if known != Self.unresolved { return known }
        let (name, indent, _, _) = partials[index]
        let key = indent + "\u{0}" + name
        let target: Int32
        if let cached = loaded[key] {
            target = cached
        } else if let base = set[name] {
            if indent.isEmpty {
                target = link(base, key: key)
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
                target = link((try? Template(name: name, source: source, file: base.file, keys: &keys)) ?? base, key: key)
            }
        } else {
            target = Self.missing
        }
        partials[index].target = target
        return target
    }

    /// `template` with every partial it includes through tags that are not indented, and theirs
    /// in turn (each template once, so recursion ends): what every page rendering it links.
    /// Partials of indented tags are left to the page, which may never include them.
    static func linked(_ template: Template, of set: TemplateSet) -> TemplateLinker {
        var linker = TemplateLinker(template)
        var i = 0
        while i < linker.partials.count {
            if linker.partials[i].indent.isEmpty { _ = linker.partial(i, of: set) }
            i += 1
        }
        return linker
    }
}
