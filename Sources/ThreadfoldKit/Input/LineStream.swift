#if canImport(Glibc)
    import Glibc
#endif

/// The lines of one input file, read as a stream and never held whole: plain JSON Lines, or
/// zstd or gzip (recognised by their magic bytes) decompressed as they are read. This is how
/// dumps of any size are read: memory holds one chunk and at most one line that spans chunks.
///
/// Each non-blank line is handed over with its 1-based line number, the byte offset where it
/// starts (in the decompressed stream) and its position among the non-blank lines (its JSON
/// path is `$[position]`, as when the file is read whole). A line longer than `maxLineBytes` is
/// an error naming it.
package struct LineStream: Sendable {
    package struct Line {
        package var bytes: UnsafeBufferPointer<UInt8>
        package var number: Int
        package var offset: Int64
        package var position: Int
    }

    package let path: String
    package let display: String
    package var maxLineBytes = InputLimits.maxLineBytes
    /// Bytes read from the file at a time.
    package var chunkBytes = 1 << 20

    /// The file already open, when a caller that opened it to classify it reads its lines.
    let file: OpenFile?

    package init(path: String, display: String) {
        self.path = path
        self.display = display
        file = nil
    }

    /// Reads `file`, already open (and a regular file), from its start.
    init(file: OpenFile, path: String, display: String) {
        self.path = path
        self.display = display
        self.file = file
    }

    /// The file's size on disk and its compression, or an error saying why it cannot be read.
    package func probe() throws(ThreadfoldError) -> (size: Int64, compression: Compression?) {
        let file = try openRegular()
        return (Int64(file.size), InputFile.compression(file.fd))
    }

    /// Calls `body` with every non-blank line, in order; `read(n)` after each chunk with the
    /// bytes read from the file so far (compressed bytes for a compressed file). `body` returns
    /// false to stop early.
    package func forEachLine(
        read: (Int64) -> Void = { _ in },
        _ body: (Line) throws(ThreadfoldError) -> Bool
    ) throws(ThreadfoldError) {
        try forEachLine(read: read, progress: { (_, _) throws(ThreadfoldError) in }, body)
    }

    /// `forEachLine`, calling `progress` after each piece of the stream with the line number
    /// reached and the bytes split so far (decompressed); it may throw to stop.
    private func forEachLine(
        read: (Int64) -> Void = { _ in }, progress: (Int, Int64) throws(ThreadfoldError) -> Void,
        _ body: (Line) throws(ThreadfoldError) -> Bool
    ) throws(ThreadfoldError) {
        var splitter = Splitter(display: display, maxLineBytes: maxLineBytes)
        var stopped = false
        do throws(ThreadfoldError) {
            // A stop (the body's, or `progress` throwing) ends the stream as it is: no last line.
            try forEachPart(read: read) { (part) throws(ThreadfoldError) -> Bool in
                do throws(ThreadfoldError) {
                    guard try splitter.feed(part, body) else {
                        stopped = true
                        return false
                    }
                    try progress(splitter.number, splitter.offset)
                } catch {
                    stopped = true
                    throw error
                }
                return true
            }
            if stopped { return }
            try splitter.finish(body)
            try progress(splitter.number, splitter.offset)
        } catch {
            if Splitter.isStop(error) { return }
            throw error
        }
    }

    /// Calls `body` with the file's bytes (decompressed) in the pieces they come in, in order;
    /// `read(n)` after each chunk with the bytes read from the file so far. `body` returns false
    /// to stop early. A caller that splits the pieces itself (`Splitter`) reads lines as
    /// `forEachLine` does.
    func forEachPart(
        read: (Int64) -> Void = { _ in }, chunk: ([UInt8]) -> Void = { _ in },
        _ body: (UnsafeRawBufferPointer) throws(ThreadfoldError) -> Bool
    ) throws(ThreadfoldError) {
        let file = try openRegular()
        let fd = file.fd
        var consumed: Int64 = 0
        let chunkBytes = self.chunkBytes
        let display = self.display
        let take = chunk
        func nextChunk() throws(ThreadfoldError) -> [UInt8]? {
            guard let chunk = FileIO.read(fd, count: chunkBytes) else { throw ThreadfoldError.input(InputFile.cannotRead(display, errno)) }
            guard !chunk.isEmpty else { return nil }
            consumed += Int64(chunk.count)
            read(consumed)
            take(chunk)
            return chunk
        }
        do throws(ThreadfoldError) {
            if let compression = InputFile.compression(fd) {
                try compression.stream(
                    display: display,
                    next: { () throws(ThreadfoldError) -> ArraySlice<UInt8>? in
                        try nextChunk().map { $0[...] }
                    },
                    write: { (part: UnsafeRawBufferPointer) throws(ThreadfoldError) in
                        if try !body(part) { throw Splitter.stop }
                    })
            } else {
                while let chunk = try nextChunk() {
                    var failure: ThreadfoldError?
                    let more = chunk.withUnsafeBytes { (part: UnsafeRawBufferPointer) -> Bool in
                        do throws(ThreadfoldError) { return try body(part) } catch {
                            failure = error
                            return false
                        }
                    }
                    if let failure { throw failure }
                    if !more { return }
                }
            }
        } catch {
            if Splitter.isStop(error) { return }
            throw error
        }
    }

    /// The file's size and the hash of its bytes as they are on disk (compressed or not), each
    /// chunk read hashed with the hash before it as its seed (`chained`), as `forEachPart`'s
    /// `chunk` sees them.
    func contentHash() throws(ThreadfoldError) -> (size: Int64, hash: UInt64) {
        let file = try openRegular()
        var found = (size: Int64(0), hash: Self.hashSeed)
        while true {
            guard let chunk = FileIO.read(file.fd, count: chunkBytes) else { throw ThreadfoldError.input(InputFile.cannotRead(display, errno)) }
            guard !chunk.isEmpty else { return found }
            Self.chained(&found, chunk)
        }
    }

    static let hashSeed: UInt64 = 0x6C69_6E65_7368_6173

    /// `hash` (of the file's bytes so far) and its size, with one more chunk.
    static func chained(_ hash: inout (size: Int64, hash: UInt64), _ chunk: [UInt8]) {
        hash.size += Int64(chunk.count)
        hash.hash = chunk.withUnsafeBytes { StableHash.wide($0, seed: hash.hash) }
    }

    /// What a file starts with, found while streaming: its first non-blank line, or, when it
    /// holds none, how many lines and decompressed bytes it held (`cut` when more than
    /// `InputLimits.maxDecompressedBytes` of them stopped the stream).
    package enum Leading: Equatable {
        case line([UInt8])
        case blank(lines: Int, bytes: Int64, cut: Bool)
    }

    /// The file's first non-blank line, read as `forEachLine` reads, holding one chunk and never
    /// the blank lines before it. Streaming stops once more than `InputLimits.maxDecompressedBytes`
    /// of blank lines came before any other: so many decide nothing, and a tiny compressed file
    /// can hold them.
    package func leading() throws(ThreadfoldError) -> Leading {
        var first: [UInt8]?
        var lines = 1
        var bytes: Int64 = 0
        let limit = Int64(InputLimits.maxDecompressedBytes)
        do throws(ThreadfoldError) {
            try forEachLine(progress: { (count, offset) throws(ThreadfoldError) in
                (lines, bytes) = (count, offset)
                if offset > limit { throw Splitter.stop }
            }) { (line) throws(ThreadfoldError) -> Bool in
                first = Array(line.bytes)
                return false
            }
        } catch {
            guard Splitter.isStop(error) else { throw error }
            return .blank(lines: lines, bytes: bytes, cut: true)
        }
        return first.map(Leading.line) ?? .blank(lines: lines, bytes: bytes, cut: false)
    }

    /// The first non-blank line of `bytes`, as `forEachLine` would hand it over from a file
    /// holding them; nil when there is none, or when it or a blank line before it is longer
    /// than `maxLineBytes` (`forEachLine` fails there).
    package static func firstLine(of bytes: [UInt8], maxLineBytes: Int = InputLimits.maxLineBytes) -> [UInt8]? {
        var splitter = Splitter(display: "", maxLineBytes: maxLineBytes)
        var first: [UInt8]?
        let take = { (line: Line) throws(ThreadfoldError) -> Bool in
            first = Array(line.bytes)
            return false
        }
        // A line longer than `maxLineBytes` fails the splitter: no line to give.
        let read = bytes.withUnsafeBytes { part in (try? splitter.feed(part, take)) }
        guard let more = read else { return nil }
        if more, (try? splitter.finish(take)) == nil { return nil }
        return first
    }

    /// A line of nothing but spaces, tabs and carriage returns, which no reader of lines hands over.
    static func isBlank(_ line: some Sequence<UInt8>) -> Bool {
        for byte in line where byte != 0x20 && byte != 0x09 && byte != 0x0D { return false }
        return true
    }

    /// The file, given (`file`, read from its start) or opened; a regular file either way.
    private func openRegular() throws(ThreadfoldError) -> OpenFile {
        if let file {
            guard file.rewind() else { throw ThreadfoldError.input(InputFile.cannotRead(display, errno)) }
            return file
        }
        switch OpenFile.regular(path) {
        case .success(let file): return file
        case .failure(let failure): throw ThreadfoldError.input(InputFile.refused(display, failure))
        }
    }
}

