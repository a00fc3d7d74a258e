/// GitHub's pipe tables, found in the lines of a paragraph cmark has parsed: a header row, a
/// delimiter row (`| --- | :-: |`) with as many cells, then body rows up to the paragraph's end
/// (a blank line or the start of another block). Lines before the header stay a paragraph.
/// Every scan here is linear in the lines; `TableBlocks` puts the table in cmark's tree and renders the cells.
enum MarkdownTable {
    enum Alignment: Sendable, Equatable { case none, left, center, right }

    /// A table found in a paragraph: where it starts, its columns and its cells' bytes (pipes
    /// unescaped, white space trimmed). Body rows have exactly `alignments.count` cells: short
    /// rows are padded with empty cells, long rows cut.
    struct Table: Equatable {
        /// Index of the header row among the paragraph's lines; the lines before it stay a paragraph.
        var headerLine: Int
        var alignments: [Alignment]
        var header: [[UInt8]]
        var rows: [[[UInt8]]]
    }

    /// The table in `lines`, if one of them is a delimiter row with a header row of as many cells
    /// just above it.
    static func find(in lines: [ArraySlice<UInt8>]) -> Table? {
        guard lines.count >= 2 else { return nil }
        for k in 1..<lines.count {
            guard let alignments = delimiterRow(lines[k]) else { continue }
            let header = cells(lines[k - 1])
            guard header.count == alignments.count else { continue }
            var rows: [[[UInt8]]] = []
            rows.reserveCapacity(lines.count - k - 1)
            for line in lines[(k + 1)...] {
                var row = cells(line)
                if row.count > alignments.count { row.removeLast(row.count - alignments.count) }
                while row.count < alignments.count { row.append([]) }
                rows.append(row)
            }
            return Table(headerLine: k - 1, alignments: alignments, header: header, rows: rows)
        }
        return nil
    }

    /// The cells of a row: split at pipes not escaped by a backslash, with the leading and
    /// trailing pipe optional; each trimmed, and `\|` unescaped to `|` (also inside code spans, as
    /// GitHub does).
    static func cells(_ line: ArraySlice<UInt8>) -> [[UInt8]] {
        var start = line.startIndex
        var end = line.endIndex
        while start < end, isSpace(line[start]) { start += 1 }
        while end > start, isSpace(line[end - 1]) { end -= 1 }
        guard start < end else { return [] }
        if line[start] == UInt8(ascii: "|") { start += 1 }
        var result: [[UInt8]] = []
        var cell: [UInt8] = []
        var i = start
        var closed = false
        while i < end {
            let byte = line[i]
            if byte == UInt8(ascii: "\\"), i + 1 < end {
                // `\|` loses its backslash; any other escape stays for cmark.
                if line[i + 1] != UInt8(ascii: "|") { cell.append(byte) }
                cell.append(line[i + 1])
                i += 2
                closed = false
                continue
            }
            if byte == UInt8(ascii: "|") {
                result.append(trimmed(cell))
                cell.removeAll(keepingCapacity: true)
                closed = true
            } else {
                cell.append(byte)
                closed = false
            }
            i += 1
        }
        if !closed { result.append(trimmed(cell)) }
        return result
    }

    /// The columns' alignments when `line` is a delimiter row: cells of `-` with an optional `:`
    /// at either end, and at least one pipe, so a lone `---` stays cmark's thematic break or
    /// heading underline.
    static func delimiterRow(_ line: ArraySlice<UInt8>) -> [Alignment]? {
        guard line.contains(UInt8(ascii: "|")) else { return nil }
        let parts = cells(line)
        guard !parts.isEmpty else { return nil }
        var alignments: [Alignment] = []
        alignments.reserveCapacity(parts.count)
        for part in parts {
            guard !part.isEmpty else { return nil }
            let left = part.first == UInt8(ascii: ":")
            let right = part.count > 1 && part.last == UInt8(ascii: ":")
            let dashes = part[(left ? 1 : 0)..<(part.count - (right ? 1 : 0))]
            guard !dashes.isEmpty, dashes.allSatisfy({ $0 == UInt8(ascii: "-") }) else { return nil }
            alignments.append(left && right ? .center : left ? .left : right ? .right : .none)
        }
        return alignments
    }

    /// Whether a body could hold a table at all: a line of nothing but pipes, dashes, colons,
    /// white space and quote markers, with a pipe and a dash (a delimiter row). Only the lines
    /// that hold a pipe are looked at, each once: a line of many pipes is read once, not once
    /// for each of them.
    static func mayHold(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var from = 0
        while let pipe = ByteSearch.first(UInt8(ascii: "|"), in: text, from: from) {
            // `from` is a line's start, so the walk back stops there at the latest.
            var start = pipe
            while start > from, text[start - 1] != 0x0A { start -= 1 }
            var dash = false
            var delimiter = true
            var i = start
            while i < text.count, text[i] != 0x0A {
                switch text[i] {
                case UInt8(ascii: "-"): dash = true
                case UInt8(ascii: "|"), UInt8(ascii: ":"), UInt8(ascii: " "), UInt8(ascii: ">"), 0x09, 0x0D: break
                default: delimiter = false
                }
                if !delimiter { break }
                i += 1
            }
            if delimiter && dash { return true }
            guard let end = ByteSearch.first(0x0A, in: text, from: i) else { return false }
            from = end + 1
        }
        return false
    }

    private static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return start == 0 && end == bytes.count ? bytes : Array(bytes[start..<end])
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
}
