import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

/// `JSONScan` stands in for the parser in the partition pass: whatever it accepts, the parser
/// must accept and read alike.
@Suite("JSON scan")
struct JSONScanTests {
    /// The scan's `link_id`: nil when it refuses the document, .some(nil) when there is none.
    static func scan(_ bytes: [UInt8]) -> JSONScan.Value?? {
        var blanks: [Range<Int>] = []
        guard case .object(let found) = bytes.withUnsafeBufferPointer({ JSONScan.rootMembers($0, named: ["link_id"], blanks: &blanks) }) else { return nil }
        return .some(found[0])
    }

    /// Checks the scan of `bytes` against the parser: an accepted document parses, its root is
    /// an object, and `link_id` is the same value; a refused one fails to parse, or has a root
    /// that is not an object, deep nesting, or an escaped root member name. Returns whether the
    /// scan accepted it.
    @discardableResult
    static func agrees(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let document = try? JSONDocument(bytes: bytes)
        switch scan(bytes) {
        case .some(let value):
            guard let document else {
                Issue.record("accepted, but the parser refuses \(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
                return true
            }
            #expect(document.kind(document.root) == .object, sourceLocation: sourceLocation)
            let member = document.member(document.root, "link_id")
            #expect((member == nil) == (value == nil), sourceLocation: sourceLocation)
            if let member, let value {
                #expect(document.kind(member) == value.kind, sourceLocation: sourceLocation)
                #expect(document.offset(member) == (value.kind == .string ? value.start - 1 : value.start), sourceLocation: sourceLocation)
                if value.kind == .string {
                    #expect(value.end - value.start == Int(document.nodes[member].end - document.nodes[member].start), sourceLocation: sourceLocation)
                    #expect(value.escaped == document.nodes[member].flag, sourceLocation: sourceLocation)
                }
            }
            return true
        case .none:
            if let document, document.kind(document.root) == .object {
                // Accepted by the parser: only depth or an escaped name may make the scan refuse.
                let text = String(decoding: bytes, as: UTF8.self)
                var deep = 0, depth = 0
                for byte in bytes where byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                    depth += byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") ? 1 : -1
                    deep = max(deep, depth)
                }
                var escapedName = false
                document.forEachMember(document.root) { _, value in
                    let node = document.nodes[value - 1]
                    if node.flag { escapedName = true }
                }
                #expect(deep > JSONScan.depthLimit - 1 || escapedName, "refused, but the parser reads it: \(text)", sourceLocation: sourceLocation)
            }
            return false
        }
    }

    @Test("every line of the vendored dumps is accepted, with the parser's link_id")
    func realLines() throws {
        for name in ["dumps/RC_sample.jsonl", "dumps/RS_sample.jsonl"] {
            for line in try TestData.bytes(name).split(separator: 0x0A) {
                #expect(Self.agrees(Array(line)))
            }
        }
    }

    @Test(
        "the parser's refusals are the scan's",
        arguments: [
            "", " ", "{", "}", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{,}", "{\"a\":1 \"b\":2}", "{\"a\":[1,]}", "{\"a\":[1 2]}",
            "{\"a\":01}", "{\"a\":-}", "{\"a\":1.}", "{\"a\":1e}", "{\"a\":tru}", "{\"a\":True}", "{\"a\":nul}", "{\"a\":\"\\x\"}",
            "{\"a\":\"\\u12G4\"}", "{\"a\":\"\u{1}\"}", "{\"a\":\"x}", "{\"a\":1}}", "{\"a\":1} x", "{\"a\":[}", "{\"a\":{]}",
            "{\"link_id\":\"t3_x\"", "{\"link_id\" \"t3_x\"}", "{'link_id':'t3_x'}",
        ])
    func refusals(_ text: String) {
        #expect(!Self.agrees(Array(text.utf8)))
    }

    @Test("what the scan reads: the last link_id, at the root only, of any kind; a BOM and whitespace around")
    func values() {
        let cases: [(String, JSONDocument.Kind?)] = [
            ("{\"link_id\":\"t3_a\"}", .string), ("\u{FEFF} \t{\"link_id\" : \"t3_a\" }\r\n", .string),
            ("{\"x\":{\"link_id\":\"t3_a\"}}", nil), ("{\"x\":[{\"link_id\":1}],\"link_id\":null}", .null),
            ("{\"link_id\":\"t3_a\",\"link_id\":5}", .number), ("{\"link_id\":5,\"link_id\":\"t3_b\"}", .string),
            ("{\"link_id\":{\"a\":[1,{}]}}", .object), ("{\"link_id\":[]}", .array), ("{\"link_id\":false}", .false),
            ("{\"link_id\":\"t3_\\u0061\"}", .string), ("{}", nil), ("{\"link_idx\":1,\"link_i\":2}", nil),
        ]
        for (text, kind) in cases {
            #expect(Self.agrees(Array(text.utf8)), "\(text)")
            guard case .some(let value) = Self.scan(Array(text.utf8)) else { continue }
            #expect(value?.kind == kind, "\(text)")
        }
        // Not an object at the root, an escaped root name, nesting past the limit: refused, and read by the parser.
        for text in [
            "[1]", "\"x\"", "5", "{\"link\\u005fid\":\"t3_a\"}", "{\"a\":\"b\",\"\\n\":1}",
            "{\"a\":" + String(repeating: "[", count: JSONScan.depthLimit) + String(repeating: "]", count: JSONScan.depthLimit) + "}",
        ] {
            #expect(Self.scan(Array(text.utf8)) == nil, "\(text)")
            #expect((try? JSONDocument(bytes: Array(text.utf8))) != nil)
        }
        #expect(
            Self.agrees(
                Array(
                    ("{\"a\":" + String(repeating: "[", count: JSONScan.depthLimit - 1)
                        + String(repeating: "]", count: JSONScan.depthLimit - 1) + "}").utf8)))
    }

