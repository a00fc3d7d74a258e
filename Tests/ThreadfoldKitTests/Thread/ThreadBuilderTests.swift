import Foundation
import Testing

@testable import ThreadfoldKit

@Suite("Thread builder")
struct ThreadBuilderTests {
    @Test("replies are grouped under their parents whatever the input order")
    func grouping() throws {
        // Children listed before their parents, interleaved across branches.
        let tree = try Fixtures.tree(
            Fixtures.flat([
                ("d", "b", "x"), ("b", "a", "y"), ("c", "a", "z"), ("a", nil, "w"), ("e", "b", "x"), ("f", nil, "v"),
            ]))
        #expect(Fixtures.ids(tree, tree.roots) == ["a", "f"])
        #expect(Fixtures.children(tree, of: "a") == ["b", "c"])
        #expect(Fixtures.children(tree, of: "b") == ["d", "e"])
        #expect(tree.depth[Fixtures.index(tree, "e")] == 2)
    }

    @Test("reply counts and distinct participants of every comment agree with a walk of its replies, on 300 random threads")
    func participantsAgree() throws {
        var random = SplitMix64(seed: 20261203)
        // Byte-distinct names, two of them canonically equivalent (NFC and NFD), which are two people.
        let names = ["a", "b", "c", "d", "\u{C9}", "E\u{301}", ""]
        for round in 0..<300 {
            let n = 1 + Int(random.next() % UInt64(round < 250 ? 40 : 2_000))
            var items: [String] = []
            for k in 0..<n {
                // Parents among earlier comments (or none, or one not in the thread); listed in a shuffled order.
                let roll = random.next() % 10
                let parent = k == 0 || roll == 0 ? "null" : roll == 1 ? "\"missing\"" : "\"c\(random.next() % UInt64(k))\""
                var fields = #""id": "c\#(k)", "parent_id": \#(parent), "created_at": \#(1_700_000_000 + Int(random.next() % 1000))"#
                switch random.next() % 8 {
                case 0: fields += #", "deleted": true"#
                case 1: fields += #", "removed": true, "author": "a""#
                case 2: break
                // Large threads draw from 60 more names, so big subtrees hold many people.
                default:
                    let pick = Int(random.next() % UInt64(names.count + (n > 40 ? 60 : 0)))
                    fields += #", "author": "\#(pick < names.count ? names[pick] : "p\(pick)")""#
                }
                items.append("{" + fields + "}")
            }
            for k in stride(from: items.count - 1, to: 0, by: -1) { items.swapAt(k, Int(random.next() % UInt64(k + 1))) }
            let tree = try Fixtures.tree("[" + items.joined(separator: ",") + "]")
            // Each name once, and each comment's author id names its author.
            #expect(Set(tree.authorNames.map { Array($0.utf8) }).count == tree.authorNames.count)
            for i in 0..<tree.count where tree.authorID[i] >= 0 {
                #expect(tree.authorNames[Int(tree.authorID[i])].utf8.elementsEqual(tree.records[i].author?.utf8 ?? "".utf8))
            }
            for i in 0..<tree.count where tree.flags[i].contains(.visible) {
                var authors: Set<Int32> = []
                var replies: Int32 = 0
                var pending = Array(tree.childList[Int(tree.childStart[i])..<Int(tree.childStart[i + 1])])
                while let c = pending.popLast() {
                    replies += 1
                    if tree.authorID[Int(c)] >= 0 { authors.insert(tree.authorID[Int(c)]) }
                    pending += tree.childList[Int(tree.childStart[Int(c)])..<Int(tree.childStart[Int(c) + 1])]
                }
                #expect(tree.stats[i].totalReplies == replies, "round \(round), comment \(i)")
                #expect(tree.stats[i].participants == Int32(authors.count), "round \(round), comment \(i)")
            }
        }
    }

