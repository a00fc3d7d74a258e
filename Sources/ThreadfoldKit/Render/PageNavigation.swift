/// The links around one page of an archive: back to the index, to the same thread in another
/// order, to the other parts of a long thread, and on a branch page ("Continue this thread") to
/// the comments it hangs from. Every href is relative to the page, so a site works from any
/// folder and from `file://`. The renderer puts the words to them in the page's locale.
package struct PageNavigation: Sendable {
    /// A link to the same page in another order (`Target` is `CommentOrder`) or to another part
    /// of a split thread (`Target` is its 1-based number).
    package struct Link<Target: Sendable>: Sendable {
        package var target: Target
        package var href: String
        package var current: Bool
        package init(_ target: Target, href: String, current: Bool) {
            self.target = target
            self.href = href
            self.current = current
        }
    }

    package struct AncestorLink: Sendable {
        /// Index into `thread.records`.
        package var comment: Int32
        /// The page (and anchor) where that comment is shown.
        package var href: String
    }

    /// The site's index page.
    package var indexHref: String?
    /// The same page in each sort order, when there is more than one.
    package var orders: [Link<CommentOrder>] = []
    /// The parts of a thread split between top-level comments, when there is more than one.
    package var pages: [Link<Int>] = []
    /// On part K > 1: the part before it.
    package var previousPage: Link<Int>?
    /// On a branch page: the comments above its root, top-level first.
    package var ancestors: [AncestorLink] = []
    /// On a branch page: the thread's first page.
    package var threadHref: String?
    /// For each comment whose replies continue elsewhere (`PageModel.branches`), that page.
    package var branchHrefs: [Int32: String] = [:]
    /// The thread's Atom feed.
    package var feedHref: String?
    /// The page's absolute URL, with `--base-url`.
    package var canonical: String?
    /// Whether the opening post is shown (the first part of the main page only).
    package var showsPost = true
    /// With author pages: each comment's author's folder under `u/` (indexed like the thread's
    /// records; nil for deleted, removed and unknown authors), and the thread author's.
    package var authorFolders: [String?] = []
    package var threadAuthorFolder: String?
    /// Whether this page is marked up for Pagefind (the main order's pages only, so each comment
    /// is found once, where it is shown).
    package var pagefind = false

    package init() {}

    /// The links of `page` of `plan`: the index, the other orders of the same page, the parts,
    /// and on a branch page the comments above it. `base` is the thread's folder; `order` is the
    /// index of the plan's order in `orders`.
    init(
        of page: ThreadPlan.Page, in plan: ThreadPlan, tree: ThreadTree, anchors: [String], base: [String], order k: Int,
        orders: [CommentOrder], canonicalBase: String?
    ) {
        let orderDirs = k == 0 ? 0 : 1
        indexHref = ThreadPaths.href(from: page.dir, to: [])
        let rest = Array(page.dir.dropFirst(base.count + orderDirs))
        if orders.count > 1 {
            self.orders = orders.enumerated().map { j, other in
                .init(other, href: ThreadPaths.href(from: page.dir, to: base + (j == 0 ? [] : [other.rawValue]) + rest), current: j == k)
            }
        }
        if page.part >= 0 {
            if plan.parts > 1 {
                pages = (0..<plan.parts).map {
                    .init($0 + 1, href: ThreadPaths.href(from: page.dir, to: plan.pages[$0].dir), current: $0 == page.part)
                }
            }
            if page.part > 0 {
                previousPage = .init(page.part, href: ThreadPaths.href(from: page.dir, to: plan.pages[page.part - 1].dir), current: false)
            }
        } else {
            ancestors = ThreadPlan.ancestors(of: page, in: tree).map { a in
                .init(comment: a, href: ThreadPaths.href(from: page.dir, to: plan.pages[Int(plan.pageOf[Int(a)])].dir, fragment: anchors[Int(a)]))
            }
            threadHref = ThreadPaths.href(from: page.dir, to: plan.pages[0].dir)
        }
        for b in page.model.branches {
            branchHrefs[b] = ThreadPaths.href(from: page.dir, to: plan.pages[Int(plan.branchPage[b]!)].dir)
        }
        feedHref = String(repeating: "../", count: page.dir.count - base.count) + "atom.xml"
        canonical = canonicalBase.map { $0 + page.dir.joined(separator: "/") + "/" }
        showsPost = page.part == 0
    }

    /// The first words of a rendered body, as plain text: for a breadcrumb (60 characters), a
    /// feed entry's title and its summary (`AtomFeed.excerptLimit`). Every plain-text use of a
    /// body takes it from here, from the HTML the page shows, so Markdown, HTML and text bodies
    /// read alike and no markup leaks: tags are dropped (the ends of blocks and line breaks
    /// become a space), the entities Threadfold writes are decoded, and runs of white space
    /// become one space. Longer text is cut at a word boundary (the last space, when that keeps
    /// at least half of `limit`; else mid-word, as in text without spaces) and ends in "…".
    /// Reads only as far as it needs, so a 500 MB body costs no more than a short one.
    package static func excerpt(_ body: HTML, limit: Int = 60) -> String {
        var raw = body.raw
        return raw.withUTF8 { bytes in excerpt(bytes, limit: limit) }
    }

    /// The work of `excerpt` on the body's UTF-8, a byte at a time: markup is ASCII, so only
    /// text outside it is decoded, and only when it is not ASCII (for its white space).
    private static func excerpt(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> String {
        let (end, scalars, cap) = readLimit(bytes, limit: limit)
        var text = ExcerptText(limit: limit, capacity: min(end, 4 * limit + 8))
        var i = 0
        while i < end && !text.full {
            let byte = bytes[i]
            if byte == UInt8(ascii: "<") {
                // A tag: inline ones join their text; every other one (blocks, <br>) is a space.
                let (next, inline) = tag(bytes, i, end: end)
                if !inline { text.breakWord() }
                i = next
                continue
            }
            if byte == UInt8(ascii: "&"), let (decoded, length) = entity(bytes, i, end: end) {
                var utf8 = Array(String(decoded).utf8)
                utf8.withUnsafeBufferPointer { text.put($0[...], whitespace: isWhitespace(decoded)) }
                utf8 = []
                i += length
                continue
            }
            if byte < 0x80 {
                let whitespace = byte == 0x20 || (0x09...0x0D).contains(byte)
                if whitespace {
                    text.breakWord()
                    i += 1
                    continue
                }
                // Words of ASCII with single spaces between them and no tag or entity go in at
                // once, as many whole words as fit; a word that does not fit goes in up to its
                // cut. The scan stops where nothing more could fit, so no byte is read twice.
                let run = wordRun(bytes, i, end: end, room: text.room)
                if run.end - i <= text.room {
                    text.put(words: bytes[i..<run.end], lastSpace: run.last)
                    i = run.end
                } else if run.last >= 0 {
                    text.put(words: bytes[i..<run.last], lastSpace: run.beforeLast)
                    i = run.last
                } else {
                    var wordEnd = run.end
                    while wordEnd < end && isPlain(bytes[wordEnd]) { wordEnd += 1 }
                    text.put(run: bytes[i..<wordEnd])
                    i = wordEnd
                }
            } else {
                let (scalar, length) = decode(bytes, i)
                text.put(bytes[i..<(i + length)], whitespace: scalar.properties.isWhitespace)
                i += length
            }
        }
        // A body whose first stretch is all markup: what was read is what there is to show.
        if !text.full && scalars == cap && !text.out.isEmpty { text.out += [0xE2, 0x80, 0xA6] }
        return String(decoding: text.out, as: UTF8.self)
    }

    /// How far `excerpt` reads: as far as the first 64 × limit + 4096 scalars (`cap`), as a cap
    /// on work for huge bodies; `scalars` is how many it counted (`cap` when it stopped there).
    @inline(__always)
    private static func readLimit(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> (end: Int, scalars: Int, cap: Int) {
        let cap = 64 * limit + 4096
        // Fewer bytes than the cap means fewer scalars too: the whole body is read.
        guard bytes.count >= cap else { return (bytes.count, 0, cap) }
        var end = 0
        var scalars = 0
        while end < bytes.count && scalars < cap {
            end += 1
            while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
            scalars += 1
        }
        return (end, scalars, cap)
    }

    /// The tag that starts at `i` (a `<`): where the text after it starts, and whether it names
    /// an inline element.
    @inline(__always)
    private static func tag(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int, end: Int) -> (next: Int, inline: Bool) {
        var j = i + 1
        if j < end && bytes[j] == UInt8(ascii: "/") { j += 1 }
        // The name, lowercased and packed into an integer a byte at a time; 0 when it is
        // longer than any inline name or holds a letter outside ASCII.
        var name: UInt64 = 0
        var length = 0
        while j < end {
            let c = bytes[j]
            if c < 0x80 {
                guard isASCIIAlphanumeric(c) else { break }
                if length < 8 { name = name << 8 | UInt64(c | 0x20) }
                length += 1
                j += 1
            } else {
                let (scalar, scalarLength) = decode(bytes, j)
                guard scalar.properties.isAlphabetic else { break }
                length = 8  // no inline name holds it
                j += scalarLength
            }
        }
        if length > 6 { name = 0 }
        while j < end && bytes[j] != UInt8(ascii: ">") { j += 1 }
        return (j + 1, isInline(name))
    }

    /// A byte that can be part of a word of plain ASCII: no space or control, no tag or entity.
    @inline(__always)
    private static func isPlain(_ c: UInt8) -> Bool { c < 0x80 && c > 0x20 && c != UInt8(ascii: "<") && c != UInt8(ascii: "&") }

    /// The run of plain words from `i` (a plain byte) with single spaces between them, read no
    /// further than `room` bytes past what fits: where it ends, and where its last two spaces are
    /// (-1 for none).
    @inline(__always)
    private static func wordRun(
        _ bytes: UnsafeBufferPointer<UInt8>, _ i: Int, end: Int, room: Int
    ) -> (end: Int, last: Int, beforeLast: Int) {
        var j = i + 1
        var last = -1, beforeLast = -1
        var eightAtOnce = true
        while j < end && j - i <= room {
            // Eight bytes a step while they are plain, or single spaces each followed by
            // a plain byte. A borrow can flag a false space only right after a real one,
            // which the test for two in a row refuses, so the spaces of a step taken are
            // exact. A space in the eighth byte waits for the next step, whose first
            // byte is its follower. Once a step is refused, the run ends within these
            // eight bytes (at the byte that is not plain, or at two spaces), so the rest
            // goes a byte at a time.
            if eightAtOnce && j + 8 <= end && j + 8 - i <= room {
                let word = ByteSearch.Word(bytes.baseAddress! + j)
                let special = word.nonASCII | word.below(0x20) | word.equal(UInt8(ascii: "<")) | word.equal(UInt8(ascii: "&"))
                var spaces = word.equal(0x20)
                if special == 0 && spaces & (spaces >> 8) == 0 {
                    var step = 8
                    if spaces >> 56 != 0 {
                        step = 7
                        spaces &= 0x00FF_FFFF_FFFF_FFFF
                    }
                    if spaces != 0 {
                        let top = (63 - spaces.leadingZeroBitCount) >> 3
                        let below = spaces & ~(UInt64(0x80) << UInt64(top << 3))
                        beforeLast = below != 0 ? j + (63 - below.leadingZeroBitCount) >> 3 : last
                        last = j + top
                    }
                    j += step
                    continue
                }
                eightAtOnce = false
            }
            if isPlain(bytes[j]) {
                j += 1
            } else if bytes[j] == 0x20, j + 1 < end, isPlain(bytes[j + 1]) {
                beforeLast = last
                last = j
                j += 2
            } else {
                break
            }
        }
        return (j, last, beforeLast)
    }

    @inline(__always)
    private static func isASCIIAlphanumeric(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
            || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
    }

    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x80 ? (scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value)) : scalar.properties.isWhitespace
    }

    /// The scalar whose UTF-8 starts at `i` (the text is valid UTF-8: it is a `String`'s), and its length.
    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int) -> (Unicode.Scalar, Int) {
        let b0 = UInt32(bytes[i])
        let length = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC0 ? 2 : 1
        guard i + length <= bytes.count else { return ("\u{FFFD}", 1) }
        var value = length == 1 ? b0 : b0 & (0xFF >> UInt32(length + 1))
        for k in 1..<max(length, 1) where length > 1 { value = value << 6 | (UInt32(bytes[i + k]) & 0x3F) }
        return (Unicode.Scalar(value) ?? "\u{FFFD}", length)
    }

    /// Whether a packed tag name (see `excerpt`) names an inline element: one of `inlineNames`,
    /// each written below packed (a test checks that they agree), so the test is one switch.
    static func isInline(_ name: UInt64) -> Bool {
        switch name {
        case 0x61 /* a */, 0x61626272 /* abbr */, 0x62 /* b */, 0x626469 /* bdi */,
            0x63697465 /* cite */, 0x636F6465 /* code */, 0x64656C /* del */, 0x656D /* em */,
            0x69 /* i */, 0x696E73 /* ins */, 0x6B6264 /* kbd */, 0x6D61726B /* mark */,
            0x71 /* q */, 0x73 /* s */, 0x73616D70 /* samp */, 0x736D616C6C /* small */,
            0x7370616E /* span */, 0x7374726F6E67 /* strong */, 0x737562 /* sub */, 0x737570 /* sup */,
            0x74696D65 /* time */, 0x75 /* u */:
            return true
        default:
            return false
        }
    }

    /// The elements whose tags join the text around them; every other tag is a word break.
    static let inlineNames = [
        "a", "abbr", "b", "bdi", "cite", "code", "del", "em", "i", "ins", "kbd", "mark",
        "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u",
    ]

    /// The scalar an entity at `i` stands for and its length in bytes: the five Threadfold
    /// writes, `&nbsp;`, and numeric references.
    private static func entity(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int, end: Int) -> (Unicode.Scalar, Int)? {
        var j = i + 1
        while j < end, j - i <= 10, bytes[j] != UInt8(ascii: ";") { j += 1 }
        guard j < end, bytes[j] == UInt8(ascii: ";") else { return nil }
        let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[(i + 1)..<j]), as: UTF8.self)
        let length = j - i + 1
        switch name {
        case "amp": return ("&", length)
        case "lt": return ("<", length)
        case "gt": return (">", length)
        case "quot": return ("\"", length)
        case "#39", "apos": return ("'", length)
        case "nbsp": return (" ", length)
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value = digits.hasPrefix("x") || digits.hasPrefix("X") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            return value.flatMap(Unicode.Scalar.init).map { ($0, length) }
        }
    }
}

