import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

/// Builds with `precompress`: `.gz` and `.br` siblings beside every HTML, XML, JSON, CSS and JS
/// file, kept in step by incremental builds and taken along by `merge`.
@Suite("Archive precompression")
struct PrecompressTests {
    /// Ten threads on ten days in three categories, one file each, and the options that give
    /// every kind of file: sections, two orders, branch pages and a sitemap.
    func tenThreads(_ folder: URL) throws -> (input: URL, options: ArchiveOptions) {
        let input = folder.appendingPathComponent("in")
        for i in 0..<10 {
            try ArchiveFixture.write(
                ArchiveFixture.thread(id: "n\(i)", day: i * 20, chain: i == 4 ? 12 : 0, category: ["Help", "Meta", "Off-topic"][i % 3]),
                "n\(i).json", in: input)
        }
        var options = ArchiveOptions()
        options.sections = .category
        options.perPage = 4
        options.orders = [.oldest, .top]
        options.pageDepth = 5
        options.baseURL = "https://example.org/forum/"
        return (input, options)
    }

    func build(
        _ inputs: [String], in folder: URL, site: String = "site", options: ArchiveOptions, precompress: Bool = true,
        incremental: Bool = false, shard: Shard? = nil, resources: ResourceStore = ResourceStore()
    ) throws -> ArchiveBuilder.Report {
        var builder = ArchiveBuilder(
            units: try ArchiveInput.units(inputs, readStandardInput: { [] }),
            output: folder.appendingPathComponent(site), options: options, resources: resources, jobs: 2)
        builder.precompress = precompress
        builder.incremental = incremental
        builder.shard = shard
        let report = try builder.run()
        #expect(report.published, "\(report.errors) \(String(describing: report.siteError))")
        return report
    }

    /// Every sibling decodes to its file and is smaller; a missing one would not have been
    /// smaller; the checks ran on `atLeast` siblings.
    func expectSiblings(_ site: URL, atLeast: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(SiblingCheck.hasBrotli, "the brotli command is missing: apt-get install brotli (make test-deps installs it)", sourceLocation: sourceLocation)
        let result = SiblingCheck.check(site)
        #expect(result.problems.isEmpty, "\(result.problems)", sourceLocation: sourceLocation)
        #expect(result.checked >= atLeast, sourceLocation: sourceLocation)
        for missing in result.missing {
            let encoding: Precompression.Encoding = missing.hasSuffix(".gz") ? .gzip : .brotli
            let bytes = try #require(FileManager.default.contents(atPath: site.appendingPathComponent(String(missing.dropLast(3))).path))
            #expect(try Precompression.sibling(of: [UInt8](bytes), encoding, path: missing) == nil, "\(missing) is missing", sourceLocation: sourceLocation)
        }
    }

    static func siblings(_ files: [String: [UInt8]]) -> [String] {
        files.keys.filter { $0.hasSuffix(".gz") || $0.hasSuffix(".br") }.sorted()
    }

    @Test(
        "every HTML, XML, JSON, CSS and JS file has a .gz and a .br that decode to it; two builds give byte-identical siblings",
        .enabled(if: ExternalTools.runs(when: SiblingCheck.hasBrotli)))
    func siblings() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (input, options) = try tenThreads(folder)
        let report = try build([input.path], in: folder, options: options)
        let site = folder.appendingPathComponent("site")
        let files = ArchiveFixture.files(site)
        for path in [
            "index.html", "atom.xml", "sitemap.xml", "threadfold.css", "threadfold.js", "t/thread-n4-n4/index.html",
            "t/thread-n4-n4/top/index.html", "t/thread-n4-n4/thread.json", "t/thread-n4-n4/atom.xml",
        ] {
            #expect(files[path] != nil && files[path + ".gz"] != nil && files[path + ".br"] != nil, "\(path)")
        }
        #expect(files.keys.contains { $0.hasPrefix("t/thread-n4-n4/c-") && $0.hasSuffix("/index.html.br") }, "branch pages too")
        try expectSiblings(site, atLeast: 80)
        // Siblings count as files written; pages are HTML pages only.
        #expect(report.filesWritten == files.count && report.filesReused == 0)
        #expect(report.pagesWritten == files.keys.filter { $0.hasSuffix(".html") }.count)

