import Foundation

/// The data the tests read from `Tests/Data/`: the Mustache and GFM conformance suites and real
/// exports, vendored with their licences (`Tests/Data/README.md` says where each came from).
/// A missing file throws, so a test that needs it fails rather than skips.
public enum TestData {
    /// `Tests/Data/`, found from this file's place in the repository.
    public static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Data")

    /// The file at `path` under `Tests/Data/`, such as `fixtures/reddit-listing/comments.json`.
    public static func url(_ path: String) -> URL {
        folder.appendingPathComponent(path)
    }

    /// The bytes of the file at `path` under `Tests/Data/`.
    public static func bytes(_ path: String) throws(Missing) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: url(path).path) else { throw Missing(path: path) }
        return [UInt8](data)
    }

    /// The lines of a vendored text file (JSON Lines, a dump), without their newlines.
    public static func lines(_ path: String) throws(Missing) -> [String] {
        try bytes(path).split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The vendored comment dump (`dumps/RC_sample.jsonl`) with two bad lines, as a file's text:
    /// line 4 is not JSON, and line 8 is JSON but no comment of a thread (no `link_id`).
    public static func commentDumpWithBadLines() throws(Missing) -> String {
        var lines = try lines("dumps/RC_sample.jsonl")
        lines[3] = "not json"
        lines[7] = #"{"id": "x3", "body": "no thread"}"#
        return lines.joined(separator: "\n") + "\n"
    }

    /// A vendored file that is not there.
    public struct Missing: Error, CustomStringConvertible {
        public let path: String
        public var description: String {
            "Tests/Data/\(path) is missing: the test data is part of the repository (git checkout -- Tests/Data)"
        }
    }
}
