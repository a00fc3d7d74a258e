import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Scratch files for a build that cannot hold its input: numbered partitions appended to in one
/// pass and read back whole, one at a time, by the workers. They live in a hidden folder
/// (`.threadfold-spill`) inside the staging folder, so whatever removes the staging folder (a
/// failed build, SIGINT or SIGTERM, the next build after a SIGKILL) removes them too; a
/// successful build removes them, or (`--incremental`) moves them beside the output, before it
/// publishes.
///
/// A check writes no site, so its spill has a temporary folder of its own (`temporary`), which
/// the same three paths remove: `remove()` or the spill's release, SIGINT and SIGTERM, and the
/// next temporary spill after a SIGKILL.
///
/// An `--incremental` build keeps its spill for the next one (`keep`, beside the output as
/// `.<site>.spill`), and the next continues it: a record appended with a chain digest (the
/// partition's digest after it, which covers it and every record before it) that the kept spill
/// holds at the same place, with the same digest and end, is not written again. A partition's
/// records are written only from the first that differs; at that point, or when writing ends, the
/// kept partition file is renamed into this spill and cut where the agreement ended. So a dump
/// that changed in one comment rewrites about half of one partition, not the whole spill.
///
/// Appends come from one thread; reads may come from many once writing is finished.
package final class Spill: @unchecked Sendable {
    package static let folderName = SiteWriter.scratchNames.current
    /// The name a kept spill takes in the staging folder of the build that continues it.
    package static let previousName = SiteWriter.scratchNames.previous
    /// In a kept spill: the format of its records (the caller's), which a build must share to continue it.
    static let formatName = "format"
    /// In a kept spill: each partition's files' stamps as it was kept (inode, size, modification
    /// and status change times, content hash). A file whose numbers moved (a CI cache restore
    /// copies it anew) is continued only when its bytes hash as recorded; a file changed since,
    /// even with its modification time set back, is not continued.
    static let stampsName = "stamps"
    /// Bytes of a partition file hashed at a time (`contentHash(of:in:)`).
    static let hashBlockBytes = 4 << 20
    /// Bytes of one chain entry: the record's digest and the partition's size after it, little-endian.
    static let chainEntryBytes = 16

    private let parent: Folder
    private let folder: Folder
    private let bufferBytes: Int
    private var buffers: [[UInt8]]
    /// Each partition's chain entries not yet written (`chainEntryBytes` a record).
    private var chainBuffers: [[UInt8]]
    /// Partitions whose records came with chain digests: kept with the spill, never discarded.
    private var chained: [Bool]
    /// Bytes each partition holds: appended, and taken from the kept spill.
    package private(set) var sizes: [Int64]
    private var removed = false
    /// For a temporary spill: the folder made for it (in the temporary folder), removed with it.
    private let own: (parent: Folder, name: String)?
    /// The format of the records (`keep` writes it; a kept spill of another is not continued).
    private let format: String
    /// Whether the spill is kept for the next build: then `discard` leaves chained partitions.
    private let keeps: Bool
    /// The kept spill this one continues, in `parent` as `previousName`.
    private var previous: Previous?
    /// The stamps the continued spill's partitions were kept with: a partition file this build
    /// left as it was keeps its content hash without being read again.
    private var previousStamps: [Int: (records: FileStamp, chain: FileStamp)] = [:]
    /// Partitions taken whole from the continued spill (every record it held agreed) and not
    /// appended to since: their files, renamed but unchanged, keep their content hashes.
    private var untouched: Set<Int> = []

    /// A spill of `count` partitions in `parent` (the staging folder, or a temporary spill's own
    /// folder, `own`); each partition buffers `bufferBytes` before it is written. With
    /// `continuing`, it continues the kept spill found in `parent` under that name, if its records
    /// have this `format`; with `keep`, it is to be kept for the next build (`keep(as:in:)`).
    init(
        in parent: Folder, count: Int, bufferBytes: Int, format: String = "", continuing previousName: String? = nil,
        keep: Bool = false, own: (parent: Folder, name: String)? = nil
    ) throws(ThreadfoldError) {
        self.parent = parent
        self.own = own
        self.format = format
        keeps = keep
        try? parent.removeTree(Self.folderName)
        folder = try parent.folder(Self.folderName, create: true, journaled: false)
        self.bufferBytes = bufferBytes
        buffers = Array(repeating: [], count: count)
        chainBuffers = Array(repeating: [], count: count)
        chained = Array(repeating: false, count: count)
        sizes = Array(repeating: 0, count: count)
        if let previousName, let kept = try? parent.folder(previousName, journaled: false) {
            if kept.isOwnFolder, kept.read(Self.formatName, limit: 4_096, own: true)?.bytes == Array(format.utf8),
                let stamps = kept.read(Self.stampsName, limit: 1 << 24, own: true).flatMap({ Self.stamps(in: $0.bytes) })
            {
                previous = Previous(folder: kept, name: previousName, count: count, stamps: stamps)
                previousStamps = stamps
            } else {
                try? parent.removeTree(previousName)
            }
        }
    }

    /// Names of temporary spills' folders: the prefix, then the process id and a random tag.
    static let temporaryPrefix = "threadfold-spill-"

    /// A spill of `count` partitions in a new folder of its own, `threadfold-spill-<pid>-<tag>`
    /// in `directory` (readable by this user alone), for work that has no staging folder. The
    /// folder goes with the spill: `remove()`, the spill's release, SIGINT or SIGTERM (with the
    /// staging folders). Folders that killed processes left there are removed first.
    package static func temporary(in directory: String, count: Int, bufferBytes: Int) throws(ThreadfoldError) -> Spill {
        let parent = try Folder.open(directory)
        SiteWriter.removeAbandoned(in: parent, prefixes: [temporaryPrefix])
        var name = ""
        while true {
            name = temporaryPrefix + "\(getpid())-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
            if mkdirat(parent.fd, name, 0o700) == 0 { break }
            let code = errno
            if code == EEXIST { continue }
            throw ThreadfoldError.output(
                path: parent.path(name), message: "cannot create a temporary folder: \(SystemError.describe(code)); expected a folder you can write in (TMPDIR names another)", errno: code)
        }
        // A signal removes the folder as it removes staging folders, from before anything is
        // written in it; the folder, held by the spill, is its key.
        let folder: Folder
        do { folder = try parent.folder(name) } catch {
            try? parent.removeTree(name)
            throw error
        }
        SiteWriter.Staging.active.withLock { $0[ObjectIdentifier(folder)] = (parent, name) }
        do {
            return try Spill(in: folder, count: count, bufferBytes: bufferBytes, own: (parent, name))
        } catch {
            try? parent.removeTree(name)
            _ = SiteWriter.Staging.active.withLock { $0.removeValue(forKey: ObjectIdentifier(folder)) }
            throw error
        }
    }

    deinit { if own != nil { remove() } }

    package var count: Int { buffers.count }

    /// Appends the pieces of one record to partition `p`. With `digest` (the partition's chain
    /// digest after this record, covering every byte of it and of the records before it), a
    /// record the continued spill holds at this place is not written again.
    package func append(
        _ p: Int, digest: UInt64? = nil, _ head: [UInt8], _ key: UnsafeBufferPointer<UInt8>, _ line: UnsafeBufferPointer<UInt8>,
        _ tail: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)
    ) throws(ThreadfoldError) {
        let size = Int64(head.count + key.count + line.count + tail.count)
        if let digest, keeps {
            chained[p] = true
            if previous != nil, !previous!.diverged[p] {
                if previous!.agrees(p, digest: digest, end: sizes[p] + size) {
                    sizes[p] += size
                    return
                }
                try take(p)
            }
            withUnsafeBytes(of: (digest.littleEndian, UInt64(sizes[p] + size).littleEndian)) { chainBuffers[p].append(contentsOf: $0) }
        }
        if !untouched.isEmpty { untouched.remove(p) }
        if buffers[p].capacity == 0 { buffers[p].reserveCapacity(bufferBytes) }
        buffers[p].append(contentsOf: head)
        buffers[p].append(contentsOf: key)
        buffers[p].append(contentsOf: line)
        if !tail.isEmpty { buffers[p].append(contentsOf: tail) }
        sizes[p] += size
        if buffers[p].count >= bufferBytes { try flush(p) }
    }

    /// Whether partition `p`'s next record, `size` bytes with chain `digest`, is the one the
    /// continued spill holds at this place: if so it is counted as appended (`append`), and its
    /// bytes are not needed. If not, the partition stops taking records from the continued spill
    /// here, and the record (and every later one of `p`) must be appended with its bytes.
    func skip(_ p: Int, digest: UInt64, size: Int64) throws(ThreadfoldError) -> Bool {
        guard keeps, previous != nil, !previous!.diverged[p] else { return false }
        chained[p] = true
        if previous!.agrees(p, digest: digest, end: sizes[p] + size) {
            sizes[p] += size
            return true
        }
        try take(p)
        return false
    }

    /// Whether this spill is kept for the next build.
    var isKept: Bool { keeps }

    /// The file `name` the continued spill holds beside its partitions (`keepFile`), or nil.
    func keptFile(_ name: String, limit: Int) -> [UInt8]? {
        guard keeps, let previous else { return nil }
        return previous.folder.read(name, limit: limit, own: true)?.bytes
    }

    /// Writes what `body` hands its `write`, piece by piece, as the file `name` beside the
    /// partitions, kept with them for the next build.
    func keepFile(_ name: String, writing body: (_ write: ([UInt8]) throws(ThreadfoldError) -> Void) throws(ThreadfoldError) -> Void) throws(ThreadfoldError) {
        guard keeps else { return }
        _ = try? folder.removeEntry(name)
        try folder.create(name, stamped: false, writing: body)
    }

    /// Writes what every partition still buffers and closes the files; after this the
    /// partitions can be read. What the continued spill held that this one did not take goes.
    package func finishWriting() throws(ThreadfoldError) {
        for p in buffers.indices { try finishWriting(p) }
        if let previous {
            self.previous = nil
            try? parent.removeTree(previous.name)
        }
    }

    /// Writes what partition `p` still buffers (after the records it takes from the continued
    /// spill), so it can be read.
    package func finishWriting(_ p: Int) throws(ThreadfoldError) {
        if previous != nil { try take(p) }
        try flush(p)
        buffers[p] = []
        chainBuffers[p] = []
    }

    /// The whole of partition `p` (empty when nothing was appended to it).
    package func read(_ p: Int) throws(ThreadfoldError) -> [UInt8] {
        guard sizes[p] > 0 else { return [] }
        let name = Self.name(p)
        guard let bytes = folder.read(name, limit: Int(sizes[p]))?.bytes, bytes.count == sizes[p] else {
            throw ThreadfoldError.output(path: folder.path(name), message: "cannot be read back: \(SystemError.last)")
        }
        return bytes
    }

    /// Removes partition `p`'s file once it has been read, so the disk holds less as work goes
    /// on; a spill that is kept keeps its chained partitions.
    package func discard(_ p: Int) {
        guard !(keeps && chained[p]) else { return }
        _ = try? folder.removeEntry(Self.name(p))
        _ = try? folder.removeEntry(Self.chainName(p))
    }

    /// Moves the spill, once written, to `name` in `destination` (beside the output), with the
    /// format of its records, for the next build to continue; whatever stood there goes. Only
    /// its chained partitions are kept.
    func keep(as name: String, in destination: Folder) throws(ThreadfoldError) {
        guard !removed else { return }
        guard keeps else { return remove() }
        var kept: [(p: Int, records: FileStamp, chain: FileStamp)] = []
        for p in chained.indices {
            guard chained[p], let records = folder.entry(Self.name(p)), let chain = folder.entry(Self.chainName(p)) else {
                _ = try? folder.removeEntry(Self.name(p))
                continue
            }
            kept.append((p, records.stamp, chain.stamp))
        }
        // Content hashes: a file left as the continued spill kept it keeps its hash (moved whole
        // into this spill, only its status change time moved: its inode, size and modification
        // time must not); the others
        // (written or cut this build, so still in the page cache) are read a block at a time, on
        // every core.
        let folder = self.folder, previousStamps = self.previousStamps, partitions = kept, untouched = self.untouched
        let hashes = Parallel.map(count: partitions.count, jobs: ProcessInfo.processInfo.activeProcessorCount) { i in
            let (p, records, chain) = partitions[i]
            func hash(_ name: String, _ stamp: FileStamp, _ before: FileStamp?) -> UInt64 {
                if let before, before.hash != 0, before == stamp || (untouched.contains(p) && before.inode == stamp.inode && before.size == stamp.size && before.mtime == stamp.mtime) {
                    return before.hash
                }
                return Spill.contentHash(of: name, in: folder) ?? 0
            }
            return (hash(Spill.name(p), records, previousStamps[p]?.records), hash(Spill.chainName(p), chain, previousStamps[p]?.chain))
        }
        var stamps = ""
        for (i, (p, records, chain)) in kept.enumerated() {
            stamps += "\(p)"
            for (stamp, hash) in [(records, hashes[i].0), (chain, hashes[i].1)] {
                stamps += " \(stamp.inode) \(stamp.size) \(stamp.mtime) \(stamp.ctime) \(hash)"
            }
            stamps += "\n"
        }
        for name in [Self.formatName, Self.stampsName] { _ = try? folder.removeEntry(name) }
        _ = try folder.create(Self.stampsName, Array(stamps.utf8))
        _ = try folder.create(Self.formatName, Array(format.utf8))
        try? destination.removeTree(name)
        guard renameat(parent.fd, Self.folderName, destination.fd, name) == 0 else {
            let code = errno
            throw ThreadfoldError.output(path: destination.path(name), message: "cannot keep the spill for the next build: \(SystemError.describe(code))", errno: code)
        }
        removed = true
    }

    /// Removes the spill folder and everything in it (a temporary spill: its own folder too).
    package func remove() {
        guard !removed else { return }
        removed = true
        guard let own else {
            try? parent.removeTree(Self.folderName)
            return
        }
        try? own.parent.removeTree(own.name)
        _ = SiteWriter.Staging.active.withLock { $0.removeValue(forKey: ObjectIdentifier(parent)) }
    }

    /// Appends what partition `p` buffers to its file, opened for each flush (a dump may have
    /// more partitions than a process may hold files open) and never through a link.
    private func flush(_ p: Int) throws(ThreadfoldError) {
        try folder.append(Self.name(p), buffers[p])
        buffers[p].removeAll(keepingCapacity: true)
        try folder.append(Self.chainName(p), chainBuffers[p])
        chainBuffers[p].removeAll(keepingCapacity: true)
    }

    /// Partition `p` takes the records of the continued spill's that agreed with its own, once:
    /// at its first record that does not, or when its writing ends. The kept file and its chain
    /// are renamed into this spill and cut where the agreement ended; later appends follow them.
    private func take(_ p: Int) throws(ThreadfoldError) {
        guard let previous, !previous.diverged[p] else { return }
        self.previous!.diverged[p] = true
        let matched = previous.matched[p]
        guard matched > 0 else { return }
        if matched == previous.counts[p] { untouched.insert(p) }
        for (name, length) in [(Self.name(p), sizes[p]), (Self.chainName(p), Int64(matched * Self.chainEntryBytes))] {
            guard renameat(previous.folder.fd, name, folder.fd, name) == 0 else {
                let code = errno
                throw ThreadfoldError.output(
                    path: previous.folder.path(name),
                    message: "cannot be taken from the spill the last build kept: \(SystemError.describe(code)); expected it as that build left it (build again without --incremental)", errno: code)
            }
            try folder.withFileForWriting(name, opening: "cannot be opened to continue it") { (fd, size) throws(ThreadfoldError) in
                // Cut where this build stops agreeing, never lengthened; one taken whole is left as it is.
                guard size >= length else {
                    throw ThreadfoldError.output(
                        path: folder.path(name),
                        message:
                            "is shorter than its chain says (\(Printable.count(Int(size), "byte")), not \(length)); expected the spill the last build kept (build again without --incremental)",
                        errno: EIO)
                }
                if size > length, ftruncate(fd, off_t(length)) != 0 {
                    let code = errno
                    throw ThreadfoldError.output(path: folder.path(name), message: "cannot be cut to what this build shares with the last: \(SystemError.describe(code))", errno: code)
                }
            }
        }
    }

    private static func name(_ p: Int) -> String { "p\(p)" }
    private static func chainName(_ p: Int) -> String { "c\(p)" }

    /// A kept spill's `stamps` file read back: per partition, its records' and its chain's
    /// stamps. Nil when it is not as `keep` writes it.
    private static func stamps(in bytes: [UInt8]) -> [Int: (records: FileStamp, chain: FileStamp)]? {
        var stamps: [Int: (records: FileStamp, chain: FileStamp)] = [:]
        for line in bytes.split(separator: 0x0A) {
            let fields = line.split(separator: 0x20).map { UInt64(String(decoding: $0, as: UTF8.self)) }
            guard fields.count == 11, let p = fields[0], p < UInt64(Int32.max), !fields.contains(nil) else { return nil }
            let f = fields.map { $0! }
            func stamp(_ at: Int) -> FileStamp? {
                guard let size = Int64(exactly: f[at + 1]), let mtime = Int64(exactly: f[at + 2]), let ctime = Int64(exactly: f[at + 3]) else { return nil }
                return FileStamp(inode: f[at], size: size, mtime: mtime, ctime: ctime).hashed(f[at + 4])
            }
            guard let records = stamp(1), let chain = stamp(6) else { return nil }
            stamps[Int(p)] = (records, chain)
        }
        return stamps
    }

    /// The content hash of the file `name` in `folder`: its bytes in blocks of `hashBlockBytes`,
    /// each hashed with the hash before it as its seed, so no more than a block is held. Nil
    /// when it cannot be read.
    static func contentHash(of name: String, in folder: Folder) -> UInt64? {
        var hash: UInt64 = 0x7370_696C_6C20_6831
        let read = folder.readBlocks(name, blockBytes: hashBlockBytes) { block in hash = block.withUnsafeBytes { StableHash.wide($0, seed: hash) } }
        return read ? hash : nil
    }

    /// A kept spill this one continues: per partition, how many of its records agreed so far,
    /// and a window of its chain, read as the agreement reaches it.
    private struct Previous {
        let folder: Folder
        let name: String
        /// Records each partition holds; nil until the partition is first asked about.
        var counts: [Int?]
        var matched: [Int]
        /// The partition has taken what agreed (`take`): nothing more is compared.
        var diverged: [Bool]
        var windows: [[UInt8]]
        var windowStarts: [Int]
        /// Chain entries read at a time: about 4 MiB over all partitions, at least 256 each.
        let windowEntries: Int
        /// Each partition's files as they were kept (`stampsName`).
        let stamps: [Int: (records: FileStamp, chain: FileStamp)]

        init(folder: Folder, name: String, count: Int, stamps: [Int: (records: FileStamp, chain: FileStamp)]) {
            self.folder = folder
            self.name = name
            self.stamps = stamps
            counts = Array(repeating: nil, count: count)
            matched = Array(repeating: 0, count: count)
            diverged = Array(repeating: false, count: count)
            windows = Array(repeating: [], count: count)
            windowStarts = Array(repeating: 0, count: count)
            windowEntries = max(256, (4 << 20) / Spill.chainEntryBytes / max(1, count))
        }

        /// Whether partition `p`'s next kept record has this digest and end; if so it is counted.
        mutating func agrees(_ p: Int, digest: UInt64, end: Int64) -> Bool {
            let count = counts[p] ?? load(p)
            let k = matched[p]
            guard k < count else { return false }
            let first = windowStarts[p]
            if k < first || k >= first + windows[p].count / Spill.chainEntryBytes {
                guard let window = read(p, from: k, entries: min(windowEntries, count - k)) else {
                    counts[p] = 0
                    return false
                }
                windows[p] = window
                windowStarts[p] = k
            }
            let at = (k - windowStarts[p]) * Spill.chainEntryBytes
            let (kept, keptEnd) = windows[p].withUnsafeBytes { raw in
                (
                    UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)),
                    Int64(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self)))
                )
            }
            guard kept == digest, keptEnd == end else { return false }
            matched[p] = k + 1
            return true
        }

        /// How many records partition `p` holds: its chain's entries, when both its files are as
        /// they were kept (their stamps, or their content hashes when the numbers moved), each the only link to its data (taking one cuts and
        /// appends to it), and its records end where the chain's last entry says. Else none: a
        /// partition changed, linked or damaged since is not continued.
        private mutating func load(_ p: Int) -> Int {
            var count = 0
            if let kept = stamps[p], let chain = verify(Spill.chainName(p), kept.chain),
                chain.size % Int64(Spill.chainEntryBytes) == 0, chain.size > 0,
                let records = verify(Spill.name(p), kept.records),
                links(Spill.name(p)) == 1, links(Spill.chainName(p)) == 1
            {
                let entries = Int(chain.size) / Spill.chainEntryBytes
                if let last = read(p, from: entries - 1, entries: 1),
                    last.withUnsafeBytes({ Int64(bitPattern: UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))) }) == records.size
                {
                    count = entries
                }
            }
            counts[p] = count
            return count
        }

        /// The stamp of the partition file `name` when it is the running user's own regular file
        /// that `kept` records: the same numbers, or, when they moved (a CI cache restore), the
        /// same size and content hash.
        private func verify(_ name: String, _ kept: FileStamp) -> FileStamp? {
            guard let found = folder.entry(name), found.kind == .file, found.own else { return nil }
            if found.stamp == kept { return found.stamp }
            guard kept.hash != 0, found.stamp.size == kept.size, Spill.contentHash(of: name, in: folder) == kept.hash,
                let again = folder.entry(name), again.stamp == found.stamp
            else { return nil }
            return found.stamp
        }

        private func links(_ name: String) -> Int { folder.linkCount(name) }

        /// `entries` chain entries of partition `p` from entry `first`, or nil when they cannot be read.
        private func read(_ p: Int, from first: Int, entries: Int) -> [UInt8]? {
            let length = entries * Spill.chainEntryBytes
            guard let bytes = folder.read(Spill.chainName(p), count: length, at: first * Spill.chainEntryBytes), bytes.count == length else {
                return nil
            }
            return bytes
        }
    }
}

