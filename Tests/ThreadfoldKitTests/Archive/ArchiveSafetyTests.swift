import Foundation
import Testing

@testable import ThreadfoldKit

/// Nothing outside the site is read, written or deleted, whatever is planted in the site, the
/// spare or a shard; each test is one reproduction from the safety review.
@Suite("Archive safety")
struct ArchiveSafetyTests {
    let fm = FileManager.default

    /// Ten threads n0…n9 in a folder, and a victim folder beside the site with private files.
    func setUp() throws -> (folder: URL, input: URL, victim: URL) {
        let folder = try ArchiveFixture.folder()
        let input = folder.appendingPathComponent("in")
        for i in 0..<10 { try ArchiveFixture.write(ArchiveFixture.thread(id: "n\(i)", day: i * 10), "n\(i).json", in: input) }
        let victim = folder.appendingPathComponent("victim")
        try ArchiveFixture.write("private notes", "notes.txt", in: victim)
        try ArchiveFixture.write("my thesis", "docs/thesis.tex", in: victim)
        try ArchiveFixture.write("their page", "index.html", in: victim)
        try ArchiveFixture.write("their data", "thread.json", in: victim)
        return (folder, input, victim)
    }

    func victimIsWhole(_ victim: URL) -> Bool {
        ArchiveFixture.files(victim) == [
            "notes.txt": Array("private notes".utf8), "docs/thesis.tex": Array("my thesis".utf8),
            "index.html": Array("their page".utf8), "thread.json": Array("their data".utf8),
        ]
    }

    func kind(_ url: URL) -> FileAttributeType? { (try? fm.attributesOfItem(atPath: url.path)[.type]) as? FileAttributeType }

    /// Every entry under `site` that is a symbolic link.
    func links(in site: URL) -> [String] {
        var found: [String] = []
        guard let walker = fm.enumerator(atPath: site.path) else { return [] }
        while let relative = walker.nextObject() as? String {
            if kind(site.appendingPathComponent(relative)) == .typeSymbolicLink { found.append(relative) }
        }
        return found
    }

    func equalsFullBuild(_ site: URL, _ input: URL, _ folder: URL) throws -> Bool {
        let name = "full-\(UUID().uuidString)"
        _ = try ArchiveFixture.build([input.path], in: folder, site: name)
        return ArchiveFixture.files(site) == ArchiveFixture.files(folder.appendingPathComponent(name))
    }

    @Test("a thread folder of the live site replaced by a link is never followed, linked from or published")
    func linkInLiveSite() throws {
        let (folder, input, victim) = try setUp()
        let site = folder.appendingPathComponent("site")
        _ = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        _ = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        let thread = site.appendingPathComponent("t/thread-n3-n3")
        try fm.removeItem(at: thread)
        try fm.createSymbolicLink(at: thread, withDestinationURL: victim)
        for _ in 0..<2 {
            let report = try ArchiveFixture.build([input.path], in: folder, incremental: true)
            #expect(report.published)
            #expect(links(in: site).isEmpty, "no link is published")
            #expect(victimIsWhole(victim))
        }
        // The thread changes, and two more builds recycle the spare that held the link.
        try ArchiveFixture.write(ArchiveFixture.thread(id: "n3", day: 30, comments: 4), "n3.json", in: input)
        for _ in 0..<2 {
            #expect(try ArchiveFixture.build([input.path], in: folder, incremental: true).published)
            #expect(victimIsWhole(victim))
            #expect(!fm.fileExists(atPath: victim.appendingPathComponent("atom.xml").path))
        }
        #expect(try equalsFullBuild(site, input, folder))
        #expect(kind(thread) == .typeDirectory)
    }

