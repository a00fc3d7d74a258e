import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A list of member names, matched against raw bytes: by length, then by their first eight bytes
/// as one word, and only a longer name's rest byte by byte. It names the members a parse keeps in a
/// dump thread's records (`JSONDocument.init(records:)`, `keeps`), and tells a reader which of its
/// names a key is, by its place in the list (`place`, `JSONDocument.memberName`).
package struct JSONMemberFilter: Sendable {
    /// The names of length n are `heads[first[n]..<first[n + 1]]` (and `names` alike).
    private let first: [Int]
    /// Each name's first eight bytes (fewer, zero-padded), as a little-endian word.
    private let heads: [UInt64]
    private let names: [[UInt8]]
    /// Each name's place in the list the filter was made with (its first place, if repeated).
    private let places: [Int]
    /// How many names the list the filter was made with holds: every place is below it.
    package let size: Int
    /// Tells filters apart without comparing their names: each one made takes the next number.
    let identity: Int
    private static let made = Atomic<Int>(0)

    /// Keeps no member.
    static let none = JSONMemberFilter([])

    package init(_ names: [String]) {
        var placed: [[UInt8]: Int] = [:]
        for (place, name) in names.enumerated() where placed[Array(name.utf8)] == nil { placed[Array(name.utf8)] = place }
        let sorted = placed.keys.sorted { $0.count != $1.count ? $0.count < $1.count : $0.lexicographicallyPrecedes($1) }
        let longest = sorted.last?.count ?? 0
        var first: [Int] = []
        for length in 0...(longest + 1) { first.append(sorted.firstIndex { $0.count >= length } ?? sorted.count) }
        self.first = first
        heads = sorted.map { name in name.withUnsafeBufferPointer { $0.isEmpty ? 0 : Self.head($0.baseAddress!, count: $0.count) } }
        self.names = sorted
        places = sorted.map { placed[$0]! }
        size = names.count
        identity = Self.made.add(1, ordering: .relaxed).newValue
    }

    /// The place of `name` in the list the filter was made with, or nil.
    func place(of name: String) -> Int? {
        // A literal's bytes are read where they stand; any other string is made contiguous first.
        if let found = name.utf8.withContiguousStorageIfAvailable({ place($0, 0..<$0.count) }) { return found }
        var name = name
        return name.withUTF8 { place($0, 0..<$0.count) }
    }

    /// Up to the first eight of `count` bytes at `bytes` as a little-endian word, zero-padded.
    @inline(__always)
    private static func head(_ bytes: UnsafePointer<UInt8>, count: Int) -> UInt64 {
        var word: UInt64 = 0
        for i in 0..<min(8, count) { word |= UInt64(bytes[i]) << (8 * UInt64(i)) }
        return word
    }

    /// Whether the name whose raw bytes (between its quotes) are `b[range]` is kept.
    @inline(__always)
    func keeps(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool { place(b, range) != nil }

    /// The place, in the list the filter was made with, of the name whose raw bytes (between its
    /// quotes) are `b[range]`, or nil when it is not one of them: compared by length, then by
    /// its first eight bytes as one word (read at once when `b` holds eight bytes from there),
    /// and only a longer name's rest byte by byte.
    @inline(__always)
    func place(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        let count = range.count
        guard count + 1 < first.count else { return nil }
        let lower = first[count], upper = first[count + 1]
        guard lower < upper, let base = b.baseAddress else { return nil }
        let key = base + range.lowerBound
        let head: UInt64
        if range.lowerBound + 8 <= b.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(key).loadUnaligned(as: UInt64.self))
            head = count >= 8 ? word : word & ((1 << (8 * UInt64(count))) - 1)
        } else {
            head = Self.head(key, count: count)
        }
        for k in lower..<upper where heads[k] == head {
            if count <= 8 { return places[k] }
            if names[k].withUnsafeBufferPointer({ memcmp($0.baseAddress! + 8, key + 8, count - 8) == 0 }) { return places[k] }
        }
        return nil
    }
}