extension SiteWriter.Staging {
    /// A spill of `count` partitions inside this staging folder, of records in `format`. In an
    /// incremental build it continues the spill the last one kept beside the output (taken into
    /// this folder first, so whatever removes the folder removes it), and is kept in turn
    /// (`keep`).
    package func spill(count: Int, bufferBytes: Int, format: String) throws(ThreadfoldError) -> Spill {
        spilled.store(true, ordering: .releasing)
        // Whatever a recycled folder held at the kept spill's name goes first (its cleaning spares it).
        try? folder.removeTree(Spill.previousName)
        var continuing: String?
        if keepSpare, let kept = parent.entry(writer.keptSpillName) {
            // Another user's (`isOwn`) is discarded unread, never renamed in.
            if kept.kind == .folder, kept.own {
                if renameat(parent.fd, writer.keptSpillName, folder.fd, Spill.previousName) == 0 { continuing = Spill.previousName }
            } else {
                writer.discard(writer.keptSpillName, in: parent, tag: "\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
            }
        }
        return try Spill(in: folder, count: count, bufferBytes: bufferBytes, format: format, continuing: continuing, keep: keepSpare)
    }

    /// Moves `spill`, written and read, out of the staging folder to wait beside the output for
    /// the next incremental build; nothing of it is published. A spill that cannot be moved is
    /// removed: the next build then writes its records again.
    package func keep(_ spill: Spill) {
        do { try spill.keep(as: writer.keptSpillName, in: parent) } catch { spill.remove() }
    }
}
