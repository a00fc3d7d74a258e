import Testing

@testable import ThreadfoldKit

/// A thread gathered from a partition: its records' lines, without their unread members, and the
/// gaps that give messages back the file's columns.
@Suite("Dump thread")
struct DumpThreadTests {
    /// Gaps as a spill record holds them.
    static func bytes(_ gaps: [JSONScan.Gap]) -> ArraySlice<UInt8> {
        var out: [UInt8] = []
        for gap in gaps {
            withUnsafeBytes(of: gap.at.littleEndian) { out += $0 }
            withUnsafeBytes(of: gap.columns.littleEndian) { out += $0 }
        }
        return out[...]
    }

    static func thread(_ records: [(line: String, gaps: [JSONScan.Gap])]) -> DumpThread {
        var thread = DumpThread()
        for (k, record) in records.enumerated() {
            thread.append(
                Array(record.line.utf8)[...], DumpOrigin(file: 0, line: 10 * (k + 1), position: 3 + 4 * k),
                gaps: bytes(record.gaps))
        }
        thread.close()
        return thread
    }

    @Test("a message about a later record gets its own line's column back from its gaps, and so does its related place")
    func columnsFromGaps() throws {
        // Record 0 lost `"gilded":0,` after its brace; record 1 lost four columns there and
        // twenty after `"b",`: `{"id":"b","author":5}` has its 5 at column 20, the file's at 44.
        let thread = Self.thread([
            (#"{"id":"a"}"#, [JSONScan.Gap(at: 1, columns: 11)]),
            (#"{"id":"b","author":5}"#, [JSONScan.Gap(at: 1, columns: 4), JSONScan.Gap(at: 9, columns: 20)]),
        ])
        var error = Problem(file: "thread", line: 3, column: 20, path: "$[1].author", message: "expected a string")
        error.related = Problem.Related(label: "first used", line: 2, column: 2, path: "$[0].id")
        let located = thread.locate(error) { _ in "RC_test.jsonl" }
        #expect(located.file == "RC_test.jsonl" && located.line == 20 && located.column == 44 && located.path == "$[7].author")
        // The related place is on record 0: its quote sits where the gap was, after the 11 columns.
        #expect(located.related == Problem.Related(label: "first used", line: 10, column: 13, path: "$[3].id"))
        // The brace before the gap keeps its column.
        var brace = error
        brace.column = 1
        brace.related = nil
        #expect(thread.locate(brace) { _ in "RC_test.jsonl" }.column == 1)
    }

    @Test("JSONScan.column: a gap counts for the byte at its place and every byte after it")
    func gapBoundary() {
        let left = Array(#"{"a":2}"#.utf8)
        let gaps = [JSONScan.Gap(at: 1, columns: 6)]
        let columns = left.withUnsafeBufferPointer { line in
            gaps.withUnsafeBufferPointer { gaps in (1...7).map { JSONScan.column($0, in: line, gaps: gaps) } }
        }
        // `{"x":1,"a":2}` with `"x":1,` left off: `{` stays at 1, `"a"` was at 8, `2` at 12.
        #expect(columns == [1, 8, 9, 10, 11, 12, 13])
    }

    @Test("a thread's hash says which record each gap belongs to")
    func hashOfGaps() {
        let first = Self.thread([(#"{"id":"a"}"#, [JSONScan.Gap(at: 1, columns: 11)]), (#"{"id":"b"}"#, [])])
        let second = Self.thread([(#"{"id":"a"}"#, []), (#"{"id":"b"}"#, [JSONScan.Gap(at: 1, columns: 11)])])
        let none = Self.thread([(#"{"id":"a"}"#, []), (#"{"id":"b"}"#, [])])
        #expect(first.bytes == second.bytes && first.gaps == second.gaps)
        #expect(first.hash(fileHashes: [1]) != second.hash(fileHashes: [1]))
        #expect(first.hash(fileHashes: [1]) != none.hash(fileHashes: [1]))
        #expect(first.hash(fileHashes: [1]) == Self.thread([(#"{"id":"a"}"#, [JSONScan.Gap(at: 1, columns: 11)]), (#"{"id":"b"}"#, [])]).hash(fileHashes: [1]))
    }
}
