/// The dumps of one build: their files in input order, the spill their records were partitioned
/// into, and how each is read.
struct DumpInputs: Sendable {
    let files: [(path: String, display: String, form: DumpForm)]
    let spill: Spill
    /// How the threads of each form are imported: the form named, so nothing is guessed per thread.
    let importing: ImportOptions
    /// Each file's name hashed, so a thread's hash covers where its lines are (a message names them).
    let displayHashes: [UInt64]
    /// Threads in each partition, for progress.
    let threads: [Int]

    init(files: [(path: String, display: String, form: DumpForm)], spill: Spill, importing: ImportOptions, threads: [Int]) {
        self.files = files
        self.spill = spill
        self.importing = importing
        self.threads = threads
        displayHashes = files.map { ContentHash.hash(Array($0.display.utf8)) }
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
/// on the first line, record k on line k + 2, so columns and element positions carry over, and
/// `locate` puts every message back on its own file's line.
struct DumpThread {
    var bytes: [UInt8] = [UInt8(ascii: "["), 0x0A]
    var origins: [DumpOrigin] = []

    mutating func append(_ line: ArraySlice<UInt8>, _ origin: DumpOrigin) {
        if !origins.isEmpty { bytes += [UInt8(ascii: ","), 0x0A] }
        bytes += line
        origins.append(origin)
    }

    mutating func close() { bytes += [0x0A, UInt8(ascii: "]")] }

    /// The hash of the thread's bytes and of where they stand (file names and lines), so a
    /// thread whose messages would name other lines is rendered again.
    func hash(displayHashes: [UInt64]) -> UInt64 {
        var places: [UInt64] = []
        places.reserveCapacity(origins.count * 2)
        for origin in origins { places += [displayHashes[origin.file], UInt64(origin.line)] }
        let seed = places.withUnsafeBytes { ContentHash.hash($0) }
        return ContentHash.hash(bytes, seed: seed)
    }

    /// `error` (about this thread's array) at the file, line and element its record came from.
    func locate(_ error: InputError, displays: (Int) -> String) -> InputError {
        var error = error
        let index = (error.line ?? 0) - 2
        let origin = origins.indices.contains(index) ? origins[index] : origins[0]
        error.file = displays(origin.file)
        if error.line != nil { error.line = origin.line }
        if let path = error.path, path.hasPrefix("$["), let close = path.firstIndex(of: "]") {
            error.path = "$[\(origin.position)]" + path[path.index(after: close)...]
        }
        return error
    }
}

extension WorkerContext {
    /// Reads spill partition `p`, gathers its records into threads (in the order they first
    /// appear), and renders each thread that an earlier build cannot serve. Each thread is a unit
    /// of its own in the manifest, so a changed comment renders its thread and nothing else.
    func renderPartition(_ p: Int, dumps: DumpInputs) -> UnitResult {
        var result = UnitResult()
        let bytes: [UInt8]
        do {
            bytes = try dumps.spill.read(p)
        } catch {
            result.errors.append(InputError(file: error.path, message: error.message))
            return result
        }
        dumps.spill.discard(p)
        // Records by thread; each thread's bytes are gathered only when its turn comes, so memory
        // holds the partition and one thread, not a second copy of the partition.
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
                threads.append((key, dumps.files[record.origin.file].form, []))
            }
            threads[index].records.append(Int32(r))
        }
        groups = [:]
        let displays = { (file: Int) in dumps.files[file].display }
        for (key, form, members) in threads {
            defer { progress.advance() }
            var thread = DumpThread()
            for r in members { thread.append(bytes[records[Int(r)].line], records[Int(r)].origin) }
            thread.close()
            let hash = thread.hash(displayHashes: dumps.displayHashes)
            let unitKey = Manifest.key("dump:\(form.rawValue):" + String(decoding: key, as: UTF8.self))
            let first = thread.origins[0]
            let source = "\(dumps.files[first.file].display):\(first.line)"
            switch reuse.action(key: unitKey, hash: hash) {
            case .keep(let old, _):
                var reused = reused(old, key: unitKey, hash: hash, display: source, linkFiles: false)!
                if reused.errors.isEmpty {
                    reused.filesReused = old.files.count
                    reused.pagesReused = old.files.filter { $0.hasSuffix(".html") }.count
                }
                result.add(reused)
                continue
            case .link(let old, _):
                if let reused = reused(old, key: unitKey, hash: hash, display: source, linkFiles: true) {
                    result.add(reused)
                    continue
                }
            case .render:
                break
            }
            do {
                try renderThreads(thread.bytes, file: source, source: source, key: unitKey, hash: hash,
                                  options: dumps.options(form), sharded: true, into: &result) { thread.locate($0, displays: displays) }
            } catch {
                result.errors += Self.errors(error, display: source) { thread.locate($0, displays: displays) }
            }
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
        filesWritten += other.filesWritten
        filesReused += other.filesReused
        pagesWritten += other.pagesWritten
        pagesReused += other.pagesReused
        comments += other.comments
    }
}
