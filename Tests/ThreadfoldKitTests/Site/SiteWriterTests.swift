import Foundation
import Synchronization
import Testing

@testable import ThreadfoldKit

@Suite("Site writer")
struct SiteWriterTests {
    func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tf-site-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func read(_ url: URL) -> String? { FileManager.default.contents(atPath: url.path).map { String(decoding: $0, as: UTF8.self) } }

    @Test("publishes into a new folder, then replaces it whole; stale files disappear")
    func replace() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let site = root.appendingPathComponent("site")
        try SiteWriter(output: site).publish([("a.html", Array("one".utf8)), ("sub/b.css", Array("x".utf8))])
        #expect(read(site.appendingPathComponent("a.html")) == "one")
        #expect(read(site.appendingPathComponent("sub/b.css")) == "x")
        try SiteWriter(output: site).publish([("c.html", Array("two".utf8))])
        #expect(read(site.appendingPathComponent("c.html")) == "two")
        #expect(read(site.appendingPathComponent("a.html")) == nil)
        // No staging or old folders are left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["site"], "no lock, staging or old folder is left beside it")
    }

    @Test("a writer that keeps no stamps writes the same files and vouches for none of them")
    func withoutStamps() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        for stamps in [true, false] {
            let site = root.appendingPathComponent("site-\(stamps)")
            let staging = try SiteWriter(output: site, stamps: stamps).begin()
            try staging.write("t/a/index.html", Array("one".utf8))
            let taken = staging.take(["t/a/index.html"])
            try staging.commit()
            #expect(read(site.appendingPathComponent("t/a/index.html")) == "one")
            #expect(taken.files == ["t/a/index.html"])
            // Kept, a stamp records the file's inode and the hash of its bytes; not kept, nothing.
            #expect((taken.stamps[0] == .unknown) == !stamps)
            #expect((taken.stamps[0].hash == FileStamp.contentHash(Array("one".utf8))) == stamps)
        }
    }

    @Test("the live site's files are linked as a batch: all of them, or none when one is not as recorded")
    func linkBatch() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let site = root.appendingPathComponent("site")
        let paths = ["t/a/index.html", "t/a/atom.xml", "t/b/index.html"]
        try SiteWriter(output: site).publish(zip(paths, ["one", "feed", "two"]).map { ($0, Array($1.utf8)) })
        func stamp(_ path: String) throws -> FileStamp {
            var info = stat()
            try #require(stat(site.appendingPathComponent(path).path, &info) == 0)
            return FileStamp(info)
        }
        let stamps = try paths.map(stamp)
        // All of them: hard links to the live files, in folders made for them.
        let staging = try SiteWriter(output: site).begin()
        #expect(try staging.link(paths, expected: stamps))
        #expect(Set(staging.untaken) == Set(paths))
        try staging.commit()
        #expect(try paths.map(stamp).map(\.inode) == stamps.map(\.inode), "the live files themselves, linked")
        #expect(read(site.appendingPathComponent("t/a/atom.xml")) == "feed")
        // The last one not as recorded: nothing is linked, and nothing linked before it is left behind.
        var wrong = stamps
        wrong[2].size += 1
        let again = try SiteWriter(output: site).begin()
        #expect(try !again.link(paths, expected: wrong))
        #expect(again.untaken.isEmpty)
        try again.write("other.html", Array("x".utf8))
        try again.commit()
        #expect(read(site.appendingPathComponent("other.html")) == "x")
        #expect(!FileManager.default.fileExists(atPath: site.appendingPathComponent("t").path), "the folders made for the links are removed with them")
    }

    @Test("a symlink planted in the old output is replaced, its target untouched")
    func plantedSymlink() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let site = root.appendingPathComponent("site")
        let victim = root.appendingPathComponent("victim.txt")
        try Data("precious".utf8).write(to: victim)
        try SiteWriter(output: site).publish([("a.html", Array("one".utf8))])
        try FileManager.default.removeItem(at: site.appendingPathComponent("a.html"))
        try FileManager.default.createSymbolicLink(at: site.appendingPathComponent("a.html"), withDestinationURL: victim)
        try SiteWriter(output: site).publish([("a.html", Array("new".utf8))])
        #expect(read(victim) == "precious")
        #expect(read(site.appendingPathComponent("a.html")) == "new")
        let type = try FileManager.default.attributesOfItem(atPath: site.appendingPathComponent("a.html").path)[.type] as? FileAttributeType
        #expect(type == .typeRegular)
    }

    @Test("a failed build leaves the previous output complete")
    func failureLeavesOldSite() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let site = root.appendingPathComponent("site")
        try SiteWriter(output: site).publish([("a.html", Array("one".utf8))])
        #expect(throws: ThreadfoldError.self) {
            try SiteWriter(output: site).publish([("b.html", Array("two".utf8)), ("../escape.html", Array("x".utf8))])
        }
        #expect(read(site.appendingPathComponent("a.html")) == "one")
        #expect(read(site.appendingPathComponent("b.html")) == nil)
        #expect(read(root.appendingPathComponent("escape.html")) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["site"], "no lock, staging or old folder is left beside it")
    }

    @Test("a folder Threadfold did not write is refused, not overwritten")
    func foreignFolder() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("mine".utf8).write(to: root.appendingPathComponent("notes.txt"))
        let error = try #require(throws: ThreadfoldError.self) { try SiteWriter(output: root).publish([("a.html", [])]) }
        #expect(error.message.contains("holds files Threadfold did not write"))
        #expect(read(root.appendingPathComponent("notes.txt")) == "mine")
    }

    @Test("unsafe relative paths are refused", arguments: ["../x", "/abs", "a/../b", "", ".hidden", "a//b"])
    func unsafePaths(_ path: String) {
        #expect(!RelativePath.isSafe(path))
    }

    @Test("a file that cannot be written in the staging folder is named by the site path as given, never by the staging folder's")
    func messagesNameTheSite() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let site = URL(fileURLWithPath: "site", relativeTo: root)
        let error = try #require(throws: ThreadfoldError.self) {
            try SiteWriter(output: site).publish([("sub/a.html", Array("one".utf8)), ("sub/a.html", Array("two".utf8))])
        }
        #expect(error.description == "site/sub/a.html: error: cannot be created: File exists (EEXIST)")
        #expect(!error.description.contains("staging"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).isEmpty, "nothing is published or left beside it")
        // A full disk says so.
        #expect(
            ThreadfoldError.output(path: "site/index.html", message: "cannot be written: \(SystemError.describe(ENOSPC))", errno: ENOSPC).description
                == "site/index.html: error: cannot be written: No space left on device (ENOSPC): the disk is full (the file system is out of space or out of inodes)")
    }

    @Test(
        "a spare's manifest is read while meanwhile runs: what it vouches for is kept; a spare it vouches for nothing is emptied, and not recycled",
        arguments: [true, false])
    func recycleBesideMeanwhile(vouches: Bool) throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let site = root.appendingPathComponent("site")
        // Two builds: the first one's folder becomes the spare.
        for text in ["one", "two"] {
            let staging = try SiteWriter(output: site).begin(keepSpare: true)
            try staging.write("t/a/index.html", Array(text.utf8))
            try staging.write("t/b/index.html", Array("b".utf8))
            try staging.commit()
        }
        let spare = SiteWriter(output: site).spare
        // A spill-named folder in the spare (as meanwhile would make) is spared by the walk.
        try FileManager.default.createDirectory(at: spare.appendingPathComponent(SiteWriter.scratchNames.current), withIntermediateDirectories: true)
        var info = stat()
        try #require(lstat(spare.appendingPathComponent("t/a/index.html").path, &info) == 0)
        let stamp = FileStamp(info).hashed(FileStamp.contentHash(Array("one".utf8)))
        try #require(lstat(spare.appendingPathComponent(SiteWriter.markerName).path, &info) == 0)
        let marker = info.st_ino
        // The manifest is read only once meanwhile has begun, and meanwhile ends only once it
        // has been read: each waits for the other, so they run side by side or time out.
        final class Meeting: Sendable {
            let meanwhileBegun = DispatchSemaphore(value: 0)
            let manifestRead = DispatchSemaphore(value: 0)
            let readings = Mutex<[String]>([])
        }
        let meeting = Meeting()
        var met = false
        let staging = try SiteWriter(output: site).begin(
            keepSpare: true,
            recycle: { readMetadata in
                let begun = meeting.meanwhileBegun.wait(timeout: .now() + 10) == .success
                meeting.readings.withLock { $0.append(readMetadata(SiteWriter.markerName) == nil ? "no marker" : begun ? "marker" : "alone") }
                meeting.manifestRead.signal()
                return vouches ? ["t/a/index.html": stamp] : nil
            },
            meanwhile: { staging in
                meeting.meanwhileBegun.signal()
                met = meeting.manifestRead.wait(timeout: .now() + 10) == .success
                #expect(!staging.recycled, "the staging folder says what it kept only once begin returns")
            })
        #expect(met, "meanwhile saw the manifest read while it ran")
        #expect(meeting.readings.withLock { $0 } == ["marker"])
        #expect(staging.recycled == vouches)
        #expect(staging.kept.map { Array($0.keys) } == (vouches ? ["t/a/index.html"] : nil))
        #expect(FileManager.default.fileExists(atPath: staging.path + "/t/a/index.html") == vouches)
        #expect(!FileManager.default.fileExists(atPath: staging.path + "/t/b/index.html"), "a file the manifest does not vouch for is removed")
        #expect(FileManager.default.fileExists(atPath: staging.path + "/" + SiteWriter.scratchNames.current))
        try #require(lstat(staging.path + "/" + SiteWriter.markerName, &info) == 0)
        #expect(info.st_ino == marker, "the spare's own marker stays, locked")
        try staging.write("t/c/index.html", Array("c".utf8))
        try staging.commit()
        #expect(read(site.appendingPathComponent("t/a/index.html")) == (vouches ? "one" : nil))
        #expect(read(site.appendingPathComponent("t/c/index.html")) == "c")
        #expect(!FileManager.default.fileExists(atPath: site.appendingPathComponent(SiteWriter.scratchNames.current).path), "no spill is published")
    }

    @Test("a run of writes that keeps its open folders writes what single writes do, into deeper, sibling and shallower folders")
    func runOfWrites() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let paths = [
            "t/a/index.html", "t/a/thread.json", "t/a/c-1/index.html", "t/a/c-2/index.html", "t/ab/index.html", "t/a/c-1/x.html", "t/b/index.html",
            "index.html", "t/a/atom.xml",
        ]
        var trees: [[String: String]] = []
        for kept in [true, false] {
            let site = root.appendingPathComponent("site-\(kept)")
            let staging = try SiteWriter(output: site).begin()
            var folders = SiteWriter.OpenFolders()
            for path in paths {
                if kept { try staging.write(path, Array(path.utf8), folders: &folders) } else { try staging.write(path, Array(path.utf8)) }
            }
            // A path that is not safe is refused with the run's folders as with none.
            #expect(throws: ThreadfoldError.self) { try staging.write("t/../x", [], folders: &folders) }
            try staging.commit()
            var tree: [String: String] = [:]
            for path in FileManager.default.subpaths(atPath: site.path) ?? [] where !path.hasPrefix(".") {
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: site.appendingPathComponent(path).path, isDirectory: &isFolder), !isFolder.boolValue {
                    tree[path] = read(site.appendingPathComponent(path))
                }
            }
            trees.append(tree)
        }
        #expect(trees[0] == Dictionary(uniqueKeysWithValues: paths.map { ($0, $0) }))
        #expect(trees[0] == trees[1])
    }

    @Test("cleaning a recycled folder on every core keeps and removes exactly what one thread does")
    func cleanOnEveryCore() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        // 40 thread folders, each with a vouched page, a vouched branch page, a stray file and
        // (every fifth) a stray folder; beside them, a page whose times moved but not its bytes
        // (kept by its hash), one whose bytes changed at the same size (removed), and a stray
        // top-level folder.
        func plant(_ base: URL) throws -> [String: FileStamp] {
            let fm = FileManager.default
            var vouched: [String: FileStamp] = [:]
            func write(_ path: String, _ text: String, vouch: Bool) throws {
                let url = base.appendingPathComponent(path)
                try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: url)
                guard vouch else { return }
                var info = stat()
                try #require(lstat(url.path, &info) == 0)
                vouched[path] = FileStamp(info).hashed(FileStamp.contentHash(Array(text.utf8)))
            }
            try write("index.html", "index", vouch: true)
            for i in 0..<40 {
                try write("t/n\(i)/index.html", "thread \(i)", vouch: true)
                try write("t/n\(i)/c-1/index.html", "branch \(i)", vouch: true)
                try write("t/n\(i)/stray.html", "stray", vouch: false)
                if i % 5 == 0 { try write("t/n\(i)/stray/x.html", "x", vouch: false) }
            }
            try write("stray/y.html", "y", vouch: false)
            // Moved times, same bytes: kept by content. Changed bytes, same size: removed.
            // (Their modification times are set back a day: a rewrite within the same clock tick
            // would leave every number of the stamp as it was.)
            for (path, text) in [("t/n3/index.html", "thread 3"), ("t/n4/index.html", "thread X")] {
                let url = base.appendingPathComponent(path)
                try Data(text.utf8).write(to: url)
                var times = [timespec(tv_sec: time(nil) - 86_400, tv_nsec: 0), timespec(tv_sec: time(nil) - 86_400, tv_nsec: 0)]
                try #require(utimensat(AT_FDCWD, url.path, &times, 0) == 0)
            }
            return vouched
        }
        func files(_ base: URL) -> [String] {
            (FileManager.default.subpaths(atPath: base.path) ?? []).sorted()
        }
        var results: [(kept: [String: FileStamp], files: [String])] = []
        for jobs in [1, 2, 4] {
            let base = root.appendingPathComponent("spare-\(jobs)")
            let vouched = try plant(base)
            let kept = try SiteWriter.clean(try Folder.open(base.path), keeping: vouched, jobs: jobs)
            results.append((kept, files(base)))
        }
        let one = results[0]
        #expect(one.kept.count == 1 + 40 * 2 - 1)
        #expect(one.kept["t/n3/index.html"] != nil, "a page whose bytes are unchanged is kept by its hash")
        #expect(one.kept["t/n4/index.html"] == nil)
        #expect(!one.files.contains("t/n4/index.html"))
        #expect(!one.files.contains { $0.hasPrefix("stray") || $0.contains("/stray") })
        for other in results.dropFirst() {
            #expect(Set(other.files).symmetricDifference(one.files).sorted() == [])
            #expect(Set(other.kept.keys).symmetricDifference(one.kept.keys).sorted() == [])
        }
    }
}
