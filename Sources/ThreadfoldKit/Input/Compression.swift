/// Compressed input, recognised by its magic bytes whatever the file is called: zstd (Pushshift
/// and Arctic Shift dumps, `.zst`) and gzip (`.gz`). Decoding streams through fixed-size
/// chunks; the output may be at most `limit` bytes, like any document Threadfold reads.
package enum Compression: String, Sendable {
    case zstd, gzip

    /// What compressed files are called, without the dot: a folder's walk takes them as input,
    /// and a page's name leaves them out.
    package static let fileExtensions = ["zst", "zstd", "gz"]

    /// The compression `prefix` (the first bytes of a file) starts with, if any: zstd's frame
    /// magic 28 B5 2F FD, a zstd skippable frame (50 to 5F, 2A 4D 18), or gzip's 1F 8B.
    package static func detect(_ prefix: some Collection<UInt8>) -> Compression? {
        let bytes = Array(prefix.prefix(4))
        if bytes.count >= 4 && bytes == [0x28, 0xB5, 0x2F, 0xFD] { return .zstd }
        if bytes.count >= 4 && bytes[0] & 0xF0 == 0x50 && bytes[1] == 0x2A && bytes[2] == 0x4D && bytes[3] == 0x18 { return .zstd }
        if bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B { return .gzip }
        return nil
    }

    /// `bytes` decoded when they are compressed, else as they are.
    package static func decoded(_ bytes: [UInt8], display: String, limit: Int = InputLimits.maxDocumentBytes) throws(ThreadfoldError) -> [UInt8] {
        guard let compression = detect(bytes) else { return bytes }
        let chunk = 1 << 20
        var offset = 0
        return try compression.decode(display: display, limit: limit) { () throws(ThreadfoldError) -> ArraySlice<UInt8>? in
            guard offset < bytes.count else { return nil }
            defer { offset += chunk }
            return bytes[offset..<min(offset + chunk, bytes.count)]
        }
    }

    /// Decodes the chunks `next` yields into one array of at most `limit` bytes (and at most
    /// `InputLimits.maxDecompressedBytes`). Past `InputBudget.freeBytes`, the array waits its turn
    /// with the other jobs' (`InputBudget`), so large documents are held one at a time.
    ///
    /// White space before the first other byte is counted, not held: a file of nothing but blank
    /// lines is the error it would be once parsed ("the file is empty", at its last line) without
    /// its gigabytes ever in memory. When other bytes follow, it is held as that many line breaks
    /// and spaces, so lines and columns in messages are the file's own; more than
    /// `InputBudget.freeBytes` of it is refused rather than held, as a real export never starts so.
    ///
    /// The output is gathered in pieces and joined once at the end, so a document of N bytes
    /// takes at most 2N while it is joined, not the 3N of an array that doubles as it grows.
    func decode(display: String, limit: Int, next: () throws(ThreadfoldError) -> ArraySlice<UInt8>?) throws(ThreadfoldError) -> [UInt8] {
        var pieces: [[UInt8]] = []
        var out: [UInt8] = []
        var total = 0
        let limit = min(limit, InputLimits.maxDecompressedBytes)
        var leading: (bytes: Int, lines: Int, column: Int)? = (0, 0, 0)
        func tooLarge() -> Problem {
            Problem(
                file: display, message: "decompresses to more than \(limit) bytes; expected at most \(InputLimits.describe(limit)), the most Threadfold holds of one compressed document",
                hint: limit < InputLimits.maxDocumentBytes ? .decompressedLimit : nil)
        }
        let write = { (whole: UnsafeRawBufferPointer) throws(ThreadfoldError) -> Void in
            var first = 0
            if var blank = leading {
                let bytes = whole.bindMemory(to: UInt8.self)
                while first < bytes.count {
                    let byte = bytes[first]
                    if byte == 0x0A {
                        blank.lines += 1
                        blank.column = 0
                    } else if byte == 0x20 || byte == 0x0D || byte == 0x09 {
                        blank.column += 1
                    } else {
                        break
                    }
                    first += 1
                }
                blank.bytes += first
                guard blank.bytes <= limit else { throw ThreadfoldError.input(tooLarge()) }
                leading = blank
                if first == bytes.count { return }
                leading = nil
                guard blank.bytes <= InputBudget.freeBytes else {
                    throw ThreadfoldError.input(
                        Problem(
                            file: display, line: blank.lines + 1, column: blank.column + 1,
                            message:
                                "starts with \(blank.bytes) bytes of white space once decompressed before its first value; expected at most \(InputLimits.size(InputBudget.freeBytes)) of it (a real export never starts so; the file may be damaged or hostile)"
                        ))
                }
                out.reserveCapacity(blank.lines + blank.column)
                out.append(contentsOf: repeatElement(0x0A, count: blank.lines))
                out.append(contentsOf: repeatElement(0x20, count: blank.column))
                total = out.count
            }
            let part = UnsafeRawBufferPointer(rebasing: whole[first...])
            guard total + part.count <= limit else { throw ThreadfoldError.input(tooLarge()) }
            if total <= InputBudget.freeBytes && total + part.count > InputBudget.freeBytes { InputBudget.enterLarge() }
            // Pieces of 16 MiB: each filled once, never copied as it grows.
            if out.count + part.count > out.capacity && out.count >= 16 << 20 {
                pieces.append(out)
                out = []
                out.reserveCapacity(16 << 20)
            }
            out.append(contentsOf: part)
            total += part.count
        }
        try stream(display: display, next: next, write: write)
        if let blank = leading, blank.bytes > 0 {
            throw ThreadfoldError.input(
                Problem(
                    file: display, line: blank.lines + 1, column: blank.column + 1,
                    message: "the file is empty (\(Printable.count(blank.bytes, "byte")) of blank lines once decompressed); expected a JSON value"))
        }
        guard !pieces.isEmpty else { return out }
        var joined: [UInt8] = []
        joined.reserveCapacity(total)
        for piece in pieces { joined += piece }
        pieces = []
        joined += out
        return joined
    }

    /// Decodes the chunks `next` yields, handing the output to `write` as it comes: nothing is
    /// held whole, so a dump of any size streams through.
    func stream(
        display: String, next: () throws(ThreadfoldError) -> ArraySlice<UInt8>?,
        write: (UnsafeRawBufferPointer) throws(ThreadfoldError) -> Void
    ) throws(ThreadfoldError) {
        switch self {
        case .zstd: try Zstd.decode(display: display, next: next, write: write)
        case .gzip: try Gzip.decode(display: display, next: next, write: write)
        }
    }
}
