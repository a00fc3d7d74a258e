import Foundation
import Testing

@testable import ThreadfoldKit

/// A reply chain 100,000 long, in both shapes, built, laid out, rendered and freed on a
/// thread with a 512 KiB stack: any recursion over the chain would overflow it.
@Suite("Deep threads")
struct DeepThreadTests {
    static let depth = 100_000

    static func flatChain() -> String {
        var parts: [String] = []
        parts.reserveCapacity(depth)
        for i in 0..<depth {
            // Ids start at 1: a parent of 0 means "top level" in the input format.
            parts.append(i == 0 ? #"{"id":1,"author":"u0","body":"start"}"# : #"{"id":\#(i + 1),"parent_id":\#(i),"author":"u\#(i % 7)","body":"reply *\#(i)*"}"#)
        }
        return "{\"title\":\"chain\",\"comments\":[" + parts.joined(separator: ",") + "]}"
    }

    static func nestedChain() -> String {
        var json = "["
        for i in 0..<depth { json += #"{"id":\#(i),"author":"u\#(i % 7)","body":"reply","replies":["# }
        json += String(repeating: "]}", count: depth) + "]"
        return json
    }

    /// Runs `body` on a thread with a small stack and waits for it.
    static func onSmallStack(_ body: @escaping @Sendable () throws -> Void) throws {
        final class Box: @unchecked Sendable { var error: Error? }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let thread = Foundation.Thread {
            do { try body() } catch { box.error = error }
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        if let error = box.error { throw error }
    }

    @Test("flat and nested chains 100,000 deep render on a 512 KiB stack", arguments: ["flat", "nested"])
    func chain(_ shape: String) throws {
        let json = shape == "flat" ? Self.flatChain() : Self.nestedChain()
        try Self.onSmallStack {
            let pipeline = try ThreadPipeline(options: ArchiveOptions())
            let result = try pipeline.page(bytes: Array(json.utf8), file: "chain.json")
            #expect(result.thread.totals.comments == Self.depth)
            #expect(result.thread.totals.levels == Self.depth)
            #expect(result.thread.stats[0].totalReplies == Int32(Self.depth - 1))
            #expect(result.thread.stats[0].participants == 7)
            let html = String(decoding: result.html, as: UTF8.self)
            // Default max depth 8: levels 0…7 nest, the rest is one flat list saying whom each answers.
            #expect(html.components(separatedBy: "<details class=\"tf-replies\"").count - 1 == 8)
            #expect(html.components(separatedBy: "class=\"tf-replying\"").count - 1 == Self.depth - 9)
        }
    }

    @Test("100,000 replies to one comment")
    func wide() throws {
        var parts = [#"{"id":"root","author":"a"}"#]
        for i in 0..<Self.depth { parts.append(#"{"id":"r\#(i)","parent_id":"root","author":"u\#(i % 1000)"}"#) }
        let result = try ThreadPipeline(options: ArchiveOptions()).page(bytes: Array(("[" + parts.joined(separator: ",") + "]").utf8), file: "wide.json")
        #expect(result.thread.stats[0].directReplies == Int32(Self.depth))
        #expect(result.thread.stats[0].participants == 1000)
        let html = String(decoding: result.html, as: UTF8.self)
        #expect(html.contains("Show 99,998 more replies (1,000 people)"))
    }
}
