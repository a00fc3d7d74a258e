/// The units of the manifest a build is writing, held compact until the manifest is written:
/// every thread's summary packed in one buffer (`PackedSummaries`), every stamp and warning in
/// one array each, and a small record per unit. As `Manifest.Unit` values in a dictionary, a
/// build of 100,000 threads kept a dozen heap strings and arrays per thread besides its
/// summary: its key and hash as hex, each file's path twice (the unit's list and the staging
/// folder's record), and the arrays holding them.
///
/// A unit's files are kept only when they do not follow from its summaries
/// (`Manifest.files(of:)`), each file possibly followed by its compressed siblings; otherwise
/// they are rebuilt when the unit is read. Keys and content hashes are the 16 hex digits
/// `StableHash.hex` makes, kept as their values.
struct ManifestUnits: Sendable {
    private struct Record: Sendable {
        var key: UInt64
        var hash: UInt64
        var comments: Int
        /// Ends of the unit's threads, stamps and warnings in their arrays (starts are the
        /// previous record's ends).
        var threads: Int
        var stamps: Int
        var warnings: Int
        /// Where its files are: `derived` (from the summaries), `siblings` (the same, each
        /// followed by the siblings its mask in `masks` names), or a list in `lists`.
        var files: Files
        var filesAt: Int32 = 0
        /// Its JSON as read (`Manifest.Unit.encoded`), in `encoded`; -1 for none.
        var encodedAt: Int32 = -1
    }

    private enum Files: UInt8, Sendable { case derived, siblings, listed }

    private var records: [Record] = []
    /// Every unit's threads, unit after unit.
    private(set) var summaries = PackedSummaries()
    private var stamps: [FileStamp] = []
    /// Every unit's warnings, unit after unit.
    private(set) var warnings: [Problem] = []
    /// Per derived file of a `siblings` unit, one bit per `Precompression.Encoding` present.
    private var masks: [UInt8] = []
    private var lists: [[String]] = []
    private var encoded: [ArraySlice<UInt8>] = []

    var count: Int { records.count }

    /// Adds a unit. `key` and `unit.hash` must be what `StableHash.hex` writes.
    mutating func append(key: String, _ unit: Manifest.Unit) {
        guard let keyValue = Self.value(key), let hashValue = Self.value(unit.hash) else {
            preconditionFailure("a manifest unit's key and hash are StableHash.hex values")
        }
        for summary in unit.threads { summaries.append(summary) }
        stamps += unit.stamps
        warnings += unit.warnings
        var record = Record(
            key: keyValue, hash: hashValue, comments: unit.comments, threads: summaries.count, stamps: stamps.count,
            warnings: warnings.count, files: .derived)
        if let json = unit.encoded {
            record.encodedAt = Int32(encoded.count)
            encoded.append(json)
        }
        let derived = Manifest.files(of: unit.threads)
        if unit.files != derived {
            if let siblings = Self.siblingMasks(unit.files, derived) {
                record.files = .siblings
                record.filesAt = Int32(masks.count)
                masks += siblings
            } else {
                record.files = .listed
                record.filesAt = Int32(lists.count)
                lists.append(unit.files)
            }
        }
        records.append(record)
    }

    mutating func append(contentsOf other: ManifestUnits) {
        let base = (
            threads: summaries.count, stamps: stamps.count, warnings: warnings.count, masks: Int32(masks.count),
            lists: Int32(lists.count), encoded: Int32(encoded.count)
        )
        summaries.append(contentsOf: other.summaries)
        stamps += other.stamps
        warnings += other.warnings
        masks += other.masks
        lists += other.lists
        for var record in other.records {
            record.threads += base.threads
            record.stamps += base.stamps
            record.warnings += base.warnings
            switch record.files {
            case .derived: break
            case .siblings: record.filesAt += base.masks
            case .listed: record.filesAt += base.lists
            }
            if record.encodedAt >= 0 { record.encodedAt += base.encoded }
            records.append(record)
        }
        encoded += other.encoded
    }

