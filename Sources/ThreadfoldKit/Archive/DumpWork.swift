import Dispatch

/// The dumps of one build: their files in input order, the spill their records were partitioned
/// into, and how each is read.
struct DumpInputs: Sendable {
    let files: [(path: String, display: String, form: DumpForm)]
    let spill: Spill
    /// How the threads of each form are imported: the form named, so nothing is guessed per thread.
    let importing: ImportOptions
    /// Each file's name hashed, so a thread's hash covers where its lines are (a message names them).
    let displayHashes: [UInt64]
    /// The file whose name has each hash (the first, if two names share one).
    let fileOfDisplayHash: [UInt64: Int]
    /// Threads in each partition, for progress.
    let threads: [Int]
    /// Each partition's digest (`DumpPartition.Outcome.digests`).
    let digests: [UInt64]

    init(
        files: [(path: String, display: String, form: DumpForm)], spill: Spill, importing: ImportOptions, threads: [Int],
        digests: [UInt64]
    ) {
        self.files = files
        self.spill = spill
        self.importing = importing
        self.threads = threads
        self.digests = digests
        displayHashes = files.map { ContentHash.hash(Array($0.display.utf8)) }
        fileOfDisplayHash = Dictionary(displayHashes.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
    }

    /// The options that read a thread of `form`.
    func options(_ form: DumpForm) -> ImportOptions {
        var options = importing
        switch form {
        case .reddit: options.format = .reddit
        case .hn: options.format = .hn
        case .mapped: break
        }
        return options
    }
}

/// One thread's lines gathered from a partition, as one JSON array with a line per record: `[`
/// on the first line, record k on line k + 2, so element positions carry over, and `locate` puts
/// every message back on its own file's line and column (a line whose unread members were left
/// off has its gaps, which give back the columns they held).
struct DumpThread {
    var bytes: [UInt8] = [UInt8(ascii: "["), 0x0A]
    var origins: [DumpOrigin] = []
    /// Where each record's line starts in `bytes`.
    var starts: [Int] = []
    /// Every record's gaps, one after another: record k's end at `gapEnds[k]`.
    var gaps: [JSONScan.Gap] = []
    var gapEnds: [Int32] = []

    mutating func append(_ line: ArraySlice<UInt8>, _ origin: DumpOrigin, gaps: ArraySlice<UInt8> = []) {
        if !origins.isEmpty { bytes += [UInt8(ascii: ","), 0x0A] }
        starts.append(bytes.count)
        bytes += line
        origins.append(origin)
        DumpPartition.readGaps(gaps, into: &self.gaps)
        gapEnds.append(Int32(self.gaps.count))
    }

    mutating func close() { bytes += [0x0A, UInt8(ascii: "]")] }

    /// Its place among the dumps' threads, which orders their messages and pages: its first
    /// record's file (in input order) and line.
    var order: [Int] { [origins[0].file, origins[0].line] }

    /// The hash of the thread's bytes and of where they stand (file names, lines and element
    /// positions), so a thread whose messages would name other lines or elements is rendered again.
    func hash(displayHashes: [UInt64]) -> UInt64 {
        var places: [UInt64] = []
        places.reserveCapacity(origins.count * 3)
        for origin in origins { places += [displayHashes[origin.file], UInt64(origin.line), UInt64(origin.position)] }
        // The gaps too, and which record holds each: the same bytes from lines with other members
        // left off have other columns.
        var seed = places.withUnsafeBytes { ContentHash.hash($0) }
        seed = gapEnds.withUnsafeBytes { ContentHash.hash($0, seed: seed) }
        seed = gaps.withUnsafeBytes { ContentHash.hash($0, seed: seed) }
        return ContentHash.hash(bytes, seed: seed)
    }

    /// `error` (about this thread's array) at the file, line, column and element its record came from.
    func locate(_ error: Problem, displays: (Int) -> String) -> Problem {
        var error = error
        let record = self.record(line: error.line)
        let origin = origins[record]
        error.file = displays(origin.file)
        if let line = error.line {
            error.line = origin.line
            error.column = error.column.map { column(line: line, $0) }
        }
        error.path = Self.path(error.path, origin)
        if var related = error.related, related.file == nil {
            let place = origins[self.record(line: related.line)]
            if place.file != origin.file { related.file = displays(place.file) }
            if let line = related.line {
                related.line = place.line
                related.column = related.column.map { column(line: line, $0) }
            }
            related.path = Self.path(related.path, place)
            error.related = related
        }
        return error
    }

    /// The record at `line` of the thread's array (line k + 2 holds record k); the first for a
    /// line that holds none.
    private func record(line: Int?) -> Int {
        let index = (line ?? 0) - 2
        return origins.indices.contains(index) ? index : 0
    }

