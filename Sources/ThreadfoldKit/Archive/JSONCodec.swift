/// The sidecar and manifest formats, written and read by hand: Foundation's JSONEncoder and
/// JSONDecoder took most of an incremental build's time on a 2,000-thread manifest (2 MB).
/// Keys are written in a fixed order, so the output is deterministic.
struct JSONWriter {
    var out: [UInt8] = []
    /// Two spaces per level when pretty (sidecars, for people); none for the manifest.
    let pretty: Bool
    private var level = 0
    private var first = true

    init(pretty: Bool) {
        self.pretty = pretty
        out.reserveCapacity(4096)
    }

    private mutating func separator() {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        if pretty {
            out.append(0x0A)
            out.append(contentsOf: repeatElement(0x20, count: level * 2))
        }
    }

    mutating func key(_ name: String) {
        separator()
        string(name, bare: true)
        out.append(UInt8(ascii: ":"))
        if pretty { out.append(0x20) }
        first = true
        pendingValue = true
    }

    private var pendingValue = false
    private mutating func beginValue() {
        if pendingValue { pendingValue = false; first = false } else { separator() }
    }

    mutating func open(_ bracket: UInt8) {
        beginValue()
        out.append(bracket)
        level += 1
        first = true
    }

    mutating func close(_ bracket: UInt8) {
        level -= 1
        if pretty && !first {
            out.append(0x0A)
            out.append(contentsOf: repeatElement(0x20, count: level * 2))
        }
        out.append(bracket)
        first = false
    }

