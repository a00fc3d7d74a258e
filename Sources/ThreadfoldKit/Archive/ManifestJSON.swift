// The manifest format, `.threadfold-manifest.json`: written with `JSONWriter`, read with `JSONReader`.

import Foundation

extension Manifest {
    /// The manifest's bytes, with its own units.
    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        write(units: units.keys.sorted().map { (key: $0, entry: units[$0]!.entry) }) { bytes += $0 }
        return bytes
    }

    /// Writes the manifest to `write` in pieces of about 1 MiB, with `units` (in key order, each
    /// unpacked only when its turn comes) in place of its own: a build's manifest is written as
    /// it is encoded, never held whole (124 MB for 100,000 threads).
    ///
    /// With `jobs` over one and four runs of `runUnits` or more, the units are encoded on `jobs`
    /// threads, two runs a thread at a time, each wave written in order as it is done: on one
    /// thread a dump's 20,000 units took 0.15 s, alone at the end of its increment. The same bytes.
    func write<E: Error, Units: RandomAccessCollection<(key: String, entry: Entry)> & Sendable>(
        units: Units, jobs: Int = 1, runUnits: Int = 256, to write: ([UInt8]) throws(E) -> Void
    ) throws(E) where Units.Index == Int {
        var w = head()
        if jobs > 1, units.count >= 4 * runUnits {
            try write(w.take())
            let runs = (units.count + runUnits - 1) / runUnits
            var done = 0
            while done < runs {
                let first = done, wave = min(runs - done, 2 * jobs)
                let encoded = Parallel.map(count: wave, jobs: jobs) { r -> [UInt8] in
                    var run = JSONWriter(pretty: false)
                    for i in ((first + r) * runUnits)..<min(units.count, (first + r + 1) * runUnits) {
                        let (key, entry) = units[units.startIndex + i]
                        Self.write(key, entry, into: &run)
                    }
                    // Runs are joined as one writer would have separated their units.
                    return first + r > 0 ? [UInt8(ascii: ",")] + run.out : run.out
                }
                for bytes in encoded { try write(bytes) }
                done += wave
            }
        } else {
            for (key, entry) in units {
                Self.write(key, entry, into: &w)
                if w.out.count >= 1 << 20 { try write(w.take()) }
            }
        }
        w.close(UInt8(ascii: "}"))
        w.close(UInt8(ascii: "}"))
        try write(w.take())
    }

    /// The unit `key` of the units object `w` is in.
    private static func write(_ key: String, _ entry: Entry, into w: inout JSONWriter) {
        w.key(key)
        switch entry {
        case .encoded(let json): w.raw(json)
        case .unit(let unit): write(unit, into: &w)
        }
    }

    /// A writer that has written everything of the manifest but its units, and opened them.
    private func head() -> JSONWriter {
        var w = JSONWriter(pretty: false)
        w.open(UInt8(ascii: "{"))
        w.field("format", format)
        w.field("version", version)
        w.field("settings", settings)
        w.field("listing", strings: listing)
        w.key("listingStamps")
        Self.write(listingStamps, into: &w)
        if let listingHash { w.field("listingHash", listingHash) }
        w.key("files")
        w.object { w in
            for path in files.keys.sorted() {
                let state = files[path]!
                w.key(path)
                w.object { w in
                    w.key("size")
                    w.int(state.size)
                    w.key("mtime")
                    w.int(state.mtime)
                    w.key("inode")
                    w.int(Int64(bitPattern: state.inode))
                    w.field("hash", state.hash)
                    if let lines = state.lines { w.field("lines", strings: lines) }
                    if let lengths = state.lengths, let depth = state.depth {
                        w.key("lengths")
                        w.array { w in for length in lengths { w.int(length) } }
                        w.field("depth", depth)
                    }
                }
            }
        }
        w.key("units")
        w.open(UInt8(ascii: "{"))
        return w
    }

    static func write(_ unit: Unit, into w: inout JSONWriter) {
        w.object { w in
            w.field("hash", unit.hash)
            w.field("comments", unit.comments)
            // Usually the files follow from the summaries; only an exception is written out.
            let derived = Manifest.files(of: unit.threads)
            // (Compared in order first: they usually are, and two sets a unit cost hashing every path.)
            if unit.files != derived && (unit.files.count != derived.count || Set(unit.files) != Set(derived)) {
                w.field("files", strings: unit.files)
            }
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
                        if let hint = e.hint { w.field("hint", hint.rawValue) }
                        if let kind = e.kind { w.field("kind", kind) }
                        if let related = e.related {
                            w.key("related")
                            w.object { w in
                                w.field("label", related.label)
                                if let file = related.file { w.field("file", file) }
                                if let line = related.line { w.field("line", line) }
                                if let column = related.column { w.field("column", column) }
                                if let path = related.path { w.field("path", path) }
                            }
                        }
                    }
                }
            }
            w.key("threads")
            w.array { w in for summary in unit.threads { summary.write(into: &w) } }
        }
    }

    /// Stamps as one flat array of integers, five a file: inode, size, modification time, status
    /// change time and content hash (its 64 bits as a signed integer).
    static func write(_ stamps: [FileStamp], into w: inout JSONWriter) {
        w.array { w in
            for stamp in stamps {
                w.int(Int64(bitPattern: stamp.inode))
                w.int(stamp.size)
                w.int(stamp.mtime)
                w.int(stamp.ctime)
                w.int(Int64(bitPattern: stamp.hash))
            }
        }
    }

    static func stamps(_ r: JSONReader, _ node: Int) -> [FileStamp]? {
        let d = r.document
        guard d.kind(node) == .array else { return nil }
        var numbers: [Int64] = []
        var failed = false
        d.forEachElement(node) { _, value in
            if let n = d.int64(value) { numbers.append(n) } else { failed = true }
        }
        guard !failed, numbers.count % 5 == 0 else { return nil }
        return stride(from: 0, to: numbers.count, by: 5).map {
            FileStamp(
                inode: UInt64(bitPattern: numbers[$0]), size: numbers[$0 + 1], mtime: numbers[$0 + 2],
                ctime: numbers[$0 + 3], hash: UInt64(bitPattern: numbers[$0 + 4]))
        }
    }

    /// Reads a manifest back; nil when anything in it is not as a build writes it (the build is
    /// then a full one, never a trap).
    init?(bytes: [UInt8]) {
        guard let r = try? JSONReader(bytes: bytes, file: Manifest.fileName) else { return nil }
        let d = r.document
        do throws(JSONError) {
            try r.object(r.root, "$")
            func required(_ key: String) throws(JSONError) -> Int {
                guard let node = r.member(r.root, key) else { throw JSONError(node: r.root, path: "$." + key, expected: "a value", found: "none") }
                return node
            }
            guard try r.int(required("format"), "$.format") == Manifest.currentFormat, try r.string(required("version"), "$.version") == Release.version else { return nil }
            self.init(settings: try r.string(required("settings"), "$.settings"), units: [:], files: [:])
            listing = try r.strings(required("listing"), "$.listing")
            guard let listingStamps = Self.stamps(r, try required("listingStamps")), listingStamps.count == listing.count else { return nil }
            self.listingStamps = listingStamps
            if let node = r.member(r.root, "listingHash") { listingHash = try r.string(node, "$.listingHash") }
            var files: [String: FileState] = [:]
            try r.members(required("files"), "$.files") { path, node throws(JSONError) in
                guard let state = try Self.fileState(r, node) else { throw r.mismatch(node, path, expected: "size, mtime, inode and hash") }
                files[path] = state
            }
            self.files = files
            // Units decode in parallel: the tape is shared and read-only.
            let unitsNode = try r.object(required("units"), "$.units")
            var members: [(key: String, node: Int)] = []
            members.reserveCapacity(d.count(unitsNode))
            d.forEachMember(unitsNode) { key, node in members.append((key, node)) }
            // Kept for a manifest of up to 32 MiB (2 MB for 2,000 threads, 27 MB for a 1M-comment
            // dump's 20,000), so the units an increment keeps are written as they were read: the
            // dump's one-comment increment took 0.915 of the time it took with them encoded anew,
            // and 7% more memory at its peak (425 against 396 MB). A larger manifest's bytes would
            // add more than that to the peak.
            let encoded = bytes.count <= Self.encodedLimit ? Self.encodedUnits(d, unitsNode) : nil
            let chunks = max(1, min(ProcessInfo.processInfo.activeProcessorCount, members.count / 256))
            let decoded = Parallel.map(count: chunks, jobs: chunks) { [members] c -> [Unit?] in
                stride(from: c, to: members.count, by: chunks).map { m in
                    var unit = try? Self.unit(r, members[m].node)
                    unit?.encoded = encoded?[m]
                    return unit
                }
            }
            var units: [String: Unit] = [:]
            units.reserveCapacity(members.count)
            for (c, list) in decoded.enumerated() {
                for (k, unit) in list.enumerated() {
                    guard let unit else { return nil }
                    units[members[c + k * chunks].key] = unit
                }
            }
            self.units = units
        } catch {
            return nil
        }
    }

    /// An input file's state, as `write` wrote it; nil when it lacks a part.
    private static func fileState(_ r: JSONReader, _ node: Int) throws(JSONError) -> FileState? {
        var size: Int64?, mtime: Int64?, inode: Int64?, hash: String?, lines: [String]?, lengths: [Int]?, depth: Int?
        try r.members(node, "$.files") { key, value throws(JSONError) in
            switch key {
            case "size": size = try r.int(value, key)
            case "mtime": mtime = try r.int(value, key)
            case "inode": inode = try r.int(value, key)
            case "hash": hash = try r.string(value, key)
            case "lines": lines = try r.strings(value, key)
            case "lengths": lengths = try r.array(value, key).map { n throws(JSONError) in try r.count(n, key) }
            case "depth": depth = try r.count(value, key)
            default: break
            }
        }
        guard let size, let mtime, let inode, let hash, lengths == nil || (lengths?.count == lines?.count && depth != nil) else { return nil }
        return FileState(size: size, mtime: mtime, inode: UInt64(bitPattern: inode), hash: hash, lines: lines, lengths: lengths, depth: depth)
    }

    /// The threads of documents that the manifest of the site at `output` says its build listed
    /// (`knownElements(_:)`), from the manifest's start alone, read `blockBytes` at a time: a
    /// dump's manifest is 27 MB, nearly all of it units, after the input table.
    static func knownElements(of output: URL, blockBytes: Int = 1 << 20) -> KnownElements? {
        let end = Array(Self.filesEnd.utf8)
        // Each block's search starts where the last could have left a part of the end unseen.
        var searched = 0
        let head = SiteWriter.readMetadata(of: output, fileName, blockBytes: blockBytes) { bytes in
            defer { searched = max(0, bytes.count - end.count) }
            return ByteSearch.first(end, in: bytes, from: searched) != nil
        }
        return head.flatMap(knownElements)
    }

    /// What `write` puts between the input table and the units.
    private static let filesEnd = "},\"units\":{"

    /// Where the manifest `bytes` (whole, or its start up to its units) holds its input files'
    /// table and where its units' object opens, found by the bytes `write` puts around them (no
    /// string `write` writes can hold them). Nil when it is not a manifest of this format and
    /// version, or not so.
    static func headParts(_ bytes: [UInt8]) -> (files: ClosedRange<Int>, units: Int)? {
        var w = JSONWriter(pretty: false)
        w.open(UInt8(ascii: "{"))
        w.field("format", currentFormat)
        w.field("version", Release.version)
        let head = w.out + [UInt8(ascii: ",")]
        let filesStart = Array(",\"files\":".utf8)
        guard bytes.starts(with: head), let start = ByteSearch.first(filesStart + [UInt8(ascii: "{")], in: bytes),
            let end = ByteSearch.first(Array(Self.filesEnd.utf8), in: bytes, from: start)
        else { return nil }
        return ((start + filesStart.count)...end, end + filesEnd.utf8.count - 1)
    }

    /// The threads of documents that the manifest `bytes` (whole, or its start up to its units)
    /// says its build listed, read without decoding the rest: its input files' table alone,
    /// found by the bytes `write` puts around it (no string `write` writes can hold them). Nil
    /// when the manifest is not of this format and version, or not so.
    static func knownElements(_ bytes: [UInt8]) -> KnownElements? {
        guard let parts = headParts(bytes) else { return nil }
        let table = Array(bytes[parts.files])
        // A site of thread files, JSON Lines or dumps has no document's threads to know: its
        // table (10 MB for 100,000 thread files) is not parsed for nothing.
        guard ByteSearch.first(Array("\"lengths\":".utf8), in: table) != nil,
            let r = try? JSONReader(bytes: table, file: Manifest.fileName)
        else { return nil }
        var known = KnownElements()
        do throws(JSONError) {
            try r.members(r.root, "$.files") { _, node throws(JSONError) in
                guard let state = try Self.fileState(r, node), let lines = state.lines, let lengths = state.lengths, let depth = state.depth else { return }
                var threads: [(hash: UInt64, length: Int)] = []
                for (line, length) in zip(lines, lengths) {
                    guard let hash = UInt64(line, radix: 16) else { return }
                    threads.append((hash, length))
                }
                known.add(threads, depth: depth)
            }
        } catch {
            return nil
        }
        return known
    }

    /// The largest manifest whose units' JSON is kept as read (`Unit.encoded`) when it is decoded
    /// whole (the spare's). `LiveManifest` keeps every unit's, since it holds the bytes anyway.
    static let encodedLimit = 32 << 20

    /// Each unit's JSON in `document`, whose member `units` is `node`, as `write` wrote it: a
    /// unit ends where the comma before the next unit's key is, the last where `units` and the
    /// manifest close (`}}` ending the file). Nil when the bytes are not so.
    static func encodedUnits(_ document: JSONDocument, _ node: Int) -> [ArraySlice<UInt8>]? {
        let bytes = document.bytes
        guard bytes.count >= 2, bytes[bytes.count - 1] == UInt8(ascii: "}"), bytes[bytes.count - 2] == UInt8(ascii: "}") else { return nil }
        var starts: [Int] = [], keys: [Int] = []
        document.forEachMemberNode(node) { key, value in
            keys.append(document.offset(key))
            starts.append(document.offset(value))
        }
        var units: [ArraySlice<UInt8>] = []
        units.reserveCapacity(starts.count)
        for (i, start) in starts.enumerated() {
            let end = i + 1 < keys.count ? keys[i + 1] - 1 : bytes.count - 2
            guard start < end, bytes[start] == UInt8(ascii: "{"), bytes[end - 1] == UInt8(ascii: "}"),
                i + 1 == keys.count || bytes[end] == UInt8(ascii: ",")
            else { return nil }
            units.append(bytes[start..<end])
        }
        return units
    }

    static func unit(_ r: JSONReader, _ node: Int) throws(JSONError) -> Unit? {
        var hash: String?, comments: Int64?, unitFiles: [String]?, warnings: [Problem] = [], threads: [ThreadSummary] = []
        var stamps: [FileStamp]?
        try r.members(node, "unit") { name, value throws(JSONError) in
            switch name {
            case "hash": hash = try r.string(value, name)
            case "comments": comments = try r.int(value, name)
            case "files": unitFiles = try r.strings(value, name)
            case "stamps": stamps = Manifest.stamps(r, value)
            case "threads":
                for t in try r.array(value, name) { threads.append(try ThreadSummary(reader: r, node: t, path: "thread")) }
            case "warnings":
                for w in try r.array(value, name) {
                    var file: String?, line: Int?, column: Int?, path: String?, message: String?, severity = Problem.Severity.warning
                    var hint: Problem.Hint?
                    var kind: String?
                    var related: Problem.Related?
                    try r.members(w, "warning") { k, v throws(JSONError) in
                        switch k {
                        case "file": file = try r.string(v, k)
                        case "line": line = Int(try r.count(v, k))
                        case "column": column = Int(try r.count(v, k))
                        case "path": path = try r.optionalString(v, k)
                        case "message": message = try r.string(v, k)
                        case "severity": severity = Problem.Severity(rawValue: try r.string(v, k)) ?? .warning
                        case "hint": hint = Problem.Hint(rawValue: try r.string(v, k))
                        case "kind": kind = try r.string(v, k)
                        case "related":
                            var place = Problem.Related(label: "")
                            try r.members(v, k) { name, value throws(JSONError) in
                                switch name {
                                case "label": place.label = try r.string(value, name)
                                case "file": place.file = try r.string(value, name)
                                case "line": place.line = Int(try r.count(value, name))
                                case "column": place.column = Int(try r.count(value, name))
                                case "path": place.path = try r.string(value, name)
                                default: break
                                }
                            }
                            related = place
                        default: break
                        }
                    }
                    guard let file, let message else { return }
                    var warning = Problem(file: file, line: line, column: column, path: path, message: message, severity: severity, hint: hint)
                    warning.kind = kind
                    warning.related = related
                    warnings.append(warning)
                }
            default: break
            }
        }
        let files = unitFiles ?? Manifest.files(of: threads)
        // A count out of range makes the manifest unusable (a full build), never a trap.
        guard let hash, let comments, (0...(1 << 40)).contains(comments), let stamps, stamps.count == files.count,
            warnings.count == (r.member(node, "warnings").map { r.document.count($0) } ?? 0)
        else { return nil }
        return Unit(hash: hash, threads: threads, files: files, warnings: warnings, comments: Int(comments), stamps: stamps)
    }
}

