import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

#if canImport(Glibc)
    import Glibc
#endif

/// What an incremental build takes from beside and inside its site (the spare, the kept spill, the
/// live site's files) is trusted only when it is the running user's own and is still what was
/// recorded: each test is one attack from the second safety review.
@Suite("Archive trust: planted, edited and restored files")
struct ArchiveTrustTests {
    let fm = FileManager.default

    /// Whether a test may hand files to another user: root may (`chown` to a user id no account
    /// has). CI runs as root, so there these tests always run; a run as root elsewhere runs them.
    static var canPlantAsAnotherUser: Bool { geteuid() == 0 || ProcessInfo.processInfo.environment["CI"] != nil }
    static let stranger: uid_t = 4242

    /// Ten threads in a folder, built incrementally twice, so a spare stands beside the site.
    func twoBuilds() throws -> (folder: URL, input: URL, site: URL, spare: URL) {
        let folder = try ArchiveFixture.folder()
        let input = folder.appendingPathComponent("in")
        for i in 0..<10 { try ArchiveFixture.write(ArchiveFixture.thread(id: "n\(i)", day: i * 10), "n\(i).json", in: input) }
        for _ in 0..<2 { _ = try ArchiveFixture.build([input.path], in: folder, incremental: true) }
        return (folder, input, folder.appendingPathComponent("site"), folder.appendingPathComponent(".site.spare"))
    }

