import Czlib

/// gzip input decoded as a stream, with Debian's zlib.
///
/// Concatenated members (as `cat a.gz b.gz` and parallel compressors write) decode as one
/// stream. Bytes after the last member that are not another member (zero padding included) are
/// an error, not skipped: they mean the file is not what it claims.
extension Gzip {
    /// Decodes the chunks `next` yields (nil at the end) and hands the output to `write` as it
    /// comes. Corrupt data or a stream cut short is an error naming the compressed byte offset.
    static func decode(
        display: String, next: () throws(ThreadfoldError) -> ArraySlice<UInt8>?,
        write: (UnsafeRawBufferPointer) throws(ThreadfoldError) -> Void
    ) throws(ThreadfoldError) {
        var stream = z_stream()
        // 15 + 16: a window of 2^15 and a gzip header, as every gzip file has.
        guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ThreadfoldError.input(Problem(file: display, message: "cannot be decompressed: zlib could not start its decoder"))
        }
        defer { inflateEnd(&stream) }
        let outSize = 256 << 10
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: outSize)
        defer { out.deallocate() }
        var consumed = 0
        // True between members: the last one ended and no byte of another has been read.
        var ended = false
        var started = false
        while let chunk = try next() {
            guard !chunk.isEmpty else { continue }
            var failure: ThreadfoldError?
            var buffer = Array(chunk)
            buffer.withUnsafeMutableBufferPointer { source in
                stream.next_in = source.baseAddress
                stream.avail_in = UInt32(source.count)
                while stream.avail_in > 0 || stream.avail_out == 0 {
                    if ended {
                        // Another member follows the one that ended.
                        inflateReset(&stream)
                        ended = false
                    }
                    started = true
                    stream.next_out = out
                    stream.avail_out = UInt32(outSize)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    let offset = consumed + source.count - Int(stream.avail_in)
                    guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                        let reason = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                        failure = ThreadfoldError.input(
                            Problem(file: display, message: "is not valid gzip data at compressed byte \(offset): \(reason); expected gzip members (the file may be damaged)"))
                        return
                    }
                    let produced = outSize - Int(stream.avail_out)
                    if produced > 0 {
                        do throws(ThreadfoldError) { try write(UnsafeRawBufferPointer(start: out, count: produced)) } catch {
                            failure = error
                            return
                        }
                    }
                    if status == Z_STREAM_END {
                        ended = true
                        // Another member may follow in this chunk; if not, the next chunk starts one.
                        if stream.avail_in == 0 { break }
                        continue
                    }
                    if status == Z_BUF_ERROR && stream.avail_in == 0 { break }
                    if stream.avail_in == 0 && stream.avail_out > 0 { break }
                }
            }
            if let failure { throw failure }
            consumed += chunk.count
        }
        guard started && ended else {
            throw ThreadfoldError.input(
                Problem(
                    file: display,
                    message: "ends in the middle of a gzip member, after \(consumed) compressed bytes; expected the rest of the member (the file was cut short, perhaps by an interrupted download)"))
        }
    }
}
