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

    /// `count` copies of `byte` as one zstd frame of RLE blocks (four bytes a 128 KiB block): a
    /// file of a few kilobytes that decompresses to gigabytes. `windowLog` is the window the
    /// frame header asks for (10 to 41); `checksum` adds a content checksum that is wrong.
    public static func repeated(_ byte: UInt8, count: Int, windowLog: Int = 17, checksum: Bool = false) -> [UInt8] {
        // Frame header descriptor: no content size, single segment off, checksum flag, no dictionary.
        var out: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, checksum ? 0x04 : 0x00, UInt8((windowLog - 10) << 3)]
        let blockBytes = min(1 << windowLog, 128 << 10)
        var left = count
        repeat {
            let size = min(left, blockBytes)
            left -= size
            // Block header, little-endian: last block, type 1 (RLE), regenerated size; then the byte.
            let header = UInt32(size) << 3 | 1 << 1 | (left == 0 ? 1 : 0)
            out += [UInt8(header & 0xFF), UInt8(header >> 8 & 0xFF), UInt8(header >> 16 & 0xFF), byte]
        } while left > 0
        if checksum { out += [0xDE, 0xAD, 0xBE, 0xEF] }
        return out
    }
}
