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
        package init(comment: Int32, href: String) {
            self.comment = comment
            self.href = href
        }
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

    /// The first words of a rendered body, as plain text: for a breadcrumb (60 characters), a
    /// feed entry's title and its summary (`AtomFeed.excerptLimit`). Every plain-text use of a
    /// body takes it from here, from the HTML the page shows, so Markdown, HTML and text bodies
    /// read alike and no markup leaks: tags are dropped (the ends of blocks and line breaks
    /// become a space), the entities Threadfold writes are decoded, and runs of white space
    /// become one space. Longer text is cut at a word boundary (the last space, when that keeps
    /// at least half of `limit`; else mid-word, as in text without spaces) and ends in "…".
    /// Reads only as far as it needs, so a 500 MB body costs no more than a short one.
    package static func excerpt(_ body: HTML, limit: Int = 60) -> String {
        var out = String.UnicodeScalarView()
        var count = 0
        var space = false
        /// Scalars written since the last space written, or nil before the first.
        var sinceSpace: Int?
        var full = false
        func put(_ scalar: Unicode.Scalar) {
            // ASCII answered without Unicode's property tables, which cost more than the rest.
            if scalar.value < 0x80 ? (scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value)) : scalar.properties.isWhitespace {
                space = !out.isEmpty
                return
            }
            if count >= limit {
                // Cut back to the last space unless the text ends at a word boundary already.
                if !space, let word = sinceSpace, count - word - 1 >= limit / 2 {
                    out.removeLast(word + 1)
                }
                out.append("…")
                full = true
                return
            }
            if space {
                out.append(" ")
                count += 1
                space = false
                sinceSpace = 0
            }
            out.append(scalar)
            count += 1
            sinceSpace = sinceSpace.map { $0 + 1 }
        }
        let scalars = Array(body.raw.unicodeScalars.prefix(64 * limit + 4096))
        var i = 0
        while i < scalars.count && !full {
            let scalar = scalars[i]
            if scalar == "<" {
                // A tag: inline ones join their text; every other one (blocks, <br>) is a space.
                var j = i + 1
                if j < scalars.count && scalars[j] == "/" { j += 1 }
                var name = ""
                while j < scalars.count, scalars[j].value < 0x80
                        ? (("a"..."z").contains(scalars[j]) || ("A"..."Z").contains(scalars[j]) || ("0"..."9").contains(scalars[j]))
                        : scalars[j].properties.isAlphabetic {
                    name.unicodeScalars.append(scalars[j])
                    j += 1
                }
                while j < scalars.count && scalars[j] != ">" { j += 1 }
                if !inline.contains(name.lowercased()) { space = !out.isEmpty }
                i = j + 1
                continue
            }
            if scalar == "&", let (decoded, length) = entity(scalars, i) {
                put(decoded)
                i += length
                continue
            }
            put(scalar)
            i += 1
        }
        // A body whose first stretch is all markup: what was read is what there is to show.
        if !full && scalars.count == 64 * limit + 4096 && !out.isEmpty { out.append("…") }
        return String(out)
    }

    private static let inline: Set<String> = ["a", "abbr", "b", "bdi", "cite", "code", "del", "em", "i", "kbd", "mark", "q",
                                              "s", "samp", "small", "span", "strong", "sub", "sup", "u", "ins", "time"]

    /// The scalar an entity at `i` stands for and its length: the five Threadfold writes, `&nbsp;`,
    /// and numeric references.
    private static func entity(_ scalars: [Unicode.Scalar], _ i: Int) -> (Unicode.Scalar, Int)? {
        var j = i + 1
        var name = ""
        while j < scalars.count, j - i <= 10, scalars[j] != ";" {
            name.unicodeScalars.append(scalars[j])
            j += 1
        }
        guard j < scalars.count, scalars[j] == ";" else { return nil }
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
