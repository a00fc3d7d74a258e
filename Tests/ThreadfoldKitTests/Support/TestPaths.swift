import Foundation

/// Paths the tests read: the repository root and the shared folder beside it.
enum TestPaths {
    static let repository: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// `../shared`, present on developer machines and in CI; tests that need it skip without it.
    static let shared = repository.deletingLastPathComponent().appendingPathComponent("shared")

    static func read(_ url: URL) -> [UInt8]? {
        FileManager.default.contents(atPath: url.path).map { [UInt8]($0) }
    }
}
