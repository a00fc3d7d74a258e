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
    package static func decoded(_ bytes: [UInt8], display: String, limit: Int = InputLimits.maxDocumentBytes) throws(InputError) -> [UInt8] {
        guard let compression = detect(bytes) else { return bytes }
        let chunk = 1 << 20
        var offset = 0
        return try compression.decode(display: display, limit: limit) { () throws(InputError) -> ArraySlice<UInt8>? in
            guard offset < bytes.count else { return nil }
            defer { offset += chunk }
            return bytes[offset..<min(offset + chunk, bytes.count)]
        }
    }

    /// Decodes the chunks `next` yields into one array of at most `limit` bytes.
    func decode(display: String, limit: Int, next: () throws(InputError) -> ArraySlice<UInt8>?) throws(InputError) -> [UInt8] {
        var out: [UInt8] = []
        let write = { (part: UnsafeRawBufferPointer) throws(InputError) -> Void in
            guard out.count + part.count <= limit else {
                throw InputError(file: display, message: "decompresses to more than \(limit) bytes; expected at most \(InputLimits.describe(limit)), the most Threadfold reads as one document")
            }
            out.append(contentsOf: part)
        }
        try stream(display: display, next: next, write: write)
        return out
    }

    /// Decodes the chunks `next` yields, handing the output to `write` as it comes: nothing is
    /// held whole, so a dump of any size streams through.
    func stream(display: String, next: () throws(InputError) -> ArraySlice<UInt8>?,
                write: (UnsafeRawBufferPointer) throws(InputError) -> Void) throws(InputError) {
        switch self {
        case .zstd: try Zstd.decode(display: display, next: next, write: write)
        case .gzip: try Gzip.decode(display: display, next: next, write: write)
        }
    }
}
