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

    init() {}

    /// Room for `records` records whose lines take `lineBytes` bytes: the array whole, with its
    /// brackets and the comma and line break between records, so it is never copied as it grows.
    init(records: Int, lineBytes: Int) {
        bytes.reserveCapacity(lineBytes + 2 * records + 4)
        origins.reserveCapacity(records)
        starts.reserveCapacity(records)
        gapEnds.reserveCapacity(records)
    }

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

    /// The hash of the thread's bytes and of where they stand (their files' forms and places
    /// among the dumps, `fileHashes`, their lines and element positions), so a thread whose
    /// messages would name other lines or elements is rendered again.
    func hash(fileHashes: [UInt64]) -> UInt64 {
        var places: [UInt64] = []
        places.reserveCapacity(origins.count * 3)
        for origin in origins { places += [fileHashes[origin.file], UInt64(origin.line), UInt64(origin.position)] }
        // The gaps too, and which record holds each: the same bytes from lines with other members
        // left off have other columns.
        var seed = places.withUnsafeBytes { StableHash.content($0) }
        seed = gapEnds.withUnsafeBytes { StableHash.content($0, seed: seed) }
        seed = gaps.withUnsafeBytes { StableHash.content($0, seed: seed) }
        return StableHash.content(bytes, seed: seed)
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
