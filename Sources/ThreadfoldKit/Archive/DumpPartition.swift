import Foundation

/// Where a dump record came from: which input, which line, which byte, which element.
struct DumpOrigin: Sendable, Equatable {
    var file: Int
    var line: Int
    var offset: Int64
    var position: Int
}

/// The first pass over a build's dumps: every file is streamed once, each line is parsed only
/// far enough to know its thread, and the line is appended to the spill partition its thread
/// hashes to. Memory holds a chunk, a line and (for Hacker News) a map from item ids to their
/// story; never the dump. Each partition then holds whole threads and is a unit of work.
///
/// A record in a partition: a 40-byte header (line length, key length, file index, line number,
/// byte offset, position, little-endian), the thread key, the line.
struct DumpPartition {
    let files: [(path: String, display: String, form: DumpForm)]
    let options: ImportOptions
    let shard: Shard?

    struct Outcome {
        var errors: [InputError] = []
        /// Lines skipped with `lenient`, as warnings.
        var skipped: [InputError] = []
        var lines = 0
        /// Distinct threads left to other shards.
        var otherShards = 0
        /// Distinct threads in each partition (by a 64-bit hash of their key), for progress.
        var threads: [Int] = []
    }

    static let headerBytes = 40

    /// Partitions for `bytes` of input (decompressed, or estimated): about 32 MiB of records
    /// each, at least 64 and at most 2,048; one more holds deferred Hacker News items.
    static func partitionCount(inputBytes: Int64) -> Int {
        Int(min(2_048, max(64, inputBytes / (32 << 20)))) + 1
    }

