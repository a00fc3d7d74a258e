import Foundation

/// Where a dump record came from: which input, which line, which element.
struct DumpOrigin: Sendable, Equatable {
    var file: Int
    var line: Int
    var position: Int
}

/// The first pass over a build's dumps: every file is streamed once, each line is parsed only
/// far enough to know its thread, and the line is appended to the spill partition its thread
/// hashes to. Memory holds a chunk, a line and (for Hacker News) a map from item ids to their
/// story; never the dump. Each partition then holds whole threads and is a unit of work.
///
/// A record in a partition: a 32-byte header (line length, key length, file index, number of
/// gaps, line number, position, little-endian), the thread key, the line (its unread members left
/// off), and where they were (`JSONScan.Gap`s, 8 bytes each). Each record is appended with its
/// partition's digest after it, so an `--incremental` build's spill, kept for the next, lets
/// that build skip writing the records it holds again (`Spill`).
///
/// A line's byte offset is not in its record: only a message about a line with no key names it,
/// and such a line is never spilled. So a change that moves later lines' offsets, but not their
/// bytes, lines or positions, spills nothing more.
struct DumpPartition {
    let files: [DumpFile]
    let options: ImportOptions
    /// Whether a thread, by its key, is this build's; the others are counted, not spilled (a
    /// shard build streams the whole dump but spills only its own threads). Nil keeps all.
    let keeps: ((UnsafeBufferPointer<UInt8>) -> Bool)?
    /// Threads that read lines' keys: a batch of lines is split among them, and their keys are
    /// placed in the order of the lines, so partitions are the same for any number.
    var jobs = 1
    /// The Hacker News story map's limit (`StoryMap.limit`); lower in tests.
    var storyLimit = StoryMap.maximumLimit
    /// Decompressed bytes a segment of a Reddit dump holds at least (`DumpSegments`); lower in tests.
    var segmentBytes = DumpSegments.segmentBytes

    /// Lines are read into a batch of about this many bytes (or `batchLines` lines) before their
    /// keys are read, on `jobs` threads.
    static let batchBytes = 4 << 20
    static let batchLines = 16_384
    /// Batches handed to the key threads and not yet placed: four, so a batch whose keys take
    /// longer (a run of long lines) does not stop the reading while the threads catch up.
    static let inFlight = 4

    /// Lines read but not yet placed: their bytes one after another in one buffer (no
    /// allocation a line on the reading thread), and where each came from.
    struct Batch: Sendable {
        struct Line: Sendable {
            var start: Int
            var count: Int
            var number: Int
            var offset: Int64
            var position: Int
        }
        var bytes: [UInt8] = []
        var lines: [Line] = []

        /// Room for a whole batch (`batchBytes` and a line past it, `batchLines`).
        init() {
            bytes.reserveCapacity(DumpPartition.batchBytes + (64 << 10))
            lines.reserveCapacity(DumpPartition.batchLines)
        }

        mutating func append(_ line: LineStream.Line) {
            lines.append(Line(start: bytes.count, count: line.bytes.count, number: line.number, offset: line.offset, position: line.position))
            bytes.append(contentsOf: line.bytes)
        }

        /// No lines, the buffers kept for the next.
        mutating func empty() {
            bytes.removeAll(keepingCapacity: true)
            lines.removeAll(keepingCapacity: true)
        }
    }

    struct Outcome {
        var errors: [Problem] = []
        /// Lines skipped with `lenient`, as warnings.
        var skipped: [Problem] = []
        var lines = 0
        /// Distinct threads left to other shards.
        var otherShards = 0
        /// Distinct threads in each partition (by a 64-bit hash of their key), for progress.
        var threads: [Int] = []
        /// Each partition's digest: its records' keys, bytes, files, forms and places, in the
        /// order they were appended (`digest(_:line:key:file:origin:)`). A later build whose
        /// partition has the same digest holds the same threads from the same lines.
        var digests: [UInt64] = []
        /// Segments of the dumps replayed from the last build's table, and read line by line (`DumpSegments`).
        var segmentsReplayed = 0
        var segmentsRead = 0
        /// Files found unchanged by their bytes on disk, whose segments were all replayed without decompressing them.
        var filesReplayed = 0
    }

    static let headerBytes = 32

    /// What a spill's records are (kept spills of another format or version are not continued).
    static let spillFormat = "threadfold \(Release.version) dump records 4"

    /// Partitions for `bytes` of input (decompressed, or estimated): one for about 8 MiB of
    /// input, at least 64 and at most 2,048; one more holds deferred Hacker News items. A worker
    /// holds a whole partition while it renders the partition's threads, two workers two: at
    /// 32 MiB a partition, they made most of a large build's peak memory.
    static func partitionCount(inputBytes: Int64) -> Int {
        Int(min(2_048, max(64, inputBytes / (8 << 20)))) + 1
    }

