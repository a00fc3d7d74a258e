import Foundation
import TestSupport
import Testing

/// The library's public surface, pinned: every public symbol of ThreadfoldKit, as the toolchain's
/// swift-symbolgraph-extract reads it from the module the tests were built with, listed one a line
/// (its path, its kind and its declaration) and compared with docs/api/ThreadfoldKit.txt. A change
/// to the surface fails here until the listing is updated with it (`RECORD_API=1 swift test
/// --filter PublicAPI` writes it), so no public change goes unseen in review.
@Suite("Public API")
struct PublicAPITests {
    static let baseline = TestPaths.repository.appendingPathComponent("docs/api/ThreadfoldKit.txt")

    /// The folder of the modules this test binary was built with.
    static var modules: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("Modules").path
    }

    @Test(
        "the public symbols are the listing in docs/api/ThreadfoldKit.txt",
        .enabled(if: ExternalTools.runs(when: ExternalTools.path(of: "swift-symbolgraph-extract") != nil)))
    func surface() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tf-api-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = TestPaths.repository.appendingPathComponent("packaging/symbol-graph.sh").path
        let (status, output) = try ExternalTools.run("/bin/sh", ["-c", "cd \"$1\" && \"$2\" \"$3\" \"$4\"", "sh", TestPaths.repository.path, script, folder.path, Self.modules])
        try #require(status == 0, "\(output)")
        let graph = try Data(contentsOf: folder.appendingPathComponent("ThreadfoldKit.symbols.json"))
        let listing = try Self.listing(graph)
        if ProcessInfo.processInfo.environment["RECORD_API"] != nil {
            try FileManager.default.createDirectory(at: Self.baseline.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(listing.utf8).write(to: Self.baseline)
        }
        let expected = (try? String(contentsOf: Self.baseline, encoding: .utf8)) ?? ""
        let got = Set(listing.split(separator: "\n")), want = Set(expected.split(separator: "\n"))
        let unchanged = got == want
        #expect(
            unchanged,
            """
            the public API changed; if that is meant, run RECORD_API=1 swift test --filter PublicAPI and commit docs/api/ThreadfoldKit.txt
            added: \(got.subtracting(want).sorted().joined(separator: "\n       "))
            removed: \(want.subtracting(got).sorted().joined(separator: "\n         "))
            """)
        #expect(!got.isEmpty)
    }

    /// One line a public symbol: `path  kind  declaration`, sorted.
    static func listing(_ graph: Data) throws -> String {
        let json = try #require(try JSONSerialization.jsonObject(with: graph) as? [String: Any])
        let symbols = try #require(json["symbols"] as? [[String: Any]])
        var lines: [String] = []
        for symbol in symbols {
            guard symbol["accessLevel"] as? String == "public" else { continue }
            let path = (symbol["pathComponents"] as? [String] ?? []).joined(separator: ".")
            let kind = (symbol["kind"] as? [String: Any])?["identifier"] as? String ?? "?"
            let fragments = symbol["declarationFragments"] as? [[String: Any]] ?? []
            let declaration = fragments.map { $0["spelling"] as? String ?? "" }.joined()
                .split(whereSeparator: \.isWhitespace).joined(separator: " ")
            lines.append("\(path)  \(kind)  \(declaration)")
        }
        return lines.sorted().joined(separator: "\n") + "\n"
    }
}
