import Foundation

/// Paths the tests read: the repository root (vendored data is in TestSupport's `TestData`).
enum TestPaths {
    static let repository: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    static func read(_ url: URL) -> [UInt8]? {
        FileManager.default.contents(atPath: url.path).map { [UInt8]($0) }
    }
}
