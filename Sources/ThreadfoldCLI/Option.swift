import Foundation
import ThreadfoldKit

/// A command-line option that takes a value, declared once with its type: the `spec` that
/// parsing, help, the manual page, the completions and threadfold.json's schema are made from,
/// and how its text becomes a `Value`. Commands read it as `try parsed[SharedOptions.sort]`,
/// never by its name.
struct Option<Value>: Sendable {
    let spec: OptionSpec
    /// The value the text stands for, or a usage error that names the option, says what it
    /// must be and quotes what was found.
    let parse: @Sendable (String) throws(ThreadfoldError) -> Value

    init(_ spec: OptionSpec, parse: @escaping @Sendable (String) throws(ThreadfoldError) -> Value) {
        self.spec = spec
        self.parse = parse
    }

    /// The same option, described in other words in one command's help.
    func help(_ text: String) -> Option { Option(spec.help(text), parse: parse) }
}

/// An option without a value (`--quiet`): given or not.
struct Flag: Sendable {
    let spec: OptionSpec

    init(_ long: String, short: Character? = nil, _ help: String) {
        spec = OptionSpec(long, short: short, help)
    }

    private init(spec: OptionSpec) { self.spec = spec }

    /// The same flag, described in other words in one command's help.
    func help(_ text: String) -> Flag { Flag(spec: spec.help(text)) }
}

/// An option that may be given many times, each value kept in order (`--exclude`).
struct Repeatable<Value>: Sendable {
    let spec: OptionSpec
    let parse: @Sendable (String) throws(ThreadfoldError) -> Value

    init(_ long: String, value: String, _ help: String, parse: @escaping @Sendable (String) throws(ThreadfoldError) -> Value) {
        spec = OptionSpec(long, value: value, repeatable: true, help)
        self.parse = parse
    }
}

extension ParsedArguments {
    /// The option's value; nil when it was not given.
    subscript<Value>(option: Option<Value>) -> Value? {
        get throws(ThreadfoldError) {
            guard let text = values[option.spec.long] else { return nil }
            return try option.parse(text)
        }
    }

    /// Whether the flag was given.
    subscript(flag: Flag) -> Bool { flags.contains(flag.spec.long) }

    /// Every value given, in order; none when the option was not given.
    subscript<Value>(option: Repeatable<Value>) -> [Value] {
        get throws(ThreadfoldError) { try (repeated[option.spec.long] ?? []).map(option.parse) }
    }

    /// The option's text as given, unparsed: what a message quotes, or a path to watch.
    func given<Value>(_ option: Option<Value>) -> String? { values[option.spec.long] }
}

extension OptionSpec {
    /// This option with other help text.
    func help(_ text: String) -> OptionSpec {
        OptionSpec(long, short: short, value: value, bare: bare, kind: kind, repeatable: repeatable, text)
    }
}

/// Words joined for a sentence: "a, b or c", "a, b and c".
func listed(_ words: [String], _ conjunction: String = "or") -> String {
    words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " \(conjunction) " + words.last!
}

// MARK: - The kinds of option

extension Option where Value == String {
    /// Free text (`--title`, `--locale`).
    static func text(_ long: String, short: Character? = nil, value: String, _ help: String) -> Option {
        Option(OptionSpec(long, short: short, value: value, help)) { $0 }
    }

    /// A file's path; the parser refuses an empty one.
    static func file(_ long: String, value: String = "file", _ help: String) -> Option {
        Option(OptionSpec(long, value: value, kind: .file, help)) { $0 }
    }

    /// A folder's path; the parser refuses an empty one.
    static func folder(_ long: String, short: Character? = nil, value: String = "dir", _ help: String) -> Option {
        Option(OptionSpec(long, short: short, value: value, kind: .directory, help)) { $0 }
    }
}

extension Option where Value == Int {
    /// A whole number in `range`.
    static func integer(_ long: String, short: Character? = nil, value: String = "n", in range: ClosedRange<Int>, _ help: String) -> Option {
        Option(OptionSpec(long, short: short, value: value, help)) { text throws(ThreadfoldError) in
            guard let number = Int(text), range.contains(number) else {
                let bound = range.upperBound == Int.max ? "\(range.lowerBound) or more" : "from \(range.lowerBound) to \(range.upperBound)"
                throw ThreadfoldError.usage("'--\(long)' must be a whole number \(bound); found '\(text)'")
            }
            return number
        }
    }

