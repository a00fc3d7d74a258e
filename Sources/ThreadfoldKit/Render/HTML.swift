// Render stage: page models in, HTML bytes out. Markdown goes through cmark (Markdown.swift,
// the only file that touches C), pages through the Mustache engine, and every string from the
// input is escaped unless it is already `HTML`.

/// Markup that is already safe to write as is: cmark's output, a template's own text, or text
/// that was escaped on the way in. Plain `String`s are always escaped; only this type is not.
public struct HTML: Sendable, Equatable, CustomStringConvertible {
    public let raw: String

    /// Wraps markup the caller vouches for. Never pass input text here; use `init(escaping:)`.
    public init(trusted raw: String) { self.raw = raw }

    /// Escapes `text` for use in element content and in quoted attribute values alike.
    public init(escaping text: String) {
        var bytes: [UInt8] = []
        HTML.escape(text, into: &bytes)
        self.raw = String(decoding: bytes, as: UTF8.self)
    }

    public var description: String { raw }

    /// Appends `text` with `& < > " '` escaped. Safe in text and in single- or double-quoted
    /// attributes.
    @inline(__always)
    public static func escape(_ text: String, into out: inout [UInt8]) {
        var text = text
        text.withUTF8 { escape($0, into: &out) }
    }

    /// Appends UTF-8 `buffer` with `& < > " '` escaped and NUL replaced by U+FFFD.
    @inline(__always)
    public static func escape(_ buffer: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        var runStart = 0
        do {
            for i in 0..<buffer.count {
                let replacement: StaticString
                switch buffer[i] {
                case UInt8(ascii: "&"): replacement = "&amp;"
                case UInt8(ascii: "<"): replacement = "&lt;"
                case UInt8(ascii: ">"): replacement = "&gt;"
                case UInt8(ascii: "\""): replacement = "&quot;"
                case UInt8(ascii: "'"): replacement = "&#39;"
                case 0: replacement = "\u{FFFD}" // NUL is a parse error in HTML
                default: continue
                }
                if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<i])) }
                out.append(contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
                runStart = i + 1
            }
            if runStart < buffer.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart...])) }
        }
    }
}