    @Test("sort orders: oldest, newest, top; replies sorted on their own; ties keep input order")
    func sorting() throws {
        let json = #"""
            [{"id": "a", "created_at": 300, "score": 1},
             {"id": "b", "created_at": 100, "score": 5},
             {"id": "c", "created_at": 200, "score": 5},
             {"id": "r1", "parent_id": "a", "created_at": 500, "score": 0},
             {"id": "r2", "parent_id": "a", "created_at": 400, "score": 9},
             {"id": "d", "score": 2},
             {"id": "e", "created_at": 100}]
            """#
        let oldest = try Fixtures.tree(json)
        #expect(Fixtures.ids(oldest, oldest.roots) == ["d", "b", "e", "c", "a"])
        #expect(Fixtures.children(oldest, of: "a") == ["r2", "r1"])
        let newest = try Fixtures.tree(json, options: ThreadOptions(sort: .newest))
        #expect(Fixtures.ids(newest, newest.roots) == ["a", "c", "b", "e", "d"])
        #expect(Fixtures.children(newest, of: "a") == ["r1", "r2"])
        let top = try Fixtures.tree(json, options: ThreadOptions(sort: .top, replySort: .oldest))
        #expect(Fixtures.ids(top, top.roots) == ["b", "c", "d", "a", "e"])
        #expect(Fixtures.children(top, of: "a") == ["r2", "r1"])
    }

    @Test("a reply to a missing comment is kept at top level and reported")
    func orphans() throws {
        let tree = try Fixtures.tree(Fixtures.flat([("a", nil, "x"), ("b", "gone", "y"), ("c", "b", "z")]))
        #expect(Fixtures.ids(tree, tree.roots) == ["a", "b"])
        #expect(tree.flags[1].contains(.orphan))
        #expect(Fixtures.children(tree, of: "b") == ["c"])
        let diagnostic = try #require(tree.diagnostics.first)
        #expect(diagnostic.kind == .orphan)
        #expect(diagnostic.description.hasPrefix("test.json:1:"))
        #expect(diagnostic.description.contains(": warning: $.comments[1]: is a reply to \"gone\", which is not in this thread; shown at top level"))
    }

    @Test("a comment that is its own parent is shown at top level and reported")
    func selfParent() throws {
        let tree = try Fixtures.tree(Fixtures.flat([("a", "a", "x"), ("b", "a", "y")]))
        #expect(Fixtures.ids(tree, tree.roots) == ["a"])
        #expect(Fixtures.children(tree, of: "a") == ["b"])
        #expect(tree.diagnostics.map(\.kind) == [.cycle])
    }

    @Test("cycles of any length are broken at their first comment in input order", arguments: [2, 3, 50])
    func cycles(_ length: Int) throws {
        // c0 <- c1 <- ... <- c(n-1) <- c0, plus a tail t hanging off c1 and a normal root.
        var comments: [(String, String?, String)] = [("root", nil, "r")]
        for i in 0..<length { comments.append(("c\(i)", "c\((i + length - 1) % length)", "u\(i)")) }
        comments.append(("t", "c1", "t"))
        let tree = try Fixtures.tree(Fixtures.flat(comments))
        #expect(Fixtures.ids(tree, tree.roots) == ["root", "c0"])
        #expect(tree.totals.comments == length + 2)
        #expect(tree.totals.levels == max(length, 3))  // the tail hangs two below c0
        #expect(tree.diagnostics.map(\.kind) == [.cycle])
        #expect(tree.diagnostics[0].description.contains("reply cycle of \(length) comments"))
        #expect(tree.flags[Fixtures.index(tree, "c0")].contains(.cycleBroken))
    }

    @Test("two cycles, one pointing into the other's tail, are each broken once")
    func twoCycles() throws {
        let tree = try Fixtures.tree(Fixtures.flat([("a", "b", "x"), ("b", "a", "y"), ("c", "d", "z"), ("d", "c", "w"), ("e", "d", "v")]))
        #expect(Fixtures.ids(tree, tree.roots) == ["a", "c"])
        #expect(tree.diagnostics.filter { $0.kind == .cycle }.count == 2)
        #expect(tree.totals.comments == 5)
    }

    @Test("a duplicate id is an error naming both places")
    func duplicates() throws {
        let json = Fixtures.flat([("a", nil, "x"), ("b", "a", "y"), ("a", nil, "z")])
        let errors = try #require(throws: ThreadfoldError.self) { try Fixtures.tree(json) }
        let message = errors.problems[0].description
        #expect(message.contains("$.comments[2].id: found the id \"a\" again; expected unique ids (first used at 1:"))
        #expect(message.hasSuffix("($.comments[0]))"))
        #expect(errors.problems[0].related?.path == "$.comments[0]")
        #expect(errors.problems[0].hint == .allowDuplicates)
    }

    @Test("--allow-duplicates keeps the first and reports the rest")
    func allowDuplicates() throws {
        let tree = try Fixtures.tree(
            Fixtures.flat([("a", nil, "x"), ("b", "a", "y"), ("a", nil, "z")]),
            options: ThreadOptions(allowDuplicates: true))
        #expect(tree.totals.comments == 2)
        #expect(tree.records[tree.roots.map(Int.init)[0]].author == "x")
        #expect(tree.diagnostics.map(\.kind) == [.duplicate])
        #expect(tree.diagnostics[0].error.severity == .warning)
    }

    @Test("ids that differ only by Unicode normalisation or case are different comments")
    func unicodeIDs() throws {
        let tree = try Fixtures.tree(#"[{"id": "caf\u00e9"}, {"id": "cafe\u0301"}, {"id": "\u212a"}, {"id": "K"}, {"id": "k"}]"#)
        #expect(tree.totals.comments == 5)
        #expect(tree.diagnostics.isEmpty)
    }

    @Test("a deleted comment with replies stays as a placeholder; one without is left out and reported")
    func deleted() throws {
        let tree = try Fixtures.tree(
            #"""
            [{"id": "a", "deleted": true},
             {"id": "b", "parent_id": "a", "author": "x"},
             {"id": "c", "removed": true},
             {"id": "d", "deleted": true},
             {"id": "e", "parent_id": "d", "deleted": true},
             {"id": "f", "author": "y"}]
            """#)
        #expect(Fixtures.ids(tree, tree.roots) == ["a", "f"])
        #expect(tree.flags[0].contains(.placeholder))
        #expect(!tree.flags[2].contains(.visible) && !tree.flags[3].contains(.visible) && !tree.flags[4].contains(.visible))
        #expect(tree.diagnostics.filter { $0.kind == .omittedDeleted }.count == 3)
        #expect(tree.totals.comments == 3)
        #expect(tree.totals.participants == 2)
    }

    @Test("counts: direct replies, all replies, people in the replies, latest activity, thread totals")
    func counts() throws {
        let tree = try Fixtures.tree(
            #"""
            {"author": "ann", "comments": [
             {"id": "a", "author": "ann", "created_at": 100},
             {"id": "b", "parent_id": "a", "author": "bob", "created_at": 200},
             {"id": "c", "parent_id": "b", "author": "ann", "created_at": 300, "edited_at": 900},
             {"id": "d", "parent_id": "a", "author": "cy", "created_at": 250},
             {"id": "e", "parent_id": "d", "author": "bob", "created_at": 260},
             {"id": "f", "parent_id": "d", "deleted": true, "created_at": 270},
             {"id": "g", "parent_id": "f", "author": "dee", "created_at": 280},
             {"id": "h", "author": "eve", "created_at": 50}]}
            """#)
        let a = tree.stats[Fixtures.index(tree, "a")]
        #expect(a == CommentStats(directReplies: 2, totalReplies: 6, participants: 4, latestActivity: Timestamp(milliseconds: 900_000)))
        let d = tree.stats[Fixtures.index(tree, "d")]
        #expect(d == CommentStats(directReplies: 2, totalReplies: 3, participants: 2, latestActivity: Timestamp(milliseconds: 280_000)))
        let h = tree.stats[Fixtures.index(tree, "h")]
        #expect(h == CommentStats(directReplies: 0, totalReplies: 0, participants: 0, latestActivity: Timestamp(milliseconds: 50_000)))
        #expect(tree.totals == ThreadTotals(comments: 8, participants: 5, levels: 4, latestActivity: Timestamp(milliseconds: 900_000)))
        #expect(tree.flags[Fixtures.index(tree, "c")].contains(.byThreadAuthor))
        #expect(!tree.flags[Fixtures.index(tree, "b")].contains(.byThreadAuthor))
    }
}

@Suite("Notices in the thread")
struct NoticePlacementTests {
    /// Top-level comments a (minute 1), c (minute 3) and u (no time), b a reply to a (minute 2), and
    /// six notices named after where they belong.
    static func record() throws -> ThreadRecord {
        var record = try Fixtures.record(
            #"""
            {"author": "op", "comments": [
             {"id": "a", "author": "ann", "created_at": 60, "score": 1},
             {"id": "b", "parent_id": "a", "author": "bob", "created_at": 120},
             {"id": "c", "author": "cy", "created_at": 180, "score": 5},
             {"id": "u", "author": "ann"}]}
            """#)
        func at(_ minute: Int?, _ action: String) -> NoticeRecord {
            NoticeRecord(action: action, actor: "mod", createdAt: minute.map { Timestamp(milliseconds: Int64($0) * 60_000) })
        }
        record.notices = [at(9, "last"), at(3, "tie-c-1"), at(0, "first"), at(nil, "untimed"), at(1, "tie-a"), at(3, "tie-c-2")]
        return record
    }

    /// The top level as it shows: comment ids, and notices by their action.
    static func shown(_ tree: ThreadTree) -> [String] {
        var out: [String] = []
        var next = 0
        for (k, root) in tree.roots.enumerated() {
            while next < tree.noticePlaces.count, tree.noticePlaces[next].before == k {
                out.append(tree.notices[Int(tree.noticePlaces[next].notice)].action!)
                next += 1
            }
            out.append(tree.records[Int(root)].id.string)
        }
        return out + tree.noticePlaces[next...].map { tree.notices[Int($0.notice)].action! }
    }

    @Test("oldest first: each notice after the comments of its time, ties in input order; one without a time counts as oldest")
    func oldest() throws {
        let tree = try ThreadBuilder.build(try Self.record())
        #expect(Self.shown(tree) == ["u", "untimed", "first", "a", "tie-a", "c", "tie-c-1", "tie-c-2", "last"])
    }

    @Test("newest first: the mirror, each notice before the comments of its time")
    func newest() throws {
        let tree = try ThreadBuilder.build(try Self.record(), options: ThreadOptions(sort: .newest))
        #expect(Self.shown(tree) == ["last", "tie-c-1", "tie-c-2", "c", "tie-a", "a", "first", "untimed", "u"])
    }

    @Test("top and input orders give notices no place: they are kept but not placed", arguments: [CommentOrder.top, .input])
    func unplaced(_ order: CommentOrder) throws {
        let tree = try ThreadBuilder.build(try Self.record(), options: ThreadOptions(sort: order))
        #expect(tree.noticePlaces.isEmpty && tree.notices.count == 6)
    }

    @Test("notices count in nothing: totals, replies, people and latest activity are as without them", arguments: CommentOrder.allCases)
    func counts(_ order: CommentOrder) throws {
        var plain = try Self.record()
        plain.notices = []
        let with = try ThreadBuilder.build(try Self.record(), options: ThreadOptions(sort: order))
        let without = try ThreadBuilder.build(plain, options: ThreadOptions(sort: order))
        #expect(with.totals == without.totals && with.totals.comments == 4)
        #expect(with.stats == without.stats && with.roots == without.roots && with.childList == without.childList)
        #expect(with.authorNames == without.authorNames)  // "mod", who only posted notices, is nobody's participant
    }
}

/// A tiny seeded generator so random tests are the same every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
