/// Thread summaries packed into byte buffers, each a run of variable-length integers and UTF-8
/// strings, for a build that keeps every thread's summary until its listings and manifest
/// are written. A `ThreadSummary` value takes about 1.2 KB in structs, strings and arrays;
/// packed, a Reddit thread's summary is about 300 bytes. Reading one
/// unpacks it, so listings and the manifest take summaries one at a time.
///
/// A time whose ISO text is the one its milliseconds give is kept as the milliseconds alone.
/// `ordered(by:)` permutes the summaries without copying their bytes; joining stores, or
/// appending a large one, takes over their buffers rather than copying them.
package struct PackedSummaries: RandomAccessCollection, Sendable {
    /// The buffers of packed summaries.
    private var chunks: [[UInt8]] = []
    /// Where each summary starts, as its chunk `<< 40 |` its offset in it (so at most 2^23
    /// chunks of at most 1 TiB); a summary's fields say where it ends.
    private var starts: [Int] = []
    /// Whether the last chunk is this store's own to append to.
    private var open = false

    /// A store of fewer bytes than this is copied when appended, a larger one is taken over.
    private static let adoptBytes = 64 << 10

    package init() {}

    package init(_ summaries: some Sequence<ThreadSummary>) {
        for summary in summaries { append(summary) }
    }

    /// All of `stores`' summaries, one store after another, sharing their buffers.
    package init(joining stores: [PackedSummaries]) {
        for store in stores { adopt(store) }
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { starts.count }

    package subscript(i: Int) -> ThreadSummary {
        chunks[starts[i] >> 40].withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: buffer, at: starts[i] & (1 << 40 - 1))
            return reader.summary()
        }
    }

    package mutating func append(_ summary: ThreadSummary) {
        var writer = Writer(bytes: openChunk())
        starts.append((chunks.count << 40) | writer.bytes.count)
        writer.summary(summary)
        chunks.append(writer.bytes)
    }

    package mutating func append(contentsOf other: PackedSummaries) {
        if other.byteCount < Self.adoptBytes {
            var bytes = openChunk()
            for start in other.starts {
                let chunk = other.chunks[start >> 40], offset = start & (1 << 40 - 1)
                starts.append((chunks.count << 40) | bytes.count)
                bytes += chunk[offset..<Self.end(of: chunk, from: offset)]
            }
            chunks.append(bytes)
        } else {
            adopt(other)
        }
    }

    /// Appends `other`'s summaries by taking over its buffers.
    private mutating func adopt(_ other: PackedSummaries) {
        let shift = chunks.count
        chunks += other.chunks
        starts += other.starts.map { $0 + (shift << 40) }
        open = false
    }

    /// The summaries at `order`'s positions, in that order; the bytes are shared.
    package func ordered(by order: [Int]) -> PackedSummaries {
        var ordered = PackedSummaries()
        ordered.chunks = chunks
        ordered.starts = order.map { starts[$0] }
        return ordered
    }

    /// What the index sorts summary `i` by (`ThreadSummary.sortedForIndex`): the milliseconds of
    /// its last activity and of its creation, read without unpacking the rest.
    package func indexTimes(_ i: Int) -> (lastActivity: Int64?, created: Int64?) {
        chunks[starts[i] >> 40].withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: buffer, at: starts[i] & (1 << 40 - 1))
            return reader.indexTimes()
        }
    }

    /// The comments of summary `i` (`ThreadSummary.Stats.comments`), read without unpacking the rest.
    package func comments(_ i: Int) -> Int {
        chunks[starts[i] >> 40].withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: buffer, at: starts[i] & (1 << 40 - 1))
            _ = reader.skipToStats()
            return reader.int()
        }
    }

    /// The path of summary `i`, read without unpacking the rest.
    package func path(_ i: Int) -> String {
        chunks[starts[i] >> 40].withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: buffer, at: starts[i] & (1 << 40 - 1))
            _ = reader.int()
            reader.skipString()
            return reader.string()
        }
    }

    /// A hash of the summaries' bytes in this order: stores of the same summaries in the same
    /// order have the same digest, whatever buffers hold them.
    package func digest() -> UInt64 {
        var digest = UInt64(starts.count)
        for start in starts {
            let at = start & (1 << 40 - 1)
            chunks[start >> 40].withUnsafeBytes { raw in
                let end = Self.end(of: raw.assumingMemoryBound(to: UInt8.self), from: at)
                digest = StableHash.content(UnsafeRawBufferPointer(rebasing: raw[at..<end]), seed: digest)
            }
        }
        return digest
    }

    /// Bytes in the buffers this store reads from (shared ones included).
    package var byteCount: Int { chunks.reduce(0) { $0 + $1.count } }

    /// Takes the last chunk out to append to it (a new one when the last is not this store's).
    private mutating func openChunk() -> [UInt8] {
        guard open, !chunks.isEmpty else {
            open = true
            return []
        }
        return chunks.removeLast()
    }

    /// Where the summary at `start` in `chunk` ends.
    private static func end(of chunk: [UInt8], from start: Int) -> Int {
        chunk.withUnsafeBufferPointer { buffer in end(of: buffer, from: start) }
    }

    private static func end(of buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var reader = Reader(bytes: buffer, at: start)
        reader.skipSummary()
        return reader.at
    }
}

private struct Writer {
    var bytes: [UInt8]

