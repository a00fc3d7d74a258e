import Foundation

/// Checks the compressed siblings of a site built with precompression, with the `gzip` and
/// `brotli` commands (Debian's gzip and brotli; `make test-deps` installs brotli): every `.gz`
/// and `.br` decodes to exactly the bytes of the file beside it and is smaller, and none stands
/// without its file.
public enum SiblingCheck {
    /// The kinds of file that get siblings, by extension.
    public static let extensions: Set<String> = ["html", "xml", "json", "css", "js"]
    public static let suffixes = [".gz", ".br"]

    public struct Result {
        /// What is wrong, one sentence each; empty when all is well.
        public var problems: [String] = []
        /// Siblings that are not there (`index.html.br`), for the caller to judge: a file gets
        /// none when compressing would not make it smaller.
        public var missing: [String] = []
        /// Siblings decoded and compared.
        public var checked = 0
    }

    /// Whether the brotli command is installed.
    public static var hasBrotli: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/brotli") }

    /// Walks `site` (Threadfold's hidden bookkeeping left out) and checks every sibling.
    public static func check(_ site: URL) -> Result {
        var result = Result()
        let files = Set(
            FileManager.default.subpaths(atPath: site.path)?.filter { path in
                var isDirectory: ObjCBool = false
                return !path.hasPrefix(".threadfold") && FileManager.default.fileExists(atPath: site.appendingPathComponent(path).path, isDirectory: &isDirectory)
                    && !isDirectory.boolValue
            } ?? [])
        for path in files.sorted() {
            if let suffix = suffixes.first(where: { path.hasSuffix($0) }), eligible(String(path.dropLast(suffix.count))) {
                if !files.contains(String(path.dropLast(suffix.count))) { result.problems.append("\(path) stands without its file") }
                continue
            }
            guard eligible(path), let original = FileManager.default.contents(atPath: site.appendingPathComponent(path).path) else { continue }
            for (suffix, tool) in [(".gz", "/usr/bin/gzip"), (".br", "/usr/bin/brotli")] {
                let sibling = site.appendingPathComponent(path + suffix).path
                guard let packed = FileManager.default.contents(atPath: sibling) else {
                    result.missing.append(path + suffix)
                    continue
                }
                guard let decoded = decode(sibling, with: tool) else {
                    result.problems.append("\(path + suffix) does not decode with \(tool) -dc")
                    continue
                }
                if decoded != original { result.problems.append("\(path + suffix) decodes to other bytes than \(path)") }
                if packed.count >= original.count { result.problems.append("\(path + suffix) is not smaller than \(path)") }
                result.checked += 1
            }
        }
        return result
    }

    static func eligible(_ path: String) -> Bool {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        return extensions.contains(path[path.index(after: dot)...].lowercased())
    }

    /// What `tool -dc path` writes, or nil when it fails or is missing.
    public static func decode(_ path: String, with tool: String) -> Data? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-dc", path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? data : nil
    }
}
