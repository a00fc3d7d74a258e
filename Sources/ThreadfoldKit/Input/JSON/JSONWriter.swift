import Foundation

/// Writes JSON by hand, for the sidecars, the manifest, the CLI's build report and shard.json:
/// Foundation's JSONEncoder took most of an incremental build's time on a 2,000-thread manifest
/// (2 MB). Keys are written in the order given, so the output is deterministic. `JSONReader`
/// reads all of them back.
package struct JSONWriter {
    package private(set) var out: [UInt8] = []
    /// Two spaces per level when pretty (sidecars, for people); none for the manifest.
    let pretty: Bool
    private var level = 0
    private var first = true
    /// Whether anything was written (and perhaps taken) yet.
    private var started = false

    package init(pretty: Bool) {
        self.pretty = pretty
        out.reserveCapacity(4096)
    }

    private mutating func separator() {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        if pretty && started { newline() }
        started = true
    }

    /// A line end and the current level's indentation.
    private mutating func newline() {
        out.append(0x0A)
        var spaces = level * 2
        while spaces > 0 {
            let run = min(spaces, Self.spaces.count)
            out.append(contentsOf: Self.spaces[..<run])
            spaces -= run
        }
    }

    private static let spaces = [UInt8](repeating: 0x20, count: 64)

    /// The bytes written since the last take, for a caller that writes a large document in
    /// pieces; the writer goes on where it was.
    package mutating func take() -> [UInt8] {
        defer { out.removeAll(keepingCapacity: true) }
        return out
    }

    package mutating func key(_ name: String) {
        separator()
        string(name, bare: true)
        out.append(UInt8(ascii: ":"))
        if pretty { out.append(0x20) }
        first = true
        pendingValue = true
    }

    private var pendingValue = false
    private mutating func beginValue() {
        if pendingValue {
            pendingValue = false
            first = false
        } else {
            separator()
        }
    }

    mutating func open(_ bracket: UInt8) {
        beginValue()
        out.append(bracket)
        level += 1
        first = true
    }

    mutating func close(_ bracket: UInt8) {
        level -= 1
        if pretty && !first { newline() }
        out.append(bracket)
        first = false
    }

    package mutating func object(_ body: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "{"))
        body(&self)
        close(UInt8(ascii: "}"))
    }

    package mutating func array(_ body: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "["))
        body(&self)
        close(UInt8(ascii: "]"))
    }

    package mutating func string(_ text: String) { string(text, bare: false) }

    mutating func string(_ text: String, bare: Bool) {
        if !bare { beginValue() }
        Self.appendString(text, to: &out)
    }

    /// Appends `text` to `out` as a JSON string: quotes, backslashes and control characters
    /// escaped (`\n`, `\r`, `\t`, else `\u00xx`), the rest as its UTF-8.
    package static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            // Runs of bytes that need no escape are copied whole; most strings are one run.
            var start = 0
            for i in bytes.indices {
                let byte = bytes[i]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
                start = i + 1
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
                case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    package mutating func int(_ value: Int64) {
        beginValue()
        JSONWriter.withDigits(of: value) { out.append(contentsOf: $0) }
    }

    /// Hands `body` the decimal digits of `value` (after a minus sign when it is negative),
    /// written backwards into a fixed buffer: no String a number.
    static func withDigits<T, E: Error>(of value: Int64, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> T) throws(E) -> T {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return try withUnsafeMutableBytes(of: &digits) { (buffer) throws(E) -> T in
            var magnitude = value.magnitude
            var at = buffer.count
            repeat {
                at -= 1
                buffer[at] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                at -= 1
                buffer[at] = UInt8(ascii: "-")
            }
            return try body(UnsafeBufferPointer(rebasing: buffer.assumingMemoryBound(to: UInt8.self)[at...]))
        }
    }

    package mutating func int(_ value: Int) { int(Int64(value)) }

    /// A value already written as JSON by this writer (a manifest unit read back), as it is.
    mutating func raw(_ json: ArraySlice<UInt8>) {
        beginValue()
        out.append(contentsOf: json)
    }

    package mutating func bool(_ value: Bool) {
        beginValue()
        out.append(contentsOf: (value ? "true" : "false").utf8)
    }

    package mutating func null() {
        beginValue()
        out.append(contentsOf: "null".utf8)
    }

    package mutating func field(_ name: String, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }

    package mutating func field(_ name: String, _ value: Int) {
        key(name)
        int(value)
    }

    package mutating func field(_ name: String, strings: [String]) {
        key(name)
        array { w in for s in strings { w.string(s) } }
    }
}
