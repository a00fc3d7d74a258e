import Testing

@testable import ThreadfoldKit

@Suite("Thread paths")
struct ThreadPathsTests {
    @Test("slugs are lower-case ASCII words joined by dashes, capped at 50 characters between words")
    func slugs() {
        #expect(ThreadPaths.slug("Hello, World!") == "hello-world")
        #expect(ThreadPaths.slug("  Don't panic — it's fine  ") == "dont-panic-its-fine")
        #expect(ThreadPaths.slug("Crème brûlée für Straße") == "creme-brulee-fur-strasse")
        #expect(ThreadPaths.slug("你好，世界") == "ni-hao-shi-jie")
        #expect(ThreadPaths.slug("Привет мир") == "privet-mir")
        #expect(ThreadPaths.slug("") == "thread")
        #expect(ThreadPaths.slug("!!! ??? 🙂🙂") == "thread")
        let long = ThreadPaths.slug(String(repeating: "word ", count: 40))
        #expect(long.count <= ThreadPaths.slugLimit)
        #expect(!long.hasSuffix("-") && long.hasSuffix("word"))
        let unbroken = ThreadPaths.slug(String(repeating: "a", count: 200))
        #expect(unbroken.count == ThreadPaths.slugLimit)
    }

    @Test("ids become safe, distinct folder parts: case and normalisation twins differ, no traversal")
    func idParts() {
        let hostile = [
            "42", "abc", "ABC", "Abc", "../../etc/passwd", "/abs", "C:\\Windows", "con", "CON", "nul", ".hidden",
            "caf\u{E9}", "cafe\u{301}", "\u{212A}elvin", "Kelvin", "a b", "a/b", "a\u{202E}b", "zw\u{200B}j",
            String(repeating: "x", count: 300), "<script>", "\"q\"", "",
        ]
        var seen = Set<String>()
        for id in hostile {
            let part = ThreadPaths.idPart(CommentID(id))
            #expect(seen.insert(part).inserted, "\(id) collided")
            #expect(part.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "_") }, "\(part)")
            let folder = ThreadPaths.folder(title: id, id: CommentID(id))
            #expect(RelativePath.isSafe("t/" + folder))
            #expect(folder.contains("-"), "every folder has a dash, so never a device name")
            #expect(folder.lowercased() == folder)
        }
        #expect(ThreadPaths.idPart(CommentID("abc")) == "abc")
        #expect(ThreadPaths.idPart(CommentID("ABC")).hasPrefix("_"))
    }

    @Test("hrefs between pages are relative and end in index.html")
    func hrefs() {
        #expect(ThreadPaths.href(from: [], to: ["t", "a-1"]) == "t/a-1/index.html")
        #expect(ThreadPaths.href(from: ["t", "a-1"], to: []) == "../../index.html")
        #expect(ThreadPaths.href(from: ["t", "a-1", "c-9"], to: ["t", "a-1"], fragment: "c-2") == "../index.html#c-2")
        #expect(ThreadPaths.href(from: ["t", "a-1", "newest", "2"], to: ["t", "a-1", "top", "2"]) == "../../top/2/index.html")
        #expect(ThreadPaths.root(from: ["s", "meta", "2"]) == "../../../")
    }
}