    /// Streams every file into `spill`. `read(bytes)` reports input bytes read so far, over all files.
    func run(into spill: Spill, read: (Int64) -> Void) -> Outcome {
        var outcome = Outcome()
        var otherShards: Set<[UInt8]> = []
        var keys = [Set<UInt64>](repeating: [], count: spill.count - 1)
        var stories = StoryMap()
        var base: Int64 = 0
        var header = [UInt8](repeating: 0, count: Self.headerBytes)
        // The last partition holds Hacker News items whose parent comes later in the dump.
        let pending = spill.count - 1
        func append(_ key: [UInt8], _ line: UnsafeBufferPointer<UInt8>, _ origin: DumpOrigin) throws(SiteError) {
            if let shard, !shard.contains(threadKey: key) {
                otherShards.insert(key)
                return
            }
            Self.header(&header, line: line.count, key: key.count, origin)
            let spread = FNV1a.spread(key)
            let p = Int(spread % UInt64(spill.count - 1))
            keys[p].insert(spread)
            try spill.append(p, header, key, line)
        }
        do throws(SiteError) {
            fileLoop: for (index, file) in files.enumerated() {
                var skippedHere = 0
                var linesHere = 0
                let stream = LineStream(path: file.path, display: file.display)
                var siteError: SiteError?
                var fileBytes: Int64 = 0
                defer { base += fileBytes }
                do throws(InputError) {
                    try stream.forEachLine(read: { fileBytes = $0; read(base + $0) }) { (line) throws(InputError) -> Bool in
                        linesHere += 1
                        let origin = DumpOrigin(file: index, line: line.number, offset: line.offset, position: line.position)
                        let key: DumpForm.Key
                        do throws(InputErrors) {
                            key = try Self.key(of: line, form: file.form, display: file.display, mapping: options.mapping)
                        } catch {
                            if options.lenient {
                                skippedHere += 1
                                for var problem in error.errors {
                                    problem.severity = .warning
                                    problem.message += "; the line was skipped"
                                    problem.kind = "skippedLine"
                                    problem.hint = .skipped
                                    outcome.skipped.append(problem)
                                }
                                return true
                            }
                            outcome.errors += error.errors
                            return outcome.errors.count < ThreadDecoder.errorLimit
                        }
                        do throws(SiteError) {
                            switch key {
                            case .thread(let thread):
                                try append(thread, line.bytes, origin)
                            case .item(let id, let parent):
                                if let story = stories.story(of: id, parent: parent) {
                                    try append(Array(String(story).utf8), line.bytes, origin)
                                } else {
                                    // The parent comes later in the dump: kept aside until every item is known.
                                    stories.defer(id: id, parent: parent!)
                                    Self.header(&header, line: line.bytes.count, key: 8, origin)
                                    let idBytes = withUnsafeBytes(of: UInt64(bitPattern: id).littleEndian) { Array($0) }
                                    try spill.append(pending, header, idBytes, line.bytes)
                                }
                            }
                        } catch {
                            siteError = error
                            return false
                        }
                        return true
                    }
                } catch {
                    outcome.errors.append(error)
                }
                if let siteError { throw siteError }
                outcome.lines += linesHere
                if options.lenient, linesHere > 0, Double(skippedHere) > options.maxSkipped * Double(linesHere) {
                    outcome.errors.append(InputError(file: file.display, message: "\(skippedHere) of its \(linesHere) lines could not be read as \(file.form.described) and were skipped, more than \(Int(options.maxSkipped * 100))%; expected a dump of that form (is this the right file, or the right form?)"))
                }
                if outcome.errors.count >= ThreadDecoder.errorLimit { break fileLoop }
            }
            // Items whose parent came after them: their stories are known now.
            if outcome.errors.isEmpty {
                try spill.finishWriting(pending)
                let bytes = try spill.read(pending)
                spill.discard(pending)
                for record in Self.records(bytes) {
                    let id = bytes.withUnsafeBytes { Int64(bitPattern: UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: record.key.lowerBound, as: UInt64.self))) }
                    let story = stories.resolve(id)
                    let line = Array(bytes[record.line])
                    try line.withUnsafeBufferPointer { (raw: UnsafeBufferPointer<UInt8>) throws(SiteError) in
                        try append(Array(String(story).utf8), raw, record.origin)
                    }
                }
            }
        } catch {
            outcome.errors.append(InputError(file: error.path, message: error.message))
        }
        outcome.otherShards = otherShards.count
        outcome.threads = keys.map(\.count)
        return outcome
    }

    /// The thread `line` belongs to, or its located errors (not JSON, not a record of the form).
    static func key(of line: LineStream.Line, form: DumpForm, display: String, mapping: FieldMapping?) throws(InputErrors) -> DumpForm.Key {
        let bytes = Array(line.bytes)
        let document: JSONDocument
        do {
            document = try JSONDocument(bytes: bytes)
        } catch {
            let (_, column) = JSONDocument.location(in: bytes, offset: error.offset)
            throw InputErrors([InputError(file: display, line: line.number, column: column,
                                          message: "\(error.message) (the line starts at byte \(line.offset))")])
        }
        let reader = JSONReader(document: document, file: display)
        do throws(JSONMismatch) {
            return try form.key(reader, document.root, path: "$[\(line.position)]", mapping: mapping)
        } catch {
            var problem = reader.error(error, suffix: " (read as \(form.described); the line starts at byte \(line.offset))")
            problem.line = line.number
            throw InputErrors([problem])
        }
    }

    static func header(_ header: inout [UInt8], line: Int, key: Int, _ origin: DumpOrigin) {
        header.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: UInt32(line).littleEndian, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: UInt32(key).littleEndian, toByteOffset: 4, as: UInt32.self)
            raw.storeBytes(of: UInt64(origin.file).littleEndian, toByteOffset: 8, as: UInt64.self)
            raw.storeBytes(of: UInt64(origin.line).littleEndian, toByteOffset: 16, as: UInt64.self)
            raw.storeBytes(of: UInt64(bitPattern: origin.offset).littleEndian, toByteOffset: 24, as: UInt64.self)
            raw.storeBytes(of: UInt64(origin.position).littleEndian, toByteOffset: 32, as: UInt64.self)
        }
    }

    /// The records of one partition, in the order they were appended.
    static func records(_ bytes: [UInt8]) -> [(key: Range<Int>, line: Range<Int>, origin: DumpOrigin)] {
        var records: [(key: Range<Int>, line: Range<Int>, origin: DumpOrigin)] = []
        bytes.withUnsafeBytes { raw in
            var at = 0
            while at + headerBytes <= raw.count {
                let line = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
                let key = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self)))
                let origin = DumpOrigin(file: Int(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self))),
                                        line: Int(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self))),
                                        offset: Int64(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 24, as: UInt64.self))),
                                        position: Int(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 32, as: UInt64.self))))
                let keyStart = at + headerBytes
                let lineStart = keyStart + key
                guard lineStart + line <= raw.count else { break }
                records.append((keyStart..<lineStart, lineStart..<(lineStart + line), origin))
                at = lineStart + line
            }
        }
        return records
    }
}

/// Hacker News items' stories, found through `parent` chains: each item's story is known as soon
/// as its parent's is, so in a dump sorted by time almost every item is placed as it is read.
/// Items whose parent comes later are deferred and resolved at the end, in linear time.
struct StoryMap {
    /// Each placed item's story.
    private var story: [Int64: Int64] = [:]
    /// Deferred items' parents.
    private var waiting: [Int64: Int64] = [:]

    /// The story of `id` when it is known now (a story is its own), and records it.
    mutating func story(of id: Int64, parent: Int64?) -> Int64? {
        guard let parent else {
            story[id] = id
            return id
        }
        guard let root = story[parent] else { return nil }
        story[id] = root
        return root
    }

    mutating func `defer`(id: Int64, parent: Int64) {
        waiting[id] = parent
    }

    /// The story of a deferred item: the top of its chain, or the first item of the chain that the
    /// dump does not hold (a thread named after the item it answers), or, for a cycle, the item
    /// where the walk met itself. Every item walked is recorded, so all calls together are linear.
    mutating func resolve(_ id: Int64) -> Int64 {
        var chain: [Int64] = []
        var seen: Set<Int64> = []
        var current = id
        var root: Int64
        while true {
            if let known = story[current] { root = known; break }
            guard seen.insert(current).inserted, let parent = waiting[current] else { root = current; break }
            chain.append(current)
            current = parent
        }
        for item in chain { story[item] = root }
        return root
    }
}
