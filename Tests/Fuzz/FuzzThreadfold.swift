// libFuzzer entry point for `make fuzz`: every input goes through the importers (all forms,
// detected), the tree, the layout and the page renderer, and through the HTML sanitizer as
// text. Built by the Makefile with -sanitize=fuzzer,address, not by SwiftPM.

/// Built once: templates and strings from the embedded resources.
let pipeline = try! ThreadPipeline()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzThreadfold(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let result = try? Importer.read(bytes: bytes, file: "fuzz.json", options: ImportOptions(lenient: true)) {
        for record in result.threads.prefix(8) {
            _ = try? pipeline.render(record: record)
        }
    }
    let text = String(decoding: bytes, as: UTF8.self)
    _ = HTMLSanitizer().sanitize(text)
    _ = MarkdownRenderer().render(text)
    return 0
}
