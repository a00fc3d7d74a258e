#if canImport(Glibc)
    import Glibc
#endif

// `segments`, kept with an `--incremental` build's spill: what each stretch of each dump file
// put into the partitions, so the next build passes over a stretch whose bytes are unchanged
// without reading its lines' keys.

/// Each Reddit dump file cut into segments of about `segmentBytes` decompressed bytes, each
/// ending at a line break: its place, the hash of its bytes, the lines it spans, and every record
/// it put into the spill (its key's spread, its line hash, its line and element, its size in the
/// spill). A later build whose file has a segment of the same bytes at the same line and element
/// (wherever its bytes start: a record does not hold its offset) would read the same keys from it
/// and put the same records into the same partitions: it replays them (`DumpPartition.Pass.replay`)
/// instead. Only the bytes of a
/// record whose partition the kept spill does not already hold are needed, and only those lines
/// are read.
///
/// A segment that held a line without a key (an error, a skipped line) or a Hacker News item
/// is not replayed. Only Reddit dumps are cut into segments: their keys and the members kept
/// depend on the line alone.
struct DumpSegments {
    static let fileName = "segments"
    /// Decompressed bytes a segment holds at least (it ends at the first line break after).
    static let segmentBytes = 4 << 20
    /// Words a record takes: spread, line hash, line and element within the segment, size.
    static let recordWords = 4
    /// Words a segment's header takes: start, length, hash, line, element, lines, elements, records.
    static let headerWords = 8

    struct Segment {
        /// Where its bytes start in the decompressed file, and how many there are.
        var start: Int64
        var length: Int
        var hash: UInt64
        /// The line number and element position of its first line.
        var line: Int
        var position: Int
        /// Line breaks and elements (non-blank lines) it holds.
        var lines: Int
        var elements: Int
        /// Its records in `words`, or nil when it cannot be replayed.
        var records: Range<Int>?
    }

    /// One record as a segment holds it.
    struct Record {
        var spread: UInt64
        var hash: UInt64
        var line: Int
        var position: Int
        var size: Int
    }

    /// The segments of each file by its hash (`DumpPartition.fileHash`), in order.
    var files: [UInt64: [Segment]] = [:]
    /// The size and content hash (`LineStream.contentHash`) of each file whose segments cover it
    /// all and can all be replayed: a later build finds such a file unchanged without decompressing it.
    var wholes: [UInt64: (size: Int64, hash: UInt64)] = [:]
    /// Every record, `recordWords` words each.
    var words: [UInt64] = []

    func record(_ k: Int, in segment: Segment) -> Record {
        let at = k * Self.recordWords
        let place = words[at + 2]
        return Record(
            spread: words[at], hash: words[at + 1], line: segment.line + Int(place >> 32), position: segment.position + Int(place & 0xFFFF_FFFF),
            size: Int(words[at + 3]))
    }

    /// What the table's file starts with: its format, and what the records depend on beyond the
    /// file's form and place (the version, the line limit).
    static var magic: UInt64 {
        StableHash.content(Array("\(DumpPartition.spillFormat) segments 2 \(InputLimits.maxLineBytes)".utf8))
    }

