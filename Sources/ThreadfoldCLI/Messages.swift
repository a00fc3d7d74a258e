import Foundation
import ThreadfoldKit

#if canImport(Glibc)
    import Glibc
#endif

/// What `build`, `merge` and `check` report: every message with a kind and a severity, shown on
/// the terminal by kind, written to `--report` whole, and judged by `--strict`.
struct Message {
    var file: String
    var line: Int?
    var column: Int?
    var path: String?
    var message: String
    /// What sort of problem: a warning's kind (`orphan`, `omittedDeleted`, …), or for errors
    /// `input`, `output`, `locked` (another build holds the site) or `diskFull`.
    var kind: String
    var severity: Problem.Severity

    init(_ error: Problem) {
        file = error.file
        line = error.line
        column = error.column
        path = error.path
        message = error.shownMessage
        kind = error.kind ?? (error.severity == .error ? "input" : "other")
        severity = error.severity
    }

    init(_ error: ThreadfoldError) {
        file = error.path
        message = error.message
        kind = error.temporary ? "locked" : error.isFull ? "diskFull" : "output"
        severity = .error
    }

    /// An error of no known shape (a template that cannot be read, say), as it prints.
    init(other error: Error, file: String) {
        self.file = file
        message = "\(error)"
        kind = "other"
        severity = .error
    }

    /// The messages of an error thrown by a run.
    static func of(_ error: Error, file: String) -> [Message] {
        guard let error = error as? ThreadfoldError else { return [Message(other: error, file: file)] }
        switch error.kind {
        case .input: return error.problems.map(Message.init)
        case .output, .busy: return [Message(error)]
        case .template, .resources, .usage: return [Message(other: error, file: file)]
        }
    }

    func write(into w: inout JSONWriter) {
        w.object { w in
            w.field("file", file)
            if let line, let column {
                w.field("line", line)
                w.field("column", column)
            }
            if let path { w.field("path", path) }
            w.field("kind", kind)
            w.field("severity", severity.rawValue)
            w.field("message", message)
        }
    }
}

/// The kinds of warnings and notes, with how a count of them reads.
enum MessageKinds {
    /// Every kind a warning or note may have, and the phrase for `n` of them.
    static let phrases: [(kind: String, one: String, many: String)] = [
        ("orphan", "reply whose parent is not in its thread was", "replies whose parent is not in their thread were"),
        ("cycle", "comment in a reply cycle was", "comments in reply cycles were"),
        ("duplicate", "comment repeating an id was", "comments repeating an id were"),
        ("skipped", "comment was skipped (--lenient)", "comments were skipped (--lenient)"),
        ("skippedLine", "line was skipped (--lenient)", "lines were skipped (--lenient)"),
        ("notPublic", "status that was not public was left out", "statuses that were not public were left out"),
        ("spam", "comment marked as spam was left out", "comments marked as spam were left out"),
        ("emptyThread", "thread without comments was left out", "threads without comments were left out"),
        ("omittedDeleted", "deleted or removed comment without replies was left out", "deleted or removed comments without replies were left out"),
        ("deletedNotice", "deleted small-action post was left out of the notices", "deleted small-action posts were left out of the notices"),
        ("filtered", "item was left out by the mapping's filter", "items were left out by the mapping's filter"),
        ("notArchived", "thread is missing posts its source counts", "threads are missing posts their source counts"),
        ("other", "warning", "warnings"),
    ]

    static var names: [String] { phrases.map(\.kind) }

    static func phrase(_ kind: String, count: Int) -> String {
        let entry = phrases.first { $0.kind == kind } ?? phrases.last!
        return "\(count) " + (count == 1 ? entry.one : entry.many)
    }
}

/// `--strict` and `--strict=KIND,…`: which messages fail a run that otherwise succeeded.
struct StrictRule {
    /// Nil: every warning (not notes); else the kinds named, warnings or notes.
    var kinds: Set<String>?

    /// The rule `--strict`'s text names: `all`, or kinds.
    static func parse(_ text: String) throws(ThreadfoldError) -> StrictRule {
        if text == "all" { return StrictRule(kinds: nil) }
        let kinds = text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        for kind in kinds where !MessageKinds.names.contains(kind) {
            throw ThreadfoldError.usage("'--strict' takes kinds of messages, from \(MessageKinds.names.joined(separator: ", ")); found '\(kind)'")
        }
        guard !kinds.isEmpty else { throw ThreadfoldError.usage("'--strict=' needs at least one kind, like --strict=orphan,cycle") }
        return StrictRule(kinds: Set(kinds))
    }