    /// Streams every file into `spill`. `read(bytes)` reports input bytes read so far, over all files.
    func run(into spill: Spill, read: (Int64) -> Void) -> Outcome {
        var pass = Pass(self, spill: spill)
        do throws(ThreadfoldError) {
            for index in files.indices {
                try pass.read(file: index, read: read)
                if pass.isFull { break }
            }
            // Items whose parent came after them: their stories are known now.
            if pass.outcome.errors.isEmpty { try pass.placeDeferred() }
            if pass.outcome.errors.isEmpty, let recorder = pass.recorder { try spill.keepFile(DumpSegments.fileName, writing: recorder.table.encode) }
        } catch {
            pass.outcome.errors.append(Problem(file: error.path, message: error.message))
        }
        return pass.finished()
    }

    /// A file as partition digests, segments and thread hashes see it: its form (unit keys
    /// depend on it) and its place among the build's files (records hold it, and kept messages
    /// name it by it, `DumpInputs.placed`), not its name: the same dump given as `RC.zst` and as
    /// `/data/RC.zst` is the same input.
    static func fileHash(form: DumpForm, index: Int) -> UInt64 {
        StableHash.content(Array(form.rawValue.utf8), seed: UInt64(index))
    }

    /// `digest` with one more record: the hash of its line's bytes (`StableHash.wide`), its key's spread, its file's
    /// `fileHash`, and its line number and position there. It covers every byte of the record
    /// (`header`), so it is also the spill's chain digest.
    static func digest(_ digest: UInt64, line: UInt64, key: UInt64, file: UInt64, origin: DumpOrigin) -> UInt64 {
        let words: (UInt64, UInt64, UInt64, UInt64, UInt64) = (
            line.littleEndian, key.littleEndian, file.littleEndian,
            UInt64(origin.line).littleEndian, UInt64(origin.position).littleEndian
        )
        return withUnsafeBytes(of: words) { StableHash.content($0, seed: digest) }
    }

    /// One line's key (or why it has none), with the hash of its bytes for the partition digests:
    /// of what reaches the spill (the members kept, and their gaps), so a change to a member no
    /// page reads changes no digest.
    struct KeyedLine: Sendable {
        /// Its key, or (`failed`) the place in `KeyedLines.errors` of what is wrong with the line.
        enum Outcome: Sendable {
            case read(DumpForm.LineKey)
            case failed(Int)
        }
        var key: Outcome
        var hash: UInt64
        /// The line's length once its unread members are left off (its own length otherwise).
        var length: Int
        /// Where they were: `KeyedLines.gaps[gapStart..<gapEnd]`.
        var gapStart: Int32 = 0
        var gapEnd: Int32 = 0
    }

    /// A batch's keys, in the order of its lines, and the gaps their lines were left with. A
    /// line holds no reference (a key is a range of `keys`, an error a place in `errors`), so
    /// lines are moved between threads and read without a reference count touched.
    struct KeyedLines: Sendable {
        var lines: [KeyedLine] = []
        var gaps: [JSONScan.Gap] = []
        /// The threads' keys, one after another.
        var keys: [UInt8] = []
        var errors: [ThreadfoldError] = []

        /// Line `line` read as `key`: a thread's key bytes go to `keys`.
        mutating func append(_ key: DumpForm.Key, hash: UInt64, length: Int) {
            switch key {
            case .thread(let bytes):
                let start = keys.count
                keys += bytes
                lines.append(KeyedLine(key: .read(.thread(start..<keys.count)), hash: hash, length: length))
            case .item(let id, let parent):
                lines.append(KeyedLine(key: .read(.item(id: id, parent: parent)), hash: hash, length: length))
            }
        }

        mutating func append(_ error: ThreadfoldError, hash: UInt64, length: Int) {
            errors.append(error)
            lines.append(KeyedLine(key: .failed(errors.count - 1), hash: hash, length: length))
        }

        /// Appends `part`'s lines, their gaps, keys and errors after these.
        mutating func append(_ part: KeyedLines) {
            let (gapBase, keyBase, errorBase) = (Int32(gaps.count), keys.count, errors.count)
            gaps += part.gaps
            keys += part.keys
            errors += part.errors
            lines += part.lines.lazy.map { line in
                var line = line
                line.gapStart += gapBase
                line.gapEnd += gapBase
                switch line.key {
                case .read(.thread(let range)): line.key = .read(.thread((range.lowerBound + keyBase)..<(range.upperBound + keyBase)))
                case .failed(let k): line.key = .failed(k + errorBase)
                case .read(.item): break
                }
                return line
            }
        }

