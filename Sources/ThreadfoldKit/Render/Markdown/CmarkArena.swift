#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A bump allocator for the cmark trees of one body, one per thread: allocations are carved
/// from 64 KiB blocks, `free` does nothing, and everything the body held is released at once
/// when it is done (`end`). The first block is kept for the next body; others go back. Every
/// node and buffer of a body (its document, the nodes the passes add, the documents of table
/// cells) comes from it, where cmark would otherwise call malloc and free dozens of times.
///
/// cmark's allocator hooks take no context, so the arena is found through a thread-local key.
/// `begin` and `end` bracket one body and keep a stack of the bodies in rendering on this
/// thread: a body begun while another is rendering on the same thread (nothing does that
/// today) gets cmark's default allocator, so an inner reset can never free an outer body's
/// memory, and `bodyUsesArena` always tells the allocator of the innermost body, which every
/// node and document of it must use. The hooks themselves are `Cmark`'s, beside the C types.
///
/// The arena is a plain struct behind a pointer, not an object: the hooks run for every node
/// and buffer, and reaching an object from them would cost a retain and a release each time.
struct CmarkArena {
    private static let blockBytes = 64 << 10
    /// Bytes before each allocation: its size, for `realloc`; keeps allocations 16-aligned.
    private static let headerBytes = 16

    /// The block being carved, its size and how much of it is used.
    private var base: UnsafeMutableRawPointer
    private var bytes: Int
    private var used = 0
    /// The first block, kept from body to body.
    private let first: UnsafeMutableRawPointer
    /// Blocks taken after the first, released when the body is done.
    private var more: [UnsafeMutableRawPointer] = []
    /// The most recent allocation, which `realloc` can grow in place.
    private var last: UnsafeMutableRawPointer?
    /// For each body being rendered on this thread, innermost last: whether it uses the arena.
    private var stack: [Bool] = []
    /// Whether the arena's memory belongs to a body (the outermost one).
    private var isActive = false

    private init() {
        first = UnsafeMutableRawPointer.allocate(byteCount: Self.blockBytes, alignment: 16)
        base = first
        bytes = Self.blockBytes
    }

    /// This thread's arena, made on first use.
    private static var mine: UnsafeMutablePointer<CmarkArena> {
        if let existing = pthread_getspecific(key) { return existing.assumingMemoryBound(to: CmarkArena.self) }
        let arena = UnsafeMutablePointer<CmarkArena>.allocate(capacity: 1)
        arena.initialize(to: CmarkArena())
        pthread_setspecific(key, arena)
        return arena
    }

    /// A body starts: it takes the arena when the arena is free, else cmark's default allocator.
    static func begin() {
        let arena = mine
        if arena.pointee.isActive {
            arena.pointee.stack.append(false)
        } else {
            arena.pointee.isActive = true
            arena.pointee.stack.append(true)
        }
    }

    /// The body begun last is done; when it held the arena, its memory is released.
    static func end() {
        let arena = mine
        guard arena.pointee.stack.popLast() == true else { return }
        arena.pointee.releaseMore()
        arena.pointee.base = arena.pointee.first
        arena.pointee.bytes = Self.blockBytes
        arena.pointee.used = 0
        arena.pointee.last = nil
        arena.pointee.isActive = false
    }

    private mutating func releaseMore() {
        for block in more { block.deallocate() }
        more.removeAll(keepingCapacity: true)
    }

    /// Whether the body being rendered on this thread uses the arena (false outside a body).
    static var bodyUsesArena: Bool { mine.pointee.stack.last ?? false }

    /// The arena, for the hooks: only while a body holds it.
    @inline(__always)
    static var active: UnsafeMutablePointer<CmarkArena>? {
        guard let pointer = pthread_getspecific(hookKey) else { return nil }
        let arena = pointer.assumingMemoryBound(to: CmarkArena.self)
        return arena.pointee.isActive ? arena : nil
    }

    private mutating func allocate(_ size: Int) -> UnsafeMutableRawPointer? {
        guard size >= 0, size <= Int.max / 2 - Self.blockBytes else { return nil }
        let needed = Self.headerBytes + ((size + 15) & ~15)
        if used + needed > bytes {
            // A large request gets a block of its own; otherwise a fresh standard block.
            let size = max(Self.blockBytes, needed)
            base = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
            bytes = size
            more.append(base)
            used = 0
        }
        let start = base + used
        start.storeBytes(of: size, as: Int.self)
        used += needed
        let pointer = start + Self.headerBytes
        last = pointer
        return pointer
    }

    /// cmark's `calloc` hook: `count` times `size` zeroed bytes, nil when that overflows.
    mutating func calloc(_ count: Int, _ size: Int) -> UnsafeMutableRawPointer? {
        let (total, overflow) = count.multipliedReportingOverflow(by: size)
        guard !overflow, let pointer = allocate(total) else { return nil }
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: total)
        return pointer
    }

    /// cmark's `realloc` hook.
    mutating func realloc(_ old: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer? {
        guard let old else { return allocate(size) }
        let start = old - Self.headerBytes
        let oldSize = start.load(as: Int.self)
        // The last allocation grows (or shrinks) where it stands when its block has room.
        if old == last, size >= 0, start >= base, start < base + bytes {
            let needed = Self.headerBytes + ((size + 15) & ~15)
            if (start - base) + needed <= bytes {
                used = (start - base) + needed
                start.storeBytes(of: size, as: Int.self)
                return old
            }
        }
        guard let pointer = allocate(size) else { return nil }
        pointer.copyMemory(from: old, byteCount: min(oldSize, size))
        return pointer
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        // A thread's arena goes when the thread ends.
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            let arena = pointer.assumingMemoryBound(to: CmarkArena.self)
            arena.pointee.releaseMore()
            arena.pointee.first.deallocate()
            arena.deinitialize(count: 1)
            arena.deallocate()
        }
        hookKey = key
        return key
    }()

    /// `key`, as the hooks read it: a plain load, where reading `key` itself goes through its
    /// lazy initialization (`swift_once`) on each of the hooks' many calls. Written once, by
    /// `key`'s initializer, which every thread passes through (`begin`, through `mine`) before
    /// cmark calls a hook on it.
    @exclusivity(unchecked) nonisolated(unsafe) private static var hookKey = pthread_key_t()
}