    @Test("a live file that is not the one the manifest recorded is rendered again, not hard-linked")
    func editedLiveFile() throws {
        let (folder, input, _) = try setUp()
        let site = folder.appendingPathComponent("site")
        _ = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        let page = site.appendingPathComponent("t/thread-n2-n2/index.html")
        let secret = folder.appendingPathComponent("secret.txt")
        try ArchiveFixture.write("SECRET", "secret.txt", in: folder)
        // A private file hard-linked in place of a page, and a link in place of a feed.
        try fm.removeItem(at: page)
        try fm.linkItem(at: secret, to: page)
        try fm.removeItem(at: site.appendingPathComponent("t/thread-n4-n4/atom.xml"))
        try fm.createSymbolicLink(at: site.appendingPathComponent("t/thread-n4-n4/atom.xml"), withDestinationURL: secret)
        try ArchiveFixture.write(ArchiveFixture.thread(id: "n7", day: 70, comments: 3), "n7.json", in: input)
        let report = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        #expect(report.published && report.threadsRendered == 3, "n7 changed; n2 and n4 no longer match the manifest")
        #expect(ArchiveFixture.inode(page.path) != ArchiveFixture.inode(secret.path))
        #expect(!ArchiveFixture.text(site, "t/thread-n2-n2/index.html").contains("SECRET"))
        #expect(links(in: site).isEmpty)
        #expect(try equalsFullBuild(site, input, folder))
    }

    @Test("a link in the spare to a folder outside is removed as a link; the files behind it stay")
    func linkInSpare() throws {
        let (folder, input, victim) = try setUp()
        _ = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        _ = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        let spare = folder.appendingPathComponent(".site.spare")
        #expect(kind(spare) == .typeDirectory)
        try fm.removeItem(at: spare.appendingPathComponent("t/thread-n5-n5"))
        try fm.createSymbolicLink(at: spare.appendingPathComponent("t/thread-n5-n5"), withDestinationURL: victim)
        try fm.createSymbolicLink(at: spare.appendingPathComponent("t/evil"), withDestinationURL: victim)
        // Thread n5's input goes, so the build removes its files from the recycled folder.
        try fm.removeItem(at: input.appendingPathComponent("n5.json"))
        let report = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        #expect(report.published)
        #expect(victimIsWhole(victim))
        let site = folder.appendingPathComponent("site")
        #expect(links(in: site).isEmpty)
        #expect(try equalsFullBuild(site, input, folder))
    }

    @Test("a spare manifest naming files behind a link deletes nothing outside")
    func forgedManifest() throws {
        let (folder, input, victim) = try setUp()
        _ = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        _ = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        let spare = folder.appendingPathComponent(".site.spare")
        try fm.createSymbolicLink(at: spare.appendingPathComponent("t/evil"), withDestinationURL: victim)
        let manifestURL = spare.appendingPathComponent(Manifest.fileName)
        var manifest = try #require(Manifest(bytes: [UInt8](try Data(contentsOf: manifestURL))))
        let notes = try #require(ArchiveFixture.inode(victim.appendingPathComponent("notes.txt").path))
        let key = try #require(manifest.units.keys.first)
        manifest.units[key]!.files += ["t/evil/notes.txt", "t/evil/docs/thesis.tex"]
        manifest.units[key]!.stamps += [FileStamp(inode: notes, size: 13, mtime: 0, ctime: 0), FileStamp(inode: 1, size: 9, mtime: 0, ctime: 0)]
        try fm.removeItem(at: manifestURL)
        try Data(manifest.encoded()).write(to: manifestURL)
        try ArchiveFixture.write(ArchiveFixture.thread(id: "n1", day: 10, comments: 5), "n1.json", in: input)
        #expect(try ArchiveFixture.build([input.path], in: folder, incremental: true).published)
        #expect(victimIsWhole(victim))
        #expect(try equalsFullBuild(folder.appendingPathComponent("site"), input, folder))
    }

