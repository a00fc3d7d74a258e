import Foundation

/// The sidecar and manifest formats (and the CLI's build report), written and read by hand: Foundation's JSONEncoder and
/// JSONDecoder took most of an incremental build's time on a 2,000-thread manifest (2 MB).
/// Keys are written in a fixed order, so the output is deterministic.
public struct JSONWriter {
    public private(set) var out: [UInt8] = []
    /// Two spaces per level when pretty (sidecars, for people); none for the manifest.
    let pretty: Bool
    private var level = 0
    private var first = true

    public init(pretty: Bool) {
        self.pretty = pretty
        out.reserveCapacity(4096)
    }

    private mutating func separator() {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        if pretty && !out.isEmpty {
            out.append(0x0A)
            out.append(contentsOf: repeatElement(0x20, count: level * 2))
        }
    }

    public mutating func key(_ name: String) {
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

    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "{"))
        body(&self)
        close(UInt8(ascii: "}"))
    }

    public mutating func array(_ body: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "["))
        body(&self)
        close(UInt8(ascii: "]"))
    }

    public mutating func string(_ text: String) { string(text, bare: false) }

    mutating func string(_ text: String, bare: Bool) {
        if !bare { beginValue() }
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            // Runs of bytes that need no escape are copied whole.
            var start = 0
            for (i, byte) in bytes.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
                start = i + 1
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
                case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    public mutating func int(_ value: Int64) {
        beginValue()
        out.append(contentsOf: String(value).utf8)
    }

    public mutating func int(_ value: Int) { int(Int64(value)) }

    public mutating func bool(_ value: Bool) {
        beginValue()
        out.append(contentsOf: (value ? "true" : "false").utf8)
    }

    public mutating func null() {
        beginValue()
        out.append(contentsOf: "null".utf8)
    }

    public mutating func field(_ name: String, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }

    public mutating func field(_ name: String, _ value: Int) {
        key(name)
        int(value)
    }

    public mutating func field(_ name: String, strings: [String]) {
        key(name)
        array { w in for s in strings { w.string(s) } }
    }
}

/// Reading helpers over a parsed document; each throws a message naming the path on a mismatch.
struct JSONReader {
    let document: JSONDocument

    struct Mismatch: Error { var path: String; var expected: String; var found: String? = nil }

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

