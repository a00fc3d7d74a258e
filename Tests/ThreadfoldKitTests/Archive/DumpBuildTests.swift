import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

/// Dumps as people download them: Reddit submissions and comments (`RS_…`, `RC_…`), sorted by
/// time, compressed, streamed through spill partitions and joined by thread.
@Suite("Dump builds")
struct DumpBuildTests {
    /// The sample subreddit: 12 submissions (one without comments, link posts, a locked and a
    /// stickied one) and 161 comments sorted by time, three of them in a thread whose submission
    /// the dump does not hold.
    static func sample(in folder: URL, compressed: Bool = true) throws -> [String] {
        let names = compressed ? ["RS_sample.jsonl.gz", "RC_sample.zst"] : ["RS_sample.jsonl", "RC_sample.jsonl"]
        return try names.map { name in
            let path = folder.appendingPathComponent(name).path
            try Data(TestData.bytes("dumps/" + name)).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    /// `RC_many.jsonl` in `folder`: 600 comments over 97 threads, more than the 64 partitions, so
    /// some partitions hold several.
    static func manyThreads(in folder: URL) throws -> [String] {
        [try ArchiveFixture.write(DumpPartitionTests.dump(count: 600, bad: []), "RC_many.jsonl", in: folder)]
    }

    static func lines(_ name: String) throws -> [[String: Any]] {
        try TestData.bytes("dumps/" + name).split(separator: 0x0A).map {
            try JSONSerialization.jsonObject(with: Data($0)) as! [String: Any]
        }
    }

    @Test("one Reddit thread has one identity: a /comments/<id>.json listing and a submissions dump line give the same folder, and both together are refused naming both inputs")
    func oneIdentity() throws {
        let folder = try ArchiveFixture.folder()
        let listingBytes = try TestData.bytes("fixtures/reddit-listing/comments.json")
        let listing = try ArchiveFixture.write(String(decoding: listingBytes, as: UTF8.self), "comments.json", in: folder)
        // The post as a dump's submissions file has it: the listing's own post data, on one line.
        let posts = try JSONSerialization.jsonObject(with: Data(listingBytes)) as! [[String: Any]]
        let post = ((posts[0]["data"] as! [String: Any])["children"] as! [[String: Any]])[0]["data"]!
        let line = String(decoding: try JSONSerialization.data(withJSONObject: post, options: [.sortedKeys]), as: UTF8.self)
        let dump = try ArchiveFixture.write(line + "\n", "RS_2015-01.jsonl", in: folder)
        var folders: [[String]] = []
        for (n, input) in [listing, dump].enumerated() {
            let report = try ArchiveFixture.build([input], in: folder, site: "site\(n)")
            #expect(report.published && report.errors.isEmpty, "\(report.errors)")
            folders.append(report.threadPaths)
        }
        #expect(folders[0] == folders[1] && folders[0].count == 1 && folders[0][0].hasSuffix("-2tpycj"), "\(folders)")
        let both = try ArchiveFixture.build([listing, dump], in: folder, site: "both")
        #expect(!both.published)
        let error = try #require(both.errors.first)
        let named = [error.file, error.message].joined(separator: " ")
        #expect(named.contains(listing) && named.contains(dump) && error.message.contains("the same thread from two inputs"), "\(error) \(listing) \(dump)")
    }

    @Test("submissions and comments join by thread: the title, opening post, author, link, flags and the comments not archived come from the submission")
    func join() throws {
        let folder = try ArchiveFixture.folder()
        let report = try ArchiveFixture.build(try Self.sample(in: folder), in: folder)
        #expect(report.errors.isEmpty, "\(report.errors)")
        let submissions = try Self.lines("RS_sample.jsonl")
        // Every submission has its page, and so does the thread whose submission is missing.
        #expect(report.threads == submissions.count + 1)
        let site = folder.appendingPathComponent("site")
        for submission in submissions {
            let id = submission["id"] as! String
            let folders = report.threadPaths.filter { $0.hasSuffix("-" + id) }
            #expect(folders.count == 1, "t/<slug>-\(id), with no t3_ and no hash")
            let page = ArchiveFixture.text(site, folders[0] + "/index.html")
            var title: [UInt8] = []
            HTML.escape(submission["title"] as! String, into: &title)
            #expect(page.contains(String(decoding: title, as: UTF8.self)))
            #expect(page.contains("https://www.reddit.com" + (submission["permalink"] as! String)))
            if submission["is_self"] as! Bool == false {
                #expect(page.contains("href=\"" + (submission["url"] as! String) + "\""), "a link post shows its URL")
            }
            let comments = try Self.lines("RC_sample.jsonl").filter { $0["link_id"] as? String == "t3_" + id }
            let missing = (submission["num_comments"] as! Int) - comments.count
            if missing > 0 { #expect(page.contains("\(missing) more repl"), "num_comments less the comments archived") }
            if comments.isEmpty { #expect(page.contains("No comments yet") || missing > 0) }
        }
        let index = ArchiveFixture.text(site, "index.html")
        #expect(index.contains("<bdi>stickied</bdi>") && index.contains("<bdi>locked</bdi>") && index.contains("<bdi>NSFW</bdi>"))
        #expect(index.contains("Only comments here"), "comments without their submission keep link_title")
        #expect(index.contains("r/swiftdump"))
    }

    @Test("a dump submission's poll survives the member filter and reaches its page")
    func poll() throws {
        let folder = try ArchiveFixture.folder()
        let submission =
            #"{"id": "p0ll", "title": "Vote", "author": "ann", "created_utc": 1709000000, "subreddit": "swiftdump", "permalink": "/r/swiftdump/comments/p0ll/vote/", "is_self": true, "selftext": "", "num_comments": 1, "score": 3, "#
            + RedditImporterTests.pollData + "}"
        let comment = #"{"id": "c1", "link_id": "t3_p0ll", "parent_id": "t3_p0ll", "author": "bob", "body": "Tabs!", "created_utc": 1709000100, "score": 1}"#
        let input = try ArchiveFixture.write(submission + "\n", "RS_poll.jsonl", in: folder)
        let comments = try ArchiveFixture.write(comment + "\n", "RC_poll.jsonl", in: folder)
        let report = try ArchiveFixture.build([input, comments], in: folder)
        #expect(report.errors.isEmpty, "\(report.errors)")
        let page = ArchiveFixture.text(folder.appendingPathComponent("site"), try #require(report.threadPaths.first) + "/index.html")
        #expect(page.contains("<figcaption>Poll · 11,249 votes") && page.contains("<bdi>Tabs</bdi> <span class=\"tf-votes\">6,200 votes</span>"))
    }

    @Test("a dump builds the same thread pages as the same threads in files of their own")
    func samePages() throws {
        let folder = try ArchiveFixture.folder()
        let dump = try ArchiveFixture.build(try Self.sample(in: folder), in: folder, site: "dump")
        #expect(dump.errors.isEmpty, "\(dump.errors)")
        // One file per thread: its submission, then its comments, in the dump's order.
        let threads = folder.appendingPathComponent("threads")
        var byThread: [String: [String]] = [:]
        var order: [String] = []
        for name in ["RS_sample.jsonl", "RC_sample.jsonl"] {
            for line in try TestData.bytes("dumps/" + name).split(separator: 0x0A) {
                let object = try JSONSerialization.jsonObject(with: Data(line)) as! [String: Any]
                let key = (object["link_id"] as? String).map { String($0.dropFirst(3)) } ?? object["id"] as! String
                if byThread[key] == nil { order.append(key) }
                byThread[key, default: []].append(String(decoding: line, as: UTF8.self))
            }
        }
        for key in order {
            try ArchiveFixture.write(byThread[key]!.joined(separator: "\n") + "\n", "\(key).jsonl", in: threads)
        }
        let files = try ArchiveFixture.build([threads.path], in: folder, site: "files")
        #expect(files.errors.isEmpty, "\(files.errors)")
        let a = ArchiveFixture.files(folder.appendingPathComponent("dump")).filter { $0.key.hasPrefix("t/") }
        let b = ArchiveFixture.files(folder.appendingPathComponent("files")).filter { $0.key.hasPrefix("t/") }
        #expect(a.count == b.count && a.count > 30)
        for (path, bytes) in a { #expect(b[path] == bytes, "\(path)") }
    }

    @Test("the output does not depend on jobs, on compression or on the order the files are named in")
    func deterministic() throws {
        let folder = try ArchiveFixture.folder()
        let compressed = try Self.sample(in: folder)
        let plain = try Self.sample(in: folder, compressed: false)
        _ = try ArchiveFixture.build(compressed, in: folder, site: "one", jobs: 1)
        _ = try ArchiveFixture.build(plain.reversed(), in: folder, site: "four", jobs: 4)
        #expect(ArchiveFixture.files(folder.appendingPathComponent("one")) == ArchiveFixture.files(folder.appendingPathComponent("four")))
    }

    @Test("shards split a dump by thread as it is read, and merging them equals one build")
    func shards() throws {
        let folder = try ArchiveFixture.folder()
        let inputs = try Self.sample(in: folder)
        let whole = try ArchiveFixture.build(inputs, in: folder, site: "whole")
        var shards: [String] = []
        var threads = 0
        for k in 1...3 {
            let report = try ArchiveFixture.build(inputs, in: folder, site: "shard\(k)", shard: Shard(index: k, count: 3))
            #expect(report.errors.isEmpty)
            #expect(report.threads + report.threadsInOtherShards == whole.threads)
            threads += report.threads
            shards.append(folder.appendingPathComponent("shard\(k)").path)
        }
        #expect(threads == whole.threads)
        let merged = try ArchiveMerge(shards: shards, output: folder.appendingPathComponent("merged"), options: ArchiveOptions()).run()
        #expect(merged.errors.isEmpty)
        #expect(ArchiveFixture.files(folder.appendingPathComponent("merged")) == ArchiveFixture.files(folder.appendingPathComponent("whole")))
    }

    @Test("an incremental build after one comment changed renders that thread alone, and an unchanged dump renders nothing")
    func incremental() throws {
        let folder = try ArchiveFixture.folder()
        let inputs = try Self.sample(in: folder, compressed: false)
        let first = try ArchiveFixture.build(inputs, in: folder, incremental: true)
        #expect(first.threadsRendered == first.threads)
        #expect(first.dumpPartitions > 1 && first.dumpPartitionsReused == 0)
        let again = try ArchiveFixture.build(inputs, in: folder, incremental: true)
        #expect(again.threadsRendered == 0 && again.threadsReused == first.threads)
        // Every partition held what it held before: none was read back.
        #expect(again.dumpPartitionsReused == first.dumpPartitions)
        // One comment's body changed in place.
        var lines = try TestData.lines("dumps/RC_sample.jsonl")
        var comment = try JSONSerialization.jsonObject(with: Data(lines[40].utf8)) as! [String: Any]
        comment["body"] = "An edited comment"
        lines[40] = String(decoding: try JSONSerialization.data(withJSONObject: comment, options: [.sortedKeys]), as: UTF8.self)
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: inputs[1]))
        let changed = try ArchiveFixture.build(inputs, in: folder, incremental: true)
        #expect(changed.errors.isEmpty)
        #expect(changed.threadsRendered == 1 && changed.threadsReused == first.threads - 1)
        #expect(changed.dumpPartitionsReused == first.dumpPartitions - 1, "the changed thread's partition is read")
        let full = try ArchiveFixture.build(inputs, in: folder, site: "full")
        #expect(ArchiveFixture.files(folder.appendingPathComponent("site")) == ArchiveFixture.files(folder.appendingPathComponent("full")))
        _ = full
    }

    @Test("the same dumps given by other paths are the same input: nothing is rendered or read back, and the kept messages name the paths given now")
    func otherPaths() throws {
        let folder = try ArchiveFixture.folder()
        let inputs = try Self.sample(in: folder, compressed: false)
        let first = try ArchiveFixture.build(inputs, in: folder, incremental: true)
        #expect(first.warnings.contains { $0.kind == "omittedDeleted" })
        // The same files through a link to their folder, and a path with a `.` in it.
        let link = folder.appendingPathComponent("elsewhere")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: folder)
        let other = [link.path + "/" + URL(fileURLWithPath: inputs[0]).lastPathComponent, folder.path + "/./" + URL(fileURLWithPath: inputs[1]).lastPathComponent]
        for build in 0..<2 {
            let again = try ArchiveFixture.build(other, in: folder, incremental: true)
            #expect(again.errors.isEmpty && again.threadsRendered == 0 && again.threadsReused == first.threads, "build \(build)")
            #expect(again.dumpPartitionsReused == first.dumpPartitions, "build \(build)")
            let full = try ArchiveFixture.build(other, in: folder, site: "full\(build)")
            #expect(again.warnings.map(\.description) == full.warnings.map(\.description), "build \(build)")
            #expect(again.warnings.allSatisfy { other.contains($0.file) && !$0.file.utf8.contains(0) }, "build \(build)")
        }
        // Back to the first paths: their own names again.
        let back = try ArchiveFixture.build(inputs, in: folder, incremental: true)
        #expect(back.threadsRendered == 0 && back.warnings.map(\.description) == first.warnings.map(\.description))
    }

    @Test("a thread whose lines keep their numbers but not their element positions is rendered again: its messages name the elements")
    func positionsShift() throws {
        let folder = try ArchiveFixture.folder()
        var lines = try TestData.lines("dumps/RC_sample.jsonl")
        lines.insert("", at: 1)  // a blank line is counted, not an element
        let path = try ArchiveFixture.write(lines.joined(separator: "\n") + "\n", "RC_shift.jsonl", in: folder)
        let first = try ArchiveFixture.build([path], in: folder, incremental: true)
        #expect(first.errors.isEmpty && first.warnings.contains { $0.kind == "omittedDeleted" })
        // The blank line becomes a comment of a thread of its own: every later line keeps its
        // number, and is one element further on.
        lines[1] = #"{"id": "zz1", "link_id": "t3_zzzz", "parent_id": "t3_zzzz", "author": "a", "body": "new", "created_utc": 1704068391}"#
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        let second = try ArchiveFixture.build([path], in: folder, incremental: true)
        let full = try ArchiveFixture.build([path], in: folder, site: "full")
        #expect(second.warnings.map(\.description) == full.warnings.map(\.description))
        #expect(second.threadsRendered == first.threads + 1, "every thread has a line after the one that changed")
    }

    @Test("incremental builds continue the spill the last one kept beside the site: partitions that did not change are taken, not written, and every site equals a full build")
    func keptSpill() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fm = FileManager.default
        var lines = DumpPartitionTests.dump(count: 600, bad: []).split(separator: "\n").map(String.init)
        let comments = folder.appendingPathComponent("RC_many.jsonl")
        let more = folder.appendingPathComponent("RC_more.jsonl")
        let site = folder.appendingPathComponent("site")
        let kept = folder.appendingPathComponent(".site.spill")
        func write(_ lines: [String], to url: URL) throws { try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url) }
        // The kept partitions' files, times and bytes: a file taken whole keeps all three, one
        // written again is a new file (even where its inode number is reused, its time is new).
        struct Kept: Equatable {
            var inode: UInt64
            var time: Date
            var bytes: Data
        }
        func partitions() -> [String: Kept] {
            let names = (try? fm.contentsOfDirectory(atPath: kept.path)) ?? []
            return Dictionary(
                uniqueKeysWithValues: names.filter { $0.hasPrefix("p") }.compactMap { name in
                    let path = kept.appendingPathComponent(name).path
                    guard let inode = ArchiveFixture.inode(path), let bytes = fm.contents(atPath: path),
                        let time = (try? fm.attributesOfItem(atPath: path))?[.modificationDate] as? Date
                    else { return nil }
                    return (name, Kept(inode: inode, time: time, bytes: bytes))
                })
        }
        // Builds incrementally, then checks the site against a full build of the same inputs,
        // and that nothing of the spill is in the site. Returns how many partitions are the very
        // files the last build kept.
        func build(_ inputs: [URL], _ label: String) throws -> (report: ArchiveBuilder.Report, same: Int) {
            let before = partitions()
            let report = try ArchiveFixture.build(inputs.map(\.path), in: folder, incremental: true)
            #expect(report.errors.isEmpty && report.published, "\(label): \(report.errors)")
            let after = partitions()
            #expect(!after.isEmpty, "\(label): the spill is kept beside the site")
            let siteNames = try fm.contentsOfDirectory(atPath: site.path)
            #expect(!siteNames.contains { $0.hasPrefix(Spill.folderName) }, "\(label): \(siteNames)")
            let full = try ArchiveFixture.build(inputs.map(\.path), in: folder, site: "full")
            #expect(ArchiveFixture.files(site) == ArchiveFixture.files(folder.appendingPathComponent("full")), "\(label)")
            #expect(report.threads == full.threads && report.warnings.map(\.description) == full.warnings.map(\.description), "\(label)")
            return (report, after.count { before[$0.key] == $0.value })
        }
        try write(lines, to: comments)
        let first = try build([comments], "first")
        let count = partitions().count
        #expect(count == first.report.dumpPartitions)

        // One comment changed: one partition differs, from that comment on.
        lines[300] = lines[300].replacingOccurrences(of: "comment 300", with: "comment three hundred, edited")
        try write(lines, to: comments)
        let edited = try build([comments], "edited")
        #expect(edited.report.threadsRendered == 1)
        #expect(edited.same == count - 1, "every other partition's file is the kept one")

        // A member no page reads changed in place: no partition's records did.
        lines[10] = lines[10].replacingOccurrences(of: "\"gilded\": 1", with: "\"gilded\": 7")
        try write(lines, to: comments)
        let unread = try build([comments], "unread member")
        #expect(unread.same == count)
        // The thread edited by the last build is linked from the live site (the recycled spare
        // holds its older page), so no partition is read back.
        #expect(unread.report.threadsRendered == 0 && unread.report.dumpPartitionsReused == count)

        // Comments added at the end, one taken out in the middle.
        lines += (600..<640).map { i in
            "{\"id\": \"c\(i)\", \"link_id\": \"t3_\(i % 97)\", \"parent_id\": \"t3_\(i % 97)\", \"author\": \"a\", \"created_utc\": \(1_600_000_000 + i), \"body\": \"late \(i)\"}"
        }
        lines.remove(at: 450)
        try write(lines, to: comments)
        _ = try build([comments], "grown and shrunk")

        // A new file after it (a new month), then before it: every record of the first file
        // has a new place among the files, so its partitions are written again.
        try write(
            (0..<30).map { i in
                "{\"id\": \"m\(i)\", \"link_id\": \"t3_\(i % 7)\", \"parent_id\": \"t3_\(i % 7)\", \"author\": \"b\", \"created_utc\": \(1_700_000_000 + i), \"body\": \"next month \(i)\"}"
            }, to: more)
        let month = try build([comments, more], "a month added")
        #expect(month.same > 0, "partitions the new month does not reach are taken as they were")
        let reordered = try build([more, comments], "files in another order")
        #expect(reordered.same == 0, "each record's file has another place among the inputs")

        // A kept file with another link to it is not taken (taking one cuts and appends to it).
        let linked = folder.appendingPathComponent("linked")
        try fm.createDirectory(at: linked, withIntermediateDirectories: true)
        let before = partitions()
        for name in before.keys { try fm.linkItem(at: kept.appendingPathComponent(name), to: linked.appendingPathComponent(name)) }
        lines[5] = lines[5].replacingOccurrences(of: "comment 5\"", with: "comment five\"")
        try write(lines, to: comments)
        let relinked = try build([more, comments], "kept files linked elsewhere")
        #expect(relinked.same == 0)
        for (name, file) in before { #expect(fm.contents(atPath: linked.appendingPathComponent(name).path) == file.bytes, "\(name)") }

        // A kept spill that is damaged or of another format is not continued, and does no harm.
        let victim = try #require(partitions().keys.sorted().first)
        let handle = try FileHandle(forWritingTo: kept.appendingPathComponent(victim))
        try handle.truncate(atOffset: 10)
        try handle.close()
        _ = try build([more, comments], "a kept partition cut short")
        try Data("another format".utf8).write(to: kept.appendingPathComponent(Spill.formatName))
        _ = try build([more, comments], "another format")

        // A build without --incremental keeps no spill, and removes the one it finds; so does an
        // incremental build without dumps.
        _ = try ArchiveFixture.build([comments.path], in: folder)
        #expect(!fm.fileExists(atPath: kept.path))
        _ = try build([comments], "incremental again")
        #expect(fm.fileExists(atPath: kept.path))
        let thread = try ArchiveFixture.write(ArchiveFixture.thread(id: "n1", day: 1), "n1.json", in: folder.appendingPathComponent("threads"))
        let noDumps = try ArchiveFixture.build([thread], in: folder, incremental: true)
        #expect(noDumps.published && !fm.fileExists(atPath: kept.path))
    }

    @Test("a dump build cleans the recycled spare while it partitions: a stranger's file, an edited page, planted spill folders and an unreadable manifest are never published")
    func spareCleanedWhilePartitioning() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = try Self.manyThreads(in: folder)
        let site = folder.appendingPathComponent("site")
        let spare = folder.appendingPathComponent(".site.spare")
        _ = try ArchiveFixture.build(inputs, in: folder, site: "full")
        let expected = ArchiveFixture.files(folder.appendingPathComponent("full"))
        for round in 0..<2 {
            _ = try ArchiveFixture.build(inputs, in: folder, incremental: true)
            _ = try ArchiveFixture.build(inputs, in: folder, incremental: true)
            #expect(FileManager.default.fileExists(atPath: spare.appendingPathComponent(Manifest.fileName).path), "there is a spare to recycle")
            let page = try #require(expected.keys.first { $0.hasPrefix("t/") && $0.hasSuffix("/index.html") })
            try ArchiveFixture.write("stranger", "t/extra.html", in: spare)
            try ArchiveFixture.write("stranger", "t/gone-thread/index.html", in: spare)
            try ArchiveFixture.write("<script>alert(1)</script>", page, in: spare)
            try ArchiveFixture.write("junk", Spill.folderName + "/p0", in: spare)
            try ArchiveFixture.write("junk", Spill.previousName + "/p0", in: spare)
            if round == 1 { try ArchiveFixture.write("{", Manifest.fileName, in: spare) }
            let report = try ArchiveFixture.build(inputs, in: folder, incremental: true)
            #expect(report.published && report.errors.isEmpty, "\(report.errors)")
            #expect(ArchiveFixture.files(site) == expected, "round \(round)")
            let hidden = try FileManager.default.contentsOfDirectory(atPath: site.path).filter { $0.hasPrefix(".threadfold-spill") }
            #expect(hidden.isEmpty, "\(hidden)")
            #expect(!FileManager.default.fileExists(atPath: site.appendingPathComponent("t/gone-thread").path), "round \(round)")
        }
    }

    @Test("an unchanged partition whose thread's page changed in the live site is read back for that thread alone")
    func partitionReadForAChangedPage() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = try Self.manyThreads(in: folder)
        let site = folder.appendingPathComponent("site")
        let first = try ArchiveFixture.build(inputs, in: folder, incremental: true)
        #expect(first.threads == 97 && first.errors.isEmpty)
        let expected = ArchiveFixture.files(site)
        let table = { (name: String) in
            FileManager.default.contents(atPath: folder.appendingPathComponent(name).appendingPathComponent(DumpTable.fileName).path)
        }
        // The live site's page of one thread is changed behind the build's back: it cannot be
        // linked. The thread is the first of a partition that holds another one after it, which
        // is served: the table must still list them in the order they appear.
        let manifestBytes = try #require(FileManager.default.contents(atPath: site.appendingPathComponent(Manifest.fileName).path))
        let manifest = try #require(Manifest(bytes: Array(manifestBytes)))
        let tableBytes = try #require(table("site"))
        let written = try #require(DumpTable(bytes: Array(tableBytes), settings: manifest.settings))
        let shared = try #require(written.threads.first { $0.count >= 2 })
        let summary = try #require(manifest.units[StableHash.hex(shared[0].key)]?.threads.first)
        let page = summary.path + "/index.html"
        #expect(expected[page] != nil)
        try Data("changed".utf8).write(to: site.appendingPathComponent(page))
        let second = try ArchiveFixture.build(inputs, in: folder, incremental: true)
        #expect(second.errors.isEmpty && second.published)
        #expect(second.threadsRendered == 1 && second.threadsReused == first.threads - 1)
        #expect(second.dumpPartitionsReused == first.dumpPartitions - 1)
        #expect(ArchiveFixture.files(site) == expected)
        // The next build recycles the first one's folder, whose page is the changed one: the
        // thread is linked from the live site instead. The last build's table lists the
        // partition's threads as a build that read it all does, so this build reads none.
        let third = try ArchiveFixture.build(inputs, in: folder, incremental: true)
        #expect(third.threadsRendered == 0 && third.dumpPartitionsReused == first.dumpPartitions)
        #expect(ArchiveFixture.files(site) == expected)
        let fourth = try ArchiveFixture.build(inputs, in: folder, incremental: true)
        #expect(fourth.threadsRendered == 0 && fourth.dumpPartitionsReused == first.dumpPartitions)
        #expect(ArchiveFixture.files(site) == expected)
        _ = try ArchiveFixture.build(inputs, in: folder, site: "full", incremental: true)
        #expect(table("site") != nil && table("site") == table("full"))
    }

