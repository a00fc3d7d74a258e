import Foundation
import TestSupport

@testable import ThreadfoldKit

/// Temporary folders, thread JSON and whole builds for the archive tests.
enum ArchiveFixture {
    /// A new temporary folder, removed when the tests end.
    static func folder() throws -> URL { try TemporaryFolders.make("tf-archive") }

    @discardableResult
    static func write(_ text: String, _ name: String, in folder: URL) throws -> String {
        let url = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// A thread on one line: `comments` top-level comments, each with `replies` replies, and
    /// optionally a reply chain `chain` deep under the first.
    static func thread(
        id: String, title: String? = nil, day: Int = 0, comments: Int = 2, replies: Int = 1, chain: Int = 0,
        category: String? = nil, tags: [String] = []
    ) -> String {
        var items: [String] = []
        var minute = 0
        func add(_ cid: String, _ parent: String?, _ author: String) {
            minute += 1
            let p = parent.map { "\"\($0)\"" } ?? "null"
            items.append(
                #"{"id": "\#(cid)", "parent_id": \#(p), "author": "\#(author)", "body": "Comment *\#(cid)*", "created_at": \#(1_700_000_000 + day * 86_400 + minute * 60), "score": \#(minute % 7)}"#)
        }
        for c in 0..<comments {
            add("\(id)c\(c)", nil, "u\(c % 5)")
            for r in 0..<replies { add("\(id)c\(c)r\(r)", "\(id)c\(c)", "u\((c + r + 1) % 5)") }
        }
        var parent = "\(id)c0"
        for d in 0..<chain {
            add("\(id)d\(d)", parent, "u\(d % 3)")
            parent = "\(id)d\(d)"
        }
        var fields = [
            #""id": "\#(id)""#, #""title": "\#(title ?? "Thread \(id)")""#, #""author": "u0""#,
            #""created_at": \#(1_700_000_000 + day * 86_400)"#,
        ]
        if let category { fields.append(#""category": "\#(category)""#) }
        if !tags.isEmpty { fields.append(#""tags": [\#(tags.map { "\"\($0)\"" }.joined(separator: ", "))]"#) }
        fields.append(#""comments": [\#(items.joined(separator: ", "))]"#)
        return "{" + fields.joined(separator: ", ") + "}"
    }

    static func build(
        _ inputs: [String], in folder: URL, site: String = "site", options: ArchiveOptions = ArchiveOptions(),
        jobs: Int = 2, incremental: Bool = false, shard: Shard? = nil, reversed: Bool = false
    ) throws -> ArchiveBuilder.Report {
        var units = try ArchiveInput.units(inputs, readStandardInput: { [] }, dumpForm: ArchiveInput.dumps(options.render.importing))
        if reversed { units.reverse() }
        var builder = ArchiveBuilder(units: units, output: folder.appendingPathComponent(site), options: options, jobs: jobs)
        builder.incremental = incremental
        builder.shard = shard
        return try builder.run()
    }

    /// Every file of a site (relative path → bytes), Threadfold's hidden bookkeeping left out.
    static func files(_ site: URL) -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        guard let walker = FileManager.default.enumerator(atPath: site.path) else { return out }
        while let relative = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = site.appendingPathComponent(relative).path
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                !relative.hasPrefix(".threadfold")
            else { continue }
            out[relative] = FileManager.default.contents(atPath: path).map { [UInt8]($0) }
        }
        return out
    }

    static func text(_ site: URL, _ path: String) -> String {
        FileManager.default.contents(atPath: site.appendingPathComponent(path).path).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    static func inode(_ path: String) -> UInt64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.uint64Value
    }
}
