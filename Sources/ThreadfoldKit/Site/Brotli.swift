import Cbrotli

/// Brotli streams encoded with Debian's libbrotlienc, for the site's `.br` siblings. The only
/// file that imports `Cbrotli`.
enum Brotli {
    /// Quality 9 of 11: on a 72 KB page 9% larger than 11 for a sixteenth of the time (0.01 s
    /// against 0.16 s). An archive's pages run to gigabytes, and at 11 Brotli alone would take
    /// longer than the whole build.
    static let quality: Int32 = 9

    /// `bytes` at `quality` with the default window (4 MiB), in text mode. The
    /// encoder reads no clock and draws no random numbers, so the same bytes give the same
    /// stream. Nil when the encoder fails, which it only does when memory runs out.
    static func encode(_ bytes: [UInt8]) -> [UInt8]? {
        let bound = BrotliEncoderMaxCompressedSize(bytes.count)
        guard bound > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: bound)
        var size = bound
        let ok = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                BrotliEncoderCompress(
                    quality, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, input.count, input.baseAddress,
                    &size, output.baseAddress)
            }
        }
        guard ok != 0, size <= bound else { return nil }
        out.removeLast(bound - size)
        return out
    }
}
