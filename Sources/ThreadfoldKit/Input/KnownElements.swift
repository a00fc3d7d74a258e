/// The threads of documents that an earlier build listed: each one's length and the hash of its
/// bytes (`ArchiveUnit.contentHash`), in the order its document held them.
///
/// Listing a document checks every byte of it as JSON (`JSONOutline`), which costs more than
/// anything else an unchanged document's increment does. A thread whose bytes are the very bytes
/// that followed the thread before it last time was checked then, at the same place in a list,
/// so listing it again only hashes it: where the hash and the length agree, its check is skipped.
/// Anything else, a thread changed, added or moved, is read as ever, and the threads after it are
/// found again by their hashes.
///
/// The hash is the one a build keeps a thread's pages by: bytes that pass for a known thread here
/// would be served its old pages anyway.
package struct KnownElements: Sendable {
    /// Every document's threads, one document after another.
    private var lengths: [Int] = []
    private var hashes: [UInt64] = []
    /// Where each document's threads start in `lengths`, and the depth of its list (1 for an
    /// array of threads, 2 for `{"threads": [...]}`).
    private var documents: [(start: Int, depth: Int)] = []
    /// The place of each hash, its first.
    private var places: [UInt64: Int] = [:]

    package init() {}

    package var isEmpty: Bool { hashes.isEmpty }

    /// Adds a document's threads, as `(hash, length)` in its order, its list at `depth`.
    package mutating func add(_ threads: [(hash: UInt64, length: Int)], depth: Int) {
        guard !threads.isEmpty else { return }
        documents.append((hashes.count, depth))
        for thread in threads {
            if places[thread.hash] == nil { places[thread.hash] = hashes.count }
            hashes.append(thread.hash)
            lengths.append(thread.length)
        }
    }

    /// The place of the thread whose bytes hash to `hash`.
    func place(of hash: UInt64) -> Int? { places[hash] }

    /// The thread that followed the one at `place` in its document, when that document's list
    /// was at `depth` or deeper (a thread checked deeper in a document is within the depth limit
    /// here too).
    func following(_ place: Int, depth: Int) -> (hash: UInt64, length: Int, place: Int)? {
        let next = place + 1
        guard next < hashes.count else { return nil }
        // The document of `place`: the last that starts at or before it.
        var low = 0, high = documents.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if documents[mid].start <= place { low = mid } else { high = mid - 1 }
        }
        guard documents[low].depth >= depth, low + 1 == documents.count || documents[low + 1].start > next else { return nil }
        return (hashes[next], lengths[next], next)
    }
}
