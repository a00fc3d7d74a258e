import Foundation
import Synchronization

extension Pagefind {
    /// Pagefind's service, started before the threads are rendered: each page marked for it is
    /// made a record by the worker that rendered it, on that worker, while the page's bytes are
    /// at hand; `finish` sends every page in the staged site's order (the records made, and the
    /// pages that were not rendered, an incremental build's unchanged threads, read from the
    /// site) and has Pagefind write its index. A feed dropped unfinished (a build that failed)
    /// kills Pagefind.
    final class Feed: Sendable {
        let queue = Queue()
        private let piped: ChildProcess.Piped
        private let outcome = Outcome()

        /// Whether the session ended (then its process is reaped or about to be), and how; `done`
        /// is signalled when it is all known.
        final class Outcome: Sendable {
            let state = Mutex<(ended: Bool, failure: Failure?, status: Int32?, errors: [UInt8])>((false, nil, nil, []))
            let done = DispatchSemaphore(value: 0)
        }

        /// Starts the Pagefind `command` finds, for the build of `output` (named in the error
        /// when none is installed).
        convenience init(output: String) throws(ThreadfoldError) {
            guard let command = Pagefind.command() else { throw Pagefind.missing(output) }
            try self.init(command: command)
        }

        init(command: [String]) throws(ThreadfoldError) {
            piped = try Pagefind.start(command)
            let (queue, piped, outcome) = (self.queue, self.piped, self.outcome)
            Thread {
                var session = Session(piped: piped, queue: queue)
                let failure = session.run()
                if failure == nil { session.awaitWrites() }
                // Marked ended first, so `deinit` no longer kills a group whose leader is reaped.
                outcome.state.withLock { $0.ended = true }
                let status = ChildProcess.end(piped)
                outcome.state.withLock { $0 = (true, failure, status, session.errors) }
                outcome.done.signal()
            }.start()
        }

        /// Pagefind's process id, for tests.
        var pid: pid_t { piped.pid }

        deinit {
            outcome.state.withLock { if !$0.ended { kill(-piped.pid, SIGKILL) } }
        }

        /// The page `path` (from the site) as it is written: its record, or that it has none
        /// (an unmarked page: another order's), so `finish` reads no rendered page again.
        func add(path: String, bytes: [UInt8]) {
            guard path.hasPrefix("t/"), path.hasSuffix(".html") else { return }
            queue.add(url: "/" + path, PagefindRecord.read(bytes))
        }

        /// Sends the staged site's pages not given yet, has Pagefind write `site`/pagefind, and
        /// waits for it, `timeout` seconds at most.
        func finish(site: String, timeout: Double) throws(ThreadfoldError) {
            queue.finish(site: site, pages: try Pagefind.pages(site), deadline: deadline(timeout))
            outcome.done.wait()
            let (_, failure, status, errors) = outcome.state.withLock { $0 }
            try check(failure, status: status, errors: errors, timeout: timeout)
        }
    }
}
