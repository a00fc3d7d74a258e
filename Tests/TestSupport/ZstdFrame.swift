/// zstd files made without a compressor, for tests that need a dump a decoder reads in pieces.
public enum ZstdFrame {
    /// `bytes` as one zstd frame of raw (stored) blocks of `blockBytes`: a decoder hands back a
    /// block at a time, so a file cut short yields its first lines before its error.
    public static func stored(_ bytes: [UInt8], blockBytes: Int = 16 << 10) -> [UInt8] {
        // Magic number; a frame header with no content size, checksum or dictionary, and a 128 KiB window.
        var out: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 7 << 3]
        var start = 0
        repeat {
            let end = min(bytes.count, start + blockBytes)
            // Block header, little-endian: last block, type 0 (raw), size.
            let header = UInt32(end - start) << 3 | (end == bytes.count ? 1 : 0)
            out += [UInt8(header & 0xFF), UInt8(header >> 8 & 0xFF), UInt8(header >> 16 & 0xFF)]
            out += bytes[start..<end]
            start = end
        } while start < bytes.count
        return out
    }
}
