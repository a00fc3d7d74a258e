/// A server's error saved in place of an export: an HTML page (a rate limit's, a login wall's,
/// a 404's), or a JSON body that holds only an error (Reddit's `{"message": "Too Many Requests",
/// "error": 429}`, Discourse's `{"errors": [...], "error_type": "not_found"}`, GitHub's
/// `{"message": "Not Found", ...}`, Lemmy's and Mastodon's `{"error": "..."}`). `Importer.read`
/// asks before it parses or tells forms apart, so the message gives the server's own words
/// rather than a syntax error or the list of forms.
enum ServerResponse {
    /// The most characters of the server's words a message quotes.
    static let quoteLimit = 200

    /// An error for bytes that are an HTML page (their first byte after white space and a
    /// byte-order mark is `<`, and they are not XML), naming the page's title; nil otherwise.
    static func html(_ bytes: [UInt8], file: String) -> Problem? {
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        guard start < bytes.count, bytes[start] == UInt8(ascii: "<"), !bytes[start...].starts(with: Array("<?xml".utf8)) else { return nil }
        let title = self.title(bytes, from: start)
        let words = title.map { " (\($0))" } ?? ""
        return Problem(
            file: file, line: 1, column: 1,
            message: "this is an HTML page\(words), not an export: an error response from the server, or a web page saved in place of its JSON; expected the JSON the API returns")
    }

    /// An error for a document whose root is an object holding only an error (`error`, `errors`
    /// or `message`, beside nothing but scalars), with the server's code and words; nil otherwise.
    static func json(_ json: JSONReader) -> Problem? {
        let root = json.root
        guard json.isObject(root), json.size(root) <= 8, ["error", "errors", "message"].contains(where: { json.has(root, $0) }) else { return nil }
        // Only scalars beside the error (its `errors` may be a list).
        let scalarsOnly = json.members(of: root).allSatisfy { member in
            !(json.isObject(member.value) || json.isArray(member.value)) || json.key(member.key) == "errors"
        }
        guard scalarsOnly else { return nil }
        func text(_ key: String) -> String? {
            json.member(root, key).flatMap { json.scalarText($0) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        // A status code: `error` as a number (Reddit), or `status`, `status_code`, `code`.
        var code = json.member(root, "error", is: .number).flatMap { json.scalarText($0) }
        for key in ["status", "status_code", "code"] where code == nil { code = text(key) }
        var said: [String] = []
        for key in ["message", "error"] {
            if let value = json.text(root, key), !value.isEmpty { said.append(value) }
        }
        if let errors = json.member(root, "errors", is: .array) {
            for (_, element) in json.elements(of: errors) {
                if let value = json.text(element) ?? json.text(element, "message") { said.append(value) }
            }
        } else if let errors = text("errors") {
            said.append(errors)
        }
        if let type = text("error_type") { said.insert(type + ":", at: 0) }
        var words = ([code].compactMap { $0 } + said).joined(separator: " ")
        if words.count > quoteLimit { words = String(words.prefix(quoteLimit)) + "…" }
        return Problem(
            file: json.file, line: 1, column: 1, path: "$",
            message: "this is an error response from the server\(words.isEmpty ? "" : " (\(words))"), not an export; expected the JSON the API returns when the request succeeds")
    }

    /// The text of the page's first `<title>`, white space collapsed, at most `quoteLimit`
    /// characters; nil when there is none. Looks at the first 64 KiB only.
    static func title(_ bytes: [UInt8], from start: Int) -> String? {
        let head = bytes[start..<min(bytes.count, start + 65_536)]
        let lowered = head.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        guard let open = ByteSearch.first(Array("<title".utf8), in: lowered),
            let close = lowered[(open + 6)...].firstIndex(of: UInt8(ascii: ">"))
        else { return nil }
        let end = ByteSearch.first(Array("</title".utf8), in: lowered, from: close + 1) ?? lowered.count
        let text = String(decoding: head[(head.startIndex + close + 1)..<(head.startIndex + end)], as: UTF8.self)
        let words = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        guard !words.isEmpty else { return nil }
        return words.count > quoteLimit ? String(words.prefix(quoteLimit)) + "…" : words
    }
}