    /// The table's bytes, handed to `write` a piece at a time: the magic word, each file's hash
    /// and segment count with its segments (header, then records), and a hash of all that.
    func encode(_ write: ([UInt8]) throws(ThreadfoldError) -> Void) throws(ThreadfoldError) {
        let sorted = files.sorted(by: { $0.key < $1.key })
        // The words before the hash, counted first: the hash mixes in their length before them.
        var count = 2
        for (_, segments) in sorted {
            count += 4
            for s in segments { count += Self.headerWords + (s.records?.count ?? 0) * Self.recordWords }
        }
        // Handed over 32 KiB at a time, and hashed as they go: the table of a dump of a million
        // comments is 40 MB, which a copy in one array (and another in bytes) doubled and tripled.
        var hash = StableHash.Wide(count: count * 8)
        var chunk: [UInt64] = []
        chunk.reserveCapacity(4_096)
        func flush() throws(ThreadfoldError) {
            // Hashed as the words are here, written little-endian: as `init?(bytes:)` reads them.
            chunk.withUnsafeBytes { hash.update($0) }
            #if _endian(big)
                for k in chunk.indices { chunk[k] = chunk[k].littleEndian }
            #endif
            try write(chunk.withUnsafeBytes { Array($0) })
            chunk.removeAll(keepingCapacity: true)
        }
        func put(_ word: UInt64) throws(ThreadfoldError) {
            chunk.append(word)
            if chunk.count == 4_096 { try flush() }
        }
        try put(Self.magic)
        try put(UInt64(files.count))
        for (file, segments) in sorted {
            for word in [file, UInt64(segments.count), UInt64(wholes[file]?.size ?? 0), wholes[file]?.hash ?? 0] { try put(word) }
            for s in segments {
                for word in [UInt64(s.start), UInt64(s.length), s.hash, UInt64(s.line), UInt64(s.position), UInt64(s.lines), UInt64(s.elements)] {
                    try put(word)
                }
                try put(s.records.map { UInt64($0.count) } ?? UInt64.max)
                if let range = s.records {
                    for word in words[(range.lowerBound * Self.recordWords)..<(range.upperBound * Self.recordWords)] { try put(word) }
                }
            }
        }
        try flush()
        try write(withUnsafeBytes(of: hash.finish().littleEndian) { Array($0) })
    }

    /// The table read back; nil when it is not as `encode` writes it.
    init?(bytes: [UInt8]) {
        guard bytes.count % 8 == 0, bytes.count >= 24 else { return nil }
        var all = [UInt64](repeating: 0, count: bytes.count / 8)
        all.withUnsafeMutableBytes { words in bytes.withUnsafeBytes { words.copyMemory(from: $0) } }
        #if _endian(big)
            for k in all.indices { all[k] = UInt64(littleEndian: all[k]) }
        #endif
        guard all[0] == Self.magic, all.dropLast().withUnsafeBytes({ StableHash.wide(UnsafeRawBufferPointer($0)) }) == all[all.count - 1] else { return nil }
        var at = 2
        let end = all.count - 1
        words.reserveCapacity(end)
        func take(_ n: Int) -> ArraySlice<UInt64>? {
            guard n >= 0, n <= end - at else { return nil }
            defer { at += n }
            return all[at..<(at + n)]
        }
        for _ in 0..<min(all[1], UInt64(end)) {
            guard let file = take(4).map(Array.init), file[1] < UInt64(end), file[2] <= UInt64(Int64.max) else { return nil }
            if file[3] != 0 { wholes[file[0]] = (Int64(file[2]), file[3]) }
            var segments: [Segment] = []
            for _ in 0..<Int(file[1]) {
                guard let h = take(Self.headerWords).map(Array.init), [0, 1, 3, 4, 5, 6].allSatisfy({ h[$0] <= UInt64(Int32.max) << 31 })
                else { return nil }
                var segment = Segment(
                    start: Int64(bitPattern: h[0]), length: Int(truncatingIfNeeded: h[1]), hash: h[2], line: Int(truncatingIfNeeded: h[3]),
                    position: Int(truncatingIfNeeded: h[4]), lines: Int(truncatingIfNeeded: h[5]), elements: Int(truncatingIfNeeded: h[6]), records: nil)
                if h[7] != UInt64.max {
                    guard h[7] <= UInt64(end), let records = take(Int(h[7]) * Self.recordWords) else { return nil }
                    let first = words.count / Self.recordWords
                    words += records
                    segment.records = first..<(first + Int(h[7]))
                }
                segments.append(segment)
            }
            files[file[0]] = segments
        }
        guard at == end else { return nil }
    }

    init() {}
}

extension DumpSegments {
    /// The table a build writes as it reads each file: its segments as they are cut, and its
    /// records as they are placed (in the order of their lines), joined when the file ends.
    struct Recorder {
        var table = DumpSegments()
        /// The file being read: its segments (records not yet given), its records (five words
        /// each: spread, hash, line, position, size) and the lines that cannot be replayed.
        var segments: [Segment] = []
        var records: [UInt64] = []
        var unreplayable: [Int] = []
        /// The file's size and content hash, when it was read whole and each segment ended at a line break.
        var whole: (size: Int64, hash: UInt64)?