    @Test("the spare is a cache: a stranger's file, an edited page and a link in it are never published")
    func untrustedSpare() throws {
        let (folder, input, _) = try setUp()
        _ = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        _ = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        let spare = folder.appendingPathComponent(".site.spare")
        let secret = try ArchiveFixture.write("SECRET", "secret.txt", in: folder)
        try ArchiveFixture.write("stranger", "t/thread-n1-n1/extra.html", in: spare)
        try ArchiveFixture.write("stranger", "t/new/x.html", in: spare)
        try ArchiveFixture.write("leftover", ".threadfold-dirty", in: spare)
        // An edited page keeps its size, so only its modification time tells.
        let page = spare.appendingPathComponent("t/thread-n2-n2/index.html")
        var bytes = [UInt8](try Data(contentsOf: page))
        let script = Array("<script>alert(1)</script>".utf8)
        bytes.replaceSubrange(0..<script.count, with: script)
        try Data(bytes).write(to: page)
        try fm.removeItem(at: spare.appendingPathComponent("t/thread-n3-n3/atom.xml"))
        try fm.createSymbolicLink(atPath: spare.appendingPathComponent("t/thread-n3-n3/atom.xml").path, withDestinationPath: secret)
        for _ in 0..<3 {
            let report = try ArchiveFixture.build([input.path], in: folder, incremental: true)
            #expect(report.published)
            let site = folder.appendingPathComponent("site")
            #expect(!ArchiveFixture.text(site, "t/thread-n2-n2/index.html").contains("<script>"))
            #expect(links(in: site).isEmpty)
            #expect(!fm.fileExists(atPath: site.appendingPathComponent("t/new").path), "not even the stranger's folder")
            #expect(try equalsFullBuild(site, input, folder))
        }
    }

