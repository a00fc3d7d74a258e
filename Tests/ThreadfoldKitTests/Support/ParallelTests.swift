import Foundation
import Synchronization
import Testing

@testable import ThreadfoldKit

@Suite("Parallel work")
struct ParallelTests {
    @Test("Parallel.map gives each index's result in order, on any number of threads")
    func mapInOrder() {
        for jobs in [1, 2, 7] {
            #expect(Parallel.map(count: 100, jobs: jobs) { $0 * $0 } == (0..<100).map { $0 * $0 })
        }
        #expect(Parallel.map(count: 0, jobs: 2) { $0 }.isEmpty)
    }

    @Test("Background.release frees what it is handed on another thread, the caller's references gone")
    func release() {
        final class Freed: Sendable {
            let done = DispatchSemaphore(value: 0)
            let thread = Mutex<pthread_t?>(nil)
        }
        final class Probe {
            let freed: Freed
            init(_ freed: Freed) { self.freed = freed }
            deinit {
                freed.thread.withLock { $0 = pthread_self() }
                freed.done.signal()
            }
        }
        let freed = Freed()
        var probe: Probe? = Probe(freed)
        let held = [probe!, probe!]
        probe = nil
        Background.release([consume held])
        #expect(freed.done.wait(timeout: .now() + 10) == .success)
        #expect(freed.thread.withLock { $0 }.map { pthread_equal($0, pthread_self()) == 0 } == true)
    }

    #if os(Linux)
        @Test("a yielding Background runs at a lower priority, and so do the threads it starts; the caller's is unchanged")
        func yielding() {
            let which = __priority_which_t(PRIO_PROCESS.rawValue)
            let caller = getpriority(which, 0)
            let plain = Background { getpriority(which, 0) }
            let yielding = Background(yielding: true) { () -> [Int32] in
                [getpriority(which, 0)] + Parallel.map(count: 2, jobs: 2) { _ in getpriority(which, 0) }
            }
            #expect(plain.wait() == caller)
            let expected = min(19, caller + Background<Int32>.yieldingNice)
            #expect(yielding.wait() == [expected, expected, expected])
            #expect(getpriority(which, 0) == caller)
        }
    #endif
}
