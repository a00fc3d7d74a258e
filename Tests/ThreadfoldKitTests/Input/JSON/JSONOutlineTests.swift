import Foundation
import Testing

@testable import ThreadfoldKit

/// `JSONOutline` lists a document of many threads without parsing it: whatever it decides, the
/// parsed document must decide alike, to the byte.
@Suite("JSON outline")
struct JSONOutlineTests {
    typealias List = (path: String, elements: [Range<Int>])

    static func outline(_ text: String) -> JSONOutline.Outcome {
        Array(text.utf8).withUnsafeBufferPointer { JSONOutline.threadList($0) }
    }

    /// Checks the outline of `bytes` against the parsed document, and against the outline that
    /// is told the `known` threads; returns the outline's outcome.
    @discardableResult
    static func agrees(_ bytes: [UInt8], known: KnownElements? = nil, sourceLocation: SourceLocation = #_sourceLocation) -> JSONOutline.Outcome {
        let outcome = bytes.withUnsafeBufferPointer { JSONOutline.threadList($0) }
        if let known {
            // Threads known from the document before the change are hashed, not read: the same
            // outcome, with each thread's hash.
            let skipping = bytes.withUnsafeBufferPointer { JSONOutline.threadList($0, known: known) }
            if case .list(let path, let elements, let members, nil) = outcome {
                let hashes = elements.map { e in ArchiveUnit.contentHash(of: Array(bytes[e])) }
                #expect(skipping == .list(path: path, elements: elements, rootMembers: members, hashes: hashes), sourceLocation: sourceLocation)
            } else {
                #expect(outcome == skipping, "\(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
            }
        }
        let parsed = ArchiveInput.parsedThreadList(bytes)
        switch outcome {
        case .undecided:
            break
        case .noList:
            #expect(parsed == nil, "the outline finds no list, the parsed document \(parsed.map { "\($0)" } ?? ""): \(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
        case .list(let path, let elements, let rootMembers, _):
            #expect(parsed?.path == path && parsed?.elements == elements, "\(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
            // The root members are the parsed root object's, in order.
            if let document = try? JSONDocument(bytes: bytes), document.kind(document.root) == .object {
                var names: [String] = []
                document.forEachMember(document.root) { name, _ in names.append(name) }
                #expect(rootMembers.map { $0.map { String(decoding: bytes[$0], as: UTF8.self) } } == names, sourceLocation: sourceLocation)
            } else {
                #expect(rootMembers == nil, sourceLocation: sourceLocation)
            }
        }
        return outcome
    }

    static func thread(_ id: Int, comments: String = "[]") -> String {
        "{\"id\": \"t\(id)\", \"title\": \"T {\(id)} [x]\", \"comments\": \(comments)}"
    }

    @Test("a threads document and an array of threads are split at their elements' braces")
    func lists() {
        let a = Self.thread(1), b = Self.thread(2, comments: "[{\"id\": \"c\", \"body\": \"}],{\\\"\"}]")
        let text = "{\"threads\": [\n  \(a),\n  \(b)\n]}\n"
        guard case .list(let path, let elements, _, _) = Self.agrees(Array(text.utf8)) else {
            Issue.record("not split")
            return
        }
        #expect(path == "$.threads")
        #expect(elements.map { String(decoding: Array(text.utf8)[$0], as: UTF8.self) } == [a, b])
        let array = " [\(a),\(b) ] "
        guard case .list(let rootPath, let rootElements, _, _) = Self.agrees(Array(array.utf8)) else {
            Issue.record("not split")
            return
        }
        #expect(rootPath == "$" && rootElements.map { String(decoding: Array(array.utf8)[$0], as: UTF8.self) } == [a, b])
        // With a byte order mark, and members before and after the list.
        Self.agrees([0xEF, 0xBB, 0xBF] + Array("{\"site\": {\"threads\": 1}, \"threads\": [\(a), \(b)], \"x\": [\(a)]}".utf8))
    }

