extension DumpPartition {
    /// One run of the partition pass over every file: what it has placed so far and where.
    struct Pass {
        let partition: DumpPartition
        let spill: Spill
        var outcome = Outcome()
        var otherShards: Set<[UInt8]> = []
        /// Each partition's distinct threads (their keys' spread) and its digest.
        var keys: [Set<UInt64>]
        var digests: [UInt64]
        let fileHashes: [UInt64]
        var stories: StoryMap
        var header = [UInt8](repeating: 0, count: DumpPartition.headerBytes)
        /// The last partition holds Hacker News items whose parent comes later in the dump.
        let pending: Int
        /// Input bytes read from the files before the one being read.
        var base: Int64 = 0
        /// The segments of the last build's Reddit dumps, when this build continues its spill
        /// (`DumpSegments`), and the table this one writes for the next, when it keeps its own.
        var previousSegments: DumpSegments?
        var recorder: DumpSegments.Recorder?

        init(_ partition: DumpPartition, spill: Spill) {
            self.partition = partition
            self.spill = spill
            keys = [Set<UInt64>](repeating: [], count: spill.count - 1)
            digests = [UInt64](repeating: 0, count: spill.count - 1)
            fileHashes = partition.files.enumerated().map {
                DumpPartition.fileHash(form: $0.element.form, index: $0.offset)
            }
            stories = StoryMap(limit: partition.storyLimit)
            pending = spill.count - 1
            // A shard's segments would leave out the other shards' records.
            if spill.isKept, partition.keeps == nil, partition.files.contains(where: { $0.form == .reddit }) {
                recorder = DumpSegments.Recorder()
                previousSegments = spill.keptFile(DumpSegments.fileName, limit: Int(Int32.max)).flatMap(DumpSegments.init(bytes:))
            }
        }

        /// Whether enough errors were found to stop.
        var isFull: Bool { outcome.errors.count >= ThreadDecoder.errorLimit }

        /// The outcome, with the counts of what was placed.
        func finished() -> Outcome {
            var outcome = outcome
            outcome.otherShards = otherShards.count
            outcome.threads = keys.map(\.count)
            outcome.digests = digests
            return outcome
        }

        func mapFull(_ file: String, line: Int?) -> Problem {
            Problem(
                file: file, line: line,
                message: "more Hacker News items than the story map holds (\(stories.limit) stories with replies, or as many items before their parent); expected a smaller dump")
        }

        /// A line whose thread is known: into that thread's partition (or counted for another shard).
        mutating func append(
            _ key: UnsafeBufferPointer<UInt8>, _ line: UnsafeBufferPointer<UInt8>, gaps: UnsafeRawBufferPointer, hash: UInt64,
            _ origin: DumpOrigin
        ) throws(ThreadfoldError) {
            if let keeps = partition.keeps, !keeps(key) {
                otherShards.insert(Array(key))
                return
            }
            DumpPartition.header(&header, line: line.count, key: key.count, gaps: gaps.count / DumpPartition.gapBytes, origin)
            let spread = StableHash.spread(key)
            let p = Int(spread % UInt64(spill.count - 1))
            keys[p].insert(spread)
            digests[p] = DumpPartition.digest(digests[p], line: hash, key: spread, file: fileHashes[origin.file], origin: origin)
            try spill.append(p, digest: digests[p], header, key, line, gaps)
            recorder?.add(
                DumpSegments.Record(
                    spread: spread, hash: hash, line: origin.line, position: origin.position, size: header.count + key.count + line.count + gaps.count))
        }

        /// A line whose key is read: into its thread's partition, or, for a Hacker News item whose
        /// parent comes later in the dump, kept aside until every item is known.
        mutating func place(
            _ key: DumpForm.LineKey, keys: UnsafeBufferPointer<UInt8>, _ line: UnsafeBufferPointer<UInt8>,
            gaps: UnsafeRawBufferPointer, hash: UInt64, _ origin: DumpOrigin
        ) throws(ThreadfoldError) {
            switch key {
            case .thread(let range):
                try append(UnsafeBufferPointer(rebasing: keys[range]), line, gaps: gaps, hash: hash, origin)
            case .item(let id, let parent):
                if let story = stories.story(of: id, parent: parent) {
                    try DumpPartition.withStoryKey(story) { (key) throws(ThreadfoldError) in try append(key, line, gaps: gaps, hash: hash, origin) }
                    return
                }
                stories.defer(id: id, parent: parent!)
                DumpPartition.header(&header, line: line.count, key: 8, gaps: gaps.count / DumpPartition.gapBytes, origin)
                try withUnsafeBytes(of: UInt64(bitPattern: id).littleEndian) { (id) throws(ThreadfoldError) in
                    try spill.append(pending, header, id.assumingMemoryBound(to: UInt8.self), line, gaps)
                }
            }
        }