    /// A size in bytes within `range`: a whole number, optionally followed by KiB, MiB or GiB
    /// (or K, M, G, each a power of 1,024, or B).
    static func size(_ long: String, value: String = "size", in range: ClosedRange<Int>, _ help: String) -> Option {
        Option(OptionSpec(long, value: value, help)) { text throws(ThreadfoldError) in
            let units: [(String, Int)] = [("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("B", 1)]
            var number = Substring(text)
            var scale = 1
            if let (suffix, factor) = units.first(where: { text.hasSuffix($0.0) }) {
                number = number.dropLast(suffix.count)
                scale = factor
            }
            guard let count = Int(number.trimmingCharacters(in: .whitespaces)), count >= 0,
                count <= Int.max / scale, range.contains(count * scale)
            else {
                throw ThreadfoldError.usage(
                    "'--\(long)' must be a size from \(range.lowerBound) bytes to \(range.upperBound >> 30) GiB, as bytes or with KiB, MiB or GiB (e.g. 256MiB); found '\(text)'")
            }
            return count * scale
        }
    }
}

extension Option where Value == Double {
    /// A duration in seconds, above 0 and at most a week: seconds, or a number with s, m or h.
    static func duration(_ long: String, value: String = "duration", _ help: String) -> Option {
        Option(OptionSpec(long, value: value, help)) { text throws(ThreadfoldError) in
            let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
            let unit = text.last.flatMap { units[$0] }
            guard let number = Double(unit == nil ? text : String(text.dropLast())), number.isFinite, number > 0,
                number * (unit ?? 1) <= 7 * 86_400, text.allSatisfy({ $0.isASCII && !$0.isWhitespace })
            else {
                throw ThreadfoldError.usage("'--\(long)' must be a duration above 0 and at most a week: seconds, or a number with s, m or h, like 90s or 10m; found '\(text)'")
            }
            return number * (unit ?? 1)
        }
    }
}

extension Option {
    /// One of `cases`, by its raw value; the usage error lists them in that order ("'--sections'
    /// must be none, category or month; found 'x'"). With `bare`, the option may stand alone and
    /// then means that case (`--search` is `--search titles`).
    static func choice(_ long: String, value: String, among cases: [Value], bare: Value? = nil, _ help: String) -> Option
    where Value: RawRepresentable<String> & Sendable {
        let names = cases.map(\.rawValue)
        let byName = Dictionary(cases.map { ($0.rawValue, $0) }) { first, _ in first }
        let spec = OptionSpec(long, value: value, bare: bare.map { ($0.rawValue, names) }, kind: .oneOf(names), help)
        return Option(spec) { text throws(ThreadfoldError) in
            guard let chosen = byName[text] else {
                throw ThreadfoldError.usage("'--\(long)' must be \(listed(names)); found '\(text)'")
            }
            return chosen
        }
    }

    /// One case of an enum, any of `allCases`.
    static func choice(_ long: String, value: String, bare: Value? = nil, _ help: String) -> Option
    where Value: CaseIterable & RawRepresentable<String> & Sendable {
        choice(long, value: value, among: Array(Value.allCases), bare: bare, help)
    }

    /// A comma-separated list of an enum's cases, each at most once (`--orders oldest,top`).
    static func list<Element: CaseIterable & RawRepresentable<String> & Sendable>(_ long: String, value: String, _ help: String) -> Option
    where Value == [Element] {
        let names = Element.allCases.map(\.rawValue)
        let byName = Dictionary(Element.allCases.map { ($0.rawValue, $0) }) { first, _ in first }
        return Option(OptionSpec(long, value: value, kind: .listOf(names), help)) { text throws(ThreadfoldError) in
            var chosen: [Element] = []
            for name in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let element = byName[name.trimmingCharacters(in: .whitespaces)] else {
                    let example = names.prefix(3).joined(separator: ",")
                    throw ThreadfoldError.usage("'--\(long)' takes a list of \(listed(names, "and")), like \(example); found '\(name)'")
                }
                guard !chosen.contains(where: { $0.rawValue == element.rawValue }) else {
                    throw ThreadfoldError.usage("'--\(long)' names '\(element.rawValue)' twice")
                }
                chosen.append(element)
            }
            return chosen
        }
    }
}
