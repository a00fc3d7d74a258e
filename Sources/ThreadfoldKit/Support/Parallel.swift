import Dispatch
import Foundation
import Synchronization

/// A parallel map on threads of our own, each with a large stack (deep input is walked with
/// explicit stacks, but templates and cmark still use some).
enum Parallel {
    /// Runs `body(0..<count)` on `jobs` threads (each with a large stack), results in index
    /// order. `progress(done)` is called from the calling thread about ten times a second.
    static func map<T: Sendable>(
        count: Int, jobs: Int, progress: ((Int) -> Void)? = nil,
        _ body: @escaping @Sendable (Int) -> T
    ) -> [T] {
        guard count > 0 else { return [] }
        let shared = ParallelState<T>(count: count)
        let group = DispatchGroup()
        for _ in 0..<max(1, min(jobs, count)) {
            group.enter()
            let thread = Thread {
                while true {
                    let i = shared.next.add(1, ordering: .relaxed).oldValue
                    guard i < count else { break }
                    let result = body(i)
                    shared.results.withLock { $0[i] = result }
                    shared.done.add(1, ordering: .relaxed)
                }
                group.leave()
            }
            thread.stackSize = 16 << 20
            thread.start()
        }
        while group.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            progress?(shared.done.load(ordering: .relaxed))
        }
        return shared.results.withLock { $0.map { $0! } }
    }
}

private final class ParallelState<T: Sendable>: Sendable {
    let next = Atomic<Int>(0)
    let done = Atomic<Int>(0)
    let results: Mutex<[T?]>
    init(count: Int) { results = Mutex([T?](repeating: nil, count: count)) }
}

/// Work begun on a thread of its own (with a large stack, as `Parallel.map`'s) while the caller
/// goes on; `wait()` gives its result once it is done.
final class Background<T: Sendable>: Sendable {
    private let result = Mutex<T?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - yielding: the thread runs at a lower priority (its nice value up by `yieldingNice`), so
    ///     its work takes what the cores others leave: work that can wait (cleaning the spare)
    ///     beside work that cannot (a dump's decompression).
    init(yielding: Bool = false, _ body: @escaping @Sendable () -> T) {
        let thread = Thread { [self] in
            #if os(Linux)
                // Linux keeps a nice value per thread; 0 names the calling one.
                if yielding {
                    let which = __priority_which_t(PRIO_PROCESS.rawValue)
                    _ = setpriority(which, 0, min(19, getpriority(which, 0) + Self.yieldingNice))
                }
            #endif
            result.withLock { $0 = body() }
            done.signal()
        }
        thread.stackSize = 16 << 20
        thread.start()
    }

    /// How much a yielding thread (and every thread it starts) adds to its nice value.
    static var yieldingNice: Int32 { 10 }

    /// Frees `values` on a thread of its own, which nothing waits for: the caller hands over
    /// its last references (`consume`), so the work of freeing large structures is not its own.
    static func release(_ values: consuming [Any]) where T == Void {
        let held = Held(values)
        _ = Background { held.drop() }
    }

    /// Waits for the work to end and returns its result; may be called more than once.
    func wait() -> T {
        done.wait()
        done.signal()
        return result.withLock { $0! }
    }
}

/// Values handed to `Background.release`, held until that thread drops them. Nothing else
/// holds them, so they cross threads unshared.
private final class Held: @unchecked Sendable {
    private var values: [Any]
    init(_ values: consuming [Any]) { self.values = values }
    func drop() { values = [] }
}