    @Test("messages name the file's own line, element and byte, whatever partition found them, in file order")
    func messages() throws {
        let folder = try ArchiveFixture.folder()
        var lines = try TestData.lines("dumps/RC_sample.jsonl")
        lines[9] = #"{"id": "x1", "link_id": 5, "parent_id": "t3_a"}"#
        lines[19] = #"{"id": "x2", broken"#
        lines.insert("", at: 30)  // a blank line is counted, not read
        lines[50] = #"{"id": "x3", "body": "no thread"}"#
        let dump = try ArchiveFixture.write(lines.joined(separator: "\n") + "\n", "RC_bad.jsonl", in: folder)
        let report = try ArchiveFixture.build([dump], in: folder)
        #expect(!report.published)
        #expect(report.errors.map(\.line) == [10, 20, 51])
        #expect(report.errors.allSatisfy { $0.file == dump })
        #expect(report.errors[0].path == "$[9].link_id" && report.errors[0].message.contains("expected a string"))
        #expect(report.errors[1].message.contains("the line starts at byte"))
        #expect(report.errors[2].path == "$[49]", "the blank line is not an element")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("site").path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "no staging folder and no spill are left: \(leftovers)")

        // A bad value found when its thread is read, after members the partition pass left off
        // that hold accented letters, emoji and a newline escape: its column is the file's, in characters.
        var valid = try TestData.lines("dumps/RC_sample.jsonl")
        let late = #"{"gilded": "é😀日本\n", "id": "x4", "awarders": ["ü"], "link_id": "t3_zz", "author": 5, "body": "b"}"#
        valid[70] = late
        let lateDump = try ArchiveFixture.write(valid.joined(separator: "\n") + "\n", "RC_late.jsonl", in: folder)
        let lateReport = try ArchiveFixture.build([lateDump], in: folder, site: "late")
        let error = try #require(lateReport.errors.first)
        let five = try #require(late.range(of: #""author": 5"#)).upperBound
        #expect(lateReport.errors.count == 1 && error.line == 71 && error.path == "$[70].author", "\(error)")
        #expect(error.column == late[..<five].count, "\(error)")

        // Warnings from threads point at their lines too, in file order.
        let good = try ArchiveFixture.build(try Self.sample(in: folder), in: folder, site: "good")
        let deleted = good.warnings.filter { $0.kind == "omittedDeleted" }
        #expect(!deleted.isEmpty)
        let comments = try Self.lines("RC_sample.jsonl")
        for warning in deleted {
            let line = try #require(warning.line)
            #expect(warning.file.hasSuffix("RC_sample.zst"))
            #expect(["[deleted]", "[removed]"].contains(comments[line - 1]["body"] as? String), "line \(line)")
            #expect(warning.path == "$[\(line - 1)]")
        }
        #expect(deleted.map { $0.line! } == deleted.map { $0.line! }.sorted())
    }

