import Czlib

/// gzip with Debian's zlib: the site's `.gz` siblings encoded (Site) here, input decoded in
/// Input/GzipDecoder.swift. The two files that import `Czlib`.
enum Gzip {
    /// `bytes` as one gzip member at level 9, the same bytes every time: the header holds no
    /// file name, a modification time of 0 and a fixed OS byte (3, Unix), as `gzip -9n` writes.
    /// Nil when zlib fails, which it only does when memory runs out.
    static func encode(_ bytes: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        // 15 + 16: a window of 2^15 and a gzip wrapper; memory level 9, zlib's best.
        guard
            deflateInit2_(
                &stream, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY, zlibVersion(),
                Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        // zlib keeps a pointer to the header until it has written it.
        let header = UnsafeMutablePointer<gz_header>.allocate(capacity: 1)
        header.initialize(to: gz_header())
        header.pointee.os = 3
        defer {
            deflateEnd(&stream)
            header.deallocate()
        }
        guard deflateSetHeader(&stream, header) == Z_OK else { return nil }
        let outSize = 256 << 10
        var out: [UInt8] = []
        out.reserveCapacity(min(Int(deflateBound(&stream, uLong(bytes.count))), 64 << 20))
        var chunk = [UInt8](repeating: 0, count: outSize)
        var input = bytes
        let status = input.withUnsafeMutableBufferPointer { source -> Int32 in
            var offset = 0
            var status = Z_OK
            // zlib's own loop (zpipe.c): input in pieces its 32-bit counts can hold, output
            // drained until deflate leaves room, Z_FINISH with the last piece.
            repeat {
                let take = min(source.count - offset, Int(UInt32.max))
                stream.next_in = take > 0 ? source.baseAddress! + offset : nil
                stream.avail_in = UInt32(take)
                offset += take
                let flush = offset == source.count ? Z_FINISH : Z_NO_FLUSH
                repeat {
                    let produced = chunk.withUnsafeMutableBufferPointer { target -> Int in
                        stream.next_out = target.baseAddress
                        stream.avail_out = UInt32(target.count)
                        status = deflate(&stream, flush)
                        return target.count - Int(stream.avail_out)
                    }
                    guard status != Z_STREAM_ERROR else { return status }
                    out.append(contentsOf: chunk[..<produced])
                } while stream.avail_out == 0
                if flush == Z_FINISH { break }
            } while true
            return status
        }
        return status == Z_STREAM_END ? out : nil
    }
}
