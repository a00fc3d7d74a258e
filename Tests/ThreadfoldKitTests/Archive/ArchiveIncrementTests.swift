import Foundation
import Synchronization
import Testing

@testable import ThreadfoldKit

/// `--incremental` knows a unit by its bytes, not by its file or its place in it: a renamed,
/// moved or reordered input renders nothing again, and what is reported of a reused unit is what
/// a full build reports of it where it is now.
@Suite("Archive increments")
struct ArchiveIncrementTests {
    /// Six threads; the third has a comment whose parent is missing (a warning at that comment).
    static let threads: [String] = (0..<6).map { n in
        let thread = ArchiveFixture.thread(id: "k\(n)", day: n)
        guard n == 2 else { return thread }
        return thread.replacingOccurrences(of: "\"comments\": [", with: #""comments": [{"id": "orphan", "parent_id": "gone", "body": "lost"}, "#)
    }

    /// A document of `threads`: on one line (each thread at its own column), or a thread a line.
    static func document(_ threads: [String], oneLine: Bool) -> String {
        oneLine ? #"{"threads": ["# + threads.joined(separator: ", ") + "]}\n" : "{\"threads\": [\n" + threads.joined(separator: ",\n") + "\n]}\n"
    }

    /// The warnings as a full build reports them, and whether the site is the full build's.
    static func expectFull(_ report: ArchiveBuilder.Report, _ inputs: [String], in folder: URL, _ name: String) throws {
        let full = try ArchiveFixture.build(inputs, in: folder, site: name)
        #expect(report.errors.isEmpty && full.errors.isEmpty, "\(report.errors)")
        #expect(report.warnings.map(\.description) == full.warnings.map(\.description))
        #expect(ArchiveFixture.files(folder.appendingPathComponent("site")) == ArchiveFixture.files(folder.appendingPathComponent(name)))
    }

    @Test("a document renamed, then reordered, renders no thread again; one thread changed renders that thread; warnings name the file, line, column and path they have now", arguments: [true, false])
    func documentMoves(oneLine: Bool) throws {
        let folder = try ArchiveFixture.folder()
        let first = try ArchiveFixture.write(Self.document(Self.threads, oneLine: oneLine), "export-1.json", in: folder)
        let built = try ArchiveFixture.build([first], in: folder, incremental: true)
        #expect(built.threadsRendered == 6 && built.warnings.count == 1)

        // Downloaded again under another name: the old file is gone, the bytes are the same.
        try FileManager.default.removeItem(atPath: first)
        let renamed = try ArchiveFixture.write(Self.document(Self.threads, oneLine: oneLine), "export-2.json", in: folder)
        let afterRename = try ArchiveFixture.build([renamed], in: folder, incremental: true)
        #expect(afterRename.threadsRendered == 0 && afterRename.threadsReused == 6)
        #expect(afterRename.warnings.first?.file == renamed)
        try Self.expectFull(afterRename, [renamed], in: folder, "full-renamed")

        // Reordered: the thread with the warning moves to the end (another line or column, another element).
        let reordered = Array(Self.threads.reversed())
        try ArchiveFixture.write(Self.document(reordered, oneLine: oneLine), "export-2.json", in: folder)
        let afterReorder = try ArchiveFixture.build([renamed], in: folder, incremental: true)
        #expect(afterReorder.threadsRendered == 0 && afterReorder.threadsReused == 6)
        #expect(afterReorder.warnings.first?.path == "$.threads[3].comments[0]")
        try Self.expectFull(afterReorder, [renamed], in: folder, "full-reordered")

        // One thread changed, longer than it was: the threads after it move, and only it is rendered.
        let changed = reordered.map { $0.replacingOccurrences(of: "Comment *k4c0*", with: "Comment *k4c0*, edited") }
        try ArchiveFixture.write(Self.document(changed, oneLine: oneLine), "export-2.json", in: folder)
        let afterChange = try ArchiveFixture.build([renamed], in: folder, incremental: true)
        #expect(afterChange.threadsRendered == 1 && afterChange.threadsReused == 5)
        try Self.expectFull(afterChange, [renamed], in: folder, "full-changed")
    }

    @Test("a thread's hash taken while its document was listed stands only while the file's stat is the one it was listed with")
    func listedHash() throws {
        let folder = try ArchiveFixture.folder()
        let path = try ArchiveFixture.write(Self.document(Array(Self.threads.prefix(2)), oneLine: false), "d.json", in: folder)
        let units = try ArchiveInput.units([path], readStandardInput: { [] })
        let unit = try #require(units.last)
        #expect(unit.listed?.hash == ArchiveUnit.contentHash(of: try unit.read()))
        let signatures = ArchiveBuilder.signatures(units)
        #expect(ArchiveBuilder.listedHash(unit, signatures: signatures) == unit.listed?.hash)
        // Written since it was listed: its bytes are read again rather than trusted.
        var changed = signatures
        changed[path]?.mtime += 1
        #expect(ArchiveBuilder.listedHash(unit, signatures: changed) == nil)
    }

    @Test("the live site's manifest tells the next listing its document's threads: unchanged ones are hashed, a changed one is read and found out")
    func knownThreads() throws {
        let folder = try ArchiveFixture.folder()
        let path = try ArchiveFixture.write(Self.document(Self.threads, oneLine: false), "d.json", in: folder)
        let site = folder.appendingPathComponent("site")
        let options = BuildOptions(jobs: 2, incremental: true, durable: false)
        _ = try Threadfold.buildSite(inputs: [path], output: site.path, options: options)
        let known = try #require(Manifest.knownElements(of: site))
        #expect(!known.isEmpty)
        // Read in blocks of any size up to the units, it is the table the whole manifest holds.
        let whole = try #require(SiteWriter.readMetadata(of: site, Manifest.fileName).flatMap(Manifest.knownElements))
        let hashes = try ArchiveInput.units([path], readStandardInput: { [] }).compactMap(\.listed?.hash)
        #expect(hashes.count == 6 && hashes.allSatisfy { whole.place(of: $0) != nil })
        for blockBytes in [1, 7, 64, 4096] {
            let read = try #require(Manifest.knownElements(of: site, blockBytes: blockBytes), "blocks of \(blockBytes)")
            #expect(hashes.map { read.place(of: $0) } == hashes.map { whole.place(of: $0) } && hashes.map { known.place(of: $0) } == hashes.map { whole.place(of: $0) })
        }
        // Told them, the listing finds the units it finds without them.
        let plain = try ArchiveInput.units([path], readStandardInput: { [] })
        let told = try ArchiveInput.units([path], readStandardInput: { [] }, known: known)
        #expect(told.count == 6 && told.map(\.listed?.hash) == plain.map(\.listed?.hash))
        #expect(told.map(\.element?.path) == plain.map(\.element?.path))
        // The manifest that holds them is read back: nothing is rendered again.
        #expect(try Threadfold.buildSite(inputs: [path], output: site.path, options: options).threadsRendered == 0)
        // An incremental build hands its listing the threads the live site's manifest knows.
        let handed = Mutex<[UInt64: Int]>([:])
        var builder = ArchiveBuilder(units: [], output: site, options: ArchiveOptions(), jobs: 2)
        builder.incremental = true
        let report = try builder.run { known throws(ThreadfoldError) in
            handed.withLock { handed in for hash in hashes { handed[hash] = known?.place(of: hash) } }
            return try ArchiveInput.units([path], readStandardInput: { [] }, known: known)
        }
        #expect(report.errors.isEmpty && report.threadsRendered == 0)
        #expect(handed.withLock { $0.count } == 6)
        // A site of thread files knows none.
        let files = folder.appendingPathComponent("files")
        let thread = try ArchiveFixture.write(Self.threads[0], "t0.json", in: folder)
        _ = try Threadfold.buildSite(inputs: [thread], output: files.path, options: options)
        #expect(Manifest.knownElements(of: files) == nil)
        // A thread that is no longer JSON is read, and the build refused, as a full one is.
        var broken = Self.threads
        broken[3] = #"{"id": "k3", "comments": [tru]}"#
        try ArchiveFixture.write(Self.document(broken, oneLine: false), "d.json", in: folder)
        let error = #expect(throws: ThreadfoldError.self) { try Threadfold.buildSite(inputs: [path], output: site.path, options: options) }
        #expect(error?.problems.first?.file == path && error?.problems.first?.line == 5, "\(String(describing: error))")
    }

    @Test("a folder of thread files renamed renders no thread again")
    func folderRenamed() throws {
        let folder = try ArchiveFixture.folder()
        for (n, thread) in Self.threads.enumerated() { try ArchiveFixture.write(thread, "in-1/t\(n).json", in: folder) }
        let first = try ArchiveFixture.build([folder.appendingPathComponent("in-1").path], in: folder, incremental: true)
        #expect(first.threadsRendered == 6)
        let moved = folder.appendingPathComponent("in-2")
        try FileManager.default.moveItem(at: folder.appendingPathComponent("in-1"), to: moved)
        let second = try ArchiveFixture.build([moved.path], in: folder, incremental: true)
        #expect(second.threadsRendered == 0 && second.threadsReused == 6)
        #expect(second.warnings.first?.file == moved.appendingPathComponent("t2.json").path)
        try Self.expectFull(second, [moved.path], in: folder, "full")
    }

    @Test("one thread in two documents is refused as a full build refuses it, when one of the two was built before")
    func sameThreadTwice() throws {
        let folder = try ArchiveFixture.folder()
        let one = try ArchiveFixture.write(Self.document(Array(Self.threads.prefix(3)), oneLine: false), "one.json", in: folder)
        _ = try ArchiveFixture.build([one], in: folder, incremental: true)
        // The same third thread, now also the second of another document.
        let two = try ArchiveFixture.write(Self.document([Self.threads[5], Self.threads[2]], oneLine: false), "two.json", in: folder)
        let incremental = try ArchiveFixture.build([one, two], in: folder, incremental: true)
        let full = try ArchiveFixture.build([one, two], in: folder, site: "full")
        #expect(incremental.errors.map(\.message) == full.errors.map(\.message))
        #expect(full.errors.count == 1 && full.errors[0].message.contains("\(one):4") && full.errors[0].message.contains("\(two):3"))
        #expect(!incremental.published && !full.published)
    }
}
