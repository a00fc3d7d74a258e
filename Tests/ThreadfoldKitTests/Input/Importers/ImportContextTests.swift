import Testing

@testable import ThreadfoldKit

@Suite("Import context")
struct ImportContextTests {
    static func context(_ text: String) throws -> ImportContext {
        ImportContext(reader: try JSONReader(bytes: Array(text.utf8), file: "t.json"), format: .mapped)
    }

    @Test("each object element is handed over with its position and path; any other element is an error at its place")
    func forEachObject() throws {
        var context = try Self.context(#"{"list": [{"a": "x"}, 7, {"a": "y"}]}"#)
        let found = context.read(context.reader.root, "list", "$", as: .array)
        let list = try #require(found)
        var seen: [String] = []
        context.forEachObject(in: list, "$.list", what: "a comment") { context, position, object, path in
            seen.append("\(position) \(path) \(context.read(object, "a", path, as: .string) ?? "-")")
        }
        #expect(seen == ["0 $.list[0] x", "2 $.list[2] y"])
        #expect(context.errors.map(\.description) == ["t.json:1:23: error: $.list[1]: expected a comment object, found a number (read as \(SourceFormat.mapped.described))"])
    }

    @Test("elements stop being read once the errors reach their limit")
    func errorLimit() throws {
        let elements = Array(repeating: "1", count: ThreadDecoder.errorLimit + 5) + [#"{"a": "x"}"#]
        var context = try Self.context("[" + elements.joined(separator: ", ") + "]")
        var seen = 0
        context.forEachObject(in: context.reader.root, "$", what: "a comment") { _, _, _, _ in seen += 1 }
        #expect(seen == 0 && context.errors.count == ThreadDecoder.errorLimit && context.errors.isFull)
        context.fail(context.reader.root, "$", "one more")
        #expect(context.errors.count == ThreadDecoder.errorLimit)
    }

    @Test("requireObject answers an object and reports anything else, naming what was expected")
    func requireObject() throws {
        var context = try Self.context(#"[{}, "s"]"#)
        #expect(context.requireObject(1, "$[0]", what: "a status") == 1)
        #expect(context.requireObject(2, "$[1]", what: "a status") == nil)
        #expect(context.errors.first?.message.hasPrefix("expected a status object, found a string") == true)
    }
}