/// The live site's manifest as an increment reads it (`ArchiveBuilder.plan`, and `begin` when no
/// spare can serve): all of it but its units decoded, and a unit decoded only when a build asks
/// for it by key. Beside a recycled spare a build asks only for the units that miss it, which
/// changed in the last build: decoding every one of a 1M-comment dump's 20,000 units took 0.29 s
/// of its 2.5 s increment, for the one it looked up. Without a spare, every unit is asked for, on
/// the workers. A unit that cannot be decoded is missing, and its input is rendered.
struct LiveManifest: Sendable {
    /// The manifest without its units: its settings, input files and listing.
    let head: Manifest
    private let bytes: [UInt8]
    /// Where each unit's JSON is in `bytes`, by key (the last of a key, as a full decode keeps).
    private let units: [String: Range<Int>]

    /// Nil when the head or the units' object is not as `Manifest.write` writes them.
    init?(bytes: [UInt8]) {
        // The units' object runs to the manifest's own closing brace.
        guard let parts = Manifest.headParts(bytes), bytes.count >= parts.units + 3, bytes[bytes.count - 1] == UInt8(ascii: "}"),
            let head = Manifest(bytes: Array(bytes[...parts.units]) + Array("}}".utf8)),
            let members = bytes.withUnsafeBufferPointer({ JSONScan.members(UnsafeBufferPointer(rebasing: $0[parts.units..<(bytes.count - 1)])) })
        else { return nil }
        var units: [String: Range<Int>] = [:]
        units.reserveCapacity(members.count)
        for (name, value) in members {
            let key = String(decoding: bytes[(parts.units + name.lowerBound)..<(parts.units + name.upperBound)], as: UTF8.self)
            units[key] = (parts.units + value.lowerBound)..<(parts.units + value.upperBound)
        }
        (self.head, self.bytes, self.units) = (head, bytes, units)
    }

    /// The unit `key`, with its JSON as `encoded`; nil when there is none or it is not as
    /// `Manifest.write` writes one.
    func unit(_ key: String) -> Manifest.Unit? {
        guard let range = units[key], let r = try? JSONReader(bytes: Array(bytes[range]), file: Manifest.fileName),
            var unit = try? Manifest.unit(r, r.root)
        else { return nil }
        unit.encoded = bytes[range]
        return unit
    }
}
