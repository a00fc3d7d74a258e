/// A value a template can see.
///
/// `.html` is written as is by `{{x}}` and `{{{x}}}` alike (never escaped twice); `.string`
/// is escaped by `{{x}}`. Objects answer key lookups themselves, so page models need not be
/// copied into dictionaries.
public enum MustacheValue {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case html(HTML)
    case list([MustacheValue])
    case object(any MustacheObject)

    /// Falsey values skip `{{#x}}` sections and show `{{^x}}` ones: false, null, empty lists,
    /// empty strings and zero, as in JavaScript's `!!value`, which the spec follows.
    public var isFalsey: Bool {
        switch self {
        case .null: return true
        case .bool(let value): return !value
        case .int(let value): return value == 0
        case .double(let value): return value == 0 || value.isNaN
        case .string(let value): return value.isEmpty
        case .html(let value): return value.raw.isEmpty
        case .list(let items): return items.isEmpty
        case .object: return false
        }
    }

    /// The value of `key` in this value, or nil when it has none (lookup goes on outward).
    @inline(__always)
    func member(_ key: String) -> MustacheValue? {
        if case .object(let object) = self { return object.value(forKey: key) }
        return nil
    }
}

/// Something that answers `{{key}}` lookups. Return nil for keys it does not have, so lookup
/// continues in the enclosing context; return `.null` for keys it has but that are empty, so a
/// nested comment's missing replies do not resolve to its parent's.
public protocol MustacheObject {
    func value(forKey key: String) -> MustacheValue?
    /// True when which keys an object has depends only on its type, so that after one object
    /// of the type misses a key the renderer can skip the others on the context stack (which
    /// keeps lookups cheap inside deeply nested comments). False by default.
    static var keysDependOnTypeOnly: Bool { get }
}

extension MustacheObject {
    public static var keysDependOnTypeOnly: Bool { false }
}

/// A plain dictionary of values.
public struct MustacheDictionary: MustacheObject {
    public var values: [String: MustacheValue]
    public init(_ values: [String: MustacheValue]) { self.values = values }
    public func value(forKey key: String) -> MustacheValue? { values[key] }
}

extension MustacheValue {
    /// Converts a JSON value (used by the spec suites and the locale files), iteratively.
    public init(json document: JSONDocument, at index: Int) {
        // Build bottom-up: walk the tape backwards so children exist before their parents.
        var built: [Int: MustacheValue] = [:]
        let end = document.next(index)
        var i = end - 1
        while i >= index {
            let value: MustacheValue
            switch document.kind(i) {
            case .null: value = .null
            case .true: value = .bool(true)
            case .false: value = .bool(false)
            case .string: value = .string(document.string(i))
            case .number:
                if let int = document.int64(i), let exact = Int(exactly: int) { value = .int(exact) }
                else { value = .double(document.double(i) ?? 0) }
            case .array:
                var items: [MustacheValue] = []
                document.forEachElement(i) { _, element in items.append(built.removeValue(forKey: element) ?? .null) }
                value = .list(items)
            case .object:
                var values: [String: MustacheValue] = [:]
                document.forEachMember(i) { key, member in values[key] = built.removeValue(forKey: member) ?? .null }
                value = .object(MustacheDictionary(values))
            }
            built[i] = value
            i -= 1
        }
        self = built[index] ?? .null
    }
}