    @Test("a duplicate id names both of its lines in the dump, when it is an error and when it is a warning kept by an incremental build")
    func duplicateNamesBothLines() throws {
        let folder = try ArchiveFixture.folder()
        var lines = try TestData.lines("dumps/RC_sample.jsonl")
        // Line 60 repeats line 12's comment id, in the same thread, far apart in the dump.
        var first = try JSONSerialization.jsonObject(with: Data(lines[11].utf8)) as! [String: Any]
        var copy = try JSONSerialization.jsonObject(with: Data(lines[59].utf8)) as! [String: Any]
        copy["id"] = first["id"]
        copy["link_id"] = first["link_id"]
        copy["parent_id"] = first["link_id"]
        first["parent_id"] = first["link_id"]
        lines[11] = String(decoding: try JSONSerialization.data(withJSONObject: first, options: [.sortedKeys]), as: UTF8.self)
        lines[59] = String(decoding: try JSONSerialization.data(withJSONObject: copy, options: [.sortedKeys]), as: UTF8.self)
        let dump = try ArchiveFixture.write(lines.joined(separator: "\n") + "\n", "RC_dup.jsonl", in: folder)

        let refused = try ArchiveFixture.build([dump], in: folder)
        #expect(!refused.published)
        let error = try #require(refused.errors.first)
        #expect(error.line == 60 && error.path == "$[59].id")
        #expect(error.related == Problem.Related(label: "first used", line: 12, column: 1, path: "$[11]"), "\(error)")
        #expect(error.description.hasSuffix("(first used at 12:1 ($[11]))"))

        var options = ArchiveOptions()
        options.render.thread.allowDuplicates = true
        for _ in 0..<2 {
            // The second build reuses the thread and its warnings from the manifest.
            let kept = try ArchiveFixture.build([dump], in: folder, site: "kept", options: options, incremental: true)
            let warning = try #require(kept.warnings.first { $0.kind == "duplicate" })
            #expect(warning.line == 60)
            #expect(warning.related == Problem.Related(label: "first used", line: 12, column: 1, path: "$[11]"), "\(warning)")
        }
    }