        /// Items whose parent came after them, placed now that their stories are known.
        mutating func placeDeferred() throws(ThreadfoldError) {
            try spill.finishWriting(pending)
            let bytes = try spill.read(pending)
            spill.discard(pending)
            for record in DumpPartition.records(bytes) {
                let id = bytes.withUnsafeBytes { Int64(bitPattern: UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: record.key.lowerBound, as: UInt64.self))) }
                guard stories.hasRoomToResolve else {
                    outcome.errors.append(mapFull(partition.files[record.origin.file].display, line: record.origin.line))
                    break
                }
                let story = stories.resolve(id)
                let line = Array(bytes[record.line])
                let gaps = Array(bytes[record.gaps])
                try line.withUnsafeBufferPointer { (raw: UnsafeBufferPointer<UInt8>) throws(ThreadfoldError) in
                    try gaps.withUnsafeBufferPointer { (gaps: UnsafeBufferPointer<UInt8>) throws(ThreadfoldError) in
                        try DumpPartition.withStoryKey(story) { (key) throws(ThreadfoldError) in
                            try append(
                                key, raw, gaps: UnsafeRawBufferPointer(gaps),
                                hash: DumpPartition.lineHash(UnsafeRawBufferPointer(raw), gaps: UnsafeRawBufferPointer(gaps)), record.origin)
                        }
                    }
                }
            }
        }
    }

    /// One file being read: the batch its lines fill, and the batches whose keys other threads read.
    struct FileReading {
        let index: Int
        let file: DumpFile
        var batch = Batch()
        /// With more than one job, a batch's keys are read on other threads while this one
        /// places the batches before it and reads the next: `inFlight` batches are in flight, so
        /// placing one overlaps reading the others' keys.
        var readings: [KeyReading] = []
        /// Placed batches' buffers, emptied for the next batches to fill.
        var free: [Batch] = []
        /// A batch stopped the reading (errors enough, or the spill failed): nothing more is placed.
        var stopped = false
        var siteError: ThreadfoldError?
        var lines = 0
        var skipped = 0
    }
}

extension DumpPartition.Pass {
    typealias FileReading = DumpPartition.FileReading

    /// Streams file `index` into the spill, a batch at a time. `read(bytes)` reports input bytes
    /// read so far, over all files.
    mutating func read(file index: Int, read: (Int64) -> Void) throws(ThreadfoldError) {
        var reading = FileReading(index: index, file: partition.files[index])
        let base = self.base
        var fileBytes: Int64 = 0
        defer { self.base += fileBytes }
        var streamError: ThreadfoldError?
        let stream = LineStream(path: reading.file.path, display: reading.file.display)
        do throws(ThreadfoldError) {
            if recorder != nil, reading.file.form == .reddit {
                try readSegments(stream, &reading) {
                    fileBytes = $0
                    read(base + $0)
                }
            } else {
                try stream.forEachLine(read: {
                    fileBytes = $0
                    read(base + $0)
                }) { (line) throws(ThreadfoldError) -> Bool in take(line, &reading) }
            }
        } catch {
            streamError = error
        }
        // The lines read before the end (or before a damaged stream) are placed first, so
        // their messages come before the stream's.
        while !reading.stopped, !reading.readings.isEmpty { _ = placeOldest(&reading) }
        if !reading.stopped, !reading.batch.lines.isEmpty, reading.siteError == nil, !isFull {
            _ = submit(&reading) && placeOldest(&reading)
        }
        // A stop leaves the batch after it with its key threads: they finish before the pass does.
        for keyReading in reading.readings { _ = keyReading.keys() }
        reading.readings.removeAll()
        recorder?.finishFile(fileHashes[index])
        if let streamError { outcome.errors += streamError.problems }
        if let siteError = reading.siteError { throw siteError }
        outcome.lines += reading.lines
        let options = partition.options
        if options.lenient, reading.lines > 0, Double(reading.skipped) > options.maxSkipped * Double(reading.lines) {
            outcome.errors.append(
                Problem(
                    file: reading.file.display,
                    message:
                        "\(reading.skipped) of its \(Printable.count(reading.lines, "line")) could not be read as \(reading.file.form.described) (skipped), more than \(Int(options.maxSkipped * 100))%; expected a dump of that form (is this the right file, or the right form?)"
                ))
        }
    }

