import Foundation

/// Runs Pagefind (`--search pagefind`) over a staged site, before it is swapped in, so the
/// published site and its `pagefind/` index always match: every build, incremental or not, and
/// every merge indexes the whole staged site afresh (the recycled spare's old index is removed
/// with everything else its manifest does not vouch for).
///
/// The command is `pagefind` (or `pagefind_extended`) on `PATH`, else PyPI's package through
/// `python3 -m pagefind`. Its output is kept and shown only when it fails.
package enum Pagefind {
    /// How to install it, for messages.
    package static let install = "python3 -m pip install 'pagefind[bin]'"

    /// The command that runs Pagefind, or nil when it is not installed.
    package static func command(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String]? {
        let path = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        func find(_ name: String) -> String? {
            for directory in path where !directory.isEmpty {
                let candidate = (directory as NSString).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
            return nil
        }
        for name in ["pagefind", "pagefind_extended"] { if let binary = find(name) { return [binary] } }
        guard let python = find("python3") else { return nil }
        let probe = [python, "-m", "pagefind", "--version"]
        guard let (status, _) = try? run(probe, in: nil), status == 0 else { return nil }
        return [python, "-m", "pagefind"]
    }

    /// The error for a build that needs Pagefind where none is installed.
    package static func missing(_ output: String) -> SiteError {
        SiteError(path: output, message: "needs Pagefind to index its pages, and it is not installed; expected the pagefind command on PATH or PyPI's package: \(install)")
    }

    /// Indexes the site at `site` into `site/pagefind/`. Throws with Pagefind's own words when it fails.
    package static func index(site: String, command: [String]) throws(SiteError) {
        let arguments = command + ["--site", site, "--keep-index-url", "--quiet"]
        let result: (Int32, String)
        do { result = try run(arguments, in: site) } catch {
            throw SiteError(path: site, message: "Pagefind could not be started (\(command.joined(separator: " "))): \(error.localizedDescription)")
        }
        guard result.0 == 0 else {
            let tail = String(result.1.suffix(2000)).trimmingCharacters(in: .whitespacesAndNewlines)
            throw SiteError(path: site, message: "Pagefind failed (exit status \(result.0)) indexing the staged site: \(tail)")
        }
    }

    /// Runs `arguments` (an absolute executable first) in `directory`, with its output and errors
    /// collected together.
    static func run(_ arguments: [String], in directory: String?) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
