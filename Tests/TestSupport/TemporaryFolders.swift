import Foundation
import Synchronization

/// Folders for tests in the system's temporary folder, each removed when the test process
/// exits: a run of the suite leaves nothing behind, whether or not a test removed its own (a
/// test that fails half way often does not).
public enum TemporaryFolders {
    private static let made = Mutex<[String]>([])
    private static let removedAtExit: Void = { atexit { TemporaryFolders.removeAll() } }()

    /// A new empty folder named `prefix-<UUID>`.
    public static func make(_ prefix: String) throws -> URL {
        _ = removedAtExit
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        made.withLock { $0.append(url.path) }
        return url
    }

    /// Removes every folder made so far.
    static func removeAll() {
        for path in made.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }
}
