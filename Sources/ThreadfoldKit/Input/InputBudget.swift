import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// How much decompressed input the jobs of one build hold at once. A compressed document read
/// whole (`Compression.decode`) holds its bytes until its unit is done; each job may hold up to
/// `freeBytes` freely, and past that it waits until no other job holds a large one. So the jobs
/// together hold at most `InputLimits.maxDecompressedBytes` plus `freeBytes` a job, however many
/// tiny files decompress to gigabytes. A dump streamed a line at a time holds a chunk and a line.
///
/// Only threads inside `scope` take part (a build's and a check's workers, one unit a scope);
/// a read outside any scope, with no other job to wait for, is not held back.
package enum InputBudget {
    /// What one job holds without waiting its turn: 64 MiB.
    package static let freeBytes = 64 << 20

    private static let turn = DispatchSemaphore(value: 1)
    /// The threads inside a scope (by `pthread_self`), how deep, and whether each holds the turn.
    private static let threads = Mutex<[UInt: (depth: Int, holds: Bool)]>([:])

    /// Runs `body` as one job's unit of work: a large document it reads waits its turn, and the
    /// turn is given back when `body` returns.
    package static func scope<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let me = UInt(pthread_self())
        threads.withLock { $0[me, default: (0, false)].depth += 1 }
        defer {
            let release = threads.withLock { threads -> Bool in
                guard var state = threads[me] else { return false }
                state.depth -= 1
                if state.depth > 0 {
                    threads[me] = state
                    return false
                }
                threads[me] = nil
                return state.holds
            }
            if release { turn.signal() }
        }
        return try body()
    }

    /// Called as a document read whole passes `freeBytes`: inside a scope, waits until no other
    /// job holds a large document, and holds the turn until the scope ends.
    static func enterLarge() {
        let me = UInt(pthread_self())
        let wait = threads.withLock { threads -> Bool in
            guard let state = threads[me], !state.holds else { return false }
            return true
        }
        guard wait else { return }
        turn.wait()
        threads.withLock { $0[me]?.holds = true }
    }
}
