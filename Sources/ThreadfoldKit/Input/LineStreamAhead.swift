import Dispatch
import Synchronization

extension LineStream {
    /// `forEachPart` with the file read and decompressed on a thread of its own, up to `depth`
    /// blocks of `blockBytes` ahead of `body`, which runs on the calling thread. Decompressing a
    /// dump costs about as much as what a build that replays it does with its bytes, and the
    /// two then overlap. `read(n)` is called before each block with the file's bytes read to
    /// make it. Returns the size and chained hash (`chained`) of the file's bytes as read.
    ///
    /// What the file thread fails with comes after the bytes it made before, as `forEachPart`'s
    /// error does. A stop (`body` returning false) stops the file thread when it hands over its
    /// next block.
    func forEachPartAhead(
        blockBytes: Int = 1 << 20, depth: Int = 4, read: (Int64) -> Void = { _ in },
        _ body: (UnsafeRawBufferPointer) throws(ThreadfoldError) -> Bool
    ) throws(ThreadfoldError) -> (size: Int64, hash: UInt64) {
        let queue = BlockQueue(depth: depth)
        let stream = self
        let reader = Background { () -> Result<(size: Int64, hash: UInt64), ThreadfoldError> in
            var compressed = (size: Int64(0), hash: LineStream.hashSeed)
            var block: [UInt8] = []
            block.reserveCapacity(blockBytes)
            do throws(ThreadfoldError) {
                try stream.forEachPart(chunk: { LineStream.chained(&compressed, $0) }) { part in
                    block.append(contentsOf: part)
                    guard block.count >= blockBytes else { return true }
                    defer {
                        block = []
                        block.reserveCapacity(blockBytes)
                    }
                    return queue.put(.bytes(block, read: compressed.size))
                }
            } catch {
                _ = queue.put(.bytes(block, read: compressed.size))
                _ = queue.put(.failed(error))
                return .failure(error)
            }
            _ = queue.put(.bytes(block, read: compressed.size))
            _ = queue.put(.end)
            return .success(compressed)
        }
        // However the loop ends, the file thread is stopped and waited for.
        defer {
            queue.stop()
            _ = reader.wait()
        }
        while true {
            switch queue.take() {
            case .bytes(let bytes, let bytesRead):
                read(bytesRead)
                guard !bytes.isEmpty else { continue }
                var failure: ThreadfoldError?
                let more = bytes.withUnsafeBytes { part -> Bool in
                    do throws(ThreadfoldError) { return try body(part) } catch {
                        failure = error
                        return false
                    }
                }
                if let failure { throw failure }
                if !more { return (0, 0) }
            case .failed(let error):
                throw error
            case .end:
                return (try? reader.wait().get()) ?? (0, 0)
            }
        }
    }
}

/// The blocks a file thread hands the thread that reads them (`forEachPartAhead`), at most
/// `depth` waiting.
private final class BlockQueue: Sendable {
    enum Item: Sendable {
        case bytes([UInt8], read: Int64)
        case failed(ThreadfoldError)
        case end
    }

    private let items = Mutex<(waiting: [Item], stopped: Bool)>(([], false))
    private let free: DispatchSemaphore
    private let filled = DispatchSemaphore(value: 0)

    init(depth: Int) { free = DispatchSemaphore(value: max(depth, 1)) }

    /// Hands on `item` once a place is free; false once the reader has stopped.
    func put(_ item: Item) -> Bool {
        free.wait()
        let taken = items.withLock { items in
            if !items.stopped { items.waiting.append(item) }
            return !items.stopped
        }
        // A stopped queue keeps its places free for the putter's last items.
        if taken { filled.signal() } else { free.signal() }
        return taken
    }

    /// The next item, once there is one.
    func take() -> Item {
        filled.wait()
        defer { free.signal() }
        return items.withLock { $0.waiting.removeFirst() }
    }

    /// The reader takes no more: the putter's waits end, and its items are dropped.
    func stop() {
        items.withLock { $0.stopped = true }
        free.signal()
    }
}
