/// The links around one page of an archive: back to the index, to the same thread in another
/// order, to the other parts of a long thread, and on a branch page ("Continue this thread") to
/// the comments it hangs from. Every href is relative to the page, so a site works from any
/// folder and from `file://`. The renderer puts the words to them in the page's locale.
public struct PageNavigation: Sendable {
    /// A link to the same page in another order (`Target` is `CommentOrder`) or to another part
    /// of a split thread (`Target` is its 1-based number).
    public struct Link<Target: Sendable>: Sendable {
        public var target: Target
        public var href: String
        public var current: Bool
        public init(_ target: Target, href: String, current: Bool) {
            self.target = target
            self.href = href
            self.current = current
        }
    }

    public struct AncestorLink: Sendable {
        /// Index into `thread.records`.
        public var comment: Int32
        /// The page (and anchor) where that comment is shown.
        public var href: String
        public init(comment: Int32, href: String) {
            self.comment = comment
            self.href = href
        }
    }

    /// The site's index page.
    public var indexHref: String?
    /// The same page in each sort order, when there is more than one.
    public var orders: [Link<CommentOrder>] = []
    /// The parts of a thread split between top-level comments, when there is more than one.
    public var pages: [Link<Int>] = []
    /// On part K > 1: the part before it.
    public var previousPage: Link<Int>?
    /// On a branch page: the comments above its root, top-level first.
    public var ancestors: [AncestorLink] = []
    /// On a branch page: the thread's first page.
    public var threadHref: String?
    /// For each comment whose replies continue elsewhere (`PageModel.branches`), that page.
    public var branchHrefs: [Int32: String] = [:]
    /// The thread's Atom feed.
    public var feedHref: String?
    /// The page's absolute URL, with `--base-url`.
    public var canonical: String?
    /// Whether the opening post is shown (the first part of the main page only).
    public var showsPost = true

    public init() {}

    /// The first words of a body, for a breadcrumb: Markdown punctuation and newlines become
    /// spaces, at most 60 characters.
    public static func excerpt(_ body: String, limit: Int = 60) -> String {
        var out = String.UnicodeScalarView()
        var count = 0
        var space = false
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
                out.append("…")
                break
            }
            if space {
                out.append(" ")
                count += 1
                space = false
            }
            out.append(scalar)
            count += 1
        }
        return String(out)
    }
}