        /// The gaps as a record holds them: each one's two fields as 32-bit little-endian integers.
        var spilledGaps: [JSONScan.Gap] {
            #if _endian(big)
                return gaps.map { JSONScan.Gap(at: $0.at.littleEndian, columns: $0.columns.littleEndian) }
            #else
                return gaps
            #endif
        }
    }

    /// Bytes of one `JSONScan.Gap` in a record (its memory, `KeyedLines.spilledGaps`).
    static let gapBytes = 8

    /// Appends the gaps a record holds (`records(_:)`'s `gaps` range) to `gaps`.
    static func readGaps(_ raw: ArraySlice<UInt8>, into gaps: inout [JSONScan.Gap]) {
        raw.withUnsafeBytes { raw in
            for at in stride(from: 0, to: raw.count - gapBytes + 1, by: gapBytes) {
                gaps.append(
                    JSONScan.Gap(
                        at: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)),
                        columns: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self))))
            }
        }
    }

    /// A line's hash for the digests, of what reaches the spill: the bytes kept, seeded with its
    /// gaps (their memory, as `spilledGaps` or a record holds them), if any.
    static func lineHash(_ line: UnsafeRawBufferPointer, gaps: UnsafeRawBufferPointer) -> UInt64 {
        StableHash.wide(line, seed: gaps.isEmpty ? 0 : StableHash.wide(gaps))
    }

    /// The thread `line` belongs to, or its located errors (not JSON, not a record of the form).
    /// Read without a document when the form allows (`DumpForm.quickKey`), otherwise through the
    /// line's document (`documentKey`), which also says what is wrong with a line that has none.
    static func key(of line: LineStream.Line, form: DumpForm, display: String, mapping: FieldMapping?) throws(ThreadfoldError) -> DumpForm.Key {
        if let quick = form.quickKey(line.bytes) { return quick }
        return try documentKey(
            of: Array(line.bytes), number: line.number, offset: line.offset, position: line.position, form: form,
            display: display, mapping: mapping)
    }

    /// The keys of `batch`'s lines, in order, read on up to `jobs` threads. A line read without
    /// its document is left with only the members its thread's parse keeps
    /// (`DumpForm.quickKey(leavingOff:keeping:filtering:blanks:gaps:keys:)`), in place, and may end sooner
    /// (`KeyedLine.length`); its hash is of the line as it was left, gaps included.
    static func keys(
        of batch: inout Batch, form: DumpForm, display: String, mapping: FieldMapping?,
        jobs: Int
    ) -> KeyedLines {
        let lines = batch.lines
        return batch.bytes.withUnsafeMutableBufferPointer { all in
            let all = SharedBytes(all)
            // Each part reads and changes its own lines' bytes, and no other.
            @Sendable func read(_ range: Range<Int>) -> KeyedLines {
                var blanks: [Range<Int>] = []
                var gaps: [JSONScan.Gap] = []
                var keyed = KeyedLines()
                keyed.lines.reserveCapacity(range.count)
                keyed.keys.reserveCapacity(range.count * 8)
                // Read once for all the lines: a filter read or copied a line retains its arrays.
                let members = form.recordMembers
                let filter = members ?? JSONMemberFilter.none
                for k in range {
                    let line = lines[k]
                    let bytes = UnsafeMutableBufferPointer(rebasing: all.bytes[line.start..<(line.start + line.count)])
                    if let quick = form.quickKey(
                        leavingOff: bytes, keeping: filter, filtering: members != nil, blanks: &blanks, gaps: &gaps,
                        keys: &keyed.keys)
                    {
                        let hash = gaps.withUnsafeBytes { gaps in
                            Self.lineHash(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[..<quick.length]), gaps: gaps)
                        }
                        let start = Int32(keyed.gaps.count)
                        keyed.gaps += gaps
                        keyed.lines.append(
                            KeyedLine(
                                key: .read(quick.key), hash: hash, length: quick.length, gapStart: start,
                                gapEnd: Int32(keyed.gaps.count)))
                        continue
                    }
                    let hash = StableHash.wide(UnsafeRawBufferPointer(bytes))
                    do throws(ThreadfoldError) {
                        keyed.append(
                            try documentKey(
                                of: Array(bytes), number: line.number, offset: line.offset, position: line.position,
                                form: form, display: display, mapping: mapping), hash: hash, length: line.count)
                    } catch {
                        keyed.append(error, hash: hash, length: line.count)
                    }
                }
                return keyed
            }
            // Splitting a small batch costs more than it saves.
            let count = lines.count
            let parts = min(jobs, count / 1_024)
            guard parts > 1 else { return read(0..<count) }
            let read = Parallel.map(count: parts, jobs: parts) { part in
                read((count * part / parts)..<(count * (part + 1) / parts))
            }
            // One list, each part's gaps, keys and errors after the parts before it.
            var joined = read[0]
            joined.lines.reserveCapacity(count)
            for part in read.dropFirst() { joined.append(part) }
            return joined
        }
    }

    /// A batch's bytes, which the threads reading its keys change in place, each in its own lines.
    private struct SharedBytes: @unchecked Sendable {
        let bytes: UnsafeMutableBufferPointer<UInt8>
        init(_ bytes: UnsafeMutableBufferPointer<UInt8>) { self.bytes = bytes }
    }

    /// The thread of one line's `bytes` (line `number`, starting at byte `offset`, the file's
    /// `position`-th record), read through its document, or its located errors.
    static func documentKey(
        of bytes: [UInt8], number: Int, offset: Int64, position: Int, form: DumpForm, display: String,
        mapping: FieldMapping?
    ) throws(ThreadfoldError) -> DumpForm.Key {
        let document: JSONDocument
        do {
            document = try JSONDocument(bytes: bytes)
        } catch {
            let (_, column) = JSONDocument.location(in: bytes, offset: error.offset)
            throw ThreadfoldError.input([
                Problem(
                    file: display, line: number, column: column,
                    message: "\(error.message) (the line starts at byte \(offset))")
            ])
        }
        let reader = JSONReader(document: document, file: display)
        do throws(JSONError) {
            return try form.key(reader, document.root, path: "$[\(position)]", mapping: mapping)
        } catch {
            var problem = reader.error(error, suffix: " (read as \(form.described); the line starts at byte \(offset))")
            problem.line = number
            throw ThreadfoldError.input([problem])
        }
    }

    /// One batch's keys, read on threads of their own (with large stacks, as every worker has)
    /// while the partition pass reads on.
    final class KeyReading: @unchecked Sendable {
        /// Changed by the reading thread (`keys(of:)` leaves members off), read only after `done`.
        private(set) var lines: Batch
        /// Written by the reading thread before `done` is signalled, read only after.
        private var results = KeyedLines()
        private let done = DispatchSemaphore(value: 0)

        init(lines: consuming Batch, form: DumpForm, display: String, mapping: FieldMapping?, jobs: Int) {
            self.lines = lines
            let thread = Thread { [self] in
                results = DumpPartition.keys(of: &self.lines, form: form, display: display, mapping: mapping, jobs: jobs)
                done.signal()
            }
            thread.stackSize = 16 << 20
            thread.start()
        }

        /// The keys, in the order of the lines, once they are read.
        func keys() -> KeyedLines {
            done.wait()
            return results
        }
    }

    /// A Hacker News story's thread key, its id in decimal, handed to `body` without an allocation.
    static func withStoryKey<T>(_ story: Int64, _ body: (UnsafeBufferPointer<UInt8>) throws(ThreadfoldError) -> T) throws(ThreadfoldError) -> T {
        try JSONWriter.withDigits(of: story, body)
    }

    static func header(_ header: inout [UInt8], line: Int, key: Int, gaps: Int, _ origin: DumpOrigin) {
        header.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: UInt32(line).littleEndian, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: UInt32(key).littleEndian, toByteOffset: 4, as: UInt32.self)
            raw.storeBytes(of: UInt32(origin.file).littleEndian, toByteOffset: 8, as: UInt32.self)
            raw.storeBytes(of: UInt32(gaps).littleEndian, toByteOffset: 12, as: UInt32.self)
            raw.storeBytes(of: UInt64(origin.line).littleEndian, toByteOffset: 16, as: UInt64.self)
            raw.storeBytes(of: UInt64(origin.position).littleEndian, toByteOffset: 24, as: UInt64.self)
        }
    }

    /// The records of one partition, in the order they were appended.
    static func records(_ bytes: [UInt8]) -> [(key: Range<Int>, line: Range<Int>, gaps: Range<Int>, origin: DumpOrigin)] {
        var records: [(key: Range<Int>, line: Range<Int>, gaps: Range<Int>, origin: DumpOrigin)] = []
        bytes.withUnsafeBytes { raw in
            var at = 0
            while at + headerBytes <= raw.count {
                let line = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
                let key = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self)))
                let gaps = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 12, as: UInt32.self))) * gapBytes
                let origin = DumpOrigin(
                    file: Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 8, as: UInt32.self))),
                    line: Int(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self))),
                    position: Int(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 24, as: UInt64.self))))
                let keyStart = at + headerBytes
                let lineStart = keyStart + key
                let gapStart = lineStart + line
                guard gapStart + gaps <= raw.count else { break }
                records.append((keyStart..<lineStart, lineStart..<gapStart, gapStart..<(gapStart + gaps), origin))
                at = gapStart + gaps
            }
        }
        return records
    }
}
