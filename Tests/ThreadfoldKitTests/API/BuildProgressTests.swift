import Foundation
import Synchronization
import TestSupport
import Testing
import ThreadfoldKit

/// The one progress value a build tells: its phases in order, and counts that end at their totals.
@Suite("Build progress")
struct BuildProgressTests {
    /// Every value `buildSite` gave its callback, in order.
    final class Seen: Sendable {
        let values = Mutex<[BuildProgress]>([])
        func add(_ value: BuildProgress) { values.withLock { $0.append(value) } }
        var all: [BuildProgress] { values.withLock { $0 } }
        /// The phases, each run of one phase counted once.
        var phases: [BuildProgress.Phase] {
            all.map(\.phase).reduce(into: []) { phases, phase in if phases.last != phase { phases.append(phase) } }
        }
    }

    @Test("a build of thread files renders, lists and publishes, in that order, its threads ending at their total")
    func threads() throws {
        let folder = try ArchiveFixture.folder()
        let inputs = try ["a", "b", "c"].map { try ArchiveFixture.write(ArchiveFixture.thread(id: $0), "\($0).json", in: folder) }
        let seen = Seen()
        _ = try Threadfold.buildSite(
            inputs: inputs, output: folder.appendingPathComponent("site").path, options: BuildOptions(jobs: 1, durable: false),
            progress: { seen.add($0) })
        #expect(seen.phases == [.rendering, .listing, .publishing])
        let rendered = try #require(seen.all.last { $0.phase == .rendering })
        #expect(rendered.threadsDone == 3 && rendered.threadsTotal == 3)
        #expect(seen.all.allSatisfy { $0.bytesRead == 0 && $0.bytesTotal == 0 })
        // Counts only grow.
        #expect(zip(seen.all, seen.all.dropFirst()).allSatisfy { $0.threadsDone <= $1.threadsDone })
    }

    @Test("a build of dumps reads them first, its bytes ending at the dumps' size, then renders every thread")
    func dumps() throws {
        let folder = try ArchiveFixture.folder()
        let dumps = ["RS_sample.jsonl", "RC_sample.jsonl"].map { TestPaths.repository.appendingPathComponent("Tests/Data/dumps/\($0)").path }
        let size = try dumps.reduce(Int64(0)) { $0 + Int64(try FileManager.default.attributesOfItem(atPath: $1)[.size] as! Int) }
        let seen = Seen()
        let report = try Threadfold.buildSite(
            inputs: dumps, output: folder.appendingPathComponent("site").path, options: BuildOptions(jobs: 2, durable: false),
            progress: { seen.add($0) })
        #expect(seen.phases == [.reading, .rendering, .listing, .publishing])
        let read = try #require(seen.all.last { $0.phase == .reading })
        #expect(read.bytesRead == size && read.bytesTotal == size)
        let rendered = try #require(seen.all.last { $0.phase == .rendering })
        #expect(rendered.threadsDone == rendered.threadsTotal && rendered.threadsTotal == report.threads)
    }

}
