/// Where each of Threadfold's fields lives in someone else's JSON:
/// `id=objectID,parent=parent_id,author=user.name,body=comment_text,time=created_at,thread=story_id`.
///
/// Values are member names or dotted paths into nested objects. `id` is required; `thread`
/// groups comments into threads (one thread without it); `title`, `url` and `category` are read
/// from the first comment of each thread that has them.
public struct FieldMapping: Sendable, Equatable {
    public enum Field: String, Sendable, CaseIterable {
        case id, parent, thread, title, author, body, time, edited, score, deleted, url, category
    }

    /// Each mapped field's path, split at dots.
    public var paths: [Field: [String]]
    /// A parent value that means "top level" (besides null, "", 0 and the thread's id).
    public var topLevelParent: String?

    public init(paths: [Field: [String]], topLevelParent: String? = nil) {
        self.paths = paths
        self.topLevelParent = topLevelParent
    }

    /// Parses `key=path,key=path`. Errors say which part is wrong and what is expected.
    public static func parse(_ text: String) throws(MappingError) -> FieldMapping {
        var paths: [Field: [String]] = [:]
        for part in text.split(separator: ",", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces }
            guard pieces.count == 2, !pieces[1].isEmpty else {
                throw MappingError(message: "found '\(part)'; expected key=path, like id=objectID")
            }
            guard let field = Field(rawValue: pieces[0]) else {
                throw MappingError(message: "found the key '\(pieces[0])'; expected one of \(Field.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            try paths[field] = splitPath(pieces[1])
        }
        guard paths[.id] != nil else {
            throw MappingError(message: "the mapping has no id; expected id=<member> (every comment needs an id)")
        }
        return FieldMapping(paths: paths)
    }

    /// Reads a mapping file: `{"id": "objectID", "parent": "parent_id", …, "top_level_parent": "0"}`.
    package static func load(json bytes: [UInt8], file: String) throws(InputErrors) -> FieldMapping {
        let r = try JSONReader(bytes: bytes, file: file)
        var paths: [Field: [String]] = [:]
        var topLevel: String?
        do throws(JSONMismatch) {
            try r.members(r.root, "$", expected: "an object of field names to member paths, like {\"id\": \"objectID\"}") { key, value throws(JSONMismatch) in
                if key == "top_level_parent" {
                    guard r.kind(value) == .string || r.kind(value) == .number else {
                        throw r.mismatch(value, "$.top_level_parent", expected: "a string or a number")
                    }
                    topLevel = r.kind(value) == .string ? r.document.string(value) : r.document.numberText(value)
                    return
                }
                guard let field = Field(rawValue: key) else {
                    throw JSONMismatch(node: value, path: "$.\(key)", expected: "one of \(Field.allCases.map(\.rawValue).joined(separator: ", ")) or top_level_parent",
                                       found: "an unknown field")
                }
                let text = try r.string(value, "$.\(key)", expected: "a member path as a string")
                let parts = text.split(separator: ".", omittingEmptySubsequences: false)
                guard !parts.contains(where: \.isEmpty) else {
                    throw JSONMismatch(node: value, path: "$.\(key)", expected: "member names joined by dots, like user.name",
                                       found: "the path '\(text)'")
                }
                paths[field] = parts.map(String.init)
            }
            guard paths[.id] != nil else { throw JSONMismatch(node: r.root, path: "$.id", expected: "an id mapping", found: "none") }
        } catch {
            throw InputErrors([r.error(error)])
        }
        return FieldMapping(paths: paths, topLevelParent: topLevel)
    }

    static func splitPath(_ text: String) throws(MappingError) -> [String] {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.contains(where: \.isEmpty) else {
            throw MappingError(message: "found the path '\(text)'; expected member names joined by dots, like user.name")
        }
        return parts
    }
}

public struct MappingError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

private extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
