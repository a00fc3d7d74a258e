import Foundation

/// Where a thread lives in an archive: `t/<slug>-<id>/`, from untrusted titles and ids.
///
/// - The slug is the title in lower-case ASCII letters and digits joined by dashes, at most 50
///   characters, cut at a dash. Other scripts are transliterated first (ICU's Any-Latin, then
///   Latin-ASCII: "你好，世界" gives `ni-hao-shi-jie`); a title with nothing left gives `thread`.
/// - The id part is the id itself when it is 1 to 32 lower-case ASCII letters and digits;
///   anything else (capitals, other scripts, punctuation, long ids) becomes `_` and 16 hex digits
///   of FNV-1a-64 over the id's bytes. `_` never occurs in the plain form, so the two cannot meet,
///   and ids that differ only by case or Unicode normalisation differ in bytes, so in folder.
/// - The folder is never a path as given: no `/`, no `..`, no leading dot, no reserved device
///   name (every folder contains a dash), no case-only twins.
package enum ThreadPaths {
    package static let slugLimit = 50

    package static func folder(title: String?, id: CommentID) -> String {
        "\(slug(title ?? ""))-\(idPart(id))"
    }

    package static func idPart(_ id: CommentID) -> String {
        let bytes = Array(id.string.utf8)
        let plain = (1...32).contains(bytes.count) && bytes.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) }
        return plain ? id.string : "_" + StableHash.nameHex(bytes)
    }

    /// An author page's folder under `u/`: the name's slug (`user` when nothing is left) and 16 hex
    /// digits of FNV-1a-64 over the name's bytes, so names that differ only by case or Unicode
    /// normalisation get pages of their own, and no name is ever a path.
    package static func authorFolder(_ name: String) -> String {
        "\(slug(name, fallback: "user"))-\(StableHash.nameHex(Array(name.utf8)))"
    }

    /// Author folders of many names, each slug made once (`slug` may transliterate).
    package struct AuthorFolders {
        private var known: [[UInt8]: String] = [:]
        package init() {}
        package mutating func folder(_ name: String) -> String {
            let bytes = Array(name.utf8)
            if let folder = known[bytes] { return folder }
            let folder = ThreadPaths.authorFolder(name)
            known[bytes] = folder
            return folder
        }
    }

    package static func slug(_ title: String, fallback: String = "thread") -> String {
        var text = title
        if !text.utf8.allSatisfy({ $0 < 0x80 }) {
            text = text.applyingTransform(StringTransform("Any-Latin; Latin-ASCII"), reverse: false) ?? ""
        }
        var slug: [UInt8] = []
        var pendingDash = false
        for var byte in text.utf8 {
            if byte >= 0x41 && byte <= 0x5A { byte |= 0x20 }
            guard (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) else {
                // Apostrophes join words ("don't" → dont) instead of splitting them.
                if byte != UInt8(ascii: "'") { pendingDash = !slug.isEmpty }
                continue
            }
            if pendingDash { slug.append(UInt8(ascii: "-")) }
            pendingDash = false
            slug.append(byte)
            if slug.count > slugLimit { break }
        }
        if slug.count > slugLimit {
            // Cut at the last dash so no word is broken, unless that leaves too little.
            slug.removeSubrange(slugLimit...)
            if let dash = slug.lastIndex(of: UInt8(ascii: "-")), dash >= slugLimit / 2 { slug.removeSubrange(dash...) }
            while slug.last == UInt8(ascii: "-") { slug.removeLast() }
        }
        return slug.isEmpty ? fallback : String(decoding: slug, as: UTF8.self)
    }

    /// The folder of a branch page inside its thread's folder, from the branch root's anchor:
    /// anchors are ASCII letters, digits, `-` and `_`; one with capitals becomes `c_` and the
    /// hash of its comment's id, so no two branch folders differ only by case.
    package static func branchFolder(anchor: String, id: CommentID) -> String {
        anchor.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) ? "c_" + StableHash.nameHex(Array(id.string.utf8)) : anchor
    }

    /// The relative href from the page in folder `from` to the page in folder `to` (both as
    /// components under the site root), ending in `index.html` so it works from `file://`.
    package static func href(from: [String], to: [String], fragment: String? = nil) -> String {
        var common = 0
        while common < from.count && common < to.count && from[common] == to[common] { common += 1 }
        var parts = Array(repeating: "..", count: from.count - common)
        parts.append(contentsOf: to[common...])
        parts.append("index.html")
        return parts.joined(separator: "/") + (fragment.map { "#" + $0 } ?? "")
    }

    /// `../` once per folder level, from a page in `folder` to the site root.
    package static func root(from folder: [String]) -> String {
        String(repeating: "../", count: folder.count)
    }
}
