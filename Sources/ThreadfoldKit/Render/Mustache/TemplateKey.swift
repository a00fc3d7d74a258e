/// A name in a template, resolved when the template loads: the field of the built-in models it
/// names (if any) and its slot in the set's table of names (`TemplateKeys.names`).
///
/// A model switches on `field`, an integer, so a lookup costs no string comparison or hashing;
/// only dictionary data (the Mustache spec suites) looks the slot's name up in the table. Plain
/// integers, so passing a key to a model retains and releases nothing.
package struct TemplateKey: Sendable {
    package let field: TemplateField?
    package let slot: Int32
}

/// Every key the built-in models answer (thread pages, listings). Their slots are their raw
/// values: `TemplateKeys` enters them first, in this order.
package enum TemplateField: Int32, CaseIterable, Sendable {
    // Pages
    case lang, dir, title, author, created, url, stats, body, unarchived, commentCount, participantCount
    case levelCount, latest, comments, hasComments, assets, generator, s, nav, iso, display
    // Comments and their reply sections
    case anchor, id, level, placeholder, isOP, flair, edited, score, orphan, cycle, replyingTo, replies
    case `continue`, href, count, text, label, time, value, open, flattened, summary, total, people
    case shown, more, items, hide, hidden, atSource
    // Navigation
    case index, feed, canonical, orders, pages, pageOf, continuedFrom, thread, ancestors, excerpt, current
    // Listings
    case heading, indexHref, threads, hasThreads, pager, sections, empty, name, counts, category, tags
    case flat, previous, next
    // Search and author pages
    case authorHref, pagefind, year, search, mode, chunks, one, other, limit, here, posts, hasPosts, started, threadHref, commentsOne, commentsOther
    // Notices among the top-level comments
    case timeline, hasTimeline, comment, notice, actor, action, code
    // The site's own name; reactions and polls
    case siteName, reactions, emoji, poll, options, votes, ends

    var name: String { Self.names[Int(rawValue)] }

    /// Every case's name, in order. Spelt out: `String(describing:)` reads the enum's metadata,
    /// which took about a millisecond for all of them at every start (a test checks the two agree).
    static let names: [String] = """
        lang dir title author created url stats body unarchived commentCount participantCount \
        levelCount latest comments hasComments assets generator s nav iso display \
        anchor id level placeholder isOP flair edited score orphan cycle replyingTo replies \
        continue href count text label time value open flattened summary total people \
        shown more items hide hidden atSource \
        index feed canonical orders pages pageOf continuedFrom thread ancestors excerpt current \
        heading indexHref threads hasThreads pager sections empty name counts category tags \
        flat previous next \
        authorHref pagefind year search mode chunks one other limit here posts hasPosts started threadHref commentsOne commentsOther \
        timeline hasTimeline comment notice actor action code \
        siteName reactions emoji poll options votes ends
        """.split(separator: " ").map(String.init)
}

/// The names of one template set, each with its slot: the built-in fields first, then every
/// other name in the order the templates use them.
package struct TemplateKeys: Sendable {
    package private(set) var names: [String] = []
    private var slots: [String: Int32] = [:]

    init() {
        names = TemplateField.names
        slots.reserveCapacity(names.count)
        for (slot, name) in names.enumerated() { slots[name] = Int32(slot) }
    }

    /// The key for `name`, entered in the table if it is new.
    mutating func key(_ name: String) -> TemplateKey {
        let slot: Int32
        if let known = slots[name] {
            slot = known
        } else {
            slot = Int32(names.count)
            slots[name] = slot
            names.append(name)
        }
        return TemplateKey(field: slot < TemplateField.allCases.count ? TemplateField(rawValue: slot) : nil, slot: slot)
    }
}
