import Foundation
import ThreadfoldKit

#if canImport(Glibc)
    import Glibc
#endif

/// `threadfold.json`: the options a project always gives, kept in one file that every build,
/// shard, `merge`, `preview`, `render` and `check` reads, so they cannot drift apart.
///
/// Its keys are the long options as typed on the command line (`"title"`, `"per-page"`,
/// `"sections"`, `"base-url"`), plus `"inputs"` (the paths a command is given) and `"output"`
/// (`-o`). Objects `"build"`, `"render"`, `"merge"`, `"preview"` and `"check"` hold keys for that
/// subcommand alone and win over the top level. A key at the top level is taken by each
/// subcommand that has that option and left alone by the others; a key no subcommand has, or one
/// in a subcommand's object that it does not have, is an error. Flags are `true` or `false`,
/// values strings (or numbers, for numbers), a list a string or an array of strings. The
/// command line wins over the file. `"$schema"` is allowed, so an editor can complete the keys
/// (docs/threadfold.schema.json).
enum ConfigFile {
    static let fileName = "threadfold.json"
    /// The subcommands that read it, each with an object of its own.
    static let subcommands = ["build", "render", "merge", "preview", "check"]

    static let config: Option<String> = .file("config", "Read options from this JSON file (default: ./threadfold.json\nwhen there is one); options given here win over it.")
    static let noConfig = Flag("no-config", "Read no threadfold.json.")

    static let specs = [config.spec, noConfig.spec]

    /// Adds the file's options for `command` to what the command line gave: `--config FILE`,
    /// else `./threadfold.json` when it exists, unless `--no-config`.
    static func apply(to parsed: inout ParsedArguments, command: CLI.Command, all commands: [CLI.Command]) throws(ThreadfoldError) {
        guard !parsed[noConfig] else { return }
        let path: String
        if let given = try parsed[config] {
            path = given
        } else {
            guard FileManager.default.fileExists(atPath: fileName) else { return }
            path = fileName
        }
        let bytes: [UInt8]
        do { bytes = try InputFile.read(path, display: path, streams: true) } catch {
            throw ThreadfoldError.usage("'--config': \(error.description)")
        }
        let settings = try read(bytes, file: path, commands: commands.filter { subcommands.contains($0.name) })
        settings.apply(to: &parsed, command: command)
    }

    /// What a file says: each key's value as the command line would have given it, at the top
    /// level and per subcommand.
    struct Settings {
        var top: [String: Value] = [:]
        var per: [String: [String: Value]] = [:]
        /// Where each value stands in the file (`file:line:column`), at the top level and per subcommand.
        var topPlaces: [String: String] = [:]
        var perPlaces: [String: [String: String]] = [:]

        enum Value {
            case flag(Bool)
            case text(String)
            case list([String])
        }

        func apply(to parsed: inout ParsedArguments, command: CLI.Command) {
            var merged = top.filter { key, _ in key == "inputs" || key == "output" || command.options.contains { $0.long == key } }
            if command.name == "merge" { merged["inputs"] = nil }
            merged.merge(per[command.name] ?? [:]) { $1 }
            var places = topPlaces
            places.merge(perPlaces[command.name] ?? [:]) { $1 }
            for (key, value) in merged where !parsed.negated.contains(key) {
                let given = parsed.values[key] != nil || parsed.flags.contains(key) || !(parsed.repeated[key] ?? []).isEmpty
                if !given, key != "inputs", let place = places[key] { parsed.origins[key] = place }
                switch (key, value) {
                case ("inputs", .list(let inputs)):
                    if parsed.positionals.isEmpty { parsed.positionals = inputs }
                case (_, .flag(let on)):
                    if on && !given { parsed.flags.insert(key) }
                case (_, .text(let text)):
                    if parsed.values[key] == nil {
                        parsed.values[key] = text
                        if command.options.contains(where: { $0.long == key && $0.repeatable }) { parsed.repeated[key] = [text] }
                    }
                case (_, .list(let items)) where command.options.contains(where: { $0.long == key && $0.repeatable }):
                    if (parsed.repeated[key] ?? []).isEmpty {
                        parsed.repeated[key] = items
                        if let last = items.last { parsed.values[key] = last }
                    }
                case (_, .list(let items)):
                    if parsed.values[key] == nil { parsed.values[key] = items.joined(separator: ",") }
                }
            }
        }
    }