    @Test("with lenient, lines that are not records are skipped and counted; past the share allowed the file is refused")
    func lenient() throws {
        let folder = try ArchiveFixture.folder()
        let lines = try TestData.lines("dumps/RC_sample.jsonl")
        let dump = try ArchiveFixture.write(try TestData.commentDumpWithBadLines(), "RC_some.jsonl", in: folder)
        var options = ArchiveOptions()
        options.render.importing.lenient = true
        let report = try ArchiveFixture.build([dump], in: folder, options: options)
        #expect(report.errors.isEmpty && report.published)
        #expect(report.warnings.filter { $0.kind == "skippedLine" }.map(\.line) == [4, 8])

        let mostlyBad = try ArchiveFixture.write((lines.prefix(3) + Array(repeating: "{\"x\": 1}", count: 10)).joined(separator: "\n"), "RC_bad.jsonl", in: folder)
        let refused = try ArchiveFixture.build([mostlyBad], in: folder, site: "bad", options: options)
        #expect(!refused.published)
        #expect(refused.errors.count == 1 && refused.errors[0].message.contains("10 of its 13 lines"), "\(refused.errors)")
    }

    @Test("Hacker News items reach their story through parent chains, even when a reply comes before its parent")
    func hackerNewsItems() throws {
        let folder = try ArchiveFixture.folder()
        let items = [
            #"{"id": 1, "type": "story", "by": "pg", "time": 1160418111, "title": "Y Combinator", "url": "http://ycombinator.com", "score": 57, "descendants": 4}"#,
            #"{"id": 2, "type": "story", "by": "phyllis", "time": 1160418628, "title": "A Student's Guide", "text": "Read it"}"#,
            #"{"id": 15, "type": "comment", "by": "sama", "parent": 1, "time": 1160423461, "text": "First"}"#,
            #"{"id": 17, "type": "comment", "by": "pg", "parent": 16, "time": 1160423500, "text": "Reply to a later line"}"#,
            #"{"id": 16, "type": "comment", "by": "jl", "parent": 15, "time": 1160423495, "text": "Second"}"#,
            #"{"id": 21, "type": "comment", "by": "x", "parent": 2, "time": 1160423600, "text": "On the second story"}"#,
            #"{"id": 30, "type": "comment", "by": "y", "parent": 999, "time": 1160423700, "text": "Its story is not here"}"#,
        ]
        let dump = try ArchiveFixture.write(items.joined(separator: "\n") + "\n", "items.jsonl", in: folder)
        let report = try ArchiveFixture.build([dump], in: folder)
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.threads == 3)
        let site = folder.appendingPathComponent("site")
        let story = try #require(report.threadPaths.first { $0.hasSuffix("-1") })
        let page = ArchiveFixture.text(site, story + "/index.html")
        #expect(page.contains("Reply to a later line") && page.contains("Second") && page.contains("First"))
        #expect(!page.contains("On the second story"))
    }

    @Test("a dump cut short or corrupt is an error naming the file; nothing is published and nothing is left behind")
    func damaged() throws {
        let folder = try ArchiveFixture.folder()
        let bytes = try TestData.bytes("dumps/RC_sample.zst")
        let cut = try ArchiveFixture.write("", "RC_cut.zst", in: folder)
        try Data(bytes.prefix(bytes.count - 40)).write(to: URL(fileURLWithPath: cut))
        let report = try ArchiveFixture.build([cut], in: folder)
        #expect(!report.published)
        #expect(report.errors.contains { $0.file == cut && $0.message.contains("ends in the middle of a zstd frame") }, "\(report.errors)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}