    /// The string at `node`, or nil for anything else.
    func text(_ node: Int) -> String? {
        document.kind(node) == .string ? document.string(node) : nil
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
        // One pass over the members with a switch: no dictionary per object.
        let d = r.document
        guard d.kind(node) == .object else { throw JSONReader.Mismatch(path: path, expected: "an object") }
        func time(_ node: Int, _ path: String) throws(JSONReader.Mismatch) -> TimePoint? {
            guard d.kind(node) != .null else { return nil }
            guard d.kind(node) == .object else { throw JSONReader.Mismatch(path: path, expected: "an object") }
            var iso: String?, ms: Int64?
            d.forEachMember(node) { key, value in
                if key == "iso" { iso = r.text(value) }
                else if key == "ms" { ms = d.int64(value) }
            }
            guard let iso, let ms else { throw JSONReader.Mismatch(path: path, expected: "{\"iso\", \"ms\"}") }
            var point = TimePoint(Timestamp(milliseconds: ms))
            point.iso = iso
            return point
        }
        var format: Int64?, id: String?, summaryPath: String?, layout: String?
        var title: String?, author: String?, url: String?, lang: String?, category: String?
        var tags: [String]?, pages: [String]?, orders: [String]?
        var created: TimePoint?
        var stats: Stats?
        var failure: JSONReader.Mismatch?
        // Counts are whole numbers from 0 to InputLimits.maxCount, so sums of them are checked, not trusted.
        func count(_ node: Int, _ path: String) throws(JSONReader.Mismatch) -> Int {
            let value = try r.int(node, path)
            guard value >= 0 && value <= Int64(InputLimits.maxCount) else {
                throw JSONReader.Mismatch(path: path, expected: "a count from 0 to \(InputLimits.maxCount)", found: String(value))
            }
            return Int(value)
        }
        d.forEachMember(node) { key, value in
            guard failure == nil else { return }
            do throws(JSONReader.Mismatch) {
                switch key {
                case "format": format = try r.int(value, path + ".format")
                case "id": id = try r.string(value, path + ".id")
                case "path": summaryPath = try r.string(value, path + ".path")
                case "title": title = try r.optionalString(value, path + ".title")
                case "author": author = try r.optionalString(value, path + ".author")
                case "url": url = try r.optionalString(value, path + ".url")
                case "lang": lang = try r.optionalString(value, path + ".lang")
                case "category": category = try r.optionalString(value, path + ".category")
                case "tags": tags = try r.strings(value, path + ".tags")
                case "created": created = try time(value, path + ".created")
                case "layout": layout = try r.string(value, path + ".layout")
                case "pages": pages = try r.strings(value, path + ".pages")
                case "orders": orders = try r.strings(value, path + ".orders")
                case "stats":
                    guard d.kind(value) == .object else { throw JSONReader.Mismatch(path: path + ".stats", expected: "an object") }
                    var s = Stats(comments: -1, participants: -1, topLevel: -1, levels: -1, depthHistogram: [], firstActivity: nil, lastActivity: nil, unarchived: 0)
                    var inner: JSONReader.Mismatch?
                    d.forEachMember(value) { key, v in
                        guard inner == nil else { return }
                        do throws(JSONReader.Mismatch) {
                            let p = path + ".stats." + key
                            switch key {
                            case "comments": s.comments = try count(v, p)
                            case "participants": s.participants = try count(v, p)
                            case "topLevel": s.topLevel = try count(v, p)
                            case "levels": s.levels = try count(v, p)
                            case "unarchived": s.unarchived = try count(v, p)
                            case "firstActivity": s.firstActivity = try time(v, p)
                            case "lastActivity": s.lastActivity = try time(v, p)
                            case "depthHistogram":
                                for (i, n) in try r.array(v, p).enumerated() { s.depthHistogram.append(try count(n, "\(p)[\(i)]")) }
                            default: break
                            }
                        } catch { inner = error }
                    }
                    if let inner { throw inner }
                    guard s.comments >= 0, s.participants >= 0, s.topLevel >= 0, s.levels >= 0 else {
                        throw JSONReader.Mismatch(path: path + ".stats", expected: "comments, participants, topLevel and levels")
                    }
                    stats = s
                default: break
                }
            } catch { failure = error }
        }
        if let failure { throw failure }
        guard let format else { throw JSONReader.Mismatch(path: path + ".format", expected: "an integer") }
        guard let id else { throw JSONReader.Mismatch(path: path + ".id", expected: "a string") }
        guard let summaryPath else { throw JSONReader.Mismatch(path: path + ".path", expected: "a string") }
        guard let stats else { throw JSONReader.Mismatch(path: path + ".stats", expected: "an object") }
        guard let layout else { throw JSONReader.Mismatch(path: path + ".layout", expected: "a string") }
        guard let pages else { throw JSONReader.Mismatch(path: path + ".pages", expected: "an array") }
        self.init(format: Int(format), id: id, path: summaryPath, title: title, author: author, url: url, lang: lang,
                  category: category, tags: tags ?? [], created: created, stats: stats, layout: layout, pages: pages,
                  orders: orders ?? [])
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
            let found = error.found.map { "found \($0); " } ?? ""
            throw InputErrors([InputError(file: file, path: error.path, message: found + "expected \(error.expected), as in a thread.json that 'threadfold build' writes")])
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
            w.key("listingStamps")
            Self.write(listingStamps, into: &w)
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
                        // Usually the files follow from the summaries; only an exception is written out.
                        let derived = Manifest.files(of: unit.threads)
                        if unit.files.count != derived.count || Set(unit.files) != Set(derived) { w.field("files", strings: unit.files) }
                        w.key("stamps")
                        Self.write(unit.stamps, into: &w)
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

    /// Stamps as one flat array of integers, three a file: inode, size, modification time.
    static func write(_ stamps: [FileStamp], into w: inout JSONWriter) {
        w.array { w in
            for stamp in stamps {
                w.int(Int64(bitPattern: stamp.inode))
                w.int(stamp.size)
                w.int(stamp.mtime)
            }
        }
    }

    static func stamps(_ d: JSONDocument, _ node: Int) -> [FileStamp]? {
        guard d.kind(node) == .array else { return nil }
        var numbers: [Int64] = []
        var failed = false
        d.forEachElement(node) { _, value in
            if let n = d.int64(value) { numbers.append(n) } else { failed = true }
        }
        guard !failed, numbers.count % 3 == 0 else { return nil }
        return stride(from: 0, to: numbers.count, by: 3).map {
            FileStamp(inode: UInt64(bitPattern: numbers[$0]), size: numbers[$0 + 1], mtime: numbers[$0 + 2])
        }
    }

    init?(bytes: [UInt8]) {
        guard let document = try? JSONDocument(bytes: bytes) else { return nil }
        let r = JSONReader(document: document)
        do {
            let m = try r.object(document.root, "$")
            guard try r.int(m["format"], "$.format") == 2, try r.string(m["version"], "$.version") == Threadfold.version else { return nil }
            self.init(settings: try r.string(m["settings"], "$.settings"), units: [:], files: [:])
            listing = try r.strings(m["listing"], "$.listing")
            let d = document
            guard let listingStampsNode = m["listingStamps"], let listingStamps = Self.stamps(d, listingStampsNode),
                  listingStamps.count == listing.count else { return nil }
            self.listingStamps = listingStamps
            guard let filesNode = m["files"], d.kind(filesNode) == .object, let unitsNode = m["units"], d.kind(unitsNode) == .object else { return nil }
            var failed = false
            d.forEachMember(filesNode) { path, node in
                guard !failed, d.kind(node) == .object else { failed = true; return }
                var size: Int64?, mtime: Int64?, inode: Int64?, hash: String?, lines: [String]?
                d.forEachMember(node) { key, value in
                    switch key {
                    case "size": size = d.int64(value)
                    case "mtime": mtime = d.int64(value)
                    case "inode": inode = d.int64(value)
                    case "hash": hash = r.text(value)
                    case "lines": lines = try? r.strings(value, "lines")
                    default: break
                    }
                }
                guard let size, let mtime, let inode, let hash else { failed = true; return }
                files[path] = FileState(size: size, mtime: mtime, inode: UInt64(bitPattern: inode), hash: hash, lines: lines)
            }
            // Units decode in parallel: the tape is shared and read-only.
            var members: [(key: String, node: Int)] = []
            members.reserveCapacity(d.count(unitsNode))
            d.forEachMember(unitsNode) { key, node in members.append((key, node)) }
            @Sendable func decodeUnit(_ node: Int) -> Unit? {
                var failed = false
                guard d.kind(node) == .object else { return nil }
                var hash: String?, comments: Int64?, unitFiles: [String]?, warnings: [InputError] = [], threads: [ThreadSummary] = []
                var stamps: [FileStamp]?
                d.forEachMember(node) { name, value in
                    guard !failed else { return }
                    switch name {
                    case "hash": hash = r.text(value)
                    case "comments": comments = d.int64(value)
                    case "files": unitFiles = try? r.strings(value, "files")
                    case "stamps": stamps = Manifest.stamps(d, value)
                    case "threads":
                        guard d.kind(value) == .array else { failed = true; return }
                        d.forEachElement(value) { _, t in
                            if let summary = try? ThreadSummary(reader: r, node: t, path: "thread") { threads.append(summary) } else { failed = true }
                        }
                    case "warnings":
                        guard d.kind(value) == .array else { failed = true; return }
                        d.forEachElement(value) { _, w in
                            var file: String?, line: Int?, column: Int?, path: String?, message: String?, severity = InputError.Severity.warning
                            d.forEachMember(w) { k, v in
                                switch k {
                                case "file": file = r.text(v)
                                case "line": line = d.int64(v).map { Int($0) }
                                case "column": column = d.int64(v).map { Int($0) }
                                case "path": path = r.text(v)
                                case "message": message = r.text(v)
                                case "severity": severity = r.text(v).flatMap(InputError.Severity.init(rawValue:)) ?? .warning
                                default: break
                                }
                            }
                            guard let file, let message else { failed = true; return }
                            warnings.append(InputError(file: file, line: line, column: column, path: path, message: message, severity: severity))
                        }
                    default: break
                    }
                }
                let files = unitFiles ?? Manifest.files(of: threads)
                // A count out of range makes the manifest unusable (a full build), never a trap.
                guard let hash, let comments, (0...(1 << 40)).contains(comments), let stamps, stamps.count == files.count, !failed else { return nil }
                return Unit(hash: hash, threads: threads, files: files, warnings: warnings, comments: Int(comments), stamps: stamps)
            }
            let chunks = max(1, min(ProcessInfo.processInfo.activeProcessorCount, members.count / 256))
            let decoded = Parallel.map(count: chunks, jobs: chunks) { [members] c -> [Unit?] in
                stride(from: c, to: members.count, by: chunks).map { decodeUnit(members[$0].node) }
            }
            var units: [String: Unit] = [:]
            units.reserveCapacity(members.count)
            for (c, list) in decoded.enumerated() {
                for (k, unit) in list.enumerated() {
                    guard let unit else { return nil }
                    units[members[c + k * chunks].key] = unit
                }
            }
            guard !failed else { return nil }
            self.units = units
        } catch {
            return nil
        }
    }
}