    /// Reads a file's bytes into settings, checking every key and value against the options of
    /// `commands`; an error names the file, line and column, what was found and what was expected.
    static func read(_ bytes: [UInt8], file: String, commands: [CLI.Command]) throws(ThreadfoldError) -> Settings {
        let document: JSONDocument
        do { document = try JSONReader(bytes: bytes, file: file).document } catch {
            let first = error.problems[0]
            let place = first.line.map { line in ":\(line):\(first.column ?? 1)" } ?? ""
            throw ThreadfoldError.usage("\(Printable.escape(file))\(place): \(Printable.escape(first.message))")
        }
        func fail(_ node: Int, _ message: String) -> ThreadfoldError {
            let (line, column) = document.location(ofOffset: document.offset(node))
            return ThreadfoldError.usage("\(Printable.escape(file)):\(line):\(column): \(message)")
        }
        guard document.kind(document.root) == .object else {
            throw fail(document.root, "found \(document.kind(document.root).described); expected an object of options, like {\"title\": \"My forum\"}")
        }
        func place(_ node: Int) -> String {
            let (line, column) = document.location(ofOffset: document.offset(node))
            return "\(Printable.escape(file)):\(line):\(column)"
        }
        let byName = Dictionary(commands.map { ($0.name, $0) }) { a, _ in a }
        let options = Set(commands.flatMap(\.options).map(\.long))
        var settings = Settings()
        var failure: ThreadfoldError?
        var seen: Set<String> = []
        document.forEachMemberNode(document.root) { keyNode, value in
            guard failure == nil else { return }
            let key = document.string(keyNode)
            do throws(ThreadfoldError) {
                guard seen.insert(key).inserted else { throw fail(keyNode, "\"\(key)\" is given twice; expected each key once") }
                if key == "$schema" { return }
                // A subcommand's object; "preview" names the subcommand when it holds an object
                // and the option (replies shown per level) otherwise.
                if let command = byName[key], document.kind(value) == .object || !options.contains(key) {
                    guard document.kind(value) == .object else {
                        throw fail(value, "\"\(key)\": found \(document.kind(value).described); expected an object of \(key)'s options")
                    }
                    (settings.per[key], settings.perPlaces[key]) = try members(document, value, in: [command], fail: fail, place: place)
                    return
                }
                settings.top[key] = try self.value(document, value, key: key, keyNode: keyNode, in: commands, fail: fail)
                settings.topPlaces[key] = place(value)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return settings
    }

    /// The members of the object at `node` as values of the options of `commands`.
    private static func members(
        _ document: JSONDocument, _ node: Int, in commands: [CLI.Command], fail: (Int, String) -> ThreadfoldError,
        place: (Int) -> String
    ) throws(ThreadfoldError) -> ([String: Settings.Value], [String: String]) {
        var values: [String: Settings.Value] = [:]
        var places: [String: String] = [:]
        var failure: ThreadfoldError?
        document.forEachMemberNode(node) { keyNode, value in
            guard failure == nil else { return }
            do throws(ThreadfoldError) {
                let key = document.string(keyNode)
                guard values[key] == nil else { throw fail(keyNode, "\"\(key)\" is given twice; expected each key once") }
                values[key] = try self.value(document, value, key: key, keyNode: keyNode, in: commands, fail: fail)
                places[key] = place(value)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return (values, places)
    }

    /// One option's value, checked against what the option takes.
    private static func value(
        _ document: JSONDocument, _ node: Int, key: String, keyNode: Int, in commands: [CLI.Command],
        fail: (Int, String) -> ThreadfoldError
    ) throws(ThreadfoldError) -> Settings.Value {
        let kind = document.kind(node)
        if key == "inputs" {
            guard kind == .array else { throw fail(node, "\"inputs\": found \(kind.described); expected an array of paths") }
            return .list(try strings(document, node, key: key, fail: fail))
        }
        if key == "output" {
            guard kind == .string else { throw fail(node, "\"output\": found \(kind.described); expected a folder's path as a string") }
            return .text(document.string(node))
        }
        let known = commands.flatMap(\.options).filter { !specs.map(\.long).contains($0.long) && $0.long != "help" }
        guard let spec = known.first(where: { $0.long == key }) else {
            let names = Set(known.map(\.long) + ["inputs", "output"] + subcommands)
            let scope = commands.count == 1 ? "'\(commands[0].name)' has no option" : "no subcommand has an option"
            throw fail(keyNode, "\"\(key)\": \(scope) of that name; expected a long option as typed on the command line\(suggestion(key, among: names))")
        }
        switch (spec.value, kind) {
        case (nil, .true): return .flag(true)
        case (nil, .false): return .flag(false)
        case (nil, _): throw fail(node, "\"\(key)\": found \(kind.described); expected true or false (it is a flag)")
        case (_, .string): return .text(document.string(node))
        case (_, .number): return .text(document.numberText(node))
        case (_, .array) where spec.repeatable:
            return .list(try strings(document, node, key: key, fail: fail))
        case (_, .array):
            guard case .listOf = spec.kind else {
                throw fail(node, "\"\(key)\": found an array; expected one value, as --\(key) takes")
            }
            return .list(try strings(document, node, key: key, fail: fail))
        case (_, .true) where spec.bare != nil: return .text(spec.bare!.value)
        // Off: a bare option the top level turned on is off for this subcommand.
        case (_, .false) where spec.bare != nil: return .flag(false)
        default:
            throw fail(node, "\"\(key)\": found \(kind.described); expected --\(key)'s <\(spec.value ?? "value")> as a string (or a number)")
        }
    }

    private static func strings(_ document: JSONDocument, _ node: Int, key: String, fail: (Int, String) -> ThreadfoldError) throws(ThreadfoldError) -> [String] {
        var items: [String] = []
        var failure: ThreadfoldError?
        document.forEachElement(node) { _, element in
            guard failure == nil else { return }
            guard document.kind(element) == .string else {
                failure = fail(element, "\"\(key)\": found \(document.kind(element).described) in the array; expected strings")
                return
            }
            items.append(document.string(element))
        }
        if let failure { throw failure }
        return items
    }

    /// " (did you mean "per-page"?)" for the known name nearest to `name`, when one is near.
    static func suggestion(_ name: String, among names: Set<String>) -> String {
        nearest(name, among: names).map { " (did you mean \"\($0)\"?)" } ?? ""
    }

    /// The known name nearest to `name` (an edit distance of at most 2, or a third of its
    /// length), ties broken by byte order; nil when none is near.
    static func nearest(_ name: String, among names: Set<String>) -> String? {
        let scored = names.map { ($0, distance(name, $0)) }.filter { $0.1 <= max(2, name.count / 3) }
        return scored.min(by: { ($0.1, $0.0) < ($1.1, $1.0) })?.0
    }

    /// Edit distance (insertions, deletions, substitutions) between two short names.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        var row = Array(0...b.count)
        for i in a.indices {
            var diagonal = row[0]
            row[0] = i + 1
            for j in b.indices {
                let above = row[j + 1]
                row[j + 1] = min(above + 1, row[j] + 1, diagonal + (a[i] == b[j] ? 0 : 1))
                diagonal = above
            }
        }
        return row[b.count]
    }

    /// The JSON Schema of the file, from the same option tables (docs/threadfold.schema.json is
    /// this text, and a test keeps it so).
    static func schema(commands: [CLI.Command]) -> String {
        let readers = commands.filter { subcommands.contains($0.name) }
        var w = JSONWriter(pretty: true)
        w.object { w in
            w.field("$schema", "https://json-schema.org/draft/2020-12/schema")
            w.field("title", "threadfold.json")
            w.field("description", "Options for threadfold build, render, merge, preview and check: long options as typed on the command line; the command line wins.")
            w.field("type", "object")
            w.key("properties")
            w.object { w in
                w.key("$schema")
                w.object { w in w.field("type", "string") }
                w.key("inputs")
                w.object { w in
                    w.field("description", "The inputs, as given on the command line (merge: its own object's inputs, the shard folders).")
                    w.field("type", "array")
                    w.key("items")
                    w.object { w in w.field("type", "string") }
                }
                let names = Set(readers.map(\.name))
                Schema.properties(readers.flatMap(\.options), &w, skipping: names.union(["output"]))
                w.key("output")
                w.object { w in
                    w.field("description", "The output folder (-o); each subcommand's default is in its --help (build: site; render: threadfold-site).")
                    w.field("type", "string")
                }
                for command in readers {
                    w.key(command.name)
                    w.object { w in
                        // "preview" is also an option (replies shown per level): an object is the subcommand's.
                        if let spec = readers.flatMap(\.options).first(where: { $0.long == command.name }) {
                            w.key("anyOf")
                            w.array { w in
                                w.object { w in Schema.subcommand(command, &w) }
                                w.object { w in Schema.option(spec, &w) }
                            }
                        } else {
                            Schema.subcommand(command, &w)
                        }
                    }
                }
            }
            w.key("additionalProperties")
            w.bool(false)
        }
        return String(decoding: w.out, as: UTF8.self) + "\n"
    }
}

/// The parts of threadfold.json's schema.
private extension ConfigFile {
    enum Schema {
        /// What the file does not take: the options that name it, and --help.
        static let skipped = Set(ConfigFile.specs.map(\.long) + ["help"])

        /// A string, or an array of strings (of `words`, when given).
        static func stringOrArray(_ w: inout JSONWriter, of words: [String]?) {
            w.key("anyOf")
            w.array { w in
                w.object { w in w.field("type", "string") }
                w.object { w in
                    w.field("type", "array")
                    w.key("items")
                    w.object { w in
                        if let words {
                            w.key("enum")
                            w.array { w in for word in words { w.string(word) } }
                        } else {
                            w.field("type", "string")
                        }
                    }
                }
            }
        }

        /// One option's value: a flag's boolean; a bare option's value or true (as given bare) or
        /// false (off); a list's string or array; a choice's words; else a string or a number.
        static func option(_ spec: OptionSpec, _ w: inout JSONWriter) {
            w.field("description", spec.help.replacingOccurrences(of: "\n", with: " "))
            if spec.value == nil { return w.field("type", "boolean") }
            func value(_ w: inout JSONWriter) {
                switch spec.kind {
                case _ where spec.repeatable:
                    stringOrArray(&w, of: nil)
                case .oneOf(let words) where !words.isEmpty:
                    w.key("enum")
                    w.array { w in for word in words { w.string(word) } }
                case .listOf(let words):
                    stringOrArray(&w, of: words)
                case .file, .directory:
                    w.field("type", "string")
                default:
                    w.key("type")
                    w.array { w in
                        w.string("string")
                        w.string("number")
                    }
                }
            }
            guard spec.bare != nil else { return value(&w) }
            w.key("anyOf")
            w.array { w in
                w.object { w in value(&w) }
                w.object { w in w.field("type", "boolean") }
            }
        }

        /// Each option of `options` once, under its long name, but those the file does not take
        /// and those in `skipping`.
        static func properties(_ options: [OptionSpec], _ w: inout JSONWriter, skipping: Set<String> = []) {
            var seen = Set<String>()
            for spec in options where !skipped.contains(spec.long) && !skipping.contains(spec.long) && seen.insert(spec.long).inserted {
                w.key(spec.long)
                w.object { w in option(spec, &w) }
            }
        }

        /// A subcommand's object, for its key at the top level.
        static func subcommand(_ command: CLI.Command, _ w: inout JSONWriter) {
            w.field("description", "Options for threadfold \(command.name) alone; they win over the top level.")
            w.field("type", "object")
            w.key("properties")
            w.object { w in
                w.key("inputs")
                w.object { w in
                    w.field("type", "array")
                    w.key("items")
                    w.object { w in w.field("type", "string") }
                }
                properties(command.options, &w, skipping: ["output"])
                w.key("output")
                w.object { w in
                    w.field("description", "The output folder (-o).")
                    w.field("type", "string")
                }
            }
            w.key("additionalProperties")
            w.bool(false)
        }
    }
}
