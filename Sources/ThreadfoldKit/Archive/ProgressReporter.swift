import Synchronization

/// Where a build's stages tell how far they are: it keeps the one `BuildProgress` value and
/// hands each change to the callback. The dump reader tells bytes from its own thread, before
/// rendering starts; the renderers' count reaches it from the calling thread, so calls never
/// overlap.
final class ProgressReporter: Sendable {
    private let callback: (@Sendable (BuildProgress) -> Void)?
    private let value = Mutex(BuildProgress(phase: .reading))

    init(_ callback: (@Sendable (BuildProgress) -> Void)?) { self.callback = callback }

    /// Whether anyone listens: without a callback the stages need not count.
    var listens: Bool { callback != nil }

    /// The build enters `phase`; the counts carry over.
    func enter(_ phase: BuildProgress.Phase) { change { $0.phase = phase } }

    /// Bytes of dumps read, while reading.
    func read(_ bytes: Int64, of total: Int64) {
        change {
            $0.phase = .reading
            $0.bytesRead = bytes
            $0.bytesTotal = total
        }
    }

    /// Threads done, while rendering.
    func rendered(_ threads: Int, of total: Int) {
        change {
            $0.phase = .rendering
            $0.threadsDone = threads
            $0.threadsTotal = total
        }
    }

    private func change(_ body: (inout BuildProgress) -> Void) {
        guard let callback else { return }
        let now = value.withLock { value in
            body(&value)
            return value
        }
        callback(now)
    }
}
