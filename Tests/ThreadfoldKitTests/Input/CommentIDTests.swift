import Foundation
import Testing

@testable import ThreadfoldKit

@Suite("Comment ids")
struct CommentIDTests {
    @Test("ids are equal exactly when their UTF-8 bytes are, whatever Unicode says and however long")
    func bytesDecide() {
        let long = String(repeating: "abcdefgh", count: 40)
        let pairs: [(String, String, Bool)] = [
            ("", "", true), ("t1_abc", "t1_abc", true), ("t1_abc", "t1_abd", false), ("t1_ab", "t1_abc", false),
            // Canonically equivalent, different bytes: NFC and NFD, the Kelvin sign and K.
            ("\u{E9}", "e\u{301}", false), ("\u{212A}", "K", false),
            // Past the 15 bytes a small string holds inline, and a native copy of a bridged one.
            (long, String(long.utf8.map { Character(UnicodeScalar($0)) }), true), (long, long + "x", false),
            (long, NSString(string: long) as String, true), ("caf\u{E9}", NSString(string: "cafe\u{301}") as String, false),
        ]
        for (a, b, equal) in pairs {
            #expect((CommentID(a) == CommentID(b)) == equal, "\(Array(a.utf8)) against \(Array(b.utf8))")
            if equal { #expect(CommentID(a).hashValue == CommentID(b).hashValue) }
            // As dictionary keys, as the tree builder holds them.
            let table = [CommentID(a): 1]
            #expect((table[CommentID(b)] != nil) == equal)
        }
    }
}