    /// `line` with one to three kinds of damage: a byte changed, removed or inserted, the line cut
    /// short, or a piece of it repeated elsewhere (structure out of place).
    static func damaged(_ line: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        let alphabet = Array("{}[]:,\"\\ 0123456789eE.-+tfnulrsa_".utf8) + [0x00, 0x09, 0x0A, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xE2, 0xED, 0xEF, 0xF4, 0xFF]
        var bytes = line
        for _ in 0..<(1 + Int(random.next() % 3)) {
            let at = Int(random.next() % UInt64(bytes.count + 1))
            switch random.next() % 5 {
            case 0: if at < bytes.count { bytes[at] = alphabet[Int(random.next() % UInt64(alphabet.count))] }
            case 1: if at < bytes.count { bytes.remove(at: at) }
            case 2: bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: at)
            case 3: bytes = Array(bytes.prefix(at))
            default:
                let from = Int(random.next() % UInt64(bytes.count + 1)), length = Int(random.next() % 24)
                bytes.insert(contentsOf: bytes[from..<min(bytes.count, from + length)], at: at)
            }
        }
        return bytes
    }

    @Test("20,000 damaged dump lines: the scan accepts only what the parser accepts, and reads it alike")
    func damagedLines() throws {
        let lines = try (TestData.bytes("dumps/RC_sample.jsonl").split(separator: 0x0A) + TestData.bytes("dumps/RS_sample.jsonl").split(separator: 0x0A))
            .map { Array($0) }
        var random = SplitMix64(seed: 20261203)
        var accepted = 0
        for _ in 0..<20_000 {
            if Self.agrees(Self.damaged(lines[Int(random.next() % UInt64(lines.count))], &random)) { accepted += 1 }
        }
        // Enough damage lands inside strings' text that many lines stay JSON: both sides are tried.
        #expect(accepted > 2_000 && accepted < 18_000, "\(accepted)")
    }

    /// The names the skim tests ask for: at the root of dump lines and thread files, and nested.
    static let skimNames: [StaticString] = ["link_id", "parent_id", "title", "id", "name", "body", "comments", "children", "type", ""]

    /// Checks the skim of `bytes` against the parser, for a document the parser accepts: the same
    /// root members present, or nil only for a root that is not an object or a name with an escape.
    static func skimAgrees(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        guard let document = try? JSONDocument(bytes: bytes) else { return }
        let skimmed = bytes.withUnsafeBufferPointer { JSONScan.skimRootMembers($0, named: skimNames) }
        guard document.kind(document.root) == .object else {
            #expect(skimmed == nil, sourceLocation: sourceLocation)
            return
        }
        guard let skimmed else {
            var escapedName = false
            document.forEachMember(document.root) { _, value in
                if document.nodes[value - 1].flag { escapedName = true }
            }
            #expect(escapedName, "no answer for \(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
            return
        }
        for (k, name) in skimNames.enumerated() {
            #expect(
                skimmed[k] == (document.member(document.root, name.description) != nil),
                "\(name) in \(String(decoding: bytes.prefix(300), as: UTF8.self))", sourceLocation: sourceLocation)
        }
    }

    @Test("a root object's members as the parser reads them: names, and values' bytes; nil for what the parser refuses, an escaped name, or a root that is not an object")
    func members() throws {
        func members(_ text: String) -> [String]? {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBufferPointer { JSONScan.members($0) }.map { found in
                found.map { String(decoding: bytes[$0.name], as: UTF8.self) + "=" + String(decoding: bytes[$0.value], as: UTF8.self) }
            }
        }
        #expect(members(#" {"a": {"b": [1, "}"]}, "c" :"x\"}", "d":null,"e":-1.5e3 , "":[]} "#) == [#"a={"b": [1, "}"]}"#, #"c="x\"}""#, "d=null", "e=-1.5e3", "=[]"])
        #expect(members("{}") == [] && members("\u{FEFF}{ }\n") == [])
        for refused in [#"{"a\u0062": 1}"#, "[]", #"{"a": 1,}"#, #"{"a": 1} x"#, #"{"a": [1}"#, #"{"a" 1}"#, #"{"a": 01}"#, "{", ""] {
            #expect(members(refused) == nil, "\(refused)")
        }
        // Every vendored fixture the parser reads: the members it lists, in order.
        for fixture in ["reddit-listing/comments.json", "discourse-topic/topic.json", "mastodon-context/context.json", "github-issue/issue.json"] {
            let bytes = try TestData.bytes("fixtures/" + fixture)
            let document = try JSONDocument(bytes: bytes)
            guard document.kind(document.root) == .object else { continue }
            var names: [String] = []
            document.forEachMember(document.root) { name, _ in names.append(name) }
            let found = try #require(bytes.withUnsafeBufferPointer { JSONScan.members($0) }, "\(fixture)")
            #expect(found.map { String(decoding: bytes[$0.name], as: UTF8.self) } == names, "\(fixture)")
        }
    }

    @Test("the skim finds the parser's root members in every document the parser accepts: dump lines, thread files, damaged lines")
    func skimAgreesWithParser() throws {
        let lines = try (TestData.bytes("dumps/RC_sample.jsonl").split(separator: 0x0A) + TestData.bytes("dumps/RS_sample.jsonl").split(separator: 0x0A))
            .map { Array($0) }
        for line in lines { Self.skimAgrees(line) }
        for fixture in [
            "reddit-listing/comments.json", "discourse-topic/topic.json", "mastodon-context/context.json",
            "lemmy-post/post.json", "github-issue/issue.json",
        ] {
            Self.skimAgrees(try TestData.bytes("fixtures/" + fixture))
        }
        for text in [
            #"{"a": {"id": 1, "title": "x"}, "b": ["id", {"link_id": 2}], "name": "n"}"#,
            #"{"body": "a \"quoted\" \\ \"id\": 1, {\"title\": 2}", "id": "\u0069d"}"#,
            #"{"\u0069d": 1}"#, #"{"": 0, "children": [], "type": null}"#, "\u{FEFF} \n{\"id\":1}\n", "{}", "[]", #""id""#,
            #"{"title": "x", "comments": [[[{"parent_id": ["]"]}]]]}"#,
            // Runs of backslashes before a quote: even ones end the string, odd ones escape the quote.
            #"{"body": "\\", "id": 1}"#, #"{"body": "x\\\", "title": 1", "name": 2}"#, #"{"body": "\\\\\\", "type": 3}"#,
            #"{"\\": 1, "id": 2}"#, #"{"a\\": 1, "title": 2}"#, #"{"body": "\"", "children": [], "link_id": "\\\""}"#,
        ] {
            Self.skimAgrees(Array(text.utf8))
        }
        // Damaged lines: whatever the parser still accepts, the skim reads alike.
        var random = SplitMix64(seed: 20261204)
        for _ in 0..<10_000 {
            Self.skimAgrees(Self.damaged(lines[Int(random.next() % UInt64(lines.count))], &random))
        }
    }

    @Test("a dump line's key is the same read quickly and read through its document, for Reddit and Hacker News")
    func quickKeyAgrees() throws {
        for name in ["dumps/RC_sample.jsonl", "dumps/RS_sample.jsonl"] {
            for (k, line) in try TestData.bytes(name).split(separator: 0x0A).enumerated() {
                let bytes = Array(line)
                let slow = try DumpPartition.documentKey(of: bytes, number: k + 1, offset: 0, position: k, form: .reddit, display: name, mapping: nil)
                let quick = bytes.withUnsafeBufferPointer { DumpForm.reddit.quickKey($0) }
                // Comments are read quickly; submissions (no link_id) the slow way.
                #expect(quick == (name.contains("RC_") ? slow : nil))
            }
        }
        // Hacker News items: id, and parent or else poll; anything but plain integers the slow way.
        let items: [(String, Bool)] = [
            (#"{"id": 1, "type": "story", "by": "pg", "title": "Y"}"#, true),
            (#"{"id": 15, "type": "comment", "parent": 1, "text": "First"}"#, true),
            (#"{"id": 31, "type": "pollopt", "poll": 30, "score": 2}"#, true),
            (#"{"id": 32, "parent": 5, "poll": 30}"#, true),
            (#"{"id": -3, "parent": 0}"#, true),
            (#"{"id": 7, "id": 8, "parent": 1, "parent": 2}"#, true),
            (#"{"id": 9223372036854775807, "parent": 1}"#, true),
            (#"{"id": 9223372036854775808, "parent": 1}"#, false),
            (#"{"id": -9223372036854775808, "parent": -0}"#, true),
            (#"{"id": -9223372036854775809, "parent": 1}"#, false),
            (#"{"id": 15, "parent": 00012}"#, false),
            (#"{"id": "15", "parent": 1}"#, false),
            (#"{"id": 15, "parent": 1.0}"#, false),
            (#"{"id": 15, "parent": 1e2}"#, false),
            (#"{"id": 15, "parent": null}"#, false),
            (#"{"parent": 1}"#, false),
        ]
        for (text, quickly) in items {
            let bytes = Array(text.utf8)
            let quick = bytes.withUnsafeBufferPointer { DumpForm.hn.quickKey($0) }
            #expect((quick != nil) == quickly, "\(text)")
            if let quick {
                #expect(quick == (try DumpPartition.documentKey(of: bytes, number: 1, offset: 0, position: 0, form: .hn, display: "items", mapping: nil)), "\(text)")
            }
        }
        let escaped = Array(#"{"link_id":"t3_\u0061b","parent_id":"t3_ab"}"#.utf8)
        #expect(escaped.withUnsafeBufferPointer { DumpForm.reddit.quickKey($0) } == nil)
        #expect(Array(#"{"link_id":"t3_ab"}"#.utf8).withUnsafeBufferPointer { DumpForm.mapped.quickKey($0) } == nil)
    }

    /// The root members of a document: name, kind and where the value starts, in order.
    static func rootMembers(_ document: JSONDocument, of object: Int? = nil) -> [(name: String, kind: JSONDocument.Kind, offset: Int)] {
        var members: [(name: String, kind: JSONDocument.Kind, offset: Int)] = []
        document.forEachMember(object ?? document.root) { name, value in members.append((name, document.kind(value), document.offset(value))) }
        return members
    }

    /// What a value is, to compare two documents' values: its kind, and its text for a scalar (a
    /// string decoded) or its size on the tape for an object or array.
    static func describe(_ document: JSONDocument, _ value: Int) -> String {
        switch document.kind(value) {
        case .string: return "string " + document.string(value)
        case .number: return "number \(document.double(value) ?? .nan) \(document.int64(value).map(String.init) ?? "")"
        case .object, .array: return "\(document.kind(value)) \(document.next(value) - value)"
        default: return "\(document.kind(value))"
        }
    }

    /// Checks what leaving off the members `keeping` does not keep does to `bytes`, when the scan
    /// accepts them: the result parses, to the kept members alone, in their order, with the same
    /// values, each on the line where it was and, through the gaps, at the column where it was; it
    /// is no longer than the line, and the line itself when nothing was left off.
    static func leavesOff(_ bytes: [UInt8], keeping names: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let filter = JSONMemberFilter(names)
        var blanks: [Range<Int>] = []
        guard case .object = bytes.withUnsafeBufferPointer({ JSONScan.rootMembers($0, named: ["link_id"], keeping: filter, blanks: &blanks) }),
            let original = try? JSONDocument(bytes: bytes)
        else { return }
        var left = bytes
        var gaps: [JSONScan.Gap] = []
        let length = left.withUnsafeMutableBufferPointer { JSONScan.leaveOff($0, blanks: blanks, gaps: &gaps) }
        left.removeLast(left.count - length)
        let text = String(decoding: bytes.prefix(400), as: UTF8.self)
        guard let document = try? JSONDocument(bytes: left) else {
            Issue.record("left off \(names) from \(text): not JSON: \(String(decoding: left.prefix(400), as: UTF8.self))", sourceLocation: sourceLocation)
            return
        }
        var kept: [(name: String, value: String, line: Int, column: Int)] = []
        original.forEachMember(original.root) { name, value in
            guard names.contains(name) else { return }
            let place = JSONDocument.location(in: bytes, offset: original.offset(value))
            kept.append((name, describe(original, value), place.line, place.column))
        }
        var found: [(name: String, value: String, line: Int, column: Int)] = []
        document.forEachMember(document.root) { name, value in
            let place = JSONDocument.location(in: left, offset: document.offset(value))
            found.append((name, describe(document, value), place.line, column(place, in: left, gaps: gaps)))
        }
        #expect(found.map(\.name) == kept.map(\.name), "\(text)", sourceLocation: sourceLocation)
        #expect(found.map(\.value) == kept.map(\.value), "\(text)", sourceLocation: sourceLocation)
        #expect(found.map(\.line) == kept.map(\.line) && found.map(\.column) == kept.map(\.column), "\(text)", sourceLocation: sourceLocation)
        #expect(left.count <= bytes.count, sourceLocation: sourceLocation)
        if blanks.isEmpty { #expect(left == bytes && gaps.isEmpty, sourceLocation: sourceLocation) }
    }

    /// The column `place` (in `left`, which `leaveOff` left with `gaps`) had before: on a line
    /// after the first, the gaps are counted from that line's first byte.
    static func column(_ place: (line: Int, column: Int), in left: [UInt8], gaps: [JSONScan.Gap]) -> Int {
        var start = 0
        for _ in 1..<place.line { start = left[start...].firstIndex(of: 0x0A)! + 1 }
        let end = left[start...].firstIndex(of: 0x0A) ?? left.count
        let onLine = gaps.filter { Int($0.at) >= start && Int($0.at) <= end }.map { JSONScan.Gap(at: $0.at - UInt32(start), columns: $0.columns) }
        return left[start..<end].withUnsafeBufferPointer { line in
            onLine.withUnsafeBufferPointer { JSONScan.column(place.column, in: line, gaps: $0) }
        }
    }

    /// The members the Reddit importer reads of a dump record (`RedditImporter.dumpMembers`).
    static let importerMembers = [
        "link_id", "parent_id", "id", "name", "link_title", "subreddit", "author", "body", "created_utc", "edited",
        "score", "author_flair_text", "title", "selftext", "num_comments", "permalink", "is_self", "url",
        "stickied", "locked", "over_18", "spoiler",
    ]

    @Test("leaving members off a dump line keeps the others, where they were: the importer's members, every subset, damaged lines")
    func leavingOff() throws {
        let lines = try (TestData.bytes("dumps/RC_sample.jsonl").split(separator: 0x0A) + TestData.bytes("dumps/RS_sample.jsonl").split(separator: 0x0A))
            .map { Array($0) }
        let importer = Self.importerMembers
        var random = SplitMix64(seed: 20261205)
        for line in lines {
            Self.leavesOff(line, keeping: importer)
            Self.leavesOff(line, keeping: [])
            guard let document = try? JSONDocument(bytes: line) else { continue }
            let names = Self.rootMembers(document).map(\.name)
            Self.leavesOff(line, keeping: names)
            // Random subsets: runs left off at the start, in the middle, at the end, and all.
            for _ in 0..<8 { Self.leavesOff(line, keeping: names.filter { _ in random.next() % 2 == 0 }) }
            Self.leavesOff(line, keeping: Array(names.prefix(1)))
            Self.leavesOff(line, keeping: Array(names.suffix(1)))
        }
        for text in [
            #"{"a":1,"b":2,"c":3}"#, #"{"b":"é😀日本","a":"ü","c":["ß",{"d":"ñ"}],"b":"\u00e9"}"#, "{\"c\":\"x\",\n\"b\":\"é\",\n\"a\":1}", "{ \"a\" : [1, {\"b\": 2}] ,\n \"b\":{} , \"c\":\"}\" }",
            #"{}"#, #"{"a":1}"#,
            #"{"b":1,"b":2,"a":3,"b":4}"#, "\u{FEFF}{\"x\":null,\"a\":true}  ", #"{"longer_than_eight":1,"longer_than_eighT":2,"":3}"#,
        ] {
            for keeping in [["a"], ["b"], ["c"], ["a", "c"], ["b", "c"], [], ["longer_than_eight", ""], ["longer_than_eighT"]] {
                Self.leavesOff(Array(text.utf8), keeping: keeping)
            }
        }
        for _ in 0..<5_000 {
            Self.leavesOff(Self.damaged(lines[Int(random.next() % UInt64(lines.count))], &random), keeping: importer)
        }
    }

    /// `form`'s quick key of `bytes`, leaving off what its records' parse does not keep, as the
    /// partition pass reads it; a thread's key as its bytes.
    static func leavingOff(
        _ form: DumpForm, _ bytes: inout [UInt8], blanks: inout [Range<Int>], gaps: inout [JSONScan.Gap]
    )
        -> (key: DumpForm.Key, length: Int)?
    {
        var keys: [UInt8] = [9, 9]  // a batch's keys before this line's
        let members = form.recordMembers
        guard
            let quick = bytes.withUnsafeMutableBufferPointer({
                form.quickKey(leavingOff: $0, keeping: members ?? .none, filtering: members != nil, blanks: &blanks, gaps: &gaps, keys: &keys)
            })
        else { return nil }
        switch quick.key {
        case .thread(let range):
            #expect(range.upperBound == keys.count)
            return (.thread(Array(keys[range])), quick.length)
        case .item(let id, let parent): return (.item(id: id, parent: parent), quick.length)
        }
    }

    @Test("a Reddit comment's quick key leaves off the members the importer does not read; a Hacker News item is kept whole")
    func quickKeyLeavesOff() throws {
        for line in try TestData.bytes("dumps/RC_sample.jsonl").split(separator: 0x0A) {
            var bytes = Array(line)
            var blanks: [Range<Int>] = []
            var gaps: [JSONScan.Gap] = []
            let quick = Self.leavingOff(.reddit, &bytes, blanks: &blanks, gaps: &gaps)
            #expect(quick?.key == Array(line).withUnsafeBufferPointer { DumpForm.reddit.quickKey($0) })
            bytes.removeLast(bytes.count - (quick?.length ?? bytes.count))
            // Most vendored comments are whole Pushshift records; a few hand-made ones have only members the importer reads.
            let unread = Self.rootMembers(try JSONDocument(bytes: Array(line))).contains { !Self.importerMembers.contains($0.name) }
            #expect((bytes != Array(line)) == unread)
            // A thread's parse (its records in an array, keeping the importer's members) reads the same either way.
            let kept = try JSONDocument(bytes: Array("[".utf8) + bytes + Array("]".utf8), records: RedditImporter.dumpMembers)
            let whole = try JSONDocument(bytes: Array("[".utf8) + Array(line) + Array("]".utf8), records: RedditImporter.dumpMembers)
            let members = Self.rootMembers(kept, of: kept.root + 1)
            #expect(members.map(\.name) == Self.rootMembers(whole, of: whole.root + 1).map(\.name))
            #expect(
                members.map { Self.column(JSONDocument.location(in: kept.bytes, offset: $0.offset), in: kept.bytes, gaps: gaps.map { JSONScan.Gap(at: $0.at + 1, columns: $0.columns) }) }
                    == Self.rootMembers(whole, of: whole.root + 1).map { JSONDocument.location(in: whole.bytes, offset: $0.offset).column })
            // What is left is shorter by the members' bytes, not made white space.
            #expect(bytes.count == line.count - blanks.reduce(0) { $0 + $1.count })
            #expect(gaps.count == blanks.count && (gaps.isEmpty || unread))
            let alone = try JSONDocument(bytes: bytes)
            #expect(members.count > 5 && members.count == Self.rootMembers(alone).count)
        }
        var item = Array(#"{"id": 15, "type": "comment", "parent": 1, "text": "First"}"#.utf8)
        let before = item
        var blanks: [Range<Int>] = []
        var gaps: [JSONScan.Gap] = []
        let itemKey = Self.leavingOff(.hn, &item, blanks: &blanks, gaps: &gaps)
        #expect(itemKey?.key == .item(id: 15, parent: 1) && itemKey?.length == item.count && gaps.isEmpty)
        #expect(item == before)
        // A line read through its document is left as it is.
        var submission = Array(#"{"id": "ab", "title": "T", "selftext": "", "num_comments": 1, "extra": 1}"#.utf8)
        let whole = submission
        #expect(Self.leavingOff(.reddit, &submission, blanks: &blanks, gaps: &gaps) == nil)
        #expect(submission == whole)
    }

}
