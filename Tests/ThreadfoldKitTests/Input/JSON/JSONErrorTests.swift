import Testing

@testable import ThreadfoldKit

@Suite("JSON errors")
struct JSONErrorTests {
    static let text = "{\n  \"id\": true,\n  \"n\": [1, 2]\n}"

    @Test("a typed read's mismatch names the file, line:column, the path, what was expected and what was found")
    func mismatch() throws {
        let reader = try JSONReader(bytes: Array(Self.text.utf8), file: "t.json")
        let id = try #require(reader.member(reader.root, "id"))
        let failure = try #require(throws: JSONError.self) { try reader.string(id, "$.id") }
        #expect(!failure.isSyntax && failure.message == "expected a string, found true")
        #expect(reader.error(failure, suffix: " (a hint)").description == "t.json:2:9: error: $.id: expected a string, found true (a hint)")
    }

    @Test("a syntax error is located at its byte, as parsing reports it and as the reader turns it into a message")
    func syntax() throws {
        let bytes = Array("[1, 2,\n 3 4]".utf8)
        let failure = try #require(throws: JSONError.self) { try JSONDocument(bytes: bytes) }
        #expect(failure.isSyntax && failure.node == -1 && failure.message.hasPrefix("found '4'"))
        let errors = try #require(throws: ThreadfoldError.self) { try JSONReader(bytes: bytes, file: "t.json") }
        #expect(errors.problems.map(\.description) == ["t.json:2:4: error: \(failure.message)"])
        let reader = try JSONReader(bytes: Array("[1,\n 2]".utf8), file: "u.json")
        #expect(reader.error(JSONError(offset: 5, message: "found x; expected y")).description == "u.json:2:2: error: found x; expected y")
    }
}