        mutating func add(_ record: Record) {
            records.append(record.spread)
            records.append(record.hash)
            records.append(UInt64(record.line))
            records.append(UInt64(record.position))
            records.append(UInt64(record.size))
        }

        /// Gives each segment of the file with hash `file` its records, and starts the next file.
        mutating func finishFile(_ file: UInt64) {
            var r = 0
            var bad = unreplayable.sorted()[...]
            let count = records.count / 5
            for k in segments.indices {
                let s = segments[k]
                let end = s.line + s.lines
                while r < count, Int(records[r * 5 + 2]) < s.line { r += 1 }
                var replayable = true
                while let first = bad.first, first < end {
                    if first >= s.line { replayable = false }
                    bad.removeFirst()
                }
                let first = table.words.count / DumpSegments.recordWords
                while r < count, Int(records[r * 5 + 2]) < end {
                    if replayable {
                        let at = r * 5
                        table.words.append(records[at])
                        table.words.append(records[at + 1])
                        table.words.append((records[at + 2] - UInt64(s.line)) << 32 | (records[at + 3] - UInt64(s.position)))
                        table.words.append(records[at + 4])
                    }
                    r += 1
                }
                segments[k].records = replayable ? first..<(table.words.count / DumpSegments.recordWords) : nil
            }
            table.files[file] = segments
            if let whole, segments.allSatisfy({ $0.records != nil }) { table.wholes[file] = whole }
            self.whole = nil
            segments = []
            records = []
            unreplayable = []
        }
    }
}

extension DumpPartition.Pass {
    /// `read(file:)` for a Reddit dump in a build that keeps its spill: the stream is cut into
    /// segments (`DumpSegments`), each replayed when the last build's table holds it, or split
    /// into lines and read as usual (and recorded for the next build).
    mutating func readSegments(_ stream: LineStream, _ reading: inout FileReading, read: (Int64) -> Void) throws(ThreadfoldError) {
        // The last build's segments of this file by their hash: a segment is found by its bytes,
        // not its offset, so a line that changed length moves no later segment out of reach.
        let kept = previousSegments?.files[fileHashes[reading.index]] ?? []
        let byHash = Dictionary(kept.enumerated().map { ($0.element.hash, $0.offset) }, uniquingKeysWith: { first, _ in first })
        if let table = previousSegments, let whole = table.wholes[fileHashes[reading.index]], (try? stream.probe())?.size == whole.size,
            (try? stream.contentHash()).map({ $0 == whole }) == true
        {
            return try replayFile(kept, table: table, whole: whole, stream, &reading, read: read)
        }
        var splitter = Splitter(display: stream.display, maxLineBytes: stream.maxLineBytes)
        var buffer: [UInt8] = []
        let least = partition.segmentBytes
        buffer.reserveCapacity(least + (256 << 10))
        // Where the search for the line break that ends the segment goes on from.
        var searched = least - 1
        var stopped = false
        // Decompressed on a thread of its own: hashing and replaying the segments costs about as
        // much again, on this one.
        let compressed = try stream.forEachPartAhead(read: read) { (part) throws(ThreadfoldError) -> Bool in
            buffer.append(contentsOf: part)
            while buffer.count > searched {
                let end = buffer.withUnsafeBytes { raw in
                    memchr(raw.baseAddress! + searched, 0x0A, raw.count - searched).map { raw.baseAddress!.distance(to: UnsafeRawPointer($0)) }
                }
                guard let end else {
                    searched = buffer.count
                    break
                }
                let more = try buffer.withUnsafeBufferPointer { (bytes) throws(ThreadfoldError) -> Bool in
                    try segment(UnsafeBufferPointer(rebasing: bytes[...end]), kept: kept, byHash: byHash, splitter: &splitter, &reading)
                }
                guard more else {
                    stopped = true
                    return false
                }
                buffer.removeFirst(end + 1)
                searched = least - 1
            }
            return true
        }
        guard !stopped else { return }
        // Every byte is in a segment that ends at a line break: the file can be replayed whole.
        if buffer.last ?? 0x0A == 0x0A { recorder!.whole = compressed }
        if !buffer.isEmpty {
            let more = try buffer.withUnsafeBufferPointer { (bytes) throws(ThreadfoldError) -> Bool in
                try segment(bytes, kept: kept, byHash: byHash, splitter: &splitter, &reading)
            }
            guard more else { return }
        }
        try splitter.finish { (line) throws(ThreadfoldError) -> Bool in take(line, &reading) }
    }

