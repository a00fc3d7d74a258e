import Foundation
import PackagePlugin

/// Writes `BuildInfo.swift` into the target it is applied to: the git commit the package is
/// built from, and Gumbo's version as pkg-config reports it (Gumbo's header has none).
///
/// SwiftPM asks the plugin for its commands on every build, so a new commit changes the
/// command's arguments and the file is written again. A value that cannot be found (a source
/// tree without `.git`, no git or pkg-config) is written as nil, and `--version` says "unknown".
@main
struct BuildInfo: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        var commit = "commit"
        // Only the package's own checkout counts, not a repository it was unpacked into.
        if FileManager.default.fileExists(atPath: root.appendingPathComponent(".git").path),
            let hash = Self.output("git", ["-C", root.path, "rev-parse", "HEAD"])
        {
            let changed = Self.output("git", ["-C", root.path, "--no-optional-locks", "status", "--porcelain", "--untracked-files=no"])
            commit += "=" + hash + (changed?.isEmpty == false ? "-dirty" : "")
        }
        let gumbo = Self.output("pkg-config", ["--modversion", "gumbo"]).map { "gumbo=" + $0 } ?? "gumbo"
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("BuildInfo.swift")
        return [
            .buildCommand(
                displayName: "Recording the commit and Gumbo's version",
                executable: try context.tool(named: "embed-resources").url,
                arguments: ["--build-info", output.path, commit, gumbo],
                inputFiles: [],
                outputFiles: [output]
            )
        ]
    }

    /// What `command` prints on standard output, trimmed, or nil when it cannot run or fails.
    static func output(_ command: String, _ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [command] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
