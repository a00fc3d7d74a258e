import Testing

@testable import ThreadfoldKit

@Suite("A server's error saved in place of an export")
struct ServerResponseTests {
    static func error(_ text: String, format: SourceFormat = .auto) throws -> String {
        let errors = try #require(throws: ThreadfoldError.self) {
            try Importer.read(bytes: Array(text.utf8), file: "saved.json", options: ImportOptions(format: format))
        }
        #expect(errors.problems.count == 1)
        return errors.problems[0].description
    }

    @Test(
        "JSON that holds only an error is named as the server's, with its code and words, before any form is guessed or named",
        arguments: [SourceFormat.auto, .reddit, .discourse])
    func json(format: SourceFormat) throws {
        #expect(
            try Self.error(#"{"message": "Too Many Requests", "error": 429}"#, format: format)
                == "saved.json:1:1: error: $: this is an error response from the server (429 Too Many Requests), not an export; expected the JSON the API returns when the request succeeds")
        #expect(
            try Self.error(#"{"errors": ["The requested URL or resource could not be found."], "error_type": "not_found"}"#, format: format)
                == "saved.json:1:1: error: $: this is an error response from the server (not_found: The requested URL or resource could not be found.), not an export; expected the JSON the API returns when the request succeeds"
        )
        #expect(
            try Self.error(#"{"message": "Not Found", "documentation_url": "https://docs.github.com/rest", "status": "404"}"#, format: format)
                .contains("(404 Not Found), not an export"))
        #expect(try Self.error(#"{"error": "couldnt_find_post"}"#, format: format).contains("(couldnt_find_post), not an export"))
    }

    @Test("an HTML page is named as one, with its title, not as a JSON syntax error")
    func html() throws {
        let page = "\n<!DOCTYPE html>\n<html><head><TITLE>\n  429 Too Many\n Requests </TITLE></head><body><h1>Too many</h1></body></html>"
        #expect(
            try Self.error(page)
                == "saved.json:1:1: error: this is an HTML page (429 Too Many Requests), not an export: an error response from the server, or a web page saved in place of its JSON; expected the JSON the API returns"
        )
        #expect(
            try Self.error("<html><body>no title", format: .hn).hasSuffix(
                "error: this is an HTML page, not an export: an error response from the server, or a web page saved in place of its JSON; expected the JSON the API returns"))
    }

    @Test("a thread with a message or errors beside its comments is still read")
    func notAnError() throws {
        let thread = #"{"message": "hello", "errors": [], "comments": [{"id": 1, "author": "a", "body": "x"}]}"#
        #expect(try Importer.read(bytes: Array(thread.utf8), file: "t.json").threads[0].comments.count == 1)
    }

    @Test("a file cut inside a string says it is cut short")
    func truncated() throws {
        let message = try Self.error(#"{"comments": [{"id": 1, "body": "half a sen"#)
        #expect(message == #"saved.json:1:33: error: the file is cut short (truncated) inside the string that starts here; expected the rest of the file, from the string's closing '"' on"#)
    }
}
