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

    package init() {}

    /// The first words of a body, as plain text: for a breadcrumb (60 characters), a feed entry's
    /// title and its summary (`AtomFeed.excerptLimit`). Markdown punctuation and runs of white
    /// space become one space. Longer text is cut at a word boundary (the last space, when that
    /// keeps at least half of `limit`; else mid-word, as in text without spaces) and ends in "…".
    /// Reads only as far as it needs, so a 500 MB body costs no more than a short one.
    package static func excerpt(_ body: String, limit: Int = 60) -> String {
        var out = String.UnicodeScalarView()
        var count = 0
        var space = false
        /// Scalars written since the last space written, or nil before the first.
        var sinceSpace: Int?
        for scalar in body.unicodeScalars {
            if scalar.value < 0x80 {
                switch UInt8(scalar.value) {
                case 0x09, 0x0A, 0x0D, 0x20, UInt8(ascii: "#"), UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: ">"),
                     UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "!"), UInt8(ascii: "~"), UInt8(ascii: "|"):
                    space = !out.isEmpty
                    continue
                default: break
                }
            } else if scalar.properties.isWhitespace {
                space = !out.isEmpty
                continue
            }
            if count >= limit {
                // Cut back to the last space unless the text ends at a word boundary already.
                if !space, let word = sinceSpace, count - word - 1 >= limit / 2 {
                    out.removeLast(word + 1)
                }
                out.append("…")
                break
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
        return String(out)
    }
}