    mutating func unsigned(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Zigzag, so small negative numbers stay short.
    mutating func signed(_ value: Int64) { unsigned(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }
    mutating func int(_ value: Int) { signed(Int64(value)) }

    mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            unsigned(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// 0 for nil, else the length plus one.
    mutating func optional(_ text: String?) {
        guard var text else { return unsigned(0) }
        text.withUTF8 { utf8 in
            unsigned(UInt64(utf8.count) + 1)
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func strings(_ list: [String]) {
        unsigned(UInt64(list.count))
        for text in list { string(text) }
    }

    /// 0 for nil; 1 and the milliseconds when the ISO text is theirs; 2, the milliseconds and the text otherwise.
    mutating func time(_ point: ThreadSummary.TimePoint?) {
        guard let point else { return unsigned(0) }
        let derived = point.isoIsDerived
        unsigned(derived ? 1 : 2)
        signed(point.ms)
        if !derived { string(point.iso) }
    }

    mutating func summary(_ s: ThreadSummary) {
        int(s.format)
        string(s.id)
        string(s.path)
        optional(s.title)
        optional(s.author)
        optional(s.url)
        optional(s.lang)
        optional(s.category)
        strings(s.tags)
        time(s.created)
        int(s.stats.comments)
        int(s.stats.participants)
        int(s.stats.topLevel)
        int(s.stats.levels)
        unsigned(UInt64(s.stats.depthHistogram.count))
        for n in s.stats.depthHistogram { int(n) }
        time(s.stats.firstActivity)
        time(s.stats.lastActivity)
        int(s.stats.unarchived)
        string(s.layout)
        strings(s.pages)
        strings(s.orders)
        unsigned(UInt64(s.posts.count))
        for post in s.posts {
            string(post.author)
            int(post.page)
            string(post.anchor)
            time(post.created)
            string(post.excerpt)
        }
    }
}

/// Reads what `Writer` wrote; the bytes are this process's own, so nothing is checked twice.
private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    var at: Int

    mutating func unsigned() -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = bytes[at]
            at += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    mutating func signed() -> Int64 {
        let raw = unsigned()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    mutating func int() -> Int { Int(signed()) }
    mutating func count() -> Int { Int(unsigned()) }

    mutating func text(_ length: Int) -> String {
        defer { at += length }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[at..<at + length]), as: UTF8.self)
    }

    mutating func string() -> String { text(count()) }

    mutating func optional() -> String? {
        let length = count()
        return length == 0 ? nil : text(length - 1)
    }

    mutating func strings() -> [String] { (0..<count()).map { _ in string() } }

    mutating func time() -> ThreadSummary.TimePoint? {
        let kind = unsigned()
        guard kind != 0 else { return nil }
        var point = ThreadSummary.TimePoint(Timestamp(milliseconds: signed()))
        if kind == 2 { point.iso = string() }
        return point
    }

    mutating func skipString() { at += count() }

    mutating func skipOptional() { at += max(count() - 1, 0) }

    mutating func skipStrings() { for _ in 0..<count() { skipString() } }

    mutating func skipTime() { _ = timeMilliseconds() }

    /// A time's milliseconds, its ISO text (if any) passed over.
    mutating func timeMilliseconds() -> Int64? {
        let kind = unsigned()
        guard kind != 0 else { return nil }
        let ms = signed()
        if kind == 2 { skipString() }
        return ms
    }

    /// Passes over a summary as `summary()` reads it, building nothing.
    mutating func skipSummary() {
        _ = skipToStats()
        skipCounts()
        skipTime()
        skipTime()
        _ = unsigned()
        skipString()
        skipStrings()
        skipStrings()
        for _ in 0..<count() {
            skipString()
            _ = unsigned()
            skipString()
            skipTime()
            skipString()
        }
    }

    /// The milliseconds of a summary's last activity and creation, the rest passed over.
    mutating func indexTimes() -> (lastActivity: Int64?, created: Int64?) {
        let created = skipToStats()
        skipCounts()
        skipTime()
        return (timeMilliseconds(), created)
    }

    /// Passes over a summary's counts: comments, participants, top level, levels and the depth
    /// histogram.
    private mutating func skipCounts() {
        for _ in 0..<4 { _ = unsigned() }
        for _ in 0..<count() { _ = unsigned() }
    }

    /// Passes over a summary's fields before its statistics; returns its creation time's milliseconds.
    mutating func skipToStats() -> Int64? {
        _ = unsigned()
        skipString()
        skipString()
        for _ in 0..<5 { skipOptional() }
        skipStrings()
        return timeMilliseconds()
    }

    mutating func summary() -> ThreadSummary {
        let format = int(), id = string(), path = string()
        let title = optional(), author = optional(), url = optional(), lang = optional(), category = optional()
        let tags = strings()
        let created = time()
        var stats = ThreadSummary.Stats(
            comments: int(), participants: int(), topLevel: int(), levels: int(), depthHistogram: [],
            firstActivity: nil, lastActivity: nil, unarchived: 0)
        stats.depthHistogram = (0..<count()).map { _ in int() }
        stats.firstActivity = time()
        stats.lastActivity = time()
        stats.unarchived = int()
        let layout = string(), pages = strings(), orders = strings()
        let posts = (0..<count()).map { _ in
            ThreadSummary.Post(author: string(), page: int(), anchor: string(), created: time(), excerpt: string())
        }
        return ThreadSummary(
            format: format, id: id, path: path, title: title, author: author, url: url, lang: lang,
            category: category, tags: tags, created: created, stats: stats, layout: layout, pages: pages,
            orders: orders, posts: posts)
    }
}
