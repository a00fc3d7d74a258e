/// Every word a page shows, for one locale, with plural rules and date formats.
///
/// Locales are JSON files (`Templates/locales/<tag>.json`, documented in docs/templates.md):
/// a message is a string or, when it counts something, an object keyed by CLDR plural
/// category (`zero`, `one`, `two`, `few`, `many`, `other`). `{count}` and other `{names}` are
/// filled in; values are plain text and escaped like any other string.
public final class StringsTable: Sendable {
    public let locale: String
    public let direction: String
    let rule: PluralRule
    let months: [String]
    let datePattern: Pattern
    let monthPattern: Pattern
    let groupSeparator: String
    let separator: String
    let messages: [String: [String: Pattern]]
    /// Messages without fields, filled once.
    let constants: [String: String]

    /// A message split once into literal text and `{field}` slots.
    struct Pattern: Sendable {
        enum Part: Sendable { case text(String), field(String) }
        let parts: [Part]

        init(_ text: String) {
            var parts: [Part] = []
            var rest = Substring(text)
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
                parts.append(.field(String(rest[rest.index(after: open)..<close])))
                rest = rest[rest.index(after: close)...]
            }
            if !rest.isEmpty { parts.append(.text(String(rest))) }
            self.parts = parts
        }

        func fill(_ value: (String) -> String?) -> String {
            var out = ""
            for part in parts {
                switch part {
                case .text(let text): out += text
                case .field(let name): out += value(name) ?? "{\(name)}"
                }
            }
            return out
        }
    }

    enum PluralRule: String, Sendable {
        /// English, German, Dutch, Swedish, …: one for 1, other otherwise.
        case oneOther = "one-other"
        /// Chinese, Japanese, Korean, Vietnamese, …: no plural forms.
        case other
        /// French, Portuguese (Brazil): one for 0 and 1.
        case zeroOneOther = "french"
        /// Russian, Ukrainian, …: one, few, many.
        case slavic
        /// Polish: one, few, many.
        case polish
        /// Arabic: zero, one, two, few, many, other.
        case arabic

        func category(_ n: Int) -> String {
            let n10 = n % 10, n100 = n % 100
            switch self {
            case .oneOther: return n == 1 ? "one" : "other"
            case .other: return "other"
            case .zeroOneOther: return n == 0 || n == 1 ? "one" : "other"
            case .slavic:
                if n10 == 1 && n100 != 11 { return "one" }
                if (2...4).contains(n10) && !(12...14).contains(n100) { return "few" }
                return "many"
            case .polish:
                if n == 1 { return "one" }
                if (2...4).contains(n10) && !(12...14).contains(n100) { return "few" }
                return "many"
            case .arabic:
                if n == 0 { return "zero" }
                if n == 1 { return "one" }
                if n == 2 { return "two" }
                if (3...10).contains(n100) { return "few" }
                if (11...99).contains(n100) { return "many" }
                return "other"
            }
        }
    }

    /// Reads a locale file. Errors name the file and the JSON path.
    public init(json bytes: [UInt8], file: String) throws(InputErrors) {
        let document: JSONDocument
        do { document = try JSONDocument(bytes: bytes) } catch {
            let (line, column) = JSONDocument.location(in: bytes, offset: error.offset)
            throw InputErrors([InputError(file: file, line: line, column: column, message: error.message)])
        }
        func fail(_ path: String, _ message: String) -> InputErrors {
            InputErrors([InputError(file: file, path: path, message: message)])
        }
        let root = document.root
        guard document.kind(root) == .object else { throw fail("$", "expected an object") }
        func text(_ key: String, default value: String? = nil) throws(InputErrors) -> String {
            guard let node = document.member(root, key) else {
                if let value { return value }
                throw fail("$.\(key)", "expected a string, found none")
            }
            guard document.kind(node) == .string else { throw fail("$.\(key)", "expected a string, found \(document.kind(node).described)") }
            return document.string(node)
        }
        locale = try text("locale")
        direction = try text("direction", default: "ltr")
        let ruleName = try text("plural_rule", default: "one-other")
        guard let rule = PluralRule(rawValue: ruleName) else {
            throw fail("$.plural_rule", "found \"\(ruleName)\"; expected one of one-other, other, french, slavic, polish, arabic")
        }
        self.rule = rule
        groupSeparator = try text("group_separator", default: ",")
        separator = try text("separator", default: " · ")
        datePattern = Pattern(try text("date", default: "{year}-{month_number}-{day}"))
        monthPattern = Pattern(try text("month", default: "{year}-{month_number}"))
        var months: [String] = []
        if let list = document.member(root, "months"), document.kind(list) == .array, document.count(list) == 12 {
            document.forEachElement(list) { _, item in months.append(document.kind(item) == .string ? document.string(item) : "") }
        } else {
            throw fail("$.months", "expected an array of 12 month names")
        }
        self.months = months
        var messages: [String: [String: Pattern]] = [:]
        guard let table = document.member(root, "messages"), document.kind(table) == .object else {
            throw fail("$.messages", "expected an object of messages")
        }
        var problem: InputErrors?
        document.forEachMember(table) { key, value in
            switch document.kind(value) {
            case .string: messages[key] = ["other": Pattern(document.string(value))]
            case .object:
                var forms: [String: Pattern] = [:]
                document.forEachMember(value) { category, form in
                    if document.kind(form) == .string { forms[category] = Pattern(document.string(form)) }
                    else { problem = fail("$.messages.\(key).\(category)", "expected a string") }
                }
                if forms["other"] == nil && forms["many"] == nil {
                    problem = fail("$.messages.\(key)", "expected at least an \"other\" form")
                }
                messages[key] = forms
            default:
                problem = fail("$.messages.\(key)", "expected a string or an object of plural forms, found \(document.kind(value).described)")
            }
        }
        if let problem { throw problem }
        self.messages = messages
        var constants: [String: String] = [:]
        for (key, forms) in messages where forms.count == 1 {
            if let form = forms["other"], !form.parts.contains(where: { if case .field = $0 { return true } else { return false } }) {
                constants[key] = form.fill { _ in nil }
            }
        }
        self.constants = constants
    }

    /// The message `key`, with `{count}` (choosing the plural form) and other fields filled in.
    /// A key the locale lacks shows as the key itself, so a gap is visible, not silent.
    public func text(_ key: String, count: Int? = nil, _ fields: [String: String] = [:]) -> String {
        if count == nil, let constant = constants[key] { return constant }
        guard let forms = messages[key] else { return key }
        let pattern: Pattern?
        if let count {
            pattern = forms[rule.category(count)] ?? forms["other"] ?? forms["many"]
        } else {
            pattern = forms["other"] ?? forms.values.first
        }
        guard let pattern else { return key }
        return pattern.fill { name in
            if name == "count", let count { return self.number(count) }
            return fields[name]
        }
    }

    /// Pieces joined with the locale's separator (" · " in English).
    public func join(_ parts: [String]) -> String { parts.joined(separator: separator) }

    /// An integer with the locale's grouping separator: 12,345.
    public func number(_ n: Int) -> String {
        let digits = String(n.magnitude)
        guard digits.count > 3, !groupSeparator.isEmpty else { return n < 0 ? "-" + digits : digits }
        var out = ""
        for (i, character) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += groupSeparator }
            out.append(character)
        }
        return n < 0 ? "-" + out : out
    }

    /// A date in UTC, in the locale's pattern: `3 Mar 2024`, `2024年3月3日`.
    public func date(_ time: Timestamp) -> String { fill(datePattern, time) }

    /// A month in UTC, in the locale's pattern: `Mar 2024`, `2024年3月`.
    public func month(_ time: Timestamp) -> String { fill(monthPattern, time) }

    private func fill(_ pattern: Pattern, _ time: Timestamp) -> String {
        let c = time.components
        return pattern.fill { name in
            switch name {
            case "day": return String(c.day)
            case "month_number": return String(c.month)
            case "month": return months[Int(c.month) - 1]
            case "year": return String(c.year)
            default: return nil
            }
        }
    }
}
