#if canImport(Glibc)
    import Glibc
#endif

/// Reading from a file descriptor the way every caller here needs: retried on EINTR, until
/// `count` bytes or the end of the file.
package enum FileIO {
    /// Up to `count` bytes from `fd`, at `offset` (pread) or from the current position (read);
    /// fewer at the end of the file, nil on an error.
    package static func read(_ fd: Int32, count: Int, at offset: Int? = nil) -> [UInt8]? {
        // Uninitialised, not zeroed: a 4 MiB chunk read for a 30 KB file would otherwise write
        // 4 MiB of zeros first, for every file of an archive.
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            hugePages(buffer)
            var done = 0
            while done < count {
                let n =
                    offset.map { pread(fd, buffer.baseAddress! + done, count - done, off_t($0 + done)) }
                    ?? Glibc.read(fd, buffer.baseAddress! + done, count - done)
                if n < 0 && errno == EINTR { continue }
                guard n >= 0 else {
                    failed = true
                    break
                }
                if n == 0 { break }
                done += n
            }
            initialized = done
        }
        return failed ? nil : bytes
    }

    /// Asks for transparent huge pages under a large buffer not yet written (`MADV_HUGEPAGE`,
    /// on the 2 MiB pages wholly inside it): reading a 44.5 MB document into fresh memory
    /// otherwise takes a page fault every 4 KiB. A hint only; where the kernel has none to give
    /// (or THP is off), nothing changes. Only past 32 MiB, which glibc's malloc always maps
    /// afresh (its threshold for mapping grows to 32 MiB at most): a smaller buffer may be heap
    /// memory that malloc hands out again after this one is freed, which should keep no hint.
    @inline(__always)
    static func hugePages(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        let huge = 2 << 20
        guard buffer.count > 32 << 20, let base = buffer.baseAddress else { return }
        let start = (Int(bitPattern: base) + huge - 1) & ~(huge - 1)
        let end = (Int(bitPattern: base) + buffer.count) & ~(huge - 1)
        guard end > start, let address = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(address, end - start, MADV_HUGEPAGE)
    }
}

extension FileIO {
    /// Everything from `fd`'s current position to its end, but never more than `limit` bytes:
    /// a longer input fails as soon as byte `limit + 1` arrives, so memory stays bounded for
    /// pipes and growing files alike. `sizeHint` (a regular file's size) sizes the buffer.
    package static func readAll(_ fd: Int32, limit: Int, sizeHint: Int = 0) -> Result<[UInt8], SystemCallError> {
        let limit = min(max(limit, 0), Int.max - 1)
        var capacity = max(min(max(sizeHint, 0) + 1, limit + 1), 1)
        var bytes: [UInt8] = []
        while true {
            // Each buffer is filled in uninitialized memory after what was read before (zeroing
            // it first would cost as much as the read). Most inputs end in the first: a regular file's size
            // and the byte that shows its end.
            var failure: SystemCallError?
            var ended = false
            bytes = [UInt8](unsafeUninitializedCapacity: capacity) { [bytes] buffer, count in
                count = buffer.initialize(fromContentsOf: bytes)
                while count < buffer.count {
                    let n = Glibc.read(fd, buffer.baseAddress! + count, buffer.count - count)
                    if n < 0 {
                        let code = errno
                        if code == EINTR { continue }
                        failure = .system(code)
                        return
                    }
                    if n == 0 {
                        ended = true
                        return
                    }
                    count += n
                }
            }
            if let failure { return .failure(failure) }
            if ended { return .success(bytes) }
            if bytes.count > limit { return .failure(.tooLarge) }
            capacity = bytes.count + min(max(bytes.count, 64 << 10), limit + 1 - bytes.count)
        }
    }
}