    /// Overwrites bytes of a file in place (same inode, same size), then sets its access and
    /// modification times back to what they were, as `touch -d` would: only the status change
    /// time tells.
    func editInPlace(_ url: URL, replacing old: String, with new: String) throws {
        var info = stat()
        try #require(stat(url.path, &info) == 0)
        var bytes = [UInt8](try Data(contentsOf: url))
        let text = String(decoding: bytes, as: UTF8.self)
        let range = try #require(text.range(of: old))
        let offset = text.utf8.distance(from: text.startIndex, to: range.lowerBound)
        let replacement = Array(new.utf8)
        try #require(replacement.count == old.utf8.count, "the edit keeps the size")
        bytes.replaceSubrange(offset..<(offset + replacement.count), with: replacement)
        let fd = open(url.path, O_WRONLY)
        try #require(fd >= 0)
        let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        close(fd)
        try #require(written == bytes.count)
        var times = [info.st_atim, info.st_mtim]
        try #require(utimensat(AT_FDCWD, url.path, &times, 0) == 0)
        var after = stat()
        try #require(stat(url.path, &after) == 0)
        try #require(
            after.st_ino == info.st_ino && after.st_size == info.st_size
                && after.st_mtim.tv_sec == info.st_mtim.tv_sec && after.st_mtim.tv_nsec == info.st_mtim.tv_nsec)
    }

    /// Replaces `url` with a copy of it (`cp -a`): every file new, its times kept, as a cache
    /// restore or another user's own build makes them.
    func copyAnew(_ url: URL) throws {
        let copy = url.deletingLastPathComponent().appendingPathComponent("copy-\(UUID().uuidString)")
        let (status, output) = try ExternalTools.run("/bin/cp", ["-a", url.path, copy.path])
        try #require(status == 0, "\(output)")
        try fm.removeItem(at: url)
        try fm.moveItem(at: copy, to: url)
    }

    /// Hands `url` and everything beneath it to another user (their files now).
    func handToStranger(_ url: URL) throws {
        try #require(lchown(url.path, Self.stranger, Self.stranger) == 0, "chown needs root")
        for relative in fm.subpaths(atPath: url.path) ?? [] {
            try #require(lchown(url.appendingPathComponent(relative).path, Self.stranger, Self.stranger) == 0)
        }
    }

    /// Rewrites a spare's manifest so that it vouches for its files as they are now (stamps and
    /// content hashes), as the other user's own build would have written it.
    func revouchSpare(_ spare: URL) throws {
        let url = spare.appendingPathComponent(Manifest.fileName)
        var manifest = try #require(Manifest(bytes: [UInt8](try Data(contentsOf: url))))
        func stamp(_ path: String) -> FileStamp {
            var info = stat()
            _ = lstat(spare.appendingPathComponent(path).path, &info)
            return FileStamp(info).hashed(FileStamp.contentHash([UInt8](fm.contents(atPath: spare.appendingPathComponent(path).path) ?? Data())))
        }
        for key in Array(manifest.units.keys) { manifest.units[key]!.stamps = manifest.units[key]!.files.map(stamp) }
        manifest.listingStamps = manifest.listing.map(stamp)
        try Data(manifest.encoded()).write(to: url)
        try #require(lchown(url.path, Self.stranger, Self.stranger) == 0)
    }

    /// Rewrites a kept spill's stamps so they match its files as they are now.
    func revouchSpill(_ kept: URL) throws {
        let url = kept.appendingPathComponent(Spill.stampsName)
        var lines: [String] = []
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
            let p = line.split(separator: " ")[0]
            var fields = [String(p)]
            for name in ["p\(p)", "c\(p)"] {
                var info = stat()
                try #require(lstat(kept.appendingPathComponent(name).path, &info) == 0)
                let stamp = FileStamp(info)
                let hash = try #require(Spill.contentHash(of: name, in: try Folder.open(kept.path)))
                fields += ["\(stamp.inode)", "\(stamp.size)", "\(stamp.mtime)", "\(stamp.ctime)", "\(hash)"]
            }
            lines.append(fields.joined(separator: " "))
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url)
        try #require(lchown(url.path, Self.stranger, Self.stranger) == 0)
    }

    /// Entries under `url` (it included) that are not the running user's.
    func foreign(_ url: URL) -> [String] {
        (["."] + (fm.subpaths(atPath: url.path) ?? [])).filter { relative in
            var info = stat()
            return lstat(url.appendingPathComponent(relative).path, &info) == 0 && info.st_uid != geteuid()
        }
    }

    func equalsFullBuild(_ site: URL, _ inputs: [String], _ folder: URL) throws -> Bool {
        let name = "full-\(UUID().uuidString)"
        _ = try ArchiveFixture.build(inputs, in: folder, site: name)
        defer { try? fm.removeItem(at: folder.appendingPathComponent(name)) }
        return ArchiveFixture.files(site) == ArchiveFixture.files(folder.appendingPathComponent(name))
    }

    @Test(
        "plantedSpare: another user's spare, a page edited and its time set back, is never taken; nothing of theirs is published",
        .enabled(if: canPlantAsAnotherUser))
    func plantedSpare() throws {
        let (folder, input, site, spare) = try twoBuilds()
        defer { try? fm.removeItem(at: folder) }
        // The other user's spare is made by their own build: files of its own, not links to the site's.
        try copyAnew(spare)
        try editInPlace(spare.appendingPathComponent("t/thread-n2-n2/index.html"), replacing: "Thread n2", with: "MALLORYn2")
        try handToStranger(spare)
        try revouchSpare(spare)
        let report = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        #expect(report.published && report.errors.isEmpty)
        #expect(!ArchiveFixture.text(site, "t/thread-n2-n2/index.html").contains("MALLORY"))
        #expect(foreign(site).isEmpty, "no entry of the published site belongs to the other user: \(foreign(site))")
        #expect(foreign(spare).isEmpty, "the spare is the last site, not theirs")
        #expect(try equalsFullBuild(site, [input.path], folder))
    }

    /// A dump of 200 comments built incrementally, its spill kept; the kept partition that holds
    /// "comment 53" (thread 53, whose comment 150 is later) gets that body edited in place, its
    /// time set back. Returns the folder, the dump and the site.
    func keptSpillEdited() throws -> (folder: URL, comments: String, site: URL, kept: URL) {
        let folder = try ArchiveFixture.folder()
        let comments = try ArchiveFixture.write(DumpPartitionTests.dump(count: 200, bad: []), "RC_many.jsonl", in: folder)
        let site = folder.appendingPathComponent("site"), kept = folder.appendingPathComponent(".site.spill")
        _ = try ArchiveFixture.build([comments], in: folder, incremental: true)
        let partition = try #require(
            try fm.contentsOfDirectory(atPath: kept.path).first { name in
                name.hasPrefix("p") && (fm.contents(atPath: kept.appendingPathComponent(name).path).map { String(decoding: $0, as: UTF8.self).contains("\"comment 53\"") } ?? false)
            })
        try editInPlace(kept.appendingPathComponent(partition), replacing: "\"comment 53\"", with: "\"MALLORY 53\"")
        return (folder, comments, site, kept)
    }

    /// Changes comment 150 (thread 53, after comment 53 in its partition) in the dump, so the
    /// edited partition is continued up to it and thread 53 is rendered again.
    func changeComment150(_ comments: String) throws {
        let edited = try String(contentsOfFile: comments, encoding: .utf8).replacingOccurrences(of: "\"comment 150\"", with: "\"comment 15O\"")
        try Data(edited.utf8).write(to: URL(fileURLWithPath: comments))
    }

    func published(_ site: URL, contains text: String) -> Bool {
        ArchiveFixture.files(site).values.contains { String(decoding: $0, as: UTF8.self).contains(text) }
    }

    @Test(
        "plantedSpill: another user's kept spill, one record edited and its stamps rewritten, is never continued",
        .enabled(if: canPlantAsAnotherUser))
    func plantedSpill() throws {
        let (folder, comments, site, kept) = try keptSpillEdited()
        defer { try? fm.removeItem(at: folder) }
        try handToStranger(kept)
        try revouchSpill(kept)
        try changeComment150(comments)
        let report = try ArchiveFixture.build([comments], in: folder, incremental: true)
        #expect(report.published && report.errors.isEmpty)
        #expect(!published(site, contains: "MALLORY"))
        #expect(foreign(site).isEmpty && foreign(kept).isEmpty, "the kept spill is this build's own: \(foreign(kept))")
        #expect(try equalsFullBuild(site, [comments], folder))
    }

    @Test("restoredSpill: a kept spill copied anew with the site and spare (a CI cache restore) is continued by content; only the changed thread is rendered")
    func restoredSpill() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? fm.removeItem(at: folder) }
        let comments = try ArchiveFixture.write(DumpPartitionTests.dump(count: 200, bad: []), "RC_many.jsonl", in: folder)
        let site = folder.appendingPathComponent("site"), kept = folder.appendingPathComponent(".site.spill")
        let spare = folder.appendingPathComponent(".site.spare")
        for _ in 0..<2 { _ = try ArchiveFixture.build([comments], in: folder, incremental: true) }
        for url in [site, spare, kept] { try copyAnew(url) }
        try changeComment150(comments)
        let report = try ArchiveFixture.build([comments], in: folder, incremental: true)
        #expect(report.published && report.errors.isEmpty)
        #expect(report.threadsRendered == 1)
        #expect(report.dumpPartitionsReused == report.dumpPartitions - 1, "every partition but the changed one is continued from the restored spill")
        #expect(try equalsFullBuild(site, [comments], folder))
    }

    @Test("editedSpill: a kept spill's record edited in place with its time set back is not continued")
    func editedSpill() throws {
        let (folder, comments, site, _) = try keptSpillEdited()
        defer { try? fm.removeItem(at: folder) }
        try changeComment150(comments)
        let report = try ArchiveFixture.build([comments], in: folder, incremental: true)
        #expect(report.published && report.errors.isEmpty && report.threadsRendered == 1)
        #expect(!published(site, contains: "MALLORY"))
        #expect(try equalsFullBuild(site, [comments], folder))
    }

    @Test("editedPages: a page edited in place with its time set back is never reused, from the spare or from the live site")
    func editedPages() throws {
        let (folder, input, site, spare) = try twoBuilds()
        defer { try? fm.removeItem(at: folder) }
        // In the spare: the unit is kept from it only while its files are as recorded.
        try editInPlace(spare.appendingPathComponent("t/thread-n2-n2/index.html"), replacing: "Thread n2", with: "MALLORYn2")
        var report = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        #expect(report.published && !ArchiveFixture.text(site, "t/thread-n2-n2/index.html").contains("MALLORY"))
        #expect(try equalsFullBuild(site, [input.path], folder))
        // In the live site, with no spare: its files are linked only while they are as recorded.
        try fm.removeItem(at: spare)
        try editInPlace(site.appendingPathComponent("t/thread-n3-n3/index.html"), replacing: "Thread n3", with: "MALLORYn3")
        report = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        #expect(report.published && report.threadsRendered == 1, "only the edited thread is rendered again")
        #expect(!ArchiveFixture.text(site, "t/thread-n3-n3/index.html").contains("MALLORY"))
        #expect(try equalsFullBuild(site, [input.path], folder))
    }

    @Test("writableSpare: a spare, a thread's folder or a page in it that others can write is not taken")
    func writableSpare() throws {
        let (folder, input, site, spare) = try twoBuilds()
        defer { try? fm.removeItem(at: folder) }
        let page = spare.appendingPathComponent("t/thread-n4-n4/index.html")
        try fm.setAttributes([.posixPermissions: 0o666], ofItemAtPath: page.path)
        // A folder others can write, on the way to vouched files: gone whole, its thread linked from the live site.
        let threadFolder = "t/thread-n6-n6"
        try fm.setAttributes([.posixPermissions: 0o777], ofItemAtPath: spare.appendingPathComponent(threadFolder).path)
        var report = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        #expect(report.published && report.threadsRendered == 1, "the thread whose page others could write is rendered again")
        var folderInfo = stat()
        #expect(lstat(site.appendingPathComponent(threadFolder).path, &folderInfo) == 0 && folderInfo.st_mode & 0o022 == 0)
        #expect(try equalsFullBuild(site, [input.path], folder))
        try fm.setAttributes([.posixPermissions: 0o775], ofItemAtPath: spare.path)
        report = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        #expect(report.published)
        #expect(report.threadsRendered == 0 && report.filesReused > 0, "the live site's own files are linked instead")
        for path in ArchiveFixture.files(site).keys {
            var info = stat()
            #expect(lstat(site.appendingPathComponent(path).path, &info) == 0 && info.st_mode & 0o022 == 0, "\(path)")
        }
        #expect(try equalsFullBuild(site, [input.path], folder))
    }

    @Test("cacheRestore: a site and spare restored as new files with their times are reused by content; only a changed thread is rendered")
    func cacheRestore() throws {
        let (folder, input, site, spare) = try twoBuilds()
        defer { try? fm.removeItem(at: folder) }
        // As a CI cache restores them: every file new (new inodes and status change times), times kept.
        for url in [site, spare] { try copyAnew(url) }
        try ArchiveFixture.write(ArchiveFixture.thread(id: "n5", title: "Changed", day: 50), "n5.json", in: input)
        let report = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        #expect(report.published && report.errors.isEmpty)
        #expect(report.threadsRendered == 1 && report.threadsReused == 9)
        #expect(try equalsFullBuild(site, [input.path], folder))
    }

    @Test(
        "strangersShard: a shard's files that are another user's are copied into the merged site, never linked",
        .enabled(if: canPlantAsAnotherUser))
    func strangersShard() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? fm.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in")
        for i in 0..<3 { try ArchiveFixture.write(ArchiveFixture.thread(id: "n\(i)", day: i), "n\(i).json", in: input) }
        #expect(try ArchiveFixture.build([input.path], in: folder, site: "shard", shard: Shard(index: 1, count: 1)).published)
        let shard = folder.appendingPathComponent("shard"), merged = folder.appendingPathComponent("merged")
        let page = shard.appendingPathComponent("t/thread-n1-n1/index.html")
        try #require(lchown(page.path, Self.stranger, Self.stranger) == 0)
        let report = try ArchiveMerge(shards: [shard.path], output: merged, options: ArchiveOptions()).run()
        #expect(report.published && report.errors.isEmpty)
        #expect(foreign(merged).isEmpty, "\(foreign(merged))")
        #expect(ArchiveFixture.inode(merged.appendingPathComponent("t/thread-n1-n1/index.html").path) != ArchiveFixture.inode(page.path))
        #expect(ArchiveFixture.text(merged, "t/thread-n1-n1/index.html") == ArchiveFixture.text(shard, "t/thread-n1-n1/index.html"))
        // The shard's own files are linked, as before.
        let own = "t/thread-n2-n2/index.html"
        #expect(ArchiveFixture.inode(merged.appendingPathComponent(own).path) == ArchiveFixture.inode(shard.appendingPathComponent(own).path))
    }
}