/// The text of an excerpt as it is written: words joined by single spaces, cut at `limit`
/// scalars (back to the last space when a word would be cut in two), then "…". A struct with
/// mutating methods, not a closure over local variables, so no access is checked at run time.
private struct ExcerptText {
    let limit: Int
    var out: [UInt8] = []
    /// Scalars written.
    var count = 0
    /// White space read since the last scalar written.
    var space = false
    /// Where the last space written stands in `out`, and the scalars written since, or nil before the first.
    var lastSpace = 0
    var sinceSpace: Int?
    var full = false

    init(limit: Int, capacity: Int) {
        self.limit = limit
        out.reserveCapacity(capacity)
    }

    /// A break between words (white space, or a block-level tag).
    mutating func breakWord() { space = !out.isEmpty }

    /// ASCII scalars, none of them white space: the same as putting each in turn.
    mutating func put(run: Slice<UnsafeBufferPointer<UInt8>>) {
        var start = run.startIndex
        put(run[start..<(start + 1)], whitespace: false)
        start += 1
        guard !full, start < run.endIndex else { return }
        // No space can come inside the run: what fits goes straight in.
        let fits = max(0, min(run.endIndex - start, limit - count))
        out.append(contentsOf: run[start..<(start + fits)])
        count += fits
        if let since = sinceSpace { sinceSpace = since + fits }
        start += fits
        if start < run.endIndex { put(run[start..<(start + 1)], whitespace: false) }
    }

