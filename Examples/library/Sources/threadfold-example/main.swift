// Renders one thread to a page and builds an archive site, through ThreadfoldKit's public face only.
//
//   threadfold-example THREAD.json OUT-FOLDER
import Foundation
import ThreadfoldKit

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: threadfold-example THREAD.json OUT-FOLDER\n".utf8))
    exit(64)
}
let input = arguments[1]
let out = URL(fileURLWithPath: arguments[2])

do {
    // One page: the HTML and the stylesheet and script it links to, written by the caller.
    var options = RenderOptions()
    options.layout.maxDepth = 3
    let json = try [UInt8](Data(contentsOf: URL(fileURLWithPath: input)))
    let page = try Threadfold.renderPage(json: json, file: input, options: options)
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    try Data(page.html).write(to: out.appendingPathComponent("page.html"))
    for asset in page.assets { try Data(asset.bytes).write(to: out.appendingPathComponent(asset.name)) }
    print("page.html: \(page.comments) comments, \(page.warnings.count) warnings")

    // A whole site, published atomically into out/site.
    var build = BuildOptions(jobs: 2)
    build.archive.title = "Example archive"
    build.archive.orders = [.oldest, .top]
    let report = try Threadfold.buildSite(inputs: [input], output: out.appendingPathComponent("site").path, options: build)
    print("site/: \(report.threads) threads, \(report.comments) comments, \(report.filesWritten) files written")

    // Errors are one type, each problem located.
    do {
        _ = try Threadfold.renderPage(json: Array(#"{"comments": [{"id": 1, "parent_id": [2]}]}"#.utf8), file: "broken.json")
    } catch {
        print("\(error.kind): \(error)")
    }
} catch {
    FileHandle.standardError.write(Data("threadfold-example: \(error)\n".utf8))
    exit(1)
}