    @Test("only --incremental keeps a spare; no lock file or other litter is left beside the site")
    func noLitter() throws {
        let (folder, input, _) = try setUp()
        _ = try ArchiveFixture.build([input.path], in: folder)
        _ = try ArchiveFixture.build([input.path], in: folder)
        let beside = { try self.fm.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }.sorted() }
        #expect(try beside() == [])
        _ = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        _ = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        #expect(try beside() == [".site.spare"])
        _ = try ArchiveFixture.build([input.path], in: folder)
        #expect(try beside() == [], "a full build removes the spare it does not use")
    }

    @Test("the published manifest holds no input path")
    func manifestWithoutPaths() throws {
        let (folder, input, _) = try setUp()
        _ = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        let manifest = ArchiveFixture.text(folder.appendingPathComponent("site"), Manifest.fileName)
        #expect(!manifest.isEmpty && !manifest.contains(folder.path) && !manifest.contains("n3.json"))
        // And it still serves: an unchanged input is not rendered again.
        let again = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        #expect(again.threadsRendered == 0 && again.threadsReused == 10)
    }

    @Test("a thread without an id gets one from what it says, never from its path: no published file or manifest names the input")
    func idWithoutPath() throws {
        let folder = try ArchiveFixture.folder()
        let input = folder.appendingPathComponent("inputs-here")
        _ = try ArchiveFixture.write(#"{"title": "No id", "comments": [{"id": 1, "author": "a", "body": "one"}]}"#, "no-id.json", in: input)
        let comment =
            #"{"id": 7, "html_url": "https://github.com/o/r/issues/3#issuecomment-7", "issue_url": "https://api.github.com/repos/o/r/issues/3", "user": {"login": "ann"}, "body": "LGTM", "created_at": "2024-01-01T00:00:00Z"}"#
        _ = try ArchiveFixture.write("[\(comment)]", "gh-comments.json", in: input)
        let report = try ArchiveFixture.build([input.path], in: folder, incremental: true)
        #expect(report.published && report.errors.isEmpty && report.threads == 2)
        let site = folder.appendingPathComponent("site")
        var published = ArchiveFixture.files(site)
        published[Manifest.fileName] = Array(ArchiveFixture.text(site, Manifest.fileName).utf8)
        for (path, bytes) in published {
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(!text.contains(folder.path) && !text.contains("inputs-here") && !text.contains("no-id.json") && !text.contains("gh-comments"), "\(path)")
        }
        let sidecars = published.keys.filter { $0.hasSuffix("/thread.json") }.sorted()
        #expect(sidecars.count == 2)
        let ids = try sidecars.map { try ThreadSummary.decode(published[$0]!, file: $0).id }.sorted()
        #expect(ids.contains("https://api.github.com/repos/o/r/issues/3"))
        // The other id is 16 hex digits of the thread's content: the same file elsewhere gets the same folder.
        let hashed = try #require(ids.first { $0 != "https://api.github.com/repos/o/r/issues/3" })
        #expect(hashed.utf8.count == 16 && hashed.allSatisfy(\.isHexDigit))
        let moved = folder.appendingPathComponent("elsewhere")
        _ = try ArchiveFixture.write(#"{"title": "No id", "comments": [{"id": 1, "author": "a", "body": "one"}]}"#, "renamed.json", in: moved)
        _ = try ArchiveFixture.build([moved.path], in: folder, site: "site2")
        #expect(ArchiveFixture.files(folder.appendingPathComponent("site2")).keys.contains("t/no-id-\(hashed)/index.html"))
    }

    @Test("a build holding the site's lock keeps a second one out, with a message that says so")
    func lock() throws {
        let (folder, input, _) = try setUp()
        _ = try ArchiveFixture.build([input.path], in: folder)
        let marker = open(folder.appendingPathComponent("site/.threadfold").path, O_RDONLY)
        #expect(marker >= 0 && flock(marker, LOCK_EX) == 0)
        let blocked = try ArchiveFixture.build([input.path], in: folder)
        #expect(!blocked.published)
        #expect(blocked.siteError?.message.contains("another Threadfold build is writing this folder") == true)
        close(marker)
        #expect(try ArchiveFixture.build([input.path], in: folder).published)
    }

    @Test("an output another build created meanwhile is a lost race, said as such; nothing is replaced")
    func lostRace() throws {
        let folder = try ArchiveFixture.folder()
        let site = folder.appendingPathComponent("site")
        let staging = try SiteWriter(output: site).begin()
        try staging.write("a.html", Array("mine".utf8))
        try ArchiveFixture.write("theirs", "b.html", in: site)
        let error = try #require(throws: ThreadfoldError.self) { try staging.commit() }
        #expect(error.message.contains("lost race"))
        #expect(ArchiveFixture.text(site, "b.html") == "theirs")
        #expect(try fm.contentsOfDirectory(atPath: folder.path) == ["site"])
    }

    @Test("an output that cannot be written is reported together with the input errors")
    func bothErrors() throws {
        let (folder, input, _) = try setUp()
        try ArchiveFixture.write(#"{"id": "bad", "comments": [{"id": 1}, {"id": 2, "parent_id": {}}]}"#, "bad.json", in: input)
        try ArchiveFixture.write("mine", "site/notes.txt", in: folder)
        let report = try ArchiveFixture.build([input.path], in: folder)
        #expect(report.siteError?.message.contains("did not write") == true)
        #expect(report.errors.map(\.path) == ["$.comments[1].parent_id"])
    }

    func makeShard(_ folder: URL, _ input: URL) throws -> URL {
        #expect(try ArchiveFixture.build([input.path], in: folder, site: "shard", shard: Shard(index: 1, count: 1)).published)
        return folder.appendingPathComponent("shard")
    }

    func merge(_ shard: URL, in folder: URL) throws -> ArchiveBuilder.Report {
        try ArchiveMerge(shards: [shard.path], output: folder.appendingPathComponent("merged"), options: ArchiveOptions()).run()
    }

    @Test("merge takes only the regular files a build writes: links to private files are refused")
    func mergeLinks() throws {
        let (folder, input, victim) = try setUp()
        let shard = try makeShard(folder, input)
        let thread = shard.appendingPathComponent("t/thread-n1-n1")
        try fm.createSymbolicLink(at: thread.appendingPathComponent("leak.html"), withDestinationURL: victim.appendingPathComponent("notes.txt"))
        #expect(try merge(shard, in: folder).published, "an extra file is simply not taken")
        #expect(!fm.fileExists(atPath: folder.appendingPathComponent("merged/t/thread-n1-n1/leak.html").path))
        try fm.removeItem(at: thread.appendingPathComponent("atom.xml"))
        try fm.createSymbolicLink(at: thread.appendingPathComponent("atom.xml"), withDestinationURL: victim.appendingPathComponent("notes.txt"))
        let report = try merge(shard, in: folder)
        #expect(!report.published)
        #expect(report.errors.first?.file.hasSuffix("t/thread-n1-n1/atom.xml") == true)
        #expect(report.errors.first?.message.contains("a link") == true)
    }

    @Test("merge refuses a thread folder that is a link, a folder not named as its thread, and a traversal path")
    func mergeFolders() throws {
        let (folder, input, _) = try setUp()
        let shard = try makeShard(folder, input)
        let threads = shard.appendingPathComponent("t")
        // A link to a thread folder elsewhere.
        try fm.moveItem(at: threads.appendingPathComponent("thread-n2-n2"), to: folder.appendingPathComponent("elsewhere"))
        try fm.createSymbolicLink(at: threads.appendingPathComponent("thread-n2-n2"), withDestinationURL: folder.appendingPathComponent("elsewhere"))
        var report = try merge(shard, in: folder)
        #expect(!report.published && report.errors.contains { $0.message.contains("symbolic link") })
        try fm.removeItem(at: threads.appendingPathComponent("thread-n2-n2"))
        try fm.moveItem(at: folder.appendingPathComponent("elsewhere"), to: threads.appendingPathComponent("thread-n2-n2"))
        // A hostile folder name, holding a copy of a real thread.
        let hostile = #"x"><img src=x onerror=alert(8)>"#
        try fm.copyItem(at: threads.appendingPathComponent("thread-n3-n3"), to: threads.appendingPathComponent(hostile))
        report = try merge(shard, in: folder)
        #expect(!report.published && report.errors.contains { $0.path == "$.path" })
        try fm.removeItem(at: threads.appendingPathComponent(hostile))
        // A sidecar whose path leaves the site.
        let sidecar = threads.appendingPathComponent("thread-n4-n4/thread.json")
        let text = try String(contentsOf: sidecar, encoding: .utf8).replacingOccurrences(of: "\"t/thread-n4-n4\"", with: "\"../../../../tmp/x\"")
        try fm.removeItem(at: sidecar)
        try Data(text.utf8).write(to: sidecar)
        report = try merge(shard, in: folder)
        #expect(!report.published && report.errors.contains { $0.path == "$.path" && $0.message.contains("../../../../tmp/x") })
    }

    /// The permission bits of the file at `url`.
    func mode(_ url: URL) throws -> Int { try #require(fm.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) }

    @Test("attack: a theme's asset its owner alone may read (0600) is published 0600 with its .gz and .br, and a later mode change reaches the site in an incremental build")
    func narrowAssetMode() throws {
        let (folder, input, _) = try setUp()
        let assets = folder.appendingPathComponent("assets")
        try ArchiveFixture.write(String(repeating: "a { color: red; }\n", count: 200), "theme.css", in: assets)
        let site = folder.appendingPathComponent("site")
        let umask = Int(Folder.umask)
        // Incremental builds recycle the spare of two builds ago, which holds the asset at an older mode.
        for source in [0o600, 0o600, 0o644, 0o640, 0o600, 0o644] {
            try fm.setAttributes([.posixPermissions: source], ofItemAtPath: assets.appendingPathComponent("theme.css").path)
            let units = try ArchiveInput.units([input.path], readStandardInput: { [] })
            var builder = ArchiveBuilder(units: units, output: site, options: ArchiveOptions(), resources: ResourceStore(assetsDirectory: assets.path), jobs: 2)
            builder.incremental = true
            builder.precompress = true
            let report = try builder.run()
            #expect(report.published)
            for name in ["theme.css", "theme.css.gz", "theme.css.br"] {
                #expect(try mode(site.appendingPathComponent(name)) == 0o644 & source & ~umask, "\(name) from a \(String(source, radix: 8)) source")
            }
            #expect(try mode(site.appendingPathComponent("index.html")) == 0o644 & ~umask)
        }
    }
}
