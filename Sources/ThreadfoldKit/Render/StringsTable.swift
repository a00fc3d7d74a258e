import Synchronization

/// Every word a page shows, for one locale, with plural rules and date formats.
///
/// Locales are JSON files (`Templates/locales/<tag>.json`, documented in docs/templates.md):
/// a message is a string or, when it counts something, an object keyed by CLDR plural
/// category (`zero`, `one`, `two`, `few`, `many`, `other`). `{count}` and other `{names}` are
/// filled in; values are plain text and escaped like any other string.
package final class StringsTable: Sendable {
    package let locale: String
    package let direction: String
    let rule: PluralRule
    let months: [String]
    let datePattern: DatePattern
    let monthPattern: DatePattern
    let groupSeparator: String
    let separator: String
    let messages: [String: [String: Pattern]]
    /// Messages without fields, filled once.
    let constants: [String: String]
    /// Messages whose only field is `{count}`, filled in for the counts below `countedLimit`:
    /// reply summaries ask for them on every comment, and this spares the plural rule, the
    /// pattern and the number formatting. Each is filled when it is first asked for
    /// (`countedTable`): filling all of them at every start was a tenth of rendering one thread.
    private let countedKeys: Set<String>
    private let countedTables = Mutex<[String: [String]]>([:])
    static let countedLimit = 128

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
    package init(json bytes: [UInt8], file: String) throws(ThreadfoldError) {
        let r = try JSONReader(bytes: bytes, file: file)
        do throws(JSONError) {
            let root = try r.object(r.root, "$")
            func text(_ key: String, default value: String? = nil) throws(JSONError) -> String {
                guard let node = r.member(root, key) else {
                    if let value { return value }
                    throw JSONError(node: root, path: "$.\(key)", expected: "a string", found: "none")
                }
                return try r.string(node, "$.\(key)")
            }
            locale = try text("locale")
            direction = try text("direction", default: "ltr")
            let ruleName = try text("plural_rule", default: "one-other")
            guard let rule = PluralRule(rawValue: ruleName) else {
                throw r.mismatch(
                    r.member(root, "plural_rule") ?? root, "$.plural_rule",
                    expected: "one of one-other, other, french, slavic, polish, arabic")
            }
            self.rule = rule
            groupSeparator = try text("group_separator", default: ",")
            separator = try text("separator", default: " · ")
            datePattern = DatePattern(Pattern(try text("date", default: "{year}-{month_number}-{day}")))
            monthPattern = DatePattern(Pattern(try text("month", default: "{year}-{month_number}")))
            let monthsNode = r.member(root, "months") ?? root
            let months = try r.strings(monthsNode, "$.months", expected: "an array of 12 month names")
            guard months.count == 12 else {
                throw JSONError(node: monthsNode, path: "$.months", expected: "an array of 12 month names", found: "an array of \(months.count)")
            }
            self.months = months
            var messages: [String: [String: Pattern]] = [:]
            try r.members(r.member(root, "messages") ?? root, "$.messages", expected: "an object of messages") { key, value throws(JSONError) in
                if let text = r.text(value) {
                    messages[key] = ["other": Pattern(text)]
                    return
                }
                var forms: [String: Pattern] = [:]
                try r.members(value, "$.messages.\(key)", expected: "a string or an object of plural forms") { category, form throws(JSONError) in
                    forms[category] = Pattern(try r.string(form, "$.messages.\(key).\(category)"))
                }
                if forms["other"] == nil && forms["many"] == nil {
                    throw JSONError(node: value, path: "$.messages.\(key)", expected: "at least an \"other\" form", found: "none")
                }
                messages[key] = forms
            }
            self.messages = messages
        } catch {
            throw ThreadfoldError.input([r.error(error)])
        }
        var constants: [String: String] = [:]
        for (key, forms) in messages where forms.count == 1 {
            if let form = forms["other"], !form.parts.contains(where: { if case .field = $0 { return true } else { return false } }) {
                constants[key] = form.fill { _ in nil }
            }
        }
        self.constants = constants
        countedKeys = Set(
            messages.compactMap { key, forms in
                forms.values.allSatisfy({ $0.parts.allSatisfy { if case .field(let name) = $0 { name == "count" } else { true } } }) ? key : nil
            })
    }

    /// The counted message `key` filled in for the counts below `countedLimit`, made when first
    /// asked for; nil for a message with other fields, or none.
    private func countedTable(_ key: String) -> [String]? {
        guard countedKeys.contains(key), let forms = messages[key] else { return nil }
        if let table = countedTables.withLock({ $0[key] }) { return table }
        // Made outside the lock; two threads asking at once make the same table.
        let table = (0..<Self.countedLimit).map { [rule, groupSeparator] count in
            Self.plural(forms, rule: rule, count: count) { _ in Self.number(count, groupSeparator: groupSeparator) } ?? key
        }
        return countedTables.withLock { tables in
            if let made = tables[key] { return made }
            tables[key] = table
            return table
        }
    }

    /// Whether the locale has a message `key` (for keys made from input, where a gap must not show
    /// as the key).
    package func contains(_ key: String) -> Bool { messages[key] != nil }

    /// The message `key`, with `{count}` (choosing the plural form) and other fields filled in.
    /// A key the locale lacks shows as the key itself, so a gap is visible, not silent.
    package func text(_ key: String, count: Int? = nil, _ fields: [String: String] = [:]) -> String {
        if count == nil, let constant = constants[key] { return constant }
        if let count, count >= 0, count < Self.countedLimit, let table = countedTable(key), count < table.count { return table[count] }
        guard let forms = messages[key] else { return key }
        guard let count else { return Self.uncounted(forms)?.fill { fields[$0] } ?? key }
        return Self.plural(forms, rule: rule, count: count) { name in name == "count" ? self.number(count) : fields[name] } ?? key
    }

    /// The counted message `key`, looked up once: for a key the page asks for on every comment.
    package func counted(_ key: String) -> CountedMessage {
        CountedMessage(key: key, table: countedTable(key) ?? [], strings: self)
    }

    /// A message with `{count}`, its key looked up once (`StringsTable.counted(_:)`): filling it
    /// in is then an array index for the counts the table holds, and `text(_:count:)` for the rest.
    package struct CountedMessage: Sendable {
        let key: String
        let table: [String]
        let strings: StringsTable

        /// `strings.text(key, count: count)`.
        package func callAsFunction(_ count: Int) -> String {
            count >= 0 && count < table.count ? table[count] : strings.text(key, count: count)
        }
    }

    /// The message `key` with one field, looked up once (`StringsTable.withField(_:)`).
    package func withField(_ key: String) -> FieldMessage {
        if let constant = constants[key] { return FieldMessage(key: key, constant: constant, pattern: nil) }
        guard let forms = messages[key] else { return FieldMessage(key: key, constant: key, pattern: nil) }
        return FieldMessage(key: key, constant: nil, pattern: Self.uncounted(forms))
    }

    /// The form of a message used without a count: `other`, else `many` (a locale file has one of
    /// the two). Chosen by name, never by a dictionary's order, which differs from run to run.
    private static func uncounted(_ forms: [String: Pattern]) -> Pattern? { forms["other"] ?? forms["many"] }

    /// A message without a count and with one field, its key and form looked up once: filling it
    /// in is `text(key, [field: value])` without the dictionary and the lookups.
    package struct FieldMessage: Sendable {
        let key: String
        /// The whole message when it has no field (or the key, when the locale lacks it).
        let constant: String?
        let pattern: Pattern?

        /// `strings.text(key, [field: value])`.
        package func callAsFunction(field: String, _ value: String) -> String {
            if let constant { return constant }
            return pattern?.fill { $0 == field ? value : nil } ?? key
        }
    }

    /// The form of `forms` for `count`, filled in.
    private static func plural(_ forms: [String: Pattern], rule: PluralRule, count: Int, _ value: (String) -> String?) -> String? {
        (forms[rule.category(count)] ?? forms["other"] ?? forms["many"])?.fill(value)
    }

    /// Pieces joined with the locale's separator (" · " in English).
    package func join(_ parts: [String]) -> String { parts.joined(separator: separator) }

    /// An integer with the locale's grouping separator: 12,345.
    package func number(_ n: Int) -> String { Self.number(n, groupSeparator: groupSeparator) }

    private static func number(_ n: Int, groupSeparator: String) -> String {
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
    package func date(_ time: Timestamp) -> String { fill(datePattern, time) }

    /// A month in UTC, in the locale's pattern: `Mar 2024`, `2024年3月`.
    package func month(_ time: Timestamp) -> String { fill(monthPattern, time) }

    /// Written into one scratch buffer and made a string once (a short date, like `5 Dec 2020`,
    /// is stored inline, with no allocation), rather than appending each part to a string, which
    /// allocates or copies for every part of every date on a page.
    private func fill(_ pattern: DatePattern, _ time: Timestamp) -> String {
        let c = time.components
        let month = months[Int(c.month) - 1]
        // A number is at most a sign and 19 digits.
        let capacity = pattern.fixedBytes + 20 * pattern.numbers + pattern.months * month.utf8.count
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var length = 0
            func put(_ text: String) {
                for byte in text.utf8 {
                    buffer[length] = byte
                    length += 1
                }
            }
            // In place, counted first: a number written backwards into a scratch buffer and
            // copied (as JSONWriter.int does) cost this function a fifth more instructions.
            func put(_ number: Int64) {
                if number < 0 {
                    buffer[length] = UInt8(ascii: "-")
                    length += 1
                }
                var magnitude = number.magnitude
                var digits = 1
                while magnitude >= 10 {
                    magnitude /= 10
                    digits += 1
                }
                magnitude = number.magnitude
                for k in stride(from: length + digits - 1, through: length, by: -1) {
                    buffer[k] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                    magnitude /= 10
                }
                length += digits
            }
            for part in pattern.parts {
                switch part {
                case .text(let text): put(text)
                case .day: put(c.day)
                case .monthNumber: put(c.month)
                case .month: put(month)
                case .year: put(c.year)
                case .unknown(let name):
                    put("{")
                    put(name)
                    put("}")
                }
            }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<length]), as: UTF8.self)
        }
    }

    /// A date pattern with its fields named once, so filling one in (every comment's time)
    /// compares no field names. A field it does not know shows as written, `{name}`.
    struct DatePattern: Sendable {
        /// A date's fields name its day and nothing finer: `ThreadPageModel` keeps a page's last
        /// date by its `Timestamp.epochDay` (a test checks that times of one day give one date).
        enum Part: Sendable { case text(String), day, monthNumber, month, year, unknown(String) }
        let parts: [Part]
        /// Bytes of the pattern's own text (unknown fields in their braces), numbers and month
        /// names it holds: what a filled-in date needs at most, given the month.
        let fixedBytes: Int
        let numbers: Int
        let months: Int

        init(_ pattern: Pattern) {
            parts = pattern.parts.map { part in
                switch part {
                case .text(let text): return .text(text)
                case .field("day"): return .day
                case .field("month_number"): return .monthNumber
                case .field("month"): return .month
                case .field("year"): return .year
                case .field(let name): return .unknown(name)
                }
            }
            var fixedBytes = 0, numbers = 0, months = 0
            for part in parts {
                switch part {
                case .text(let text): fixedBytes += text.utf8.count
                case .unknown(let name): fixedBytes += name.utf8.count + 2
                case .day, .monthNumber, .year: numbers += 1
                case .month: months += 1
                }
            }
            (self.fixedBytes, self.numbers, self.months) = (fixedBytes, numbers, months)
        }
    }
}
