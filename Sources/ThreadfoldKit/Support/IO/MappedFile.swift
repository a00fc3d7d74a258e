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
/// lock: per slot its state (free, open, damaged), start and end address.
private enum BusErrors {
    static let slots = 16
    private static let free = 0, open = 1, damaged = 2

    nonisolated(unsafe) private static let table: UnsafeMutablePointer<Atomic<Int>> = {
        let table = UnsafeMutablePointer<Atomic<Int>>.allocate(capacity: 3 * slots)
        for i in 0..<(3 * slots) { (table + i).initialize(to: Atomic(0)) }
        return table
    }()

    /// What handled SIGBUS before, to pass on faults that are not the mappings'.
    nonisolated(unsafe) private static var previous = sigaction()
    nonisolated(unsafe) private static var pageSize = 4096

    /// Installs the handler, once; false when the system refuses it (no mapping is then made).
    static let installed: Bool = {
        pageSize = max(sysconf(Int32(_SC_PAGESIZE)), 1)
        _ = table
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = onBusError
        action.sa_flags = SA_SIGINFO
        sigemptyset(&action.sa_mask)
        return sigaction(SIGBUS, &action, &previous) == 0
    }()

    static func claim() -> Int? {
        for slot in 0..<slots where table[3 * slot].compareExchange(expected: free, desired: open, ordering: .acquiringAndReleasing).exchanged {
            return slot
        }
        return nil
    }

    static func watch(_ slot: Int, start: Int, end: Int) {
        table[3 * slot + 1].store(start, ordering: .releasing)
        table[3 * slot + 2].store(end, ordering: .releasing)
    }

    static func isDamaged(_ slot: Int) -> Bool { table[3 * slot].load(ordering: .acquiring) == damaged }

    static func release(_ slot: Int) {
        table[3 * slot + 2].store(0, ordering: .releasing)
        table[3 * slot + 1].store(0, ordering: .releasing)
        table[3 * slot].store(free, ordering: .releasing)
    }

    /// The handler: a fault inside an open mapping gets a page of zeros and marks it damaged; any
    /// other goes to the previous handler (the fault happens again on return, and is handled so).
    private static let onBusError: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = {
        _, info, _ in
        let address = Int(bitPattern: info?.pointee._sifields._sigfault.si_addr)
        for slot in 0..<slots where table[3 * slot].load(ordering: .acquiring) != free {
            let start = table[3 * slot + 1].load(ordering: .acquiring), end = table[3 * slot + 2].load(ordering: .acquiring)
            guard address >= start && address < end else { continue }
            let page = address & ~(pageSize - 1)
            let zeros = mmap(UnsafeMutableRawPointer(bitPattern: page), pageSize, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
            guard zeros != MAP_FAILED else { break }
            table[3 * slot].store(damaged, ordering: .releasing)
            return
        }
        _ = sigaction(SIGBUS, &previous, nil)
    }
}
