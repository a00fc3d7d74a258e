/// Threadfold's own format (docs/input-format.md) as a form: one thread, `{"threads": [...]}`, or
/// an array (JSON Lines) of thread objects, each read by `ThreadDecoder`. It is the last form
/// detection tries: any object with `comments` or `threads`, and any array of objects whose
/// first has `comments` or an `id` (or an empty array).
enum ThreadfoldForm: ImporterForm {
    static let name = "threadfold"
    static let described = "a Threadfold thread"
    static let auditsUnreadArrays = true

    static func detect(_ document: JSONDocument) -> Bool {
        let root = document.root
        switch document.kind(root) {
        case .array:
            guard document.count(root) > 0 else { return true }
            let first = root + 1
            return document.kind(first) == .object && (document.member(first, "comments") != nil || document.member(first, "id") != nil)
        case .object:
            if document.member(root, "comments") != nil { return true }
            if let threads = document.member(root, "threads"), document.kind(threads) == .array { return true }
            return false
        default:
            return false
        }
    }

    static func isWholeThread(_ document: JSONDocument) -> Bool {
        document.kind(document.root) == .object && document.member(document.root, "comments") != nil
    }

    /// The threads of a document of many (`{"threads": [...]}`, or an array whose first element
    /// is a thread object, with `comments`) and their JSON path after `$`; nil for any other
    /// document.
    static func threadList(_ document: JSONDocument) -> (node: Int, path: String)? {
        let root = document.root
        if document.kind(root) == .object, document.member(root, "comments") == nil,
            let threads = document.member(root, "threads"), document.kind(threads) == .array
        {
            return (threads, ".threads")
        }
        if document.kind(root) == .array, document.count(root) > 0, document.kind(root + 1) == .object,
            document.member(root + 1, "comments") != nil
        {
            return (root, "")
        }
        return nil
    }

    static func decode(_ context: inout ImportContext) throws(ThreadfoldError) -> [ThreadRecord] {
        let document = context.document, file = context.file, lenient = context.options.lenient
        guard let list = threadList(document) else {
            return [try ThreadDecoder.decode(document: document, file: file, lenient: lenient, skipped: &context.skipped)]
        }
        var threads: [ThreadRecord] = []
        var errors: [Problem] = []
        var elements: [Int] = []
        document.forEachElement(list.node) { _, element in elements.append(element) }
        for (position, element) in elements.enumerated() {
            do {
                threads.append(
                    try ThreadDecoder.decode(
                        document: document, at: element, path: "\(list.path)[\(position)]",
                        file: file, lenient: lenient, skipped: &context.skipped))
            } catch {
                errors.append(contentsOf: error.problems)
                if errors.isFull { break }
            }
        }
        if !errors.isEmpty { throw ThreadfoldError.input(errors) }
        return threads
    }
}
