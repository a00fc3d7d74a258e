import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ThreadfoldKit

@Suite("Archive input")
struct ArchiveInputTests {
    @Test("a folder is walked in byte order of path, hidden names and other files skipped")
    func folders() throws {
        let folder = try ArchiveFixture.folder()
        for name in ["b.json", "a.json", "B.json", ".hidden.json", "notes.txt", "sub/c.jsonl", "sub/.git/x.json"] {
            try ArchiveFixture.write(ArchiveFixture.thread(id: "x"), name, in: folder)
        }
        let units = try ArchiveInput.units([folder.path], readStandardInput: { [] })
        #expect(units.map { String($0.display.dropFirst(folder.path.count + 1)) } == ["B.json", "a.json", "b.json", "sub/c.jsonl"])
    }

    /// The walk's files below `folder`, as relative paths.
    private func listed(_ folder: URL, _ filter: FolderFilter) throws -> [String] {
        let listing = ArchiveInput.listFolder(folder.path, filter: filter)
        #expect(listing.errors.isEmpty, "\(listing.errors)")
        return listing.files.map { String($0.dropFirst(folder.path.count + 1)) }
    }

    @Test("a folder's walk leaves out a site, a shard, a spare, a staging folder and the output, even one that has no marker yet")
    func threadfoldOutputsLeftOut() throws {
        let folder = try ArchiveFixture.folder()
        try ArchiveFixture.write(ArchiveFixture.thread(id: "a"), "in/a.json", in: folder)
        try ArchiveFixture.write(ArchiveFixture.thread(id: "b"), "in/sub/b.json", in: folder)
        let input = folder.appendingPathComponent("in")
        let sources = [input.appendingPathComponent("a.json").path, input.appendingPathComponent("sub/b.json").path]
        #expect(try ArchiveFixture.build(sources, in: folder, site: "in/site", incremental: true).errors.isEmpty)
        // A second incremental build keeps the first as the spare, .site.spare.
        #expect(try ArchiveFixture.build(sources, in: folder, site: "in/site", incremental: true).errors.isEmpty)
        #expect(try ArchiveFixture.build(sources, in: folder, site: "in/shards/s1", shard: Shard("1/2")).errors.isEmpty)
        #expect(FileManager.default.fileExists(atPath: input.appendingPathComponent(".site.spare/.threadfold").path))
        try ArchiveFixture.write(ArchiveFixture.thread(id: "x"), "in/.site.staging-1/t/x.json", in: folder)
        // The output before its first build: an empty folder, or a stranger's, holds no marker.
        try ArchiveFixture.write(ArchiveFixture.thread(id: "o"), "in/out/o.json", in: folder)
        let marked = FolderFilter(marker: SiteWriter.markerName)
        #expect(try listed(input, marked) == ["a.json", "out/o.json", "sub/b.json"])
        #expect(try listed(input, FolderFilter(output: input.appendingPathComponent("out").path, marker: SiteWriter.markerName)) == ["a.json", "sub/b.json"])
        // Reached through a link, the output is still left out: it is known by device and inode.
        #expect(symlink("out", input.appendingPathComponent("link").path) == 0)
        #expect(try listed(input, FolderFilter(output: input.appendingPathComponent("out").path, marker: SiteWriter.markerName)) == ["a.json", "sub/b.json"])
        // Without the marker's name, the site's own thread.json files would be read.
        #expect(try listed(input, FolderFilter()).contains { $0.hasPrefix("site/t/") })
        // A site named as the input is refused by name.
        let refused = ArchiveInput.listFolder(input.appendingPathComponent("site").path, filter: marked)
        #expect(refused.files.isEmpty)
        #expect(
            refused.errors.map(\.description) == ["\(input.path)/site: error: is a folder Threadfold wrote (it holds .threadfold); expected a folder of inputs, which skips such folders inside it"])
    }

    @Test("--exclude globs: a name at any depth, a path below the folder given, ** for any folders, a trailing / for folders only")
    func excludeGlobs() throws {
        let folder = try ArchiveFixture.folder()
        for name in [
            "a.json", "a.bak.json", "drafts/d.json", "2019/x.json", "2019/deep/y.json", "2020/x.json",
            "2020/old/z.json", "k/l/old/w.json", "old.json",
        ] {
            try ArchiveFixture.write(ArchiveFixture.thread(id: "x"), name, in: folder)
        }
        func without(_ patterns: String...) throws -> [String] {
            try listed(folder, FolderFilter(excludes: patterns.map { try #require(FolderFilter.Glob($0)) }))
        }
        let all = try without()
        #expect(all.count == 9)
        // A name, at any depth, file or folder.
        #expect(try without("*.bak.json", "drafts") == all.filter { $0 != "a.bak.json" && !$0.hasPrefix("drafts/") })
        // A path: anchored at the folder given; * stays within one folder.
        #expect(try without("2019/*.json") == all.filter { $0 != "2019/x.json" })
        #expect(try without("/x.json") == all)
        #expect(try without("*/x.json") == all.filter { !$0.hasSuffix("/x.json") })
        // **: any folders, none included.
        #expect(try without("**/old/") == all.filter { !$0.contains("old/") })
        #expect(try without("2019/**") == all.filter { !$0.hasPrefix("2019/") })
        #expect(try without("**/*.json") == [])
        #expect(try without("k/**/w.json") == all.filter { $0 != "k/l/old/w.json" })
        // A trailing /: folders only, so old.json stays.
        #expect(try without("old/") == all.filter { !$0.contains("old/") })
        #expect(try without("old*/") == all.filter { !$0.contains("old/") })
        #expect(FolderFilter.Glob("") == nil && FolderFilter.Glob("//") == nil)
    }

    @Test("a file named as an input is read even when an --exclude glob matches it, as ripgrep reads named files")
    func excludedButNamed() throws {
        let folder = try ArchiveFixture.folder()
        let named = try ArchiveFixture.write(ArchiveFixture.thread(id: "n"), "in/n.bak.json", in: folder)
        try ArchiveFixture.write(ArchiveFixture.thread(id: "m"), "in/m.json", in: folder)
        let filter = FolderFilter(excludes: [try #require(FolderFilter.Glob("*.bak.json"))])
        let input = folder.appendingPathComponent("in").path
        let units = try ArchiveInput.units([input, named], readStandardInput: { [] }, filter: filter)
        #expect(units.map(\.display) == [input + "/m.json", named])
    }

    @Test("JSON Lines of threads becomes one unit per line; JSON Lines of comments stays whole")
    func jsonLines() throws {
        let folder = try ArchiveFixture.folder()
        let threads = (1...3).map { ArchiveFixture.thread(id: "t\($0)") }.joined(separator: "\n") + "\n\n"
        let path = try ArchiveFixture.write(threads, "threads.jsonl", in: folder)
        let units = try ArchiveInput.units([path], readStandardInput: { [] })
        #expect(units.count == 3)
        #expect(units.map(\.lineBase) == [0, 1, 2])
        #expect(try units[1].read() == Array(ArchiveFixture.thread(id: "t2").utf8))
        // Blank lines first, a CRLF one among them, are skipped as every reader of lines skips them.
        let late = try ArchiveFixture.write(" \t\r\n\r\n" + threads, "late.jsonl", in: folder)
        let lateUnits = try ArchiveInput.units([late], readStandardInput: { [] })
        #expect(lateUnits.count == 3)
        #expect(lateUnits.map(\.lineBase) == [2, 3, 4])

        let items = #"{"id": 1, "type": "story", "by": "a", "title": "S", "kids": [2]}"# + "\n" + #"{"id": 2, "type": "comment", "by": "b", "parent": 1, "text": "hi"}"# + "\n"
        let hn = try ArchiveFixture.write(items, "items.jsonl", in: folder)
        let whole = try ArchiveInput.units([hn], readStandardInput: { [] })
        #expect(whole.count == 1)
        if case .file = whole[0].source {} else { Issue.record("expected the whole file") }
    }

    @Test("a file is a dump by its first line alone exactly when the listing streams it", arguments: [nil, "story_id"] as [String?])
    func dumpForms(_ threadKey: String?) throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var paths = try DumpBuildTests.sample(in: folder) + DumpBuildTests.sample(in: folder, compressed: false)
        let items = #"{"id": 1, "type": "story", "by": "a", "title": "S"}"# + "\n" + #"{"id": 2, "type": "comment", "by": "b", "parent": 1, "text": "hi"}"# + "\n"
        paths.append(try ArchiveFixture.write(items, "items.jsonl", in: folder))
        paths.append(try ArchiveFixture.write(#"{"id": 5, "story_id": 1, "parent_id": null, "body": "x"}"#, "one-line.json", in: folder))
        paths.append(try ArchiveFixture.write(#"{"id": 5, "story_id": 1, "body": "x"}"# + "\n" + #"{"id": 6, "story_id": 1, "parent_id": 5}"# + "\n", "comments.jsonl", in: folder))
        paths.append(try ArchiveFixture.write((1...3).map { ArchiveFixture.thread(id: "t\($0)") }.joined(separator: "\n") + "\n", "threads.jsonl", in: folder))
        paths.append(try ArchiveFixture.write(ArchiveFixture.thread(id: "one"), "thread.json", in: folder))
        // A file of one line among blank ones is looked at whole (`ArchiveInput.firstLine(of:)`).
        paths.append(try ArchiveFixture.write("\r\n" + ArchiveFixture.thread(id: "two") + "\n \t\n", "thread-blanks.json", in: folder))
        paths.append(try ArchiveFixture.write(" \n" + #"{"id": "c4", "link_id": "t3_x", "parent_id": "t3_x", "body": "alone"}"# + "\n\n", "RC_alone.jsonl", in: folder))
        // The same after a blank line and a byte order mark, which JSON skips only at the start.
        paths.append(try ArchiveFixture.write("\n\u{FEFF}" + #"{"id": "c5", "link_id": "t3_x", "parent_id": "t3_x", "body": "marked"}"# + "\n", "RC_bom.jsonl", in: folder))
        // A Reddit submission with its comments nested is a whole thread, among blank lines too.
        paths.append(
            try ArchiveFixture.write(
                "\n" + #"{"id": "s9", "name": "t3_s9", "title": "T", "selftext": "", "num_comments": 1, "comments": [{"id": "k1", "body": "b"}]}"# + "\n \n",
                "submission-thread.json", in: folder))
        paths.append(try ArchiveFixture.write("[\n  {\"id\": \"a\"},\n  {\"id\": \"b\", \"parent_id\": \"a\"}\n]\n", "array.json", in: folder))
        paths.append(try ArchiveFixture.write("\n\n" + #"{"id": "c1", "link_id": "t3_x", "parent_id": "t3_x", "body": "late"}"# + "\n", "RC_blank_start.jsonl", in: folder))
        paths.append(try ArchiveFixture.write(" \t\r\n\r\n" + #"{"id": "c2", "link_id": "t3_x", "parent_id": "t3_x", "body": "crlf"}"# + "\r\n", "RC_crlf.jsonl", in: folder))
        paths.append(try ArchiveFixture.write(#"{"id": "c3", "link_id": "t3_x", "parent_id": "t3_x", "body": "split"# + "\n" + #"here"}"# + "\n", "RC_split.jsonl", in: folder))
        paths.append(try ArchiveFixture.write("", "empty.json", in: folder))
        var options = ImportOptions()
        if let threadKey { options.mapping = FieldMapping(paths: [.id: ["id"], .parent: ["parent_id"], .body: ["body"], .thread: [threadKey]]) }
        let linesAreThreads: Bool? = threadKey != nil ? false : nil
        var dumps = 0
        for path in paths {
            let units = try ArchiveInput.units([path], readStandardInput: { [] }, linesAreThreads: linesAreThreads, dumpForm: ArchiveInput.dumps(options))
            var listed: DumpForm?
            if units.count == 1, case .dump(_, let form) = units[0].source { listed = form }
            let probed = ArchiveInput.dumpForm(ofFile: path, linesAreThreads: linesAreThreads, dumpForm: ArchiveInput.dumps(options))
            #expect(probed == listed, "\(path) \(String(describing: probed)) \(String(describing: listed))")
            if listed != nil { dumps += 1 }
            // `render` reads a plain file once: the same answer, or the bytes `InputFile.read` gives.
            guard linesAreThreads == nil else { continue }
            switch ArchiveInput.contents(ofFile: path, dumpForm: ArchiveInput.dumps(options)) {
            case .dump(let form): #expect(form == probed, "\(path)")
            case .document(let bytes):
                #expect(probed == nil, "\(path)")
                #expect(bytes == (try InputFile.read(path, display: path, streams: false)), "\(path)")
            case nil: #expect(ArchiveInput.isCompressed(path), "\(path): only a compressed file is left to the caller here")
            }
        }
        if threadKey == nil {
            #expect(dumps == 9, "the sample dumps, plain and compressed, the items, the late comment, the one after CRLF blanks, the one among blanks and the one after a byte order mark")
        }
    }

    @Test("a file's first line in memory is the line a stream of the file gives first")
    func firstLine() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let texts = [
            "", "\n", " \t\r\n", "{}", "{}\n", "\n\n  \n{\"a\": 1}\r\n{}", "\r\n x \n", "a\nb", String(repeating: "y", count: 70) + "\nz",
            "\n" + String(repeating: "w", count: 65) + "\n",
            String(repeating: "e", count: 64), String(repeating: "e", count: 64) + "\n", String(repeating: " ", count: 70) + "\nx\n",
        ]
        for (k, text) in texts.enumerated() {
            let path = try ArchiveFixture.write(text, "f\(k).txt", in: folder)
            // A line limit of 64 bytes: lines of 65 and 70 bytes (one of them blank) are over it, one of 64 is not.
            var streamed: [UInt8]?
            var stream = LineStream(path: path, display: path)
            stream.maxLineBytes = 64
            stream.chunkBytes = 16
            try? stream.forEachLine { (line) throws(ThreadfoldError) -> Bool in
                streamed = Array(line.bytes)
                return false
            }
            #expect(LineStream.firstLine(of: Array(text.utf8), maxLineBytes: 64) == streamed, "\(text.debugDescription)")
        }
        #expect(LineStream.firstLine(of: Array("a\nb".utf8)) == Array("a".utf8))
        #expect(LineStream.firstLine(of: Array(" \n".utf8)) == nil)
        #expect(LineStream.firstLine(of: [UInt8](repeating: UInt8(ascii: "e"), count: 64), maxLineBytes: 64) == [UInt8](repeating: UInt8(ascii: "e"), count: 64))
    }

    @Test("an error on line 3 of a JSON Lines file names line 3")
    func lineNumbers() throws {
        let folder = try ArchiveFixture.folder()
        let text = ArchiveFixture.thread(id: "a") + "\n" + ArchiveFixture.thread(id: "b") + "\n" + #"{"id": "c", "comments": [{"id": true}]}"# + "\n"
        let path = try ArchiveFixture.write(text, "bad.jsonl", in: folder)
        let report = try ArchiveFixture.build([path], in: folder)
        #expect(!report.published)
        let error = try #require(report.errors.first)
        #expect(error.file == path && error.line == 3)
        #expect(error.path == "$.comments[0].id")
    }

    @Test("a {\"threads\": [...]} document gives every thread, with paths into the list")
    func threadsDocument() throws {
        let text = #"{"threads": [\#(ArchiveFixture.thread(id: "a")), {"id": "b", "comments": [{"id": 1, "parent_id": 1, "score": "x"}]}]}"#
        #expect(throws: ThreadfoldError.self) { try Importer.read(bytes: Array(text.utf8), file: "many.json") }
        do {
            _ = try Importer.read(bytes: Array(text.utf8), file: "many.json")
        } catch {
            #expect(error.problems.first?.path == "$.threads[1].comments[0].score")
        }
        let good = #"{"threads": [\#(ArchiveFixture.thread(id: "a")), \#(ArchiveFixture.thread(id: "b", category: "Meta", tags: ["x", "y"]))]}"#
        let result = try Importer.read(bytes: Array(good.utf8), file: "many.json")
        #expect(result.threads.map { $0.info.id?.string } == ["a", "b"])
        #expect(result.threads[1].info.category == "Meta" && result.threads[1].info.tags == ["x", "y"])
    }

    @Test("links cannot loop a folder walk: each folder once per (device, inode), each file once under its first path")
    func linkLoops() throws {
        let folder = try ArchiveFixture.folder()
        let input = folder.appendingPathComponent("in")
        try ArchiveFixture.write(ArchiveFixture.thread(id: "x"), "in/x.json", in: folder)
        try ArchiveFixture.write(ArchiveFixture.thread(id: "y"), "in/sub/y.json", in: folder)
        // Two links to the folder itself (a build used to run forever), one back up, one across.
        for (name, target) in [("a", "."), ("b", "."), ("sub/up", ".."), ("c", "sub")] {
            #expect(symlink(target, input.appendingPathComponent(name).path) == 0)
        }
        // A file reached by a link and by a hard link: listed once, under the first path.
        #expect(symlink("x.json", input.appendingPathComponent("w.json").path) == 0)
        #expect(link(input.appendingPathComponent("x.json").path, input.appendingPathComponent("z.json").path) == 0)
        let listed = ArchiveInput.listFolder(input.path)
        #expect(listed.errors.isEmpty)
        // "c/y.json" < "sub/y.json": the folder is walked under its first path in byte order.
        #expect(listed.files.map { String($0.dropFirst(input.path.count + 1)) } == ["c/y.json", "w.json"])

        let report = try ArchiveFixture.build([input.path], in: folder)
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.threads == 2)
    }

    @Test("a single self link gives no duplicate ids")
    func selfLink() throws {
        let folder = try ArchiveFixture.folder()
        let input = folder.appendingPathComponent("in")
        for i in 0..<3 { try ArchiveFixture.write(ArchiveFixture.thread(id: "t\(i)"), "in/t\(i).json", in: folder) }
        #expect(symlink(".", input.appendingPathComponent("self").path) == 0)
        let report = try ArchiveFixture.build([input.path], in: folder)
        #expect(report.errors.isEmpty, "\(report.errors.map(\.description))")
        #expect(report.threads == 3)
    }

    @Test("a file name that is not UTF-8 is reported by name, escaped, and must be renamed")
    func nonUTF8Names() throws {
        let folder = try ArchiveFixture.folder()
        let input = folder.appendingPathComponent("in")
        try ArchiveFixture.write(ArchiveFixture.thread(id: "ok"), "in/ok.json", in: folder)
        let name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".json".utf8)
        let path = Array(input.path.utf8) + [UInt8(ascii: "/")] + name + [0]
        let fd = path.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_WRONLY | O_CREAT, 0o600) }
        #expect(fd >= 0)
        close(fd)
        // Files that are not inputs are left alone, whatever their names.
        try ArchiveFixture.write("x", "in/notes.txt", in: folder)
        do {
            _ = try ArchiveInput.units([input.path], readStandardInput: { [] })
            Issue.record("accepted")
        } catch {
            #expect(error.description == "\(input.path)/caf\\xE9.json: error: is a file whose name is not UTF-8 (the bytes that are not are shown as \\xNN); expected a UTF-8 name: rename it")
        }
    }

    @Test("a JSON Lines line longer than the line limit is an error naming the line and the limit")
    func lineLimit() throws {
        let folder = try ArchiveFixture.folder()
        let long = ArchiveFixture.thread(id: "b", comments: 20)
        let text = [ArchiveFixture.thread(id: "a", comments: 1), long, ArchiveFixture.thread(id: "c", comments: 1)].joined(separator: "\n") + "\n"
        let path = try ArchiveFixture.write(text, "threads.jsonl", in: folder)
        let limit = 1000
        #expect(long.utf8.count > limit && ArchiveFixture.thread(id: "a", comments: 1).utf8.count < limit)
        do {
            _ = try ArchiveInput.fileUnits(path, linesAreThreads: nil, maxLineBytes: limit)
            Issue.record("accepted")
        } catch {
            #expect(
                error.description
                    == "\(path):2:1: error: line 2 is \(long.utf8.count) bytes long; expected at most 1000 bytes per line of JSON Lines of threads (a thread that large belongs in a file of its own)")
        }
        // A first line too long to look at, with lines after it: still JSON Lines, still an error.
        let first = try ArchiveFixture.write([long, ArchiveFixture.thread(id: "c", comments: 1)].joined(separator: "\n"), "first.jsonl", in: folder)
        #expect(throws: ThreadfoldError.self) { try ArchiveInput.fileUnits(first, linesAreThreads: nil, maxLineBytes: limit) }
        // One long line and nothing else is an ordinary file, read whole.
        let single = try ArchiveFixture.write(long + "\n", "single.json", in: folder)
        let units = try ArchiveInput.fileUnits(single, linesAreThreads: nil, maxLineBytes: limit)
        #expect(units.count == 1)
        if case .file = units[0].source {} else { Issue.record("expected the whole file") }
        // The default limit is 64 MiB.
        #expect(InputLimits.maxLineBytes == 64 << 20)
    }

    /// A document of many threads on one line is decided from the bytes its listing read, as the
    /// scan for JSON Lines would decide it: blank lines around it, a line break or none, CRLF.
    @Test(
        "a document of many threads on its own line is one unit a thread, with the lines and columns it has",
        arguments: [("", "", 1), ("", "\n", 1), ("\n\n", "\n\n", 3), ("\r\n", "\r\n", 2), ("  ", " \t\n\r\n", 1)])
    func documentOnItsOwnLine(before: String, after: String, line: Int) throws {
        let folder = try ArchiveFixture.folder()
        let threads = (0..<3).map { ArchiveFixture.thread(id: "s\($0)") }
        let text = before + "{\"threads\": [" + threads.joined(separator: ", ") + "]}" + after
        let path = try ArchiveFixture.write(text, "forum.json", in: folder)
        let units = try ArchiveInput.fileUnits(path, linesAreThreads: nil)
        #expect(units.map { $0.element?.path } == ["$.threads[0]", "$.threads[1]", "$.threads[2]"])
        for unit in units {
            guard case .line(_, let offset, let length, let unitLine) = unit.source else {
                Issue.record("\(unit.source)")
                continue
            }
            #expect(unitLine == line && threads.contains(String(decoding: Array(text.utf8)[offset..<(offset + length)], as: UTF8.self)))
        }
        // A second line that is not blank: the scan decides, and the first line is not a thread.
        let two = try ArchiveFixture.write(text + "\n" + threads[0] + "\n", "two.json", in: folder)
        #expect(try ArchiveInput.fileUnits(two, linesAreThreads: nil).count == 1)
    }

    @Test("a document of many threads on one line is its threads when its root members rule out every dump form, and a dump's first line when they do not")
    func documentRootMembersDecide() throws {
        let folder = try ArchiveFixture.folder()
        let threads = (0..<3).map { ArchiveFixture.thread(id: "m\($0)") }.joined(separator: ", ")
        let detect = ArchiveInput.dumps(ImportOptions())
        let plain = try ArchiveFixture.write("{\"site\": \"x\", \"threads\": [\(threads)]}\n", "plain.json", in: folder)
        // Its root members say it is no dump's record: its line is not handed to the rules at all.
        let asked = Mutex(0)
        let counting = { (line: [UInt8]) -> DumpForm? in
            asked.withLock { $0 += 1 }
            return detect(line)
        }
        #expect(try ArchiveInput.fileUnits(plain, linesAreThreads: nil, dumpForm: counting).map { $0.element?.path } == ["$.threads[0]", "$.threads[1]", "$.threads[2]"])
        #expect(asked.withLock { $0 } == 0)
        // On several lines, the first longer than the limit of a line of JSON Lines: still a
        // document of threads, not a line too long.
        let long = try ArchiveFixture.write("{\"threads\": [\(threads),\n\(ArchiveFixture.thread(id: "m9"))]}\n", "long.json", in: folder)
        #expect(try ArchiveInput.fileUnits(long, linesAreThreads: nil, dumpForm: detect, maxLineBytes: 64).count == 4)
        // `link_id` and `parent_id` at the root make the line a Reddit comment, as they always did.
        let record = try ArchiveFixture.write(
            "{\"link_id\": \"t3_a\", \"parent_id\": \"t3_a\", \"threads\": [\(threads)]}\n", "record.json", in: folder)
        let units = try ArchiveInput.fileUnits(record, linesAreThreads: nil, dumpForm: detect)
        #expect(units.count == 1)
        if case .dump(_, .reddit) = units[0].source {} else { Issue.record("expected a Reddit dump: \(units[0].source)") }
    }

    @Test("a thread of a document on one line is read as its own bytes, however far along the line it starts, and an error in it names its column on that line")
    func documentOnOneLine() throws {
        let folder = try ArchiveFixture.folder()
        let threads = (0..<40).map { ArchiveFixture.thread(id: "w\($0)") }
        let broken = threads[30].replacingOccurrences(of: "\"id\": \"w30c1\"", with: "\"id\": [1]")
        let document = #"{"threads": ["# + (threads.prefix(30) + [broken] + threads.suffix(9)).joined(separator: ", ") + "]}"
        let path = try ArchiveFixture.write(document, "line.json", in: folder)
        let units = try ArchiveInput.units([path], readStandardInput: { [] })
        #expect(units.count == 40)
        for unit in units {
            guard case .line(_, _, let length, _) = unit.source else {
                Issue.record("not a span: \(unit.source)")
                continue
            }
            #expect(try unit.read().count == length)
        }
        let report = try ArchiveFixture.build([path], in: folder)
        let error = try #require(report.errors.first)
        let column = document.distance(from: document.startIndex, to: document.range(of: "[1]")!.lowerBound) + 1
        #expect(error.line == 1 && error.column == column && error.path == "$.threads[30].comments[2].id", "\(error)")
    }

    @Test(
        "a document of many threads is a unit per thread: built in parallel, rebuilt one thread at a time, messages at the document's own line, column and path",
        arguments: [true, false])
    func documentOfThreads(_ wrapped: Bool) throws {
        let folder = try ArchiveFixture.folder()
        let threads = (0..<6).map { ArchiveFixture.thread(id: "d\($0)", day: $0) }
        let open = wrapped ? "{\"title\": \"Many\", \"threads\": [\n" : "[\n"
        let close = wrapped ? "\n], \"note\": \"after\"}\n" : "\n]\n"
        let document = open + threads.joined(separator: ",\n  ") + close
        let path = try ArchiveFixture.write(document, "many.json", in: folder)
        let units = try ArchiveInput.units([path], readStandardInput: { [] })
        #expect(units.count == 6)
        let first = try ArchiveFixture.build([path], in: folder, incremental: true)
        #expect(first.errors.isEmpty && first.threadsRendered == 6)

        // One thread changed: it alone is rendered again, and the site equals a full build.
        try ArchiveFixture.write(document.replacingOccurrences(of: "Comment *d3c0*", with: "Changed"), "many.json", in: folder)
        let second = try ArchiveFixture.build([path], in: folder, incremental: true)
        #expect(second.threadsRendered == 1 && second.threadsReused == 5)
        _ = try ArchiveFixture.build([path], in: folder, site: "full")
        #expect(ArchiveFixture.files(folder.appendingPathComponent("site")) == ArchiveFixture.files(folder.appendingPathComponent("full")))

        // An error in the fifth thread names its line and column in the document and its path from the root.
        let broken = document.replacingOccurrences(of: "\"id\": \"d4c1\"", with: "\"id\": [1]")
        try ArchiveFixture.write(broken, "many.json", in: folder)
        let report = try ArchiveFixture.build([path], in: folder, site: "broken")
        let error = try #require(report.errors.first)
        let lines = broken.split(separator: "\n", omittingEmptySubsequences: false)
        let line = try #require(lines.firstIndex { $0.contains("\"id\": [1]") })
        let column = lines[line].distance(from: lines[line].startIndex, to: lines[line].range(of: "[1]")!.lowerBound) + 1
        #expect(error.path == (wrapped ? "$.threads[4]" : "$[4]") + ".comments[2].id")
        #expect(error.line == line + 1 && error.column == column, "\(error)")
    }

    @Test("blankBombs: compressed files of nothing but blank lines are refused while they stream, each named, none held whole")
    func blankBombs() throws {
        let folder = try ArchiveFixture.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var paths: [String] = []
        for name in ["a.zst", "b.json.zst"] {
            let url = folder.appendingPathComponent(name)
            try Data(ZstdFrame.repeated(0x0A, count: 8 << 20)).write(to: url)
            paths.append(url.path)
        }
        let errors = try #require(throws: ThreadfoldError.self) { try ArchiveInput.units(paths, readStandardInput: { [] }, dumpForm: ArchiveInput.dumps(ImportOptions())) }
        #expect(errors.problems.map(\.description) == paths.map { "\($0):\((8 << 20) + 1):1: error: the file is empty (8388608 bytes of blank lines once decompressed); expected a JSON value" })
    }
}