/// Cuts a stream of chunks into lines. A line inside one chunk is handed over where it lies; only
/// a line that spans chunks is copied, into `carry`.
struct Splitter {
    /// Thrown through the decoder to stop early; never reaches a caller.
    static let stop = ThreadfoldError.input(Problem(file: "", message: "stop"))

    /// Whether `error` is `stop`.
    static func isStop(_ error: ThreadfoldError) -> Bool { error.problems == stop.problems }

    let display: String
    let maxLineBytes: Int
    var carry: [UInt8] = []
    var number = 1
    var position = 0
    /// Offset of the current line's first byte.
    var start: Int64 = 0
    /// Offset of the next byte to arrive.
    var offset: Int64 = 0

    init(display: String, maxLineBytes: Int) {
        self.display = display
        self.maxLineBytes = maxLineBytes
    }

    mutating func feed(_ part: UnsafeRawBufferPointer, _ body: (LineStream.Line) throws(ThreadfoldError) -> Bool) throws(ThreadfoldError) -> Bool {
        guard let base = part.baseAddress?.assumingMemoryBound(to: UInt8.self), part.count > 0 else { return true }
        var i = 0
        while i < part.count {
            if carry.isEmpty {
                // A run of blank lines is counted in one pass over its bytes, not a line at a time.
                var j = i, lineBegin = i, afterBreak = -1, breaks = 0
                while j < part.count {
                    let byte = base[j]
                    if byte == 0x0A {
                        // A blank line over the limit is left to the line's own path, which says so.
                        if j - lineBegin > maxLineBytes { break }
                        breaks += 1
                        afterBreak = j + 1
                        lineBegin = afterBreak
                    } else if byte != 0x20 && byte != 0x09 && byte != 0x0D {
                        break
                    }
                    j += 1
                }
                if breaks > 0 {
                    // Every line but the one the run ends in (which may go on) is blank and whole.
                    number += breaks
                    start = offset + Int64(afterBreak)
                    i = afterBreak
                    if i == part.count { break }
                }
            }
            guard let hit = memchr(base + i, 0x0A, part.count - i) else {
                guard carry.count + (part.count - i) <= maxLineBytes else { throw ThreadfoldError.input(tooLong()) }
                carry.append(contentsOf: UnsafeBufferPointer(start: base + i, count: part.count - i))
                break
            }
            let end = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            let more: Bool
            if carry.isEmpty {
                guard end - i <= maxLineBytes else { throw ThreadfoldError.input(tooLong()) }
                more = try emit(UnsafeBufferPointer(start: base + i, count: end - i), body)
            } else {
                guard carry.count + (end - i) <= maxLineBytes else { throw ThreadfoldError.input(tooLong()) }
                carry.append(contentsOf: UnsafeBufferPointer(start: base + i, count: end - i))
                more = try carry.withUnsafeBufferPointer { (line) throws(ThreadfoldError) -> Bool in try emit(line, body) }
                carry.removeAll(keepingCapacity: true)
            }
            start = offset + Int64(end + 1)
            number += 1
            i = end + 1
            if !more { return false }
        }
        offset += Int64(part.count)
        return true
    }

