// libFuzzer entry point for `make fuzz`: every input goes through the importers (all forms,
// detected), the tree, the layout and the page renderer, the archive renderer (parts, branches,
// orders, sidecar, feed) and the sidecar and manifest readers, and through the HTML sanitizer
// as text. Built by the Makefile with -sanitize=fuzzer,address, not by SwiftPM.

/// Built once: templates and strings from the embedded resources.
let standalone = try! ThreadRenderer(options: ArchiveOptions())
let archive: ThreadRenderer = {
    var options = ArchiveOptions()
    options.pageDepth = 2
    options.pageSize = 2
    options.orders = [.top, .oldest]
    options.layout = .auto
    options.baseURL = "https://example.org/"
    return try! ThreadRenderer(options: options, resources: ResourceStore())
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzThreadfold(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let result = try? Importer.read(bytes: bytes, file: "fuzz.json", options: ImportOptions(lenient: true)) {
        for (position, record) in result.threads.prefix(8).enumerated() {
            _ = try? standalone.page(record)
            let id = ThreadRenderer.id(of: record, source: "fuzz.json", position: position)
            let folder = ThreadPaths.folder(title: record.info.title, id: id)
            if let files = try? archive.files(record, id: id, folder: folder, source: "fuzz.json", write: { path, _ in
                precondition(SiteWriter.isSafeRelativePath(path))
            }) {
                // The sidecar reads back as what was written.
                precondition((try? ThreadSummary.decode(files.summary.encoded(), file: "thread.json")) == files.summary)
            }
        }
    }
    _ = try? Compression.decoded(bytes, display: "fuzz", limit: 1 << 20)
    _ = Manifest(bytes: bytes)
    _ = try? ThreadSummary.decode(bytes, file: "thread.json")
    let text = String(decoding: bytes, as: UTF8.self)
    _ = HTMLSanitizer().sanitize(text)
    _ = MarkdownRenderer().render(text)
    return 0
}
