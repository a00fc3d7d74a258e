import Testing

@testable import ThreadfoldKit

@Suite("Thread claims")
struct ThreadClaimsTests {
    @Test("an id or folder claimed twice is a clash naming the first claim's source, whether or not hashes collide", arguments: [false, true])
    func conflicts(collide: Bool) {
        let claims = collide ? ThreadClaims(hash: { _ in 42 }) : ThreadClaims()
        for n in 0..<500 {
            claims.claim(id: Array("id\(n)".utf8), folder: "t/thread-\(n)", source: "RC.zst:\(n + 1)", rank: 0, errorFile: "RC.zst")
        }
        #expect(claims.clashes().isEmpty)
        claims.claim(id: Array("id7".utf8), folder: "t/other", source: "x", rank: 1, errorFile: "x")
        claims.claim(id: Array("new".utf8), folder: "t/thread-499", source: "x", rank: 1, errorFile: "x")
        claims.claim(id: Array("ID7".utf8), folder: "t/thread-7b", source: "y", rank: 2, errorFile: "y")
        claims.claim(id: Array("ID7".utf8), folder: "t/thread-7c", source: "z", rank: 3, errorFile: "z")
        #expect(
            claims.clashes().map { "\($0.id) \($0.folder) \($0.source) \($0.holder)" } == [
                "id7 t/other x RC.zst:8", "new t/thread-499 x RC.zst:500", "ID7 t/thread-7c z y",
            ])
    }

    /// Workers claim in the order they finish: whatever that order, the thread of the earliest
    /// input holds the id, and the others are the clashes.
    @Test("clashes are the same in every order the claims come in")
    func anyOrder() {
        let claimants = [(rank: 0, source: "a.json"), (rank: 1, source: "b.json"), (rank: 2, source: "c.json"), (rank: 3, source: "d.json")]
        func clashes(_ order: [Int]) -> [String] {
            let claims = ThreadClaims()
            for k in order {
                let c = claimants[k]
                claims.claim(id: Array("same".utf8), folder: "t/t-same", source: c.source, rank: c.rank, errorFile: c.source)
            }
            return claims.clashes().map { "\($0.rank): \($0.source) lost to \($0.holder)" }
        }
        let expected = ["1: b.json lost to a.json", "2: c.json lost to a.json", "3: d.json lost to a.json"]
        for order in [[0, 1, 2, 3], [3, 2, 1, 0], [1, 2, 0, 3], [2, 0, 3, 1], [1, 3, 2, 0]] {
            #expect(clashes(order) == expected, "\(order)")
        }
    }
}