    /// One segment of the stream (`bytes`, ending at a line break unless it ends the file):
    /// replayed when the last build had a segment of the same bytes (`kept`, found `byHash`) at
    /// the same line and position, else read line by line. False to stop reading.
    private mutating func segment(
        _ bytes: UnsafeBufferPointer<UInt8>, kept: [DumpSegments.Segment], byHash: [UInt64: Int], splitter: inout Splitter,
        _ reading: inout FileReading
    ) throws(ThreadfoldError) -> Bool {
        let raw = UnsafeRawBufferPointer(bytes)
        var segment = DumpSegments.Segment(
            start: splitter.offset, length: bytes.count, hash: StableHash.wide(raw), line: splitter.number, position: splitter.position, lines: 0,
            elements: 0, records: nil)
        if bytes.last == 0x0A, splitter.carry.isEmpty, let k = byHash[segment.hash], let table = previousSegments, let records = kept[k].records {
            let old = kept[k]
            if (old.length, old.line, old.position) == (segment.length, segment.line, segment.position) {
                guard drain(&reading) else { return false }
                try replay(old, records: records, table: table, bytes, at: segment.start, &reading)
                splitter.skip(bytes: Int64(bytes.count), lines: old.lines, records: old.elements)
                reading.lines += old.elements
                for k in records { recorder!.add(table.record(k, in: old)) }
                segment.lines = old.lines
                segment.elements = old.elements
                recorder!.segments.append(segment)
                outcome.segmentsReplayed += 1
                return true
            }
        }
        let more = try splitter.feed(raw) { (line) throws(ThreadfoldError) -> Bool in take(line, &reading) }
        segment.lines = splitter.number - segment.line
        segment.elements = splitter.position - segment.position
        if bytes.last == 0x0A, splitter.carry.isEmpty { recorder!.segments.append(segment) }
        outcome.segmentsRead += 1
        return more
    }

    /// The records of segment `old` of the last build's table (the segment at `start` now), placed again: each partition's
    /// digest and threads as reading its lines would leave them. A record the kept spill holds
    /// at its place is not written; the others' lines are read from `bytes` and appended.
    private mutating func replay(
        _ old: DumpSegments.Segment, records: Range<Int>, table: DumpSegments, _ bytes: UnsafeBufferPointer<UInt8>, at start: Int64,
        _ reading: inout FileReading
    ) throws(ThreadfoldError) {
        let needed = try replayRecords(old, records: records, table: table, &reading)
        guard !needed.isEmpty else { return }
        // The lines whose records are needed, read again from the segment's bytes.
        var splitter = Splitter(display: reading.file.display, maxLineBytes: Int.max)
        (splitter.number, splitter.position, splitter.offset, splitter.start) = (old.line, old.position, start, start)
        try appendNeeded(needed, &reading) { (take) throws(ThreadfoldError) in _ = try splitter.feed(UnsafeRawBufferPointer(bytes), take) }
    }

    /// Segment `old`'s records placed again: each partition's digest and threads as reading its
    /// lines would leave them. Those the kept spill holds at their place are not written; the
    /// others are returned, with their partition and digest, for their lines to be read again.
    private mutating func replayRecords(
        _ old: DumpSegments.Segment, records: Range<Int>, table: DumpSegments, _ reading: inout FileReading
    ) throws(ThreadfoldError) -> [Needed] {
        var needed: [Needed] = []
        let file = fileHashes[reading.index]
        for k in records {
            let r = table.record(k, in: old)
            let p = Int(r.spread % UInt64(spill.count - 1))
            keys[p].insert(r.spread)
            let origin = DumpOrigin(file: reading.index, line: r.line, position: r.position)
            digests[p] = DumpPartition.digest(digests[p], line: r.hash, key: r.spread, file: file, origin: origin)
            if try !spill.skip(p, digest: digests[p], size: Int64(r.size)) { needed.append((r, p, digests[p])) }
        }
        return needed
    }

