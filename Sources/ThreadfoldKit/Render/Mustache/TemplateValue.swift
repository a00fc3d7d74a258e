/// A value a template sees, in a model whose objects are `Node`s.
///
/// `.text` is always escaped, by `{{x}}` and `{{{x}}}` alike: every string from the input is
/// text. `.html` (cmark's output, sanitised bodies, the templates' own markup) is always written
/// as is. `.literal` exists only for template data written by the template's author (the
/// Mustache spec suites): `{{x}}` escapes it and `{{{x}}}` does not.
package enum TemplateValue<Node> {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case text(String)
    case literal(String)
    case html(HTML)
    case node(Node)
    case list([TemplateValue<Node>])

    /// Falsey values skip `{{#x}}` sections and show `{{^x}}` ones: false, null, empty lists,
    /// empty strings and zero, as in JavaScript's `!!value`, which the spec follows.
    var isFalsey: Bool {
        switch self {
        case .null: return true
        case .bool(let value): return !value
        case .int(let value): return value == 0
        case .double(let value): return value == 0 || value.isNaN
        case .text(let value), .literal(let value): return value.isEmpty
        case .html(let value): return value.raw.isEmpty
        case .list(let items): return items.isEmpty
        case .node: return false
        }
    }
}

/// What a template renders: a model that answers key lookups on its own nodes, which are plain
/// values (indices into the model's arrays), so the context stack holds no references.
package protocol TemplateModel {
    associatedtype Node

    /// The value of `key` in `node`, or nil when the node has no such key (lookup goes on
    /// outward). A node that has the key but nothing in it answers `.null`, so a nested comment's
    /// missing replies never resolve to its parent's.
    func value(_ key: TemplateKey, of node: Node) -> TemplateValue<Node>?

    /// A number below 64 naming the node's kind when which keys a node has depends on its kind
    /// alone, so that after one node of a kind misses a key the others on the stack are skipped
    /// (which keeps page-level lookups cheap inside deeply nested comments); nil otherwise.
    func kind(of node: Node) -> Int?

    /// The kinds (`kind(of:)`) of the nodes that may have `key`, as bits: a lookup passes nodes of
    /// other kinds by without asking them (so a page-level name inside deeply nested comments asks
    /// the page alone). Every bit, the default, when the model does not say.
    func kinds(answering key: TemplateKey) -> UInt64
}

extension TemplateModel {
    package func kinds(answering key: TemplateKey) -> UInt64 { ~0 }
}

/// Data as a template's author writes it: dictionaries, lists and literals, as the Mustache spec
/// suites give it in JSON.
package struct TemplateData: TemplateModel {
    package struct Object {
        package var values: [String: TemplateValue<Object>]
        package init(_ values: [String: TemplateValue<Object>]) { self.values = values }
    }

    /// The template set's names, by slot: objects hold their values by name.
    let names: [String]

    /// Data for the templates of `set`, whose table names their keys.
    package init(_ set: TemplateSet) { names = set.keys.names }

    package func value(_ key: TemplateKey, of node: Object) -> TemplateValue<Object>? {
        assert(Int(key.slot) < names.count, "a key of another template set")
        return Int(key.slot) < names.count ? node.values[names[Int(key.slot)]] : nil
    }
    package func kind(of node: Object) -> Int? { nil }

    /// Converts a JSON value, iteratively: strings become literals.
    package static func value(json document: JSONDocument, at index: Int) -> TemplateValue<Object> {
        // Build bottom-up: walk the tape backwards so children exist before their parents.
        var built: [Int: TemplateValue<Object>] = [:]
        let end = document.next(index)
        var i = end - 1
        while i >= index {
            let value: TemplateValue<Object>
            switch document.kind(i) {
            case .null: value = .null
            case .true: value = .bool(true)
            case .false: value = .bool(false)
            case .string: value = .literal(document.string(i))
            case .number:
                if let int = document.int64(i), let exact = Int(exactly: int) { value = .int(exact) } else { value = .double(document.double(i) ?? 0) }
            case .array:
                var items: [TemplateValue<Object>] = []
                document.forEachElement(i) { _, element in items.append(built.removeValue(forKey: element) ?? .null) }
                value = .list(items)
            case .object:
                var values: [String: TemplateValue<Object>] = [:]
                document.forEachMember(i) { key, member in values[key] = built.removeValue(forKey: member) ?? .null }
                value = .node(Object(values))
            }
            built[i] = value
            i -= 1
        }
        return built[index] ?? .null
    }
}