    /// Passes over `bytes` bytes known to hold `lines` line breaks and `records` non-blank lines,
    /// the last ending in a break, as `feed` would have split them; only between lines.
    mutating func skip(bytes: Int64, lines: Int, records: Int) {
        precondition(carry.isEmpty)
        offset += bytes
        start = offset
        number += lines
        position += records
    }

    mutating func finish(_ body: (LineStream.Line) throws(ThreadfoldError) -> Bool) throws(ThreadfoldError) {
        guard !carry.isEmpty else { return }
        _ = try carry.withUnsafeBufferPointer { (line) throws(ThreadfoldError) -> Bool in try emit(line, body) }
        carry = []
    }

    private mutating func emit(_ line: UnsafeBufferPointer<UInt8>, _ body: (LineStream.Line) throws(ThreadfoldError) -> Bool) throws(ThreadfoldError) -> Bool {
        guard !LineStream.isBlank(line) else { return true }
        defer { position += 1 }
        return try body(LineStream.Line(bytes: line, number: number, offset: start, position: position))
    }

    private func tooLong() -> Problem {
        Problem(
            file: display, line: number, column: 1,
            message: "line \(number) (from byte \(start)) is longer than \(InputLimits.describe(maxLineBytes)); expected one comment or thread per line")
    }
}
