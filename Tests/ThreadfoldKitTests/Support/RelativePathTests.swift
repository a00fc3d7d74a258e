import Testing

@testable import ThreadfoldKit

@Suite("Relative paths")
struct RelativePathTests {
    @Test(
        "a path's segments are split at '/' bytes, empty ones left out",
        arguments: [
            ("t/slug/index.html", ["t", "slug", "index.html"]),
            ("index.html", ["index.html"]),
            ("/a//b/", ["a", "b"]),
            ("", []),
            ("u/名前-1f2e/index.html", ["u", "名前-1f2e", "index.html"]),
        ])
    func segments(path: String, expected: [String]) {
        #expect(RelativePath.segments(path).map(String.init) == expected)
    }

    @Test("a combining mark after '/' does not hide the slash: the file system splits there, and so does this")
    func combiningMark() {
        let path = "a/\u{0338}b/c"
        // A Character split sees "/\u{0338}" as one character, not a slash.
        #expect(path.split(separator: "/").count == 2)
        #expect(RelativePath.segments(path).map(String.init) == ["a", "\u{0338}b", "c"])
        #expect(SiteWriter.isSafeRelativePath(path))
    }
}
