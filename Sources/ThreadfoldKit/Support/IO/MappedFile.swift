import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A regular file's bytes mapped read-only for one pass over them (`mmap` with `MAP_PRIVATE |
/// MAP_POPULATE`). The pages are the page cache's own, so nothing is copied and no new memory is
/// cleared: reading a 44.5 MB document into a new buffer took 41 ms of CPU, 26 ms of it the
/// kernel zeroing the pages it then copied into.
///
/// A file cut short while it is mapped would end the process with SIGBUS at the first byte read
/// past its new end. While a mapping is open, a handler (installed with the first one, and passing
/// every other fault on to whatever handled SIGBUS before) maps a page of zeros there instead and
/// marks the mapping `damaged`: what was read from it must not be trusted.
///
/// A file written in place while it is mapped changes under the reader, as it would between two
/// `read`s: every access must stay inside `bytes` whatever they hold (the JSON scanners check each
/// index against the count), and what was read is no more reliable than a `read` racing the write.
final class MappedFile {
    let bytes: UnsafeBufferPointer<UInt8>
    private let slot: Int

    /// The first `count` bytes of `fd` mapped, or nil when they cannot be (no slot is free, the
    /// kernel refuses, or `count` is 0): the caller reads the file instead.
    init?(_ fd: Int32, count: Int) {
        guard count > 0, BusErrors.installed, let slot = BusErrors.claim() else { return nil }
        let address = mmap(nil, count, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0)
        guard let address, address != MAP_FAILED else {
            BusErrors.release(slot)
            return nil
        }
        self.slot = slot
        bytes = UnsafeBufferPointer(start: address.assumingMemoryBound(to: UInt8.self), count: count)
        BusErrors.watch(slot, start: Int(bitPattern: address), end: Int(bitPattern: address) + count)
    }

    /// Whether the file was cut short under the mapping, and zeros were read where its bytes were.
    var damaged: Bool { BusErrors.isDamaged(slot) }

    deinit {
        BusErrors.release(slot)
        munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
    }
}

/// The mappings SIGBUS may hit (`MappedFile`), in a fixed table the signal handler reads without a
/// lock: per slot its state (free, open, damaged) and its address range, read whole (a pair of
/// words, so a range being replaced is never seen half old, half new).
private enum BusErrors {
    static let slots = 16
    private static let free = 0, open = 1, damaged = 2

    /// Set up before the handler is installed, and never freed: the handler reads them through
    /// these pointers, with no lazy initialisation or access checks on its path.
    nonisolated(unsafe) private static let states: UnsafeMutablePointer<Atomic<Int>> = {
        let states = UnsafeMutablePointer<Atomic<Int>>.allocate(capacity: slots)
        for i in 0..<slots { (states + i).initialize(to: Atomic(free)) }
        return states
    }()
    nonisolated(unsafe) private static let ranges: UnsafeMutablePointer<Atomic<WordPair>> = {
        let ranges = UnsafeMutablePointer<Atomic<WordPair>>.allocate(capacity: slots)
        for i in 0..<slots { (ranges + i).initialize(to: Atomic(WordPair(first: 0, second: 0))) }
        return ranges
    }()
    /// What handled SIGBUS before, and the page size.
    nonisolated(unsafe) private static let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 1)
    nonisolated(unsafe) private static let pageSize = UnsafeMutablePointer<Int>.allocate(capacity: 1)

    /// Installs the handler, once; false when the system refuses it (no mapping is then made).
    static let installed: Bool = {
        pageSize.initialize(to: max(sysconf(Int32(_SC_PAGESIZE)), 1))
        previous.initialize(to: sigaction())
        _ = (states, ranges)
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = onBusError
        action.sa_flags = SA_SIGINFO
        sigemptyset(&action.sa_mask)
        return sigaction(SIGBUS, &action, previous) == 0
    }()

    static func claim() -> Int? {
        for slot in 0..<slots where states[slot].compareExchange(expected: free, desired: open, ordering: .acquiringAndReleasing).exchanged {
            return slot
        }
        return nil
    }

    static func watch(_ slot: Int, start: Int, end: Int) {
        ranges[slot].store(WordPair(first: UInt(bitPattern: start), second: UInt(bitPattern: end)), ordering: .releasing)
    }

    static func isDamaged(_ slot: Int) -> Bool { states[slot].load(ordering: .acquiring) == damaged }

    static func release(_ slot: Int) {
        ranges[slot].store(WordPair(first: 0, second: 0), ordering: .releasing)
        states[slot].store(free, ordering: .releasing)
    }

    /// The handler. A fault inside an open mapping (the kernel's, not a signal someone sent) gets
    /// a page of zeros and marks the mapping damaged; anything else is the previous handler's, as
    /// if this one were not there.
    private static let onBusError: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = {
        signal, info, context in
        if let info, info.pointee.si_code > 0 {
            let address = UInt(bitPattern: info.pointee._sifields._sigfault.si_addr)
            // A damaged mapping is still watched: its other pages may be past the end too.
            for slot in 0..<slots where states[slot].load(ordering: .acquiring) != free {
                let range = ranges[slot].load(ordering: .acquiring)
                guard address >= range.first && address < range.second else { continue }
                let page = address & ~UInt(pageSize.pointee - 1)
                let zeros = mmap(UnsafeMutableRawPointer(bitPattern: page), pageSize.pointee, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
                guard zeros != MAP_FAILED else { break }
                _ = states[slot].compareExchange(expected: open, desired: damaged, ordering: .acquiringAndReleasing)
                return
            }
        }
        passOn(signal, info, context)
    }

    /// SIGBUS as the previous handler would have had it: called, ignored, or (the default) the
    /// end of the process, by the fault happening again or the signal raised again once this
    /// handler returns.
    private static func passOn(_ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?) {
        if previous.pointee.sa_flags & SA_SIGINFO != 0, let handler = previous.pointee.__sigaction_handler.sa_sigaction {
            handler(signal, info, context)
            return
        }
        let handler = previous.pointee.__sigaction_handler.sa_handler
        if let handler, unsafeBitCast(handler, to: Int.self) != unsafeBitCast(SIG_IGN, to: Int.self) {
            handler(signal)
            return
        }
        guard handler == nil else { return }
        var fallback = sigaction()
        fallback.__sigaction_handler.sa_handler = nil
        sigemptyset(&fallback.sa_mask)
        _ = sigaction(SIGBUS, &fallback, nil)
        if info.map({ $0.pointee.si_code <= 0 }) ?? true { _ = raise(SIGBUS) }
    }
}
