#if canImport(Glibc)
import Glibc
#endif

/// Reading from a file descriptor the way every caller here needs: retried on EINTR, until
/// `count` bytes or the end of the file.
enum FileIO {
    /// Up to `count` bytes from `fd`, at `offset` (pread) or from the current position (read);
    /// fewer at the end of the file, nil on an error.
    static func read(_ fd: Int32, count: Int, at offset: Int? = nil) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                offset.map { pread(fd, buffer.baseAddress! + done, count - done, off_t($0 + done)) }
                    ?? Glibc.read(fd, buffer.baseAddress! + done, count - done)
            }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { break }
            done += n
        }
        bytes.removeSubrange(done...)
        return bytes
    }
}