    @Test(
        "what is not a list of two or more thread objects is none, as the parsed document says",
        arguments: [
            "{\"threads\": [\(thread(1))]}",
            "{\"threads\": [\(thread(1)), 5]}",
            "{\"threads\": [\(thread(1)), [\(thread(2))]]}",
            "{\"threads\": [\(thread(1)), \(thread(2))], \"comments\": []}",
            "{\"threads\": [\(thread(1)), \(thread(2))], \"threads\": null}",
            "{\"threads\": [\(thread(1)), \(thread(2))], \"threads\": {}}",
            "{\"meta\": {\"threads\": [\(thread(1)), \(thread(2))]}}",
            "[{\"id\": 1}, \(thread(2))]",
            "[\(thread(1))]",
            "[]",
            "{}",
        ])
    func none(_ text: String) {
        #expect(Self.agrees(Array(text.utf8)) == .noList)
    }

    @Test("the last threads member is the list")
    func lastMember() {
        let text = "{\"threads\": 5, \"threads\": [\(Self.thread(1)), \(Self.thread(2))]}"
        guard case .list = Self.agrees(Array(text.utf8)) else {
            Issue.record("not split")
            return
        }
    }

    @Test(
        "what the outline cannot be sure of is left to the parser",
        arguments: [
            "{\"thr\\u0065ads\": [\(thread(1)), \(thread(2))]}",
            "[{\"comm\\u0065nts\": []}, \(thread(2))]",
            "{\"threads\": [\(thread(1)), \(thread(2))]",
            "{\"threads\": [\(thread(1)), \(thread(2))]} x",
            "{\"threads\": [\(thread(1)), \(thread(2)),]}",
            "{\"threads\": [\(thread(1)), {\"id\": tru}]}",
            "",
        ])
    func undecided(_ text: String) {
        #expect(Self.agrees(Array(text.utf8)) == .undecided)
    }

    @Test("a document nested deeper than the limit is left to the parser")
    func deep() {
        let deep = String(repeating: "[", count: 50) + String(repeating: "]", count: 50)
        let bytes = Array("{\"threads\": [\(Self.thread(1)), \(Self.thread(2, comments: deep))]}".utf8)
        #expect(bytes.withUnsafeBufferPointer { JSONOutline.threadList($0, depthLimit: 20) } == .undecided)
        guard case .list = bytes.withUnsafeBufferPointer({ JSONOutline.threadList($0, depthLimit: 60) }) else {
            Issue.record("not split under a higher limit")
            return
        }
    }

