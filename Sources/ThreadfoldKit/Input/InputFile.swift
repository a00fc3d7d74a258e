import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The limits on what Threadfold reads, in one place (docs/input-format.md lists them).
package enum InputLimits {
    /// The most bytes read as one document: a file read whole, a pipe, standard input. The JSON
    /// parser keeps 32-bit offsets, so this is 2 GiB less two bytes. A file's size is checked
    /// before it is read; a stream fails as soon as it passes the limit.
    package static let maxDocumentBytes = Int(Int32.max) - 1
    /// The longest line of a JSON Lines file of threads, each line being one thread: 64 MiB.
    /// A bigger thread belongs in a file of its own.
    package static let maxLineBytes = 64 << 20
    /// The largest count read from a `thread.json` sidecar, a manifest or an export (comments,
    /// people, levels, replies not archived): 2^40, far beyond any forum and far enough below
    /// `Int.max` that sums of counts are checked rather than trusted.
    package static let maxCount = 1 << 40
    /// The most a compressed input may decompress to where its bytes are held: a document read
    /// whole, and the blank lines before a streamed file's first line (which decide nothing and
    /// are not kept). A dump streamed a line at a time holds one chunk and one line, whatever
    /// its size, so it is not bounded by this. At most `maxDocumentBytes`, the default.
    /// Process-wide: the command line sets it once, before any input is read (`--max-decompressed`).
    package static var maxDecompressedBytes: Int {
        get { decompressed.load(ordering: .relaxed) }
        set { decompressed.store(min(max(newValue, 0), maxDocumentBytes), ordering: .relaxed) }
    }
    /// The largest window a zstd frame may ask the decoder to hold, which is memory taken before
    /// a byte is written: 2 GiB by default, as Pushshift's `--long=31` dumps need. A power of two
    /// from 1 KiB (`--max-window`); process-wide, as `maxDecompressedBytes`.
    package static var maxWindowBytes: Int {
        get { 1 << windowLog.load(ordering: .relaxed) }
        set { windowLog.store(max(10, min(31, Int.bitWidth - 1 - max(newValue, 1).leadingZeroBitCount)), ordering: .relaxed) }
    }
    static var maxWindowLog: Int32 { Int32(windowLog.load(ordering: .relaxed)) }
    private static let decompressed = Atomic<Int>(maxDocumentBytes)
    private static let windowLog = Atomic<Int>(31)

    /// A limit as people read it: `64 MiB`, `2 GiB` (for the document limit, two bytes short).
    static func size(_ bytes: Int) -> String {
        if bytes == maxDocumentBytes { return "2 GiB" }
        if bytes >= 1 << 30 && bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        return Printable.count(bytes, "byte")
    }

    /// `67108864 bytes (64 MiB)`.
    static func describe(_ limit: Int) -> String {
        let short = size(limit)
        return short.hasSuffix(" bytes") || short.hasSuffix(" byte") ? short : "\(limit) bytes (\(short))"
    }
}

/// How input files are opened and read. The rules: regular files are read, after their size
/// (`fstat` on the open descriptor) is checked against `InputLimits.maxDocumentBytes`; a path named
/// on the command line may also be a pipe (a FIFO, or `<(…)`'s `/dev/fd/N`), read as a stream up
/// to the same limit; folders are walked; devices and sockets are refused. Whatever is read is
/// decompressed when it starts with zstd's or gzip's magic bytes (`Compression`), and its
/// decompressed size is held to the same limit.
package enum InputFile {
    package enum Kind: Sendable, Equatable {
        case regular, folder, pipe
    }

    /// What `path` (named on the command line; links followed) is, or an error saying why it
    /// cannot be an input. `missing` is the message for a path that does not exist.
    package static func kind(_ path: String, missing: String) throws(ThreadfoldError) -> Kind {
        let status: FileStatus
        do { status = try FileStatus.of(path) } catch {
            if error.code == ENOENT { throw ThreadfoldError.input(Problem(file: path, message: missing)) }
            throw ThreadfoldError.input(cannotRead(path, error.code))
        }
        switch status.kind {
        case .regular: return .regular
        case .folder: return .folder
        case .pipe: return .pipe
        case let other: throw ThreadfoldError.input(Problem(file: path, message: "\(other.described); expected a regular file, a pipe or '-'"))
        }
    }

    /// The bytes of the file at `path`. A regular file is read whole when its size is within the
    /// limit; with `streams`, a pipe is read until it ends (and fails past the limit). Anything else
    /// is refused, without waiting on it.
    package static func read(
        _ path: String, display: String, streams: Bool,
        limit: Int = InputLimits.maxDocumentBytes
    ) throws(ThreadfoldError) -> [UInt8] {
        // Without `streams` nothing may block: a FIFO put where a regular file was is refused.
        let file: OpenFile
        do { file = try OpenFile.open(path, blocking: streams) } catch { throw ThreadfoldError.input(cannotRead(display, error.code)) }
        if file.kind == .regular {
            guard file.size <= limit else { throw ThreadfoldError.input(tooLarge(display, size: file.size, limit: limit)) }
            return try Compression.decoded(try readAll(file.fd, display: display, limit: limit, sizeHint: file.size), display: display, limit: limit)
        }
        guard streams, file.kind == .pipe else {
            throw ThreadfoldError.input(Problem(file: display, message: "\(file.kind.described); expected a regular file" + (streams ? ", a pipe or '-'" : "")))
        }
        return try Compression.decoded(try readAll(file.fd, display: display, limit: limit, sizeHint: 0), display: display, limit: limit)
    }

    /// Standard input, read to its end, failing as soon as it passes `limit` bytes.
    package static func readStandardInput(limit: Int = InputLimits.maxDocumentBytes) throws(ThreadfoldError) -> [UInt8] {
        try Compression.decoded(try readAll(0, display: "<stdin>", limit: limit, sizeHint: 0), display: "<stdin>", limit: limit)
    }

    /// The compression of the regular file open as `fd`, from its first bytes.
    static func compression(_ fd: Int32) -> Compression? {
        FileIO.read(fd, count: 4, at: 0).flatMap(Compression.detect)
    }

    static func readAll(_ fd: Int32, display: String, limit: Int, sizeHint: Int) throws(ThreadfoldError) -> [UInt8] {
        switch FileIO.readAll(fd, limit: limit, sizeHint: sizeHint) {
        case .success(let bytes): return bytes
        case .failure(.tooLarge):
            throw ThreadfoldError.input(Problem(file: display, message: "holds more than \(limit) bytes; expected at most \(InputLimits.describe(limit)), the most Threadfold reads as one document"))
        case .failure(let error): throw ThreadfoldError.input(cannotRead(display, error.code))
        }
    }

    static func tooLarge(_ display: String, size: Int, limit: Int) -> Problem {
        Problem(
            file: display,
            message: "is \(size) bytes; expected at most \(InputLimits.describe(limit)), the most Threadfold reads as one document (JSON Lines of threads are read a line at a time and may be larger)")
    }

    /// `cannot be read: Permission denied (EACCES)`.
    static func cannotRead(_ display: String, _ code: Int32, line: Int? = nil) -> Problem {
        Problem(file: display, line: line, column: line.map { _ in 1 }, message: "cannot be read: \(SystemError.describe(code))")
    }

    /// Why the regular file `display` could not be opened (`OpenFile.regular`), as an error.
    static func refused(_ display: String, _ failure: SystemCallError) -> Problem {
        switch failure {
        case .notRegular(let kind): return Problem(file: display, message: "\(kind.described); expected a regular file")
        default: return cannotRead(display, failure.code)
        }
    }
}