        _ = try build([input.path], in: folder, site: "again", options: options)
        #expect(ArchiveFixture.files(folder.appendingPathComponent("again")) == files)
        // A file that compressing would not make smaller gets no sibling.
        let assets = folder.appendingPathComponent("assets")
        try ArchiveFixture.write(";", "tiny.js", in: assets)
        _ = try build([input.path], in: folder, site: "tiny", options: options, resources: ResourceStore(assetsDirectory: assets.path))
        let tiny = ArchiveFixture.files(folder.appendingPathComponent("tiny"))
        #expect(tiny["tiny.js"] == [0x3B] && tiny["tiny.js.gz"] == nil && tiny["tiny.js.br"] == nil)
        #expect(tiny.count == files.count + 1)
        // Without precompression the same files, and no sibling.
        _ = try build([input.path], in: folder, site: "plain", options: options, precompress: false)
        let plain = ArchiveFixture.files(folder.appendingPathComponent("plain"))
        #expect(Self.siblings(plain).isEmpty)
        #expect(plain == files.filter { !$0.key.hasSuffix(".gz") && !$0.key.hasSuffix(".br") })
    }

    @Test(
        "incremental builds keep siblings in step: kept with unchanged pages, renewed with changed ones, gone with removed ones and with the option",
        .enabled(if: ExternalTools.runs(when: SiblingCheck.hasBrotli)))
    func incremental() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (input, options) = try tenThreads(folder)
        let site = folder.appendingPathComponent("site")
        let spare = folder.appendingPathComponent(".site.spare")
        func full(_ name: String, precompress: Bool = true) throws -> [String: [UInt8]] {
            _ = try build([input.path], in: folder, site: name, options: options, precompress: precompress)
            return ArchiveFixture.files(folder.appendingPathComponent(name))
        }
        func inode(_ path: String) -> UInt64? { ArchiveFixture.inode(site.appendingPathComponent(path).path) }

        _ = try build([input.path], in: folder, options: options, incremental: true)
        let untouched = "t/thread-n2-n2/index.html.br"
        let first = inode(untouched)
        // Generation 2 (no spare yet: the rest is linked from the live site): n5 changes, n3 goes.
        try ArchiveFixture.write(ArchiveFixture.thread(id: "n5", day: 300, comments: 3, category: "Off-topic"), "n5.json", in: input)
        try FileManager.default.removeItem(at: input.appendingPathComponent("n3.json"))
        let second = try build([input.path], in: folder, options: options, incremental: true)
        #expect(second.threadsRendered == 1 && second.threadsReused == 8)
        #expect(inode(untouched) == first, "an unchanged page's siblings are linked with it")
        var files = ArchiveFixture.files(site)
        #expect(!files.keys.contains { $0.hasPrefix("t/thread-n3-n3/") }, "the removed thread's siblings are gone")
        #expect(files == (try full("full2")))
        try expectSiblings(site, atLeast: 80)

        // Generation 3 recycles the spare (generation 1), which holds n3 and the old n5 with their
        // siblings; a sibling someone edited in it is not used.
        // (Removed and written anew: the spare shares its files with the live site as hard links.)
        let edited = spare.appendingPathComponent("t/thread-n7-n7/index.html.gz")
        try FileManager.default.removeItem(at: edited)
        try Data("not gzip".utf8).write(to: edited)
        try ArchiveFixture.write(ArchiveFixture.thread(id: "n6", day: 400, comments: 4, category: "Help"), "n6.json", in: input)
        let third = try build([input.path], in: folder, options: options, incremental: true)
        #expect(
            third.threadsRendered == 1 && third.threadsReused == 8,
            "n6 alone: n5 (changed in generation 2) and n7 (its sibling in the spare was edited) are linked from the live site")
        files = ArchiveFixture.files(site)
        #expect(files == (try full("full3")))
        try expectSiblings(site, atLeast: 80)
        // Generation 4: nothing changed; generation 5: two unchanged generations, nothing written.
        _ = try build([input.path], in: folder, options: options, incremental: true)
        #expect(ArchiveFixture.files(site) == files)
        let fifth = try build([input.path], in: folder, options: options, incremental: true)
        #expect(fifth.threadsRendered == 0 && fifth.filesWritten == 0 && fifth.filesReused == files.count)
        #expect(ArchiveFixture.files(site) == files)
        try expectSiblings(site, atLeast: 80)

        // Turning the option off renders everything again and leaves no sibling, twice over
        // (the second recycles a spare full of them); turning it on brings them back.
        for pass in 0..<2 {
            let off = try build([input.path], in: folder, options: options, precompress: false, incremental: true)
            #expect(off.threadsRendered == (pass == 0 ? 9 : 0), "then linked from the live site")
            #expect(Self.siblings(ArchiveFixture.files(site)).isEmpty)
            #expect(ArchiveFixture.files(site) == (try full("plain", precompress: false)))
        }
        for _ in 0..<2 {
            _ = try build([input.path], in: folder, options: options, incremental: true)
            #expect(ArchiveFixture.files(site) == files)
        }
        try expectSiblings(site, atLeast: 80)
    }

    @Test("merge with precompression links the shards' siblings and equals one build with it, whether or not the shards have them")
    func merge() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (input, options) = try tenThreads(folder)
        _ = try build([input.path], in: folder, site: "whole", options: options)
        let whole = ArchiveFixture.files(folder.appendingPathComponent("whole"))
        _ = try build([input.path], in: folder, site: "plain", options: options, precompress: false)
        let plain = ArchiveFixture.files(folder.appendingPathComponent("plain"))
        for shardsPacked in [true, false] {
            let prefix = shardsPacked ? "packed" : "bare"
            let shards = (1...3).map { folder.appendingPathComponent("\(prefix)-\($0)").path }
            for k in 1...3 {
                _ = try build([input.path], in: folder, site: "\(prefix)-\(k)", options: options, precompress: shardsPacked, shard: Shard(index: k, count: 3))
            }
            for precompress in [true, false] {
                var merge = ArchiveMerge(shards: shards, output: folder.appendingPathComponent("merged"), options: options)
                merge.precompress = precompress
                let report = try merge.run()
                #expect(report.published && report.threads == 10)
                let merged = ArchiveFixture.files(folder.appendingPathComponent("merged"))
                #expect(merged == (precompress ? whole : plain), "shards \(prefix), merged with precompress \(precompress)")
                #expect(report.filesWritten + report.filesReused == merged.count)
            }
        }
        // Linked, not compressed again.
        let page = "t/thread-n1-n1/index.html.br"
        let shard = (1...3).map { folder.appendingPathComponent("packed-\($0)/\(page)").path }.first { FileManager.default.fileExists(atPath: $0) }
        var merge = ArchiveMerge(shards: (1...3).map { folder.appendingPathComponent("packed-\($0)").path }, output: folder.appendingPathComponent("merged"), options: options)
        merge.precompress = true
        _ = try merge.run()
        #expect(ArchiveFixture.inode(try #require(shard)) == ArchiveFixture.inode(folder.appendingPathComponent("merged/\(page)").path))
    }

    @Test("an asset named like a sibling is refused, naming it, rather than overwritten")
    func assetNamedLikeSibling() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try ArchiveFixture.write(ArchiveFixture.thread(id: "a"), "a.json", in: folder)
        let assets = folder.appendingPathComponent("assets")
        try ArchiveFixture.write("not the compressed stylesheet", "threadfold.css.gz", in: assets)
        var builder = ArchiveBuilder(
            units: try ArchiveInput.units([path], readStandardInput: { [] }), output: folder.appendingPathComponent("site"),
            options: ArchiveOptions(), resources: ResourceStore(assetsDirectory: assets.path), jobs: 1)
        builder.precompress = true
        let report = try builder.run()
        #expect(!report.published)
        #expect(report.siteError?.description == "threadfold.css.gz: error: has the name a compressed copy of threadfold.css would have; expected no file of the site named like one")
        builder.precompress = false
        #expect(try builder.run().published, "without precompression it is an asset like any other")
    }
}
