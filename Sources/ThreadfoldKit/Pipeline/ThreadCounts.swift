import Foundation

/// What `check` counts in a thread, or summed over many: the tree's comments, people and levels,
/// the problems it handled, and what the form gave (a file read as the wrong form shows as
/// comments without bodies or authors).
package struct ThreadCounts: Sendable, Equatable {
    package var threads = 0
    /// Comments the tree shows.
    package var comments = 0
    /// People and levels: in one thread, or summed, the most in any one thread.
    package var people = 0
    package var levels = 0
    package var orphans = 0
    package var cycles = 0
    package var duplicates = 0
    package var deletedLeftOut = 0
    /// Comments the form read, and how many of them have a body, an author and a time.
    package var records = 0
    package var bodies = 0
    package var authors = 0
    package var times = 0
    package var notices = 0

    package init() {}

    /// One thread's counts.
    package init(_ record: ThreadRecord, _ tree: ThreadTree) {
        threads = 1
        comments = tree.totals.comments
        people = tree.totals.participants
        levels = tree.totals.levels
        for diagnostic in tree.diagnostics {
            switch diagnostic.kind {
            case .orphan: orphans += 1
            case .cycle: cycles += 1
            case .duplicate: duplicates += 1
            case .omittedDeleted: deletedLeftOut += 1
            }
        }
        records = record.comments.count
        bodies = record.comments.count { $0.hasBody }
        authors = record.comments.count { !($0.author ?? "").isEmpty }
        times = record.comments.count { $0.createdAt != nil }
        notices = record.notices.count
    }

    /// Adds `other`'s counts; people and levels keep the larger.
    package mutating func add(_ other: ThreadCounts) {
        threads += other.threads
        comments += other.comments
        people = max(people, other.people)
        levels = max(levels, other.levels)
        orphans += other.orphans
        cycles += other.cycles
        duplicates += other.duplicates
        deletedLeftOut += other.deletedLeftOut
        records += other.records
        bodies += other.bodies
        authors += other.authors
        times += other.times
        notices += other.notices
    }
}