    /// Scalars that can still go in before `limit`, after the pending space.
    var room: Int { limit - count - (space ? 1 : 0) }

    /// ASCII words with single spaces between them (`lastSpace` is the index of the last space,
    /// or -1), all of which fit (`room`): the same as putting each scalar and space in turn,
    /// appended at once.
    mutating func put(words run: Slice<UnsafeBufferPointer<UInt8>>, lastSpace spaceIndex: Int) {
        writeSpace()
        let base = out.count
        out.append(contentsOf: run)
        count += run.count
        if spaceIndex >= 0 {
            lastSpace = base + (spaceIndex - run.startIndex)
            sinceSpace = run.endIndex - spaceIndex - 1
        } else if let since = sinceSpace {
            sinceSpace = since + run.count
        }
    }

    /// The space white space before the next scalar stands for, when there is one.
    private mutating func writeSpace() {
        guard space else { return }
        lastSpace = out.count
        out.append(0x20)
        count += 1
        space = false
        sinceSpace = 0
    }

    /// One scalar's UTF-8.
    mutating func put(_ scalar: Slice<UnsafeBufferPointer<UInt8>>, whitespace: Bool) {
        if whitespace {
            breakWord()
            return
        }
        if count >= limit {
            // Cut back to the last space unless the text ends at a word boundary already.
            if !space, let word = sinceSpace, count - word - 1 >= limit / 2 {
                out.removeSubrange(lastSpace...)
            }
            out += [0xE2, 0x80, 0xA6]  // …
            full = true
            return
        }
        writeSpace()
        out.append(contentsOf: scalar)
        count += 1
        if let since = sinceSpace { sinceSpace = since + 1 }
    }
}
