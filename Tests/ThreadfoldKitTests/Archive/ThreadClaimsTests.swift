import Testing

@testable import ThreadfoldKit

@Suite("Thread claims")
struct ThreadClaimsTests {
    @Test("an id or folder claimed twice names the first claim's source, whether or not hashes collide", arguments: [false, true])
    func conflicts(collide: Bool) {
        let claims = collide ? ThreadClaims(hash: { _ in 42 }) : ThreadClaims()
        for n in 0..<500 {
            #expect(claims.claim(id: Array("id\(n)".utf8), folder: "t/thread-\(n)", source: "RC.zst:\(n + 1)") == nil)
        }
        #expect(claims.claim(id: Array("id7".utf8), folder: "t/other", source: "x") == "RC.zst:8")
        #expect(claims.claim(id: Array("new".utf8), folder: "t/thread-499", source: "x") == "RC.zst:500")
        #expect(claims.claim(id: Array("ID7".utf8), folder: "t/thread-7b", source: "y") == nil)
        #expect(claims.claim(id: Array("ID7".utf8), folder: "t/thread-7c", source: "z") == "y")
    }
}
