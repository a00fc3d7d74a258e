// `.threadfold-dumps.json`: what a build's dump partitions held, for the next incremental build.

/// What a build's dump partitions held: each one's digest (`DumpPartition.digest`) and its
/// threads in the order they first appear, each as its manifest unit's key, its hash, and the
/// file (its `DumpPartition.fileHash`) and line of its first record. A later build with the same settings
/// and as many partitions, whose partition has the same digest, holds the same threads with
/// the same hashes there: it serves them as it would after reading the partition, without
/// reading it back.
///
/// It is kept beside the manifest in a file of its own, so an incremental build reads the live
/// site's table (the last build's, whose input is the one to compare with) without reading the
/// live site's manifest, which the recycled spare's usually makes unnecessary.
struct DumpTable: Sendable, Equatable {
    static let fileName = ".threadfold-dumps.json"
    /// Changes whenever what its values mean changes: the partition digest, the thread hash
    /// (`DumpThread.hash`; 2: element positions count; 3: lines without their unread members,
    /// with their gaps; 4: the partition digest covers each file's place in the input order; 5:
    /// a file is its form and place, not its name) or the unit key.
    static let format = 5

    struct Thread: Sendable, Equatable {
        var key: UInt64
        var hash: UInt64
        var file: UInt64
        var line: Int
    }

    /// The build settings' hash (`BuildSettings`): a table of other settings is not used.
    var settings: String
    var digests: [UInt64]
    var threads: [[Thread]]

    /// The table's bytes: per partition its digest, and four values a thread (key, hash, file, line).
    func encoded() -> [UInt8] {
        var w = JSONWriter(pretty: false)
        w.object { w in
            w.field("format", Self.format)
            w.field("version", Release.version)
            w.field("settings", settings)
            w.field("digests", strings: digests.map(StableHash.hex))
            w.key("threads")
            w.array { w in
                for threads in threads {
                    w.array { w in
                        for thread in threads {
                            w.string(StableHash.hex(thread.key))
                            w.string(StableHash.hex(thread.hash))
                            w.string(StableHash.hex(thread.file))
                            w.int(Int64(thread.line))
                        }
                    }
                }
            }
        }
        return w.out + [0x0A]
    }

    /// Reads a table back; nil when anything in it is not as a build writes it, or it was
    /// written with other `settings` (the partitions are then read, never trusted).
    init?(bytes: [UInt8], settings: String) {
        guard let r = try? JSONReader(bytes: bytes, file: Self.fileName) else { return nil }
        let d = r.document
        guard d.kind(r.root) == .object, let format = d.member(r.root, "format"), d.int64(format) == Int64(Self.format),
            let version = d.member(r.root, "version"), d.kind(version) == .string, d.string(version) == Release.version,
            let written = d.member(r.root, "settings"), d.kind(written) == .string, d.string(written) == settings,
            let digestsNode = d.member(r.root, "digests"), let threadsNode = d.member(r.root, "threads"),
            let digests = try? r.strings(digestsNode, "$.digests"), d.kind(threadsNode) == .array,
            d.count(threadsNode) == digests.count
        else { return nil }
        self.settings = settings
        self.digests = []
        self.threads = []
        for digest in digests {
            guard let value = UInt64(digest, radix: 16) else { return nil }
            self.digests.append(value)
        }
        var valid = true
        var threads: [[Thread]] = []
        d.forEachElement(threadsNode) { _, list in
            guard valid, d.kind(list) == .array, d.count(list) % 4 == 0 else {
                valid = false
                return
            }
            var values: [Int] = []
            d.forEachElement(list) { _, value in values.append(value) }
            var partition: [Thread] = []
            partition.reserveCapacity(values.count / 4)
            func hex(_ node: Int) -> UInt64? { d.kind(node) == .string ? UInt64(d.string(node), radix: 16) : nil }
            for k in stride(from: 0, to: values.count, by: 4) {
                guard let key = hex(values[k]), let hash = hex(values[k + 1]), let file = hex(values[k + 2]),
                    let line = d.int64(values[k + 3]), (0...(1 << 48)).contains(line)
                else {
                    valid = false
                    return
                }
                partition.append(Thread(key: key, hash: hash, file: file, line: Int(line)))
            }
            threads.append(partition)
        }
        guard valid else { return nil }
        self.threads = threads
    }

    init(settings: String, digests: [UInt64], threads: [[Thread]]) {
        self.settings = settings
        self.digests = digests
        self.threads = threads
    }
}