    mutating func object(_ body: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "{"))
        body(&self)
        close(UInt8(ascii: "}"))
    }

    mutating func array(_ body: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "["))
        body(&self)
        close(UInt8(ascii: "]"))
    }

    mutating func string(_ text: String, bare: Bool = false) {
        if !bare { beginValue() }
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    mutating func int(_ value: Int64) {
        beginValue()
        out.append(contentsOf: String(value).utf8)
    }

    mutating func int(_ value: Int) { int(Int64(value)) }

    mutating func bool(_ value: Bool) {
        beginValue()
        out.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func null() {
        beginValue()
        out.append(contentsOf: "null".utf8)
    }

    mutating func field(_ name: String, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }

    mutating func field(_ name: String, _ value: Int) {
        key(name)
        int(value)
    }

    mutating func field(_ name: String, strings: [String]) {
        key(name)
        array { w in for s in strings { w.string(s) } }
    }
}

/// Reading helpers over a parsed document; each throws a message naming the path on a mismatch.
struct JSONReader {
    let document: JSONDocument

    struct Mismatch: Error { var path: String; var expected: String }

    func object(_ node: Int, _ path: String) throws(Mismatch) -> [String: Int] {
        guard document.kind(node) == .object else { throw Mismatch(path: path, expected: "an object") }
        var members: [String: Int] = [:]
        document.forEachMember(node) { key, value in members[key] = value }
        return members
    }

    func array(_ node: Int?, _ path: String) throws(Mismatch) -> [Int] {
        guard let node, document.kind(node) == .array else { throw Mismatch(path: path, expected: "an array") }
        var elements: [Int] = []
        elements.reserveCapacity(document.count(node))
        document.forEachElement(node) { _, element in elements.append(element) }
        return elements
    }

    func string(_ node: Int?, _ path: String) throws(Mismatch) -> String {
        guard let node, document.kind(node) == .string else { throw Mismatch(path: path, expected: "a string") }
        return document.string(node)
    }

    func optionalString(_ node: Int?, _ path: String) throws(Mismatch) -> String? {
        guard let node, document.kind(node) != .null else { return nil }
        return try string(node, path)
    }

    func int(_ node: Int?, _ path: String) throws(Mismatch) -> Int64 {
        guard let node, let value = document.int64(node) else { throw Mismatch(path: path, expected: "an integer") }
        return value
    }

    func strings(_ node: Int?, _ path: String) throws(Mismatch) -> [String] {
        var out: [String] = []
        for (i, element) in try array(node, path).enumerated() { out.append(try string(element, "\(path)[\(i)]")) }
        return out
    }
}

extension ThreadSummary {
    func write(into w: inout JSONWriter) {
        func time(_ w: inout JSONWriter, _ name: String, _ point: TimePoint?) {
            w.key(name)
            guard let point else { return w.null() }
            w.object { w in
                w.field("iso", point.iso)
                w.key("ms")
                w.int(point.ms)
            }
        }
        w.object { w in
            w.field("format", format)
            w.field("id", id)
            w.field("path", path)
            w.field("title", title)
            w.field("author", author)
            w.field("url", url)
            w.field("lang", lang)
            w.field("category", category)
            w.field("tags", strings: tags)
            time(&w, "created", created)
            w.key("stats")
            w.object { w in
                w.field("comments", stats.comments)
                w.field("participants", stats.participants)
                w.field("topLevel", stats.topLevel)
                w.field("levels", stats.levels)
                w.key("depthHistogram")
                w.array { w in for n in stats.depthHistogram { w.int(n) } }
                time(&w, "firstActivity", stats.firstActivity)
                time(&w, "lastActivity", stats.lastActivity)
                w.field("unarchived", stats.unarchived)
            }
            w.field("layout", layout)
            w.field("pages", strings: pages)
            w.field("orders", strings: orders)
        }
    }

    /// The sidecar's bytes: pretty JSON, keys in a fixed order, a final newline.
    public func encoded() -> [UInt8] {
        var w = JSONWriter(pretty: true)
        write(into: &w)
        return w.out + [0x0A]
    }

    init(reader r: JSONReader, node: Int, path: String) throws(JSONReader.Mismatch) {
        let m = try r.object(node, path)
        func time(_ node: Int?, _ path: String) throws(JSONReader.Mismatch) -> TimePoint? {
            guard let node, r.document.kind(node) != .null else { return nil }
            let t = try r.object(node, path)
            var point = TimePoint(Timestamp(milliseconds: try r.int(t["ms"], path + ".ms")))
            point.iso = try r.string(t["iso"], path + ".iso")
            return point
        }
        guard let statsNode = m["stats"] else { throw JSONReader.Mismatch(path: path + ".stats", expected: "an object") }
        let s = try r.object(statsNode, path + ".stats")
        var histogram: [Int] = []
        for (i, n) in try r.array(s["depthHistogram"], path + ".stats.depthHistogram").enumerated() {
            histogram.append(Int(try r.int(n, path + ".stats.depthHistogram[\(i)]")))
        }
        self.init(
            format: Int(try r.int(m["format"], path + ".format")),
            id: try r.string(m["id"], path + ".id"), path: try r.string(m["path"], path + ".path"),
            title: try r.optionalString(m["title"], path + ".title"), author: try r.optionalString(m["author"], path + ".author"),
            url: try r.optionalString(m["url"], path + ".url"), lang: try r.optionalString(m["lang"], path + ".lang"),
            category: try r.optionalString(m["category"], path + ".category"), tags: try r.strings(m["tags"], path + ".tags"),
            created: try time(m["created"], path + ".created"),
            stats: Stats(comments: Int(try r.int(s["comments"], path + ".stats.comments")),
                         participants: Int(try r.int(s["participants"], path + ".stats.participants")),
                         topLevel: Int(try r.int(s["topLevel"], path + ".stats.topLevel")),
                         levels: Int(try r.int(s["levels"], path + ".stats.levels")), depthHistogram: histogram,
                         firstActivity: try time(s["firstActivity"], path + ".stats.firstActivity"),
                         lastActivity: try time(s["lastActivity"], path + ".stats.lastActivity"),
                         unarchived: Int(try r.int(s["unarchived"], path + ".stats.unarchived"))),
            layout: try r.string(m["layout"], path + ".layout"), pages: try r.strings(m["pages"], path + ".pages"),
            orders: try r.strings(m["orders"], path + ".orders"))
    }

    public static func decode(_ bytes: [UInt8], file: String) throws(InputErrors) -> ThreadSummary {
        let document: JSONDocument
        do { document = try JSONDocument(bytes: bytes) } catch {
            let (line, column) = JSONDocument.location(in: bytes, offset: error.offset)
            throw InputErrors([InputError(file: file, line: line, column: column, message: error.message)])
        }
        do {
            return try ThreadSummary(reader: JSONReader(document: document), node: document.root, path: "$")
        } catch {
            throw InputErrors([InputError(file: file, path: error.path, message: "expected \(error.expected), as in a thread.json that 'threadfold build' writes")])
        }
    }
}

extension Manifest {
    func encoded() -> [UInt8] {
        var w = JSONWriter(pretty: false)
        w.object { w in
            w.field("format", format)
            w.field("version", version)
            w.field("settings", settings)
            w.field("listing", strings: listing)
            w.key("files")
            w.object { w in
                for path in files.keys.sorted() {
                    let state = files[path]!
                    w.key(path)
                    w.object { w in
                        w.key("size"); w.int(state.size)
                        w.key("mtime"); w.int(state.mtime)
                        w.key("inode"); w.int(Int64(bitPattern: state.inode))
                        w.field("hash", state.hash)
                        if let lines = state.lines { w.field("lines", strings: lines) }
                    }
                }
            }
            w.key("units")
            w.object { w in
                for key in units.keys.sorted() {
                    let unit = units[key]!
                    w.key(key)
                    w.object { w in
                        w.field("hash", unit.hash)
                        w.field("comments", unit.comments)
                        w.field("files", strings: unit.files)
                        w.key("warnings")
                        w.array { w in
                            for e in unit.warnings {
                                w.object { w in
                                    w.field("file", e.file)
                                    if let line = e.line { w.field("line", line) }
                                    if let column = e.column { w.field("column", column) }
                                    w.field("path", e.path)
                                    w.field("message", e.message)
                                    w.field("severity", e.severity.rawValue)
                                }
                            }
                        }
                        w.key("threads")
                        w.array { w in for summary in unit.threads { summary.write(into: &w) } }
                    }
                }
            }
        }
        return w.out
    }

    init?(bytes: [UInt8]) {
        guard let document = try? JSONDocument(bytes: bytes) else { return nil }
        let r = JSONReader(document: document)
        do {
            let m = try r.object(document.root, "$")
            guard try r.int(m["format"], "$.format") == 1, try r.string(m["version"], "$.version") == Threadfold.version else { return nil }
            self.init(settings: try r.string(m["settings"], "$.settings"), units: [:], files: [:])
            listing = try r.strings(m["listing"], "$.listing")
            for (path, node) in try r.object(m["files"] ?? -1, "$.files") {
                let f = try r.object(node, "$.files")
                files[path] = FileState(size: try r.int(f["size"], "size"), mtime: try r.int(f["mtime"], "mtime"),
                                        inode: UInt64(bitPattern: try r.int(f["inode"], "inode")), hash: try r.string(f["hash"], "hash"),
                                        lines: f["lines"] == nil ? nil : try r.strings(f["lines"], "lines"))
            }
            for (key, node) in try r.object(m["units"] ?? -1, "$.units") {
                let u = try r.object(node, "$.units")
                var warnings: [InputError] = []
                for w in try r.array(u["warnings"], "warnings") {
                    let e = try r.object(w, "warning")
                    warnings.append(InputError(file: try r.string(e["file"], "file"), line: e["line"].map { _ in Int((try? r.int(e["line"], "line")) ?? 0) },
                                               column: e["column"].map { _ in Int((try? r.int(e["column"], "column")) ?? 0) },
                                               path: try r.optionalString(e["path"], "path"), message: try r.string(e["message"], "message"),
                                               severity: InputError.Severity(rawValue: try r.string(e["severity"], "severity")) ?? .warning))
                }
                var threads: [ThreadSummary] = []
                for t in try r.array(u["threads"], "threads") { threads.append(try ThreadSummary(reader: r, node: t, path: "thread")) }
                units[key] = Unit(hash: try r.string(u["hash"], "hash"), threads: threads, files: try r.strings(u["files"], "files"),
                                  warnings: warnings, comments: Int(try r.int(u["comments"], "comments")))
            }
        } catch {
            return nil
        }
    }
}
