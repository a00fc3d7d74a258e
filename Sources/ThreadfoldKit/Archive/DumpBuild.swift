// The build's work on dumps: each spill partition's threads served from the last build or read,
// rendered and recorded as units of their own, by the same workers as every other unit.

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
                guard let file = dumps.fileOfHash[thread.file],
                    let reused = serve(
                        reuse.action(key: StableHash.hex(thread.key), hash: thread.hash), hash: thread.hash,
                        claimant: Claimant(
                            source: "\(dumps.files[file].display):\(thread.line)", rank: units.count + p, errorFile: dumps.files[file].display))
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
        do throws(ThreadfoldError) {
            let keyOf = { (key: [UInt8], form: DumpForm) in Manifest.keyValue("dump:\(form.rawValue):" + String(decoding: key, as: UTF8.self)) }
            let only = pending.map { pending in { (key: [UInt8], form: DumpForm) in pending.contains(keyOf(key, form)) } }
            try dumps.forEachThread(in: p, only: only) { key, form, thread in
                defer { progress.advance() }
                let keyValue = keyOf(key, form)
                let unitKey = StableHash.hex(keyValue)
                let hash = thread.hash(fileHashes: dumps.fileHashes)
                result.dumpThreads.append(
                    DumpTable.Thread(
                        key: keyValue, hash: hash,
                        file: dumps.fileHashes[thread.origins[0].file], line: thread.origins[0].line))
                let source = dumps.source(of: thread)
                let claimant = Claimant(source: source, rank: units.count + p, errorFile: dumps.files[thread.origins[0].file].display)
                // A thread the table could not serve is not tried again.
                if pending == nil, let reused = serve(reuse.action(key: unitKey, hash: hash), hash: hash, claimant: claimant) {
                    result.add(reused)
                    return
                }
                do throws(ThreadfoldError) {
                    try renderThreads(
                        dumps.read(thread, form), file: source, claimant: claimant, key: unitKey, hash: hash,
                        sharded: true, into: &result
                    ) { dumps.locateKept($0, in: thread) }
                } catch {
                    result.errors += error.problems(display: source) { dumps.locate($0, in: thread) }
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
