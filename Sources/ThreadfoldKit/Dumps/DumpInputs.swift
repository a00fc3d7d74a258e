import Dispatch

/// A dump among a build's inputs: its path, the name messages give it, and its form.
package typealias DumpFile = (path: String, display: String, form: DumpForm)

extension ArchiveUnit {
    /// The unit as a dump file, when it is one (`ArchiveUnit.Source.dump`).
    package var dumpFile: DumpFile? {
        guard case .dump(let path, let form) = source else { return nil }
        return (path, display, form)
    }
}

/// The dumps of one build: their files in input order, the spill their records were partitioned
/// into, and how each is read.
struct DumpInputs: Sendable {
    let files: [DumpFile]
    let spill: Spill
    /// How the threads of each form are imported: the form named, so nothing is guessed per thread.
    let importing: ImportOptions
    /// Each file's `DumpPartition.fileHash`, so a thread's hash covers where its lines are (a
    /// message names them).
    let fileHashes: [UInt64]
    /// The file with each hash.
    let fileOfHash: [UInt64: Int]
    /// Threads in each partition, for progress.
    let threads: [Int]
    /// Each partition's digest (`DumpPartition.Outcome.digests`).
    let digests: [UInt64]

    init(
        files: [DumpFile], spill: Spill, importing: ImportOptions, threads: [Int],
        digests: [UInt64]
    ) {
        self.files = files
        self.spill = spill
        self.importing = importing
        self.threads = threads
        self.digests = digests
        fileHashes = files.enumerated().map { DumpPartition.fileHash(form: $0.element.form, index: $0.offset) }
        fileOfHash = Dictionary(fileHashes.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
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

extension DumpInputs {
    /// Streams `files` once into a spill of whole threads, made by `makeSpill(count, bufferBytes)`
    /// (a build's inside its staging folder, a check's in a temporary folder): about 8 MiB of
    /// input a partition, a compressed dump taken to be eight times its size, and about 16 MiB
    /// of buffers over all partitions (16 KiB each at least: up to 32 MiB for 2,049). Nil dumps when
    /// the spill cannot be made (its error is in the outcome). `keeps` says which threads are
    /// this build's (`DumpPartition.keeps`). `readProgress(read, total)` is called about ten
    /// times a second with the input bytes read.
    static func partition(
        _ files: [DumpFile], importing: ImportOptions, keeps: ((UnsafeBufferPointer<UInt8>) -> Bool)?,
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
            spill = try makeSpill(count, max(16 << 10, min(256 << 10, (16 << 20) / count)))
        } catch {
            return (DumpPartition.Outcome(errors: [Problem(file: error.path, message: error.message)]), nil)
        }
        var partitioner = DumpPartition(files: files, options: importing, keeps: keeps)
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
        var groups = Groups<[UInt8], (key: [UInt8], form: DumpForm, records: [Int32])>()
        for (r, record) in records.enumerated() {
            let key = Array(bytes[record.key])
            let index = groups.slot(key) { (key, files[record.origin.file].form, []) }
            groups[index].records.append(Int32(r))
        }
        let threads = groups.values
        groups = Groups()
        for (key, form, members) in threads {
            if let only, !only(key, form) { continue }
            var thread = DumpThread(records: members.count, lineBytes: members.reduce(0) { $0 + records[Int($1)].line.count })
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

    /// `locate` for a message a build keeps with its thread's unit, which a later build may
    /// report when it reuses the thread: its files named by their place among the dumps
    /// (`placed` names them), as the thread's hash covers them, so the dumps given by other
    /// paths report their own.
    func locateKept(_ error: Problem, in thread: DumpThread) -> Problem {
        thread.locate(error) { Self.placeName($0) }
    }

    /// A dump named by its place among the build's dumps: a NUL, which no path holds, and the place.
    private static func placeName(_ file: Int) -> String { "\u{0}\(file)" }

    /// `message` with the files `locateKept` named by their place named as this build's dumps
    /// are; any other name is left as it is. (A kept message names a place this build has: the
    /// thread's hash covers its files' places.)
    func placed(_ message: Problem) -> Problem {
        func name(_ file: String) -> String {
            guard file.utf8.first == 0 else { return file }
            guard let place = Int(file.dropFirst()), files.indices.contains(place) else { return "dump \(file.dropFirst())" }
            return files[place].display
        }
        var message = message
        message.file = name(message.file)
        if let file = message.related?.file { message.related?.file = name(file) }
        return message
    }
}