    /// One line of the file into the batch; a full batch is handed on. False to stop reading.
    mutating func take(_ line: LineStream.Line, _ reading: inout FileReading) -> Bool {
        reading.lines += 1
        reading.batch.append(line)
        guard reading.batch.lines.count >= DumpPartition.batchLines || reading.batch.bytes.count >= DumpPartition.batchBytes
        else { return true }
        return submit(&reading) && (reading.readings.count < DumpPartition.inFlight || placeOldest(&reading))
    }

    /// Places every line read so far, in order; false to stop reading.
    mutating func drain(_ reading: inout FileReading) -> Bool {
        while !reading.stopped, !reading.readings.isEmpty { _ = placeOldest(&reading) }
        if !reading.stopped, !reading.batch.lines.isEmpty { _ = submit(&reading) && placeOldest(&reading) }
        return !reading.stopped
    }

    /// Places the lines of the oldest batch in flight, in order; false to stop reading.
    private mutating func placeOldest(_ reading: inout FileReading) -> Bool {
        guard !reading.stopped else { return false }
        guard !reading.readings.isEmpty else { return true }
        let work = reading.readings.removeFirst()
        defer { reading.free.append(work.lines) }
        // The keys first: until they are read, the reading thread is changing the lines.
        let keys = work.keys()
        reading.stopped = !placeBatch(work.lines, keys, &reading)
        return !reading.stopped
    }

    /// Hands the batch to other threads, or reads its keys here with one job.
    private mutating func submit(_ reading: inout FileReading) -> Bool {
        var lines = reading.batch
        if var reused = reading.free.popLast() {
            reused.empty()
            reading.batch = reused
        } else {
            reading.batch = DumpPartition.Batch()
        }
        let (form, display, mapping, jobs) = (reading.file.form, reading.file.display, partition.options.mapping, partition.jobs)
        if jobs > 1 {
            // Handed over, not shared: the reading thread changes the lines in place.
            reading.readings.append(DumpPartition.KeyReading(lines: consume lines, form: form, display: display, mapping: mapping, jobs: jobs))
            return true
        }
        let keys = DumpPartition.keys(of: &lines, form: form, display: display, mapping: mapping, jobs: 1)
        reading.stopped = !placeBatch(lines, keys, &reading)
        return !reading.stopped
    }

    private mutating func placeBatch(_ batch: DumpPartition.Batch, _ keys: DumpPartition.KeyedLines, _ reading: inout FileReading) -> Bool {
        batch.bytes.withUnsafeBufferPointer { all in
            keys.spilledGaps.withUnsafeBytes { gaps in
                keys.keys.withUnsafeBufferPointer { keyBytes in placeLines(batch.lines, all, keys, keyBytes, gaps, &reading) }
            }
        }
    }

    /// A batch's lines, each into its partition, or its errors kept (as warnings with `lenient`);
    /// false to stop reading.
    private mutating func placeLines(
        _ lines: [DumpPartition.Batch.Line], _ all: UnsafeBufferPointer<UInt8>, _ keys: DumpPartition.KeyedLines,
        _ keyBytes: UnsafeBufferPointer<UInt8>, _ gaps: UnsafeRawBufferPointer, _ reading: inout FileReading
    ) -> Bool {
        for (entry, keyed) in zip(lines, keys.lines) {
            let origin = DumpOrigin(file: reading.index, line: entry.number, position: entry.position)
            switch keyed.key {
            case .failed(let failure):
                recorder?.unreplayable.append(entry.number)
                let error = keys.errors[failure]
                if partition.options.lenient {
                    reading.skipped += 1
                    for var problem in error.problems {
                        problem.severity = .warning
                        problem.message += "; the line was skipped"
                        problem.kind = "skippedLine"
                        problem.hint = .skipped
                        outcome.skipped.append(problem)
                    }
                    continue
                }
                outcome.errors += error.problems
                if isFull { return false }
            case .read(let key):
                if case .item = key { recorder?.unreplayable.append(entry.number) }
                if case .item = key, !stories.hasRoom {
                    outcome.errors.append(mapFull(reading.file.display, line: entry.number))
                    return false
                }
                do throws(ThreadfoldError) {
                    try place(
                        key, keys: keyBytes, UnsafeBufferPointer(rebasing: all[entry.start..<(entry.start + keyed.length)]),
                        gaps: UnsafeRawBufferPointer(
                            rebasing: gaps[(Int(keyed.gapStart) * DumpPartition.gapBytes)..<(Int(keyed.gapEnd) * DumpPartition.gapBytes)]),
                        hash: keyed.hash, origin)
                } catch {
                    reading.siteError = error
                    return false
                }
            }
        }
        return true
    }
}
