/// Threadfold's own format (docs/input-format.md) as a form: one thread, `{"threads": [...]}`, or
/// an array (JSON Lines) of thread objects, each read by `ThreadDecoder`. It is the last form
/// detection tries: any object with `comments` or `threads`, and any array of objects whose
/// first has `comments` or an `id` (or an empty array).
enum ThreadfoldForm: ImporterForm {
    static let name = "threadfold"
    static let described = "a Threadfold thread"
    static let auditsUnreadArrays = true

    static func detect(_ json: JSONReader) -> Bool {
        let root = json.root
        if json.isArray(root) {
            guard let first = json.firstElement(root) else { return true }
            return json.isObject(first) && (json.has(first, "comments") || json.has(first, "id"))
        }
        return json.has(root, "comments") || json.member(root, "threads", is: .array) != nil
    }

    static func isWholeThread(_ json: JSONReader) -> Bool {
        json.has(json.root, "comments")
    }

    /// The threads of a file of many (`{"threads": [...]}`, or an array whose first element
    /// is a thread object, with `comments`) and their JSON path after `$`; nil for any other.
    static func threadList(_ json: JSONReader) -> (node: Int, path: String)? {
        let root = json.root
        if !json.has(root, "comments"), let threads = json.member(root, "threads", is: .array) {
            return (threads, ".threads")
        }
        if let first = json.firstElement(root), json.has(first, "comments") {
            return (root, "")
        }
        return nil
    }

    /// `threadList(_:)` of parsed JSON, for splitting a file of many threads into its threads.
    static func threadList(_ parsed: JSONDocument) -> (node: Int, path: String)? {
        threadList(JSONReader(document: parsed, file: ""))
    }

    static func decode(_ context: inout ImportContext) throws(ThreadfoldError) -> [ThreadRecord] {
        let json = context.reader, lenient = context.options.lenient
        guard let list = threadList(json) else {
            return [try ThreadDecoder.decode(json, at: json.root, path: "", lenient: lenient, skipped: &context.skipped)]
        }
        var threads: [ThreadRecord] = []
        var errors: [Problem] = []
        for (position, element) in json.elements(of: list.node) {
            do {
                threads.append(
                    try ThreadDecoder.decode(json, at: element, path: "\(list.path)[\(position)]", lenient: lenient, skipped: &context.skipped))
            } catch {
                errors.append(contentsOf: error.problems)
                if errors.isFull { break }
            }
        }
        if !errors.isEmpty { throw ThreadfoldError.input(errors) }
        return threads
    }
}
