import Foundation
import PackagePlugin

/// Embeds the default templates, locales, the stylesheet and script, the example thread and
/// docs/templates.md (whose variable tables `threadfold theme` writes into its README) into
/// ThreadfoldKit as `BuiltinResources.files`, keyed by their path in the repository.
@main
struct EmbedResources: BuildToolPlugin {
    /// Folders (relative to the package root) whose files are embedded.
    static let folders = ["Templates", "Public", "docs/examples"]
    /// Single files (relative to the package root) that are embedded.
    static let files = ["docs/templates.md"]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        var names: [String] = []
        var inputs: [URL] = []
        let fileManager = FileManager.default
        for folder in Self.folders {
            let base = root.appendingPathComponent(folder)
            guard let enumerator = fileManager.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey]) else {
                continue
            }
            for case let url as URL in enumerator {
                let values = try url.resourceValues(forKeys: [.isRegularFileKey])
                guard values.isRegularFile == true, !url.lastPathComponent.hasPrefix(".") else { continue }
                let relative = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
                names.append(relative)
                inputs.append(url)
            }
        }
        for file in Self.files {
            names.append(file)
            inputs.append(root.appendingPathComponent(file))
        }
        names.sort()
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("BuiltinResources.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(names.count) templates and assets",
                executable: try context.tool(named: "embed-resources").url,
                arguments: [output.path, root.path] + names,
                inputFiles: inputs,
                outputFiles: [output]
            )
        ]
    }
}
