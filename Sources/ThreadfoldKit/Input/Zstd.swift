import Czstd

/// zstd frames decoded as a stream, with Debian's libzstd. The only file that imports `Czstd`.
///
/// Pushshift and Arctic Shift dumps are compressed with `--long=31`, a window of 2 GiB, which
/// libzstd refuses by default (2^27); the decoder allows windows up to
/// `InputLimits.maxWindowBytes`, 2^31 unless `--max-window` says less. A frame's window is
/// memory the decoder takes before it writes a byte, so that limit bounds what one file costs.
/// Concatenated frames decode as one stream, and skippable frames are skipped.
package enum Zstd {
    /// The version of the zstd header this was compiled against (`threadfold --version`).
    package static let headerVersion = "\(ZSTD_VERSION_MAJOR).\(ZSTD_VERSION_MINOR).\(ZSTD_VERSION_RELEASE)"

    /// Decodes the chunks `next` yields (nil at the end) and hands the output to `write` as it
    /// comes, allowing windows of up to 2^`windowLog` bytes. A corrupt frame (with its compressed
    /// byte range), a failed checksum, a window past the limit or a stream cut short is an error.
    static func decode(
        display: String, windowLog: Int32 = InputLimits.maxWindowLog, next: () throws(ThreadfoldError) -> ArraySlice<UInt8>?,
        write: (UnsafeRawBufferPointer) throws(ThreadfoldError) -> Void
    ) throws(ThreadfoldError) {
        guard let context = ZSTD_createDCtx() else {
            throw ThreadfoldError.input(Problem(file: display, message: "cannot be decompressed: zstd could not allocate its decoder"))
        }
        defer { ZSTD_freeDCtx(context) }
        ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, windowLog)
        let outSize = ZSTD_DStreamOutSize()
        let out = UnsafeMutableRawBufferPointer.allocate(byteCount: outSize, alignment: 16)
        defer { out.deallocate() }
        var consumed = 0
        // 0 once a frame has been decoded and flushed whole; otherwise a hint of bytes still due.
        var pending = 0
        // Where the frame being decoded starts, in compressed bytes.
        var frameStart = 0
        while let chunk = try next() {
            var failure: ThreadfoldError?
            chunk.withUnsafeBytes { source in
                var input = ZSTD_inBuffer(src: source.baseAddress, size: source.count, pos: 0)
                while true {
                    var output = ZSTD_outBuffer(dst: out.baseAddress, size: outSize, pos: 0)
                    let status = ZSTD_decompressStream(context, &output, &input)
                    if ZSTD_isError(status) != 0 {
                        failure = ThreadfoldError.input(corrupt(display, status, frame: frameStart, offset: consumed + input.pos, windowLog: windowLog))
                        return
                    }
                    pending = status
                    if status == 0 { frameStart = consumed + input.pos }
                    if output.pos > 0 {
                        do throws(ThreadfoldError) { try write(UnsafeRawBufferPointer(rebasing: out[0..<output.pos])) } catch {
                            failure = error
                            return
                        }
                    }
                    // Done with this chunk when it is all read and the decoder had room to spare, or
                    // a frame ended flushed (calling again would ask for the next frame's header).
                    if input.pos == input.size && (output.pos < output.size || status == 0) { break }
                }
            }
            if let failure { throw failure }
            consumed += chunk.count
        }
        guard pending == 0 else {
            throw ThreadfoldError.input(
                Problem(
                    file: display,
                    message: "ends in the middle of a zstd frame, after \(consumed) compressed bytes; expected the rest of the frame (the file was cut short, perhaps by an interrupted download)"))
        }
    }

    private static func corrupt(_ display: String, _ status: Int, frame: Int, offset: Int, windowLog: Int32) -> Problem {
        let code = ZSTD_getErrorCode(status)
        let name = String(cString: ZSTD_getErrorName(status))
        let window = InputLimits.size(1 << Int(windowLog))
        switch code {
        case ZSTD_error_frameParameter_windowTooLarge:
            return Problem(
                file: display, message: "is a zstd stream whose frame at compressed byte \(frame) asks for a window larger than \(window); expected a window of at most \(window)",
                hint: windowLog < 31 ? .windowLimit : nil)
        case ZSTD_error_checksum_wrong:
            return Problem(
                file: display, message: "holds a zstd frame (compressed bytes \(frame) to \(offset)) whose checksum does not match what it decodes to; expected intact frames (the file is damaged)")
        default:
            return Problem(file: display, message: "is not valid zstd data in the frame at compressed bytes \(frame) to \(offset): \(name); expected zstd frames (the file may be damaged)")
        }
    }
}