    /// Damaged documents, a byte at a time: whatever the outline decides, the parser agrees.
    @Test("every one-byte change of a threads document: the outline agrees with the parsed document")
    func mutations() {
        let base = Array(
            "{\"threads\": [\(Self.thread(1, comments: "[{\"id\": \"c1\", \"body\": \"a \\\"b\\\" \\u00e9\", \"score\": -1.5e3, \"deleted\": false}]")), \(Self.thread(2))], \"v\": null}"
                .utf8)
        let replacements: [UInt8] = Array("{}[],:\" \\0x1-etn".utf8)
        let known = Self.known(String(decoding: base, as: UTF8.self))
        var decided = 0
        for at in base.indices {
            for replacement in replacements where replacement != base[at] {
                var bytes = base
                bytes[at] = replacement
                if Self.agrees(bytes, known: known) != .undecided { decided += 1 }
            }
            var removed = base
            removed.remove(at: at)
            if Self.agrees(removed, known: known) != .undecided { decided += 1 }
        }
        #expect(decided > base.count, "most changes land inside strings and are decided here")
    }

    /// The threads of `text`'s list as an earlier build knew them.
    static func known(_ text: String, depth: Int = 2) -> KnownElements {
        let bytes = Array(text.utf8)
        var known = KnownElements()
        guard case .list(_, let elements, _, _) = bytes.withUnsafeBufferPointer({ JSONOutline.threadList($0) }) else { return known }
        known.add(elements.map { e in (ArchiveUnit.contentHash(of: Array(bytes[e])), e.count) }, depth: depth)
        return known
    }

    static func document(_ threads: [String]) -> String { "{\"threads\": [\n  " + threads.joined(separator: ",\n  ") + "\n]}\n" }

    @Test("known threads changed, added, taken away or moved: the list is the one found without them")
    func knownThreads() {
        let threads = (1...6).map { Self.thread($0, comments: "[{\"id\": \"c\($0)\", \"body\": \"b\"}]") }
        let known = Self.known(Self.document(threads))
        #expect(!known.isEmpty)
        var changed = threads
        changed[3] = Self.thread(4, comments: "[]")
        let documents = [
            threads, changed, Array(threads.dropFirst()), Array(threads.dropLast()), threads + [Self.thread(7)],
            [threads[0], Self.thread(9)] + threads[1...], threads.reversed(), [threads[2], threads[0], threads[5], threads[1]],
        ]
        for document in documents {
            guard case .list = Self.agrees(Array(Self.document(document).utf8), known: known) else {
                Issue.record("not split: \(document)")
                continue
            }
        }
        // Known threads of any length a planted manifest may claim, and a thread twice.
        for length in [0, 1, 2, 17, 1 << 40] {
            var planted = KnownElements()
            planted.add(threads.map { t in (ArchiveUnit.contentHash(of: Array(t.utf8)), length) }, depth: 2)
            Self.agrees(Array(Self.document(threads).utf8), known: planted)
        }
        Self.agrees(Array(Self.document([threads[0], threads[1], threads[1], threads[2]]).utf8), known: known)
        // A changed thread that is not JSON is read, and found out.
        changed[3] = "{\"id\": tru}"
        #expect(Self.agrees(Array(Self.document(changed).utf8), known: known) == .undecided)
    }

    /// A thread is skipped unread only where its bytes follow, as before, the thread before it:
    /// shown with a known "thread" that is no JSON at all, which a read would refuse.
    @Test("a known thread is hashed, not read, after the thread it followed, and never first")
    func knownSkipped() {
        let first = Self.thread(1), broken = "{\"id\": tru, \"x\": [}", last = Self.thread(3)
        let text = Self.document([first, broken, last])
        #expect(Self.outline(text) == .undecided)
        func hash(_ s: String) -> UInt64 { ArchiveUnit.contentHash(of: Array(s.utf8)) }
        var known = KnownElements()
        known.add([(hash(first), first.utf8.count), (hash(broken), broken.utf8.count), (hash(last), last.utf8.count)], depth: 2)
        let skipped = Array(text.utf8).withUnsafeBufferPointer { JSONOutline.threadList($0, known: known) }
        guard case .list(let path, let elements, _, let hashes) = skipped else {
            Issue.record("not skipped: \(skipped)")
            return
        }
        #expect(path == "$.threads" && elements.count == 3 && hashes == [hash(first), hash(broken), hash(last)])
        // First in the list, it is read: the first thread's members may decide the list.
        #expect(Array(Self.document([broken, first, last]).utf8).withUnsafeBufferPointer { JSONOutline.threadList($0, known: known) } == .undecided)
        // After another thread than the one it followed, it is read.
        #expect(Array(Self.document([last, broken, first]).utf8).withUnsafeBufferPointer { JSONOutline.threadList($0, known: known) } == .undecided)
        // Known from an array of threads (a list one level less deep), it is read in a threads
        // document, where the depth limit is one level nearer.
        var shallow = KnownElements()
        shallow.add([(hash(first), first.utf8.count), (hash(broken), broken.utf8.count)], depth: 1)
        #expect(Array(text.utf8).withUnsafeBufferPointer { JSONOutline.threadList($0, known: shallow) } == .undecided)
        // A known thread is never the one after the last of another document.
        var two = KnownElements()
        two.add([(hash(first), first.utf8.count)], depth: 2)
        two.add([(hash(broken), broken.utf8.count), (hash(last), last.utf8.count)], depth: 2)
        #expect(Array(text.utf8).withUnsafeBufferPointer { JSONOutline.threadList($0, known: two) } == .undecided)
        // Nor under another depth limit than the parser's, which it was checked under.
        #expect(Array(text.utf8).withUnsafeBufferPointer { JSONOutline.threadList($0, depthLimit: 100, known: known) } == .undecided)
        let array = "[\(first), \(broken), \(last)]"
        guard case .list = Array(array.utf8).withUnsafeBufferPointer({ JSONOutline.threadList($0, known: known) }) else {
            Issue.record("a thread known deeper is not skipped in a shallower list")
            return
        }
    }
}
