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

    @Test(
        "a relative path is safe only when every segment is non-empty, starts with no dot and holds no NUL",
        arguments: [
            ("a", true), ("a/b", true), ("t/x-1/index.html", true), ("u/é/index.html", true), ("a.b/c.d", true),
            ("", false), ("/a", false), ("a//b", false), ("a/", false), (".a", false), ("a/.b", false), ("a/..", false),
            ("a/.", false), ("../a", false), ("a\u{0}b", false), ("/", false),
        ])
    func safe(_ path: String, _ safe: Bool) {
        #expect(RelativePath.isSafe(path) == safe)
    }

    @Test("safeSegments are the segments of a safe path, and nil for any other")
    func safeSegments() {
        #expect(RelativePath.safeSegments("t/x-1/index.html")?.map(String.init) == ["t", "x-1", "index.html"])
        #expect(RelativePath.safeSegments("t//index.html") == nil)
        #expect(RelativePath.safeSegments("t/../index.html") == nil)
    }

    @Test("a combining mark after '/' does not hide the slash: the file system splits there, and so does this")
    func combiningMark() {
        let path = "a/\u{0338}b/c"
        // A Character split sees "/\u{0338}" as one character, not a slash.
        #expect(path.split(separator: "/").count == 2)
        #expect(RelativePath.segments(path).map(String.init) == ["a", "\u{0338}b", "c"])
        #expect(RelativePath.isSafe(path))
    }
}