    /// Column `column` of `line` of the thread's array, as a column of its record's own line.
    private func column(line: Int, _ column: Int) -> Int {
        let index = line - 2
        guard origins.indices.contains(index) else { return column }
        let first = index == 0 ? 0 : Int(gapEnds[index - 1])
        guard first < Int(gapEnds[index]) else { return column }
        let end = index + 1 < starts.count ? starts[index + 1] - 2 : bytes.count
        return bytes.withUnsafeBufferPointer { all in
            gaps.withUnsafeBufferPointer { gaps in
                JSONScan.column(
                    column, in: UnsafeBufferPointer(rebasing: all[starts[index]..<max(starts[index], end)]),
                    gaps: UnsafeBufferPointer(rebasing: gaps[first..<Int(gapEnds[index])]))
            }
        }
    }

    /// A path into the thread's array, made a path into the dump: `$[k]` becomes the line's element.
    private static func path(_ path: String?, _ origin: DumpOrigin) -> String? {
        guard let path, path.hasPrefix("$["), let close = path.firstIndex(of: "]") else { return path }
        return "$[\(origin.position)]" + path[path.index(after: close)...]
    }
}

extension DumpInputs {
    /// Streams `files` once into a spill of whole threads, made by `makeSpill(count, bufferBytes)`
    /// (a build's inside its staging folder, a check's in a temporary folder): about 32 MiB of
    /// records a partition, a compressed dump taken to be eight times its size. Nil dumps when
    /// the spill cannot be made (its error is in the outcome). `readProgress(read, total)` is
    /// called about ten times a second with the input bytes read.
    static func partition(
        _ files: [(path: String, display: String, form: DumpForm)], importing: ImportOptions, shard: Shard?,
        jobs: Int, readProgress: (@Sendable (Int64, Int64) -> Void)? = nil,
        spill makeSpill: (_ count: Int, _ bufferBytes: Int) throws(ThreadfoldError) -> Spill
    )
        -> (outcome: DumpPartition.Outcome, dumps: DumpInputs?)
    {
        var estimate: Int64 = 0
        var total: Int64 = 0
        for file in files {
            guard let probe = try? LineStream(path: file.path, display: file.display).probe() else { continue }
            total += probe.size
            estimate += probe.compression == nil ? probe.size : probe.size * 8
        }
        let count = DumpPartition.partitionCount(inputBytes: estimate)
        let spill: Spill
        do {
            spill = try makeSpill(count, max(16 << 10, min(256 << 10, (96 << 20) / count)))
        } catch {
            return (DumpPartition.Outcome(errors: [Problem(file: error.path, message: error.message)]), nil)
        }
        var partitioner = DumpPartition(files: files, options: importing, shard: shard)
        partitioner.jobs = jobs
        var last = DispatchTime.now().uptimeNanoseconds
        var outcome = partitioner.run(into: spill) { read in
            let now = DispatchTime.now().uptimeNanoseconds
            guard now - last > 100_000_000 else { return }
            last = now
            readProgress?(read, total)
        }
        readProgress?(total, total)
        if outcome.errors.isEmpty {
            do { try spill.finishWriting() } catch { outcome.errors.append(Problem(file: error.path, message: error.message)) }
        }
        return (
            outcome,
            DumpInputs(
                files: files, spill: spill, importing: importing, threads: outcome.threads,
                digests: outcome.digests)
        )
    }

    /// Reads spill partition `p`, removes its file, and hands `body` each of its threads in the
    /// order their first records appear: the thread's key, its form, and its lines gathered into
    /// one array (`DumpThread`). Each thread's bytes are gathered only when its turn comes, so
    /// memory holds the partition and one thread, not a second copy of the partition.
    ///
    /// With `only`, the threads it refuses (given their key and form) are skipped before their
    /// bytes are gathered.
    func forEachThread(
        in p: Int, only: ((_ key: [UInt8], _ form: DumpForm) -> Bool)? = nil,
        _ body: (_ key: [UInt8], _ form: DumpForm, _ thread: DumpThread) -> Void
    ) throws(ThreadfoldError) {
        let bytes = try spill.read(p)
        spill.discard(p)
        let records = DumpPartition.records(bytes)
        var groups: [[UInt8]: Int] = [:]
        var threads: [(key: [UInt8], form: DumpForm, records: [Int32])] = []
        for (r, record) in records.enumerated() {
            let key = Array(bytes[record.key])
            let index: Int
            if let known = groups[key] {
                index = known
            } else {
                index = threads.count
                groups[key] = index
                threads.append((key, files[record.origin.file].form, []))
            }
            threads[index].records.append(Int32(r))
        }
        groups = [:]
        for (key, form, members) in threads {
            if let only, !only(key, form) { continue }
            var thread = DumpThread()
            for r in members { thread.append(bytes[records[Int(r)].line], records[Int(r)].origin, gaps: bytes[records[Int(r)].gaps]) }
            thread.close()
            body(key, form, thread)
        }
    }