    /// Unit `i`, unpacked.
    subscript(i: Int) -> (key: String, unit: Manifest.Unit) {
        let record = records[i]
        let previous = i > 0 ? records[i - 1] : nil
        let threads = Array(summaries[(previous?.threads ?? 0)..<record.threads])
        var files = Manifest.files(of: threads)
        switch record.files {
        case .derived: break
        case .siblings:
            let mask = masks[Int(record.filesAt)...]
            files = zip(files, mask).flatMap { file, bits in
                [file]
                    + Precompression.Encoding.allCases.enumerated().compactMap { e, encoding in
                        bits & (1 << e) != 0 ? file + encoding.suffix : nil
                    }
            }
        case .listed: files = lists[Int(record.filesAt)]
        }
        var unit = Manifest.Unit(
            hash: StableHash.hex(record.hash), threads: threads, files: files,
            warnings: Array(warnings[(previous?.warnings ?? 0)..<record.warnings]), comments: record.comments,
            stamps: Array(stamps[(previous?.stamps ?? 0)..<record.stamps]))
        if record.encodedAt >= 0 { unit.encoded = encoded[Int(record.encodedAt)] }
        return (StableHash.hex(record.key), unit)
    }

    /// Unit `i` as a manifest writes it: its JSON as read when it has it, without unpacking it.
    func entry(_ i: Int) -> (key: String, entry: Manifest.Entry) {
        let at = records[i].encodedAt
        guard at < 0 else { return (StableHash.hex(records[i].key), .encoded(encoded[Int(at)])) }
        let (key, unit) = self[i]
        return (key, .unit(unit))
    }

    /// The units of `tables` in the order of their keys, each as a manifest writes it
    /// (`entry(_:)`), unpacked one at a time (the order a manifest lists them in). Of units with
    /// one key, the last added stands, as in a dictionary.
    static func entriesByKey(_ tables: [ManifestUnits]) -> ByKey { ByKey(tables: tables, order: keyOrder(tables)) }

    /// The units of some tables in key order (`entriesByKey`), each unpacked when asked for: on
    /// any thread, since the tables are only read.
    struct ByKey: RandomAccessCollection, Sendable {
        fileprivate let tables: [ManifestUnits]
        fileprivate let order: [(table: Int, unit: Int)]
        var startIndex: Int { 0 }
        var endIndex: Int { order.count }
        subscript(i: Int) -> (key: String, entry: Manifest.Entry) { tables[order[i].table].entry(order[i].unit) }
    }

    /// Where each key's last unit is, table and place, in key order.
    private static func keyOrder(_ tables: [ManifestUnits]) -> [(table: Int, unit: Int)] {
        var all: [(key: UInt64, table: Int32, unit: Int32)] = []
        all.reserveCapacity(tables.reduce(0) { $0 + $1.count })
        for (t, table) in tables.enumerated() {
            for (u, record) in table.records.enumerated() { all.append((record.key, Int32(t), Int32(u))) }
        }
        all.sort { ($0.key, $0.table, $0.unit) < ($1.key, $1.table, $1.unit) }
        return all.indices.filter { $0 + 1 == all.count || all[$0 + 1].key != all[$0].key }.map { (Int(all[$0].table), Int(all[$0].unit)) }
    }

    /// The value of 16 lower-case hex digits.
    private static func value(_ hex: String) -> UInt64? {
        guard hex.utf8.count == 16, hex.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else { return nil }
        return UInt64(hex, radix: 16)
    }

    /// When `files` is `derived` with each file followed by some of its compressed siblings (in
    /// `Precompression.Encoding` order), one bit mask per derived file saying which.
    private static func siblingMasks(_ files: [String], _ derived: [String]) -> [UInt8]? {
        var masks: [UInt8] = []
        masks.reserveCapacity(derived.count)
        var at = 0
        for file in derived {
            guard at < files.count, files[at] == file else { return nil }
            at += 1
            var mask: UInt8 = 0
            for (e, encoding) in Precompression.Encoding.allCases.enumerated() where at < files.count && files[at] == file + encoding.suffix {
                mask |= 1 << e
                at += 1
            }
            masks.append(mask)
        }
        return at == files.count ? masks : nil
    }
}
