// libFuzzer entry point for `make fuzz`: every input goes through the importers (all forms,
// detected), the tree, the layout and the page renderer, the archive renderer (parts, branches,
// orders, sidecar, feed) and the sidecar and manifest readers, and through the HTML sanitizer
// as text. Built by the Makefile with -sanitize=fuzzer,address, not by SwiftPM.

/// Built once: templates and strings from the embedded resources.
let standalone = try! ThreadPipeline(options: ArchiveOptions())
let archive: ThreadPipeline = {
    var options = ArchiveOptions()
    options.pageDepth = 2
    options.pageSize = 2
    options.orders = [.top, .oldest]
    options.layout = .auto
    options.baseURL = "https://example.org/"
    return try! ThreadPipeline(options: options, resources: ResourceStore())
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzThreadfold(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let result = try? Importer.read(bytes: bytes, file: "fuzz.json", options: ImportOptions(lenient: true)) {
        for record in result.threads.prefix(8) {
            _ = try? standalone.page(record)
            let id = record.threadID
            let folder = ThreadPaths.folder(title: record.info.title, id: id)
            if let files = try? archive.files(
                record, id: id, folder: folder, source: "fuzz.json",
                write: { path, _ in
                    precondition(RelativePath.isSafe(path))
                })
            {
                // The sidecar reads back as what was written.
                precondition((try? ThreadSummary.decode(files.summary.encoded(), file: "thread.json")) == files.summary)
            }
        }
    }
    recordMembersAgree(bytes)
    _ = try? Compression.decoded(bytes, display: "fuzz", limit: 1 << 20)
    _ = Manifest(bytes: bytes)
    _ = try? ThreadSummary.decode(bytes, file: "thread.json")
    let text = String(decoding: bytes, as: UTF8.self)
    _ = HTMLSanitizer().sanitize(text)
    _ = MarkdownRenderer().render(text)
    return 0
}

/// A dump thread parsed keeping only some members of its records reads, for those members,
/// exactly as the whole parse does: it fails where the whole parse fails, keeps each kept
/// member's last value at the same offset, and the Reddit dump importer reads the same records.
func recordMembersAgree(_ bytes: [UInt8]) {
    let filter = JSONMemberFilter(["a", "id", "body", "link_id", "a_longer_name"])
    var whole = Result { () throws(JSONError) in try JSONDocument(bytes: bytes) }
    var kept = Result { () throws(JSONError) in try JSONDocument(bytes: bytes, records: filter) }
    // JSON Lines: each line a record, as the importers read them.
    if case .failure(let error) = whole, error.isTrailingContent {
        whole = Result { () throws(JSONError) in try JSONDocument(bytes: bytes, sequence: true) }
        kept = Result { () throws(JSONError) in try JSONDocument(bytes: bytes, sequence: true, records: filter) }
    }
    switch (whole, kept) {
    case (.failure(let a), .failure(let b)):
        precondition(a.offset == b.offset && a.message == b.message)
    case (.success(let all), .success(let some)):
        precondition(
            all.kind(all.root) == some.kind(some.root) && all.count(all.root) == some.count(some.root)
                && some.nodes.count <= all.nodes.count)
        if all.kind(all.root) == .array {
            var records: [Int] = [], others: [Int] = []
            all.forEachElement(all.root) { _, element in records.append(element) }
            some.forEachElement(some.root) { _, element in others.append(element) }
            for (record, other) in zip(records, others) where all.kind(record) == .object {
                for name in ["a", "id", "body", "link_id", "a_longer_name"] {
                    precondition(all.member(record, name).map(all.offset) == some.member(other, name).map(some.offset))
                }
            }
            // Whatever a record holds besides, its dropped members are gone from the tape.
            some.forEachElement(some.root) { _, record in
                guard some.kind(record) == .object else { return }
                // A key with an escape is kept whatever it says.
                some.forEachMember(record) { key, value in
                    precondition(["a", "id", "body", "link_id", "a_longer_name"].contains(key) || some.nodes[value - 1].flag)
                }
            }
        }
        var options = ImportOptions(lenient: true)
        options.format = .reddit
        if RedditImporter.isDump(all, parents: false) {
            let a = Result { () throws(ThreadfoldError) in try Importer.read(bytes: bytes, file: "fuzz.json", options: options) }
            let b = Result { () throws(ThreadfoldError) in
                try Importer.read(bytes: bytes, file: "fuzz.json", options: options, records: RedditImporter.dumpMembers)
            }
            // The same threads, or the same errors.
            precondition(String(describing: a.map(\.threads)) == String(describing: b.map(\.threads)))
        }
    default:
        preconditionFailure("a parse keeping some members disagreed with the whole parse on whether the JSON is valid")
    }
}
