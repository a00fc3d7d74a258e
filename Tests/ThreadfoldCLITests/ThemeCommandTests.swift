import Foundation
import TestSupport
import Testing
import ThreadfoldKit

@testable import ThreadfoldCLI

/// `threadfold theme DIR`, as a process: the built-in theme written out, read back byte for byte,
/// never written over or through a link without being asked.
@Suite("threadfold theme")
struct ThemeCommandTests {
    let cli = CLITests()
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var examples: [String] {
        ["archive.jsonl", "nested.json", "thread.json"].map { repository.appendingPathComponent("docs/examples/\($0)").path }
    }

    @Test("theme writes every template, locale and asset, and a README; builds and renders with it are byte-identical to the default ones")
    func roundTrip() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let theme = try cli.run(["theme", "theme"], in: folder)
        #expect(theme.status == 0 && theme.err.isEmpty, "\(theme.err)")
        #expect(theme.out.contains("--templates theme/templates --assets theme/assets"), "\(theme.out)")
        let templates = cli.files(folder.appendingPathComponent("theme/templates"))
        #expect(
            templates == [
                "author.mustache", "comment.mustache", "index.mustache", "locales", "notice.mustache", "page.mustache", "poll.mustache",
                "replies.mustache", "search-box.mustache", "search.mustache", "thread-item.mustache",
            ])
        #expect(cli.files(folder.appendingPathComponent("theme/templates/locales")) == ["en.json", "zh-Hans.json"])
        #expect(cli.files(folder.appendingPathComponent("theme/assets")) == ["threadfold-search.js", "threadfold.css", "threadfold.js"])
        let css = try Data(contentsOf: Self.repository.appendingPathComponent("Public/threadfold.css"))
        #expect(try Data(contentsOf: folder.appendingPathComponent("theme/assets/threadfold.css")) == css)

        let themed = ["--templates", "theme/templates", "--assets", "theme/assets"]
        let options = ["-q", "--no-fsync", "--sections", "category", "--orders", "oldest,top", "--search", "--authors"]
        for (command, extra) in [("build", options), ("render", ["-q", "--no-fsync"])] {
            let plain = try cli.run([command] + Self.examples + extra + ["-o", "\(command)-plain"], in: folder)
            #expect(plain.status == 0, "\(plain.err)")
            let withTheme = try cli.run([command] + Self.examples + extra + themed + ["-o", "\(command)-themed"], in: folder)
            #expect(withTheme.status == 0, "\(withTheme.err)")
            let a = try ExternalDiff.snapshot(folder.appendingPathComponent("\(command)-plain").path)
            let b = try ExternalDiff.snapshot(folder.appendingPathComponent("\(command)-themed").path)
            #expect(a.count > 3 && a.keys.sorted() == b.keys.sorted(), "\(command): \(a.keys.sorted()) against \(b.keys.sorted())")
            let differing = a.keys.filter { a[$0] != b[$0] }.sorted()
            #expect(differing.isEmpty, "\(command): \(differing)")
        }
    }

    @Test("the README lists every variable docs/templates.md documents, and every template")
    func readmeListsEveryVariable() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try cli.run(["theme", "-q", "t"], in: folder).status == 0)
        let readme = try String(contentsOf: folder.appendingPathComponent("t/README.md"), encoding: .utf8)
        let guide = try String(contentsOf: Self.repository.appendingPathComponent("docs/templates.md"), encoding: .utf8)
        let variables = Self.documentedNames(guide, section: "## Variables")
        #expect(variables.count > 75, "the tables were found: \(variables.count)")
        for name in ["continuedFrom", "atSource", "commentsOther", "hasTimeline", "commentsOne", "excerpt", "threadHref"] {
            #expect(variables.contains(name), "\(name) is read from the guide")
        }
        let listed = Self.documentedNames(readme, section: "## Variables")
        #expect(variables.subtracting(listed).isEmpty, "missing from the README: \(variables.subtracting(listed).sorted())")
        for template in ["page", "comment", "replies", "index", "thread-item", "search", "search-box", "author", "notice"] {
            #expect(readme.contains("| `\(template)` |"), "\(template)")
        }
        #expect(readme.contains("`iso` is `2024-03-03T10:04:05Z`"), "the prose of the Variables section too")
        #expect(readme.contains("--templates THEME/templates --assets THEME/assets"))
    }

    /// The backquoted names in the first column of every table from the line `section` to the
    /// next heading of its level (`lang`, `dir` from "| `lang`, `dir` | …").
    static func documentedNames(_ text: String, section: String) -> Set<String> {
        var names: Set<String> = []
        var inside = false
        for line in text.split(separator: "\n") {
            if line.hasPrefix("## ") { inside = line == section }
            guard inside, line.hasPrefix("| `") else { continue }
            let cell = line.dropFirst(2).prefix { $0 != "|" }
            for (k, part) in cell.split(separator: "`", omittingEmptySubsequences: false).enumerated() where k % 2 == 1 {
                names.insert(String(part))
            }
        }
        return names
    }

    @Test("existing files are refused and listed, nothing is written; --force replaces them, a link itself and not its target")
    func refusesToOverwrite() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let assets = folder.appendingPathComponent("t/assets")
        try FileManager.default.createDirectory(at: assets, withIntermediateDirectories: true)
        _ = try cli.write("mine", "threadfold.css", in: assets)
        let secret = try cli.write("secret", "secret.txt", in: folder)
        try FileManager.default.createSymbolicLink(atPath: assets.appendingPathComponent("threadfold.js").path, withDestinationPath: secret)
        let refused = try cli.run(["theme", "t"], in: folder)
        #expect(refused.status == 1)
        #expect(refused.err.contains("t/assets/threadfold.css: error: already exists; expected no file there (nothing was written)"), "\(refused.err)")
        #expect(refused.err.contains("t/assets/threadfold.js: error: already exists"), "\(refused.err)")
        #expect(refused.err.contains("Error: nothing was written; pass --force to replace the files that exist."), "\(refused.err)")
        #expect(cli.files(folder.appendingPathComponent("t")) == ["assets"] && cli.files(assets) == ["threadfold.css", "threadfold.js"])
        #expect(try String(contentsOf: assets.appendingPathComponent("threadfold.css"), encoding: .utf8) == "mine")

        let forced = try cli.run(["theme", "--force", "t"], in: folder)
        #expect(forced.status == 0, "\(forced.err)")
        #expect(try String(contentsOfFile: secret, encoding: .utf8) == "secret", "the link's target is untouched")
        let js = assets.appendingPathComponent("threadfold.js").path
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: js)) == nil, "the link was replaced by a file")
        #expect(try Data(contentsOf: URL(fileURLWithPath: js)) == Data(contentsOf: Self.repository.appendingPathComponent("Public/threadfold.js")))
        #expect(try cli.run(["theme", "-q", "-f", "t"], in: folder).status == 0, "--force writes over its own theme again")
    }

    @Test("a link where a theme folder goes, or a folder where a file goes, is an error even with --force; the target is untouched")
    func neverFollowsLinks() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let elsewhere = folder.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("t"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("t/assets").path, withDestinationPath: elsewhere.path)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("t/templates/page.mustache"), withIntermediateDirectories: true)
        let refused = try cli.run(["theme", "--force", "t"], in: folder)
        #expect(refused.status == 1)
        #expect(refused.err.contains("t/assets: error: is a symbolic link; expected a folder (links are never followed)"), "\(refused.err)")
        #expect(refused.err.contains("t/templates/page.mustache: error: is not a regular file; expected a theme file or nothing there"), "\(refused.err)")
        #expect(!refused.err.contains("--force"), "forcing would not help: \(refused.err)")
        #expect(cli.files(elsewhere).isEmpty && cli.files(folder.appendingPathComponent("t/templates")) == ["page.mustache"])
    }

    @Test("usage errors exit 64; a folder that cannot be made exits 1 naming it")
    func usageErrors() throws {
        for arguments in [["theme"], ["theme", "a", "b"], ["theme", ""], ["theme", "--bogus", "a"]] {
            let run = try cli.run(arguments)
            #expect(run.status == 64 && run.err.hasPrefix("Error: ") && run.err.contains("Usage: threadfold theme <dir>"), "\(arguments): \(run.err)")
        }
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = try cli.run(["theme", "no/such/folder"], in: folder)
        #expect(missing.status == 1 && missing.err.contains("no/such/folder: error: cannot be created: "), "\(missing.err)")
        _ = try cli.write("x", "file", in: folder)
        let file = try cli.run(["theme", "file"], in: folder)
        #expect(file.status == 1 && file.err.contains("file: error: cannot be opened as a folder"), "\(file.err)")
    }
}