    typealias Needed = (record: DumpSegments.Record, p: Int, digest: UInt64)

    /// A file whose bytes are the ones the last build read whole (`DumpSegments.wholes`): every
    /// segment replayed without decompressing it, unless some record's partition no longer agrees
    /// with the kept spill; the file is then decompressed once for those lines alone.
    private mutating func replayFile(
        _ kept: [DumpSegments.Segment], table: DumpSegments, whole: (size: Int64, hash: UInt64), _ stream: LineStream,
        _ reading: inout FileReading, read: (Int64) -> Void
    ) throws(ThreadfoldError) {
        var needed: [Needed] = []
        for old in kept {
            needed += try replayRecords(old, records: old.records!, table: table, &reading)
            reading.lines += old.elements
            for k in old.records! { recorder!.add(table.record(k, in: old)) }
            recorder!.segments.append(old)
            outcome.segmentsReplayed += 1
        }
        recorder!.whole = whole
        outcome.filesReplayed += 1
        guard !needed.isEmpty else { return read(whole.size) }
        var splitter = Splitter(display: reading.file.display, maxLineBytes: Int.max)
        try appendNeeded(needed, &reading) { (take) throws(ThreadfoldError) in
            try stream.forEachPart(read: read) { (part) throws(ThreadfoldError) -> Bool in try splitter.feed(part, take) }
        }
    }

    /// The needed records of a replayed segment or file, appended: their lines picked (by
    /// position, in order) from those `lines` hands its body, and read again. Each must be the
    /// record the table says, or the table is not this file's.
    private mutating func appendNeeded(
        _ needed: [Needed], _ reading: inout FileReading,
        lines: (_ take: (LineStream.Line) throws(ThreadfoldError) -> Bool) throws(ThreadfoldError) -> Void
    ) throws(ThreadfoldError) {
        var batch = DumpPartition.Batch()
        var wanted = needed.map(\.record.position)[...]
        try lines { (line) throws(ThreadfoldError) -> Bool in
            if line.position == wanted.first {
                batch.append(line)
                wanted.removeFirst()
            }
            return !wanted.isEmpty
        }
        let keyed = DumpPartition.keys(of: &batch, form: reading.file.form, display: reading.file.display, mapping: partition.options.mapping, jobs: 1)
        let mismatch = ThreadfoldError.output(
            path: reading.file.display,
            message: "does not match the segments the last build kept with its spill; expected them to describe this file (build again without --incremental)")
        guard keyed.lines.count == needed.count, batch.lines.count == needed.count else { throw mismatch }
        let gaps = keyed.spilledGaps
        for (k, line) in keyed.lines.enumerated() {
            guard case .read(.thread(let range)) = line.key else { throw mismatch }
            let (record, p, digest) = needed[k]
            let entry = batch.lines[k]
            let gapBytes = (Int(line.gapEnd) - Int(line.gapStart)) * DumpPartition.gapBytes
            guard StableHash.spread(keyed.keys[range]) == record.spread, line.hash == record.hash,
                DumpPartition.headerBytes + range.count + line.length + gapBytes == record.size
            else { throw mismatch }
            let origin = DumpOrigin(file: reading.index, line: record.line, position: record.position)
            DumpPartition.header(&header, line: line.length, key: range.count, gaps: gapBytes / DumpPartition.gapBytes, origin)
            let header = self.header
            let spill = self.spill
            var failure: ThreadfoldError?
            batch.bytes.withUnsafeBufferPointer { all in
                keyed.keys.withUnsafeBufferPointer { keys in
                    gaps.withUnsafeBytes { gaps in
                        do throws(ThreadfoldError) {
                            try spill.append(
                                p, digest: digest, header, UnsafeBufferPointer(rebasing: keys[range]),
                                UnsafeBufferPointer(rebasing: all[entry.start..<(entry.start + line.length)]),
                                UnsafeRawBufferPointer(rebasing: gaps[(Int(line.gapStart) * DumpPartition.gapBytes)..<(Int(line.gapEnd) * DumpPartition.gapBytes)]))
                        } catch { failure = error }
                    }
                }
            }
            if let failure { throw failure }
        }
    }
}