    func fails(_ message: Message) -> Bool {
        guard message.severity != .error else { return false }
        guard let kinds else { return message.severity == .warning }
        return kinds.contains(message.kind)
    }

    static let option = Option<StrictRule>(
        OptionSpec(
            "strict", value: "kinds", bare: ("all", []), kind: .listOf(MessageKinds.names),
            "Exit 2 when there were warnings (notes, such as deleted\ncomments left out, do not count); --strict=KIND,… fails on\nthose kinds only, warnings or notes: \(MessageKinds.names.joined(separator: ", "))."
        )
    ) { text throws(ThreadfoldError) in
        try parse(text)
    }
}

/// Writing `--report`: its path is checked before the run, and the file is written whole or
/// not at all (a temporary file beside it, renamed over it).
enum ReportFile {
    /// `--report FILE`, as `build` words it; `merge` and `check` say it in their own words.
    static let option: Option<String> = .file(
        "report",
        "Write a JSON summary: pages written and reused, every\nerror, warning and note with its place, kind and severity,\ntimings (docs/report.schema.json). Written whole, or not at all;\na path that cannot be written is a usage error before the build."
    )

    /// Why `path` cannot take a report, or nil when it can: `-` (standard output), or a new
    /// file or a regular one in a folder that exists and can be written. A link, a pipe or a
    /// device is refused: the report is written beside it and renamed over it, which would put a
    /// file in its place.
    static func problem(_ path: String) -> String? {
        if path == "-" { return nil }
        if path.isEmpty { return "'--report' needs a file name, or - for standard output; found an empty one" }
        if let kind = (try? FileStatus.of(path, followLinks: false))?.kind {
            if kind == .folder { return "'--report' names a folder (\(Printable.escape(path))); expected a file to write" }
            guard kind == .regular else {
                return "'--report \(Printable.escape(path))' \(kind.described); expected a regular file or a new one (the report replaces it whole), or - for standard output"
            }
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard (try? FileStatus.of(folder))?.kind == .folder else {
            return "'--report \(Printable.escape(path))': the folder \(Printable.escape(folder)) does not exist; expected a file in an existing folder"
        }
        guard access(folder, W_OK) == 0 else {
            return "'--report \(Printable.escape(path))': the folder \(Printable.escape(folder)) cannot be written: \(String(cString: strerror(errno)))"
        }
        return nil
    }

    /// Writes `bytes` to `path` atomically, or to `console`'s standard output for `-`; the
    /// error's text when it cannot.
    static func write(_ bytes: [UInt8], to path: String, _ console: Console) -> String? {
        if path == "-" {
            console.out(String(decoding: bytes, as: UTF8.self))
            return nil
        }
        let temporary = URL(fileURLWithPath: path).deletingLastPathComponent()
            .appendingPathComponent(".\(URL(fileURLWithPath: path).lastPathComponent).tmp-\(getpid())").path
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: temporary))
            guard rename(temporary, path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                return reason
            }
            return nil
        } catch {
            unlink(temporary)
            return error.localizedDescription
        }
    }
}

extension Console {
    /// Warnings by kind, the first few of each, then how many there were in all; notes as one
    /// line a kind. `--report` lists every one.
    /// With `notesInFull`, notes are shown as warnings are (the messages that failed `--strict`).
    func show(_ messages: [Problem], shownPerKind: Int = 3, notesInFull: Bool = false) {
        var order: [String] = []
        var byKind: [String: [Problem]] = [:]
        for message in messages where message.severity != .error {
            let kind = (message.severity == .note && !notesInFull ? "note:" : "") + (message.kind ?? "other")
            if byKind[kind] == nil { order.append(kind) }
            byKind[kind, default: []].append(message)
        }
        for key in order {
            let list = byKind[key]!
            if key.hasPrefix("note:") {
                let kind = String(key.dropFirst(5))
                err("note: \(MessageKinds.phrase(kind, count: list.count)); --report FILE lists each\n")
                continue
            }
            let limit = key == "other" ? 20 : shownPerKind
            for warning in list.prefix(limit) { err(warning.shown + "\n") }
            guard list.count > limit else { continue }
            let tail = ["orphan", "cycle"].contains(key) ? " shown at top level" : ""
            let severity = list[0].severity == .note ? "note" : "warning"
            err("\(severity): \(MessageKinds.phrase(key, count: list.count))\(tail) in all, \(limit) shown above; --report FILE lists every one\n")
        }
    }
}