    /// How messages name a thread: the file and line of its first record.
    func source(of thread: DumpThread) -> String {
        let first = thread.origins[0]
        return "\(files[first.file].display):\(first.line)"
    }

    /// `thread` read by the importer of its `form`, named as messages name it (`source(of:)`).
    func read(_ thread: DumpThread, _ form: DumpForm) throws(ThreadfoldError) -> ImportResult {
        try Importer.read(bytes: thread.bytes, file: source(of: thread), options: options(form), records: form.recordMembers)
    }

    /// `error`, about the thread's array, at the file, line and element its record came from.
    func locate(_ error: Problem, in thread: DumpThread) -> Problem {
        thread.locate(error) { files[$0].display }
    }
}

extension WorkerContext {
    /// Renders spill partition `p`'s threads that an earlier build cannot serve. Each thread is a
    /// unit of its own in the manifest, so a changed comment renders its thread and nothing else.
    ///
    /// When the last build's partition had the same digest, it held the same threads from the
    /// same lines: they are served from its table (`DumpTable`, with their hashes) without
    /// reading the partition back. Only if one of them cannot be (a file changed behind the
    /// build's back, or the recycled folder holds an older version) is the partition read, for those.
    func renderPartition(_ p: Int, dumps: DumpInputs) -> UnitResult {
        var result = UnitResult()
        // The threads the table could not serve: read from the partition and rendered.
        var pending: Set<UInt64>?
        if let table = reuse.dumps, table.digests.count == dumps.digests.count, table.digests[p] == dumps.digests[p] {
            var unserved: Set<UInt64> = []
            for thread in table.threads[p] {
                guard let file = dumps.fileOfDisplayHash[thread.file],
                    let reused = serve(
                        reuse.action(key: ContentHash.hex(thread.key), hash: thread.hash), hash: thread.hash,
                        display: "\(dumps.files[file].display):\(thread.line)")
                else {
                    unserved.insert(thread.key)
                    continue
                }
                progress.advance()
                result.add(reused)
                result.dumpThreads.append(thread)
            }
            if unserved.isEmpty {
                dumps.spill.discard(p)
                result.partitionsReused = 1
                return result
            }
            pending = unserved
        }
        do {
            let keyOf = { (key: [UInt8], form: DumpForm) in Manifest.keyValue("dump:\(form.rawValue):" + String(decoding: key, as: UTF8.self)) }
            let only = pending.map { pending in { (key: [UInt8], form: DumpForm) in pending.contains(keyOf(key, form)) } }
            try dumps.forEachThread(in: p, only: only) { key, form, thread in
                defer { progress.advance() }
                let keyValue = keyOf(key, form)
                let unitKey = ContentHash.hex(keyValue)
                let hash = thread.hash(displayHashes: dumps.displayHashes)
                result.dumpThreads.append(
                    DumpTable.Thread(
                        key: keyValue, hash: hash,
                        file: dumps.displayHashes[thread.origins[0].file], line: thread.origins[0].line))
                let source = dumps.source(of: thread)
                // A thread the table could not serve is not tried again.
                if pending == nil, let reused = serve(reuse.action(key: unitKey, hash: hash), hash: hash, display: source) {
                    result.add(reused)
                    return
                }
                do throws(ThreadfoldError) {
                    try renderThreads(
                        dumps.read(thread, form), source: source, key: unitKey, hash: hash,
                        sharded: true, into: &result
                    ) { dumps.locate($0, in: thread) }
                } catch {
                    result.errors += Self.errors(error, display: source) { dumps.locate($0, in: thread) }
                }
            }
        } catch {
            result.errors += error.problems
        }
        // Served from the table and read back, the partition's threads are listed in the order
        // they first appear, as a build that read it all lists them.
        if pending != nil, let order = reuse.dumps?.threads[p] {
            let place = Dictionary(order.enumerated().map { ($0.element.key, $0.offset) }, uniquingKeysWith: { first, _ in first })
            result.dumpThreads.sort { place[$0.key, default: Int.max] < place[$1.key, default: Int.max] }
        }
        return result
    }
}

extension UnitResult {
    /// Adds a thread's result to its partition's.
    mutating func add(_ other: UnitResult) {
        units.append(contentsOf: other.units)
        errors += other.errors
        rendered += other.rendered
        reused += other.reused
        otherShards += other.otherShards
        partitionsReused += other.partitionsReused
        filesWritten += other.filesWritten
        filesReused += other.filesReused
        pagesWritten += other.pagesWritten
        pagesReused += other.pagesReused
        comments += other.comments
        dumpThreads += other.dumpThreads
    }
}
