import Foundation
import Testing

@testable import ThreadfoldCLI
@testable import ThreadfoldKit

/// Builds interrupted by signals: nothing half-written is published, nothing is left beside
/// the site, and the next build is right.
@Suite("Interrupted builds")
struct InterruptTests {
    let cli = CLITests()

    func threads(_ count: Int, body: String = "hi") -> String {
        (0..<count).map { i in
            #"{"id": "k\#(i)", "title": "Thread \#(i)", "created_at": \#(1_700_000_000 + i * 86_400), "comments": [{"id": "a", "author": "ann", "body": "\#(body) \#(i)"}, {"id": "b", "parent_id": "a", "author": "bob", "body": "yo"}]}"#
        }.joined(separator: "\n")
    }

    /// Starts `threadfold` with `arguments` in `folder`, its temporary folder in `folder/tmp`, and
    /// waits (30 s at most) until a spill is being written there.
    func startSpilling(_ arguments: [String], in folder: URL) throws -> (process: Process, temporary: URL) {
        let temporary = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let process = try start(arguments, in: folder, environment: ["TMPDIR": temporary.path])
        let deadline = Date().addingTimeInterval(30)
        func spilling() -> Bool {
            cli.files(temporary).contains { FileManager.default.fileExists(atPath: temporary.appendingPathComponent($0).appendingPathComponent(".threadfold-spill").path) }
        }
        while !spilling() && process.isRunning && Date() < deadline { usleep(1_000) }
        return (process, temporary)
    }

    func start(_ arguments: [String], in folder: URL, environment: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = CLITests.binary
        process.arguments = arguments
        process.currentDirectoryURL = folder
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    func beside(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("staging") || $0.contains(".old-") }
    }

    @Test(
        "on tmpfs, incremental builds killed at any moment (the spare's cleanup included) never leave a spare that is trusted wrongly",
        .enabled(if: FileManager.default.isWritableFile(atPath: "/dev/shm"), "needs /dev/shm (tmpfs)"))
    func killsOnTmpfs() throws {
        let folder = URL(fileURLWithPath: "/dev/shm").appendingPathComponent("tf-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let site = folder.appendingPathComponent("site")
        var generation = 0
        func input() throws -> String {
            generation += 1
            // Each generation changes a different third of the threads, and reverts a secret body.
            return try cli.write(threads(400, body: generation % 2 == 0 ? "SECRET BODY THAT WAS REVERTED" : "gen"), "all.jsonl", in: folder)
        }
        var path = try input()
        #expect(try cli.run(["build", path, "-o", "site", "-q", "--incremental", "--no-fsync"], in: folder).status == 0)
        #expect(try cli.run(["build", path, "-o", "site", "-q", "--incremental", "--no-fsync"], in: folder).status == 0)
        for delay: useconds_t in [2_000, 5_000, 10_000, 20_000, 40_000, 80_000, 160_000] {
            path = try input()
            let process = try start(["build", path, "-o", "site", "-q", "--incremental", "--no-fsync", "--jobs", "1"], in: folder)
            usleep(delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // Whatever the kill left, the next build gives exactly what a full build gives.
            let next = try cli.run(["build", path, "-o", "site", "-q", "--incremental", "--no-fsync"], in: folder)
            #expect(next.status == 0, "\(next.err)")
            try? FileManager.default.removeItem(at: folder.appendingPathComponent("full"))
            #expect(try cli.run(["build", path, "-o", "full", "-q", "--no-fsync"], in: folder).status == 0)
            #expect(try ExternalDiff.run(site.path, folder.appendingPathComponent("full").path).isEmpty, "after a kill at \(delay) µs")
            #expect(try beside(folder).isEmpty)
        }
    }

    @Test("SIGINT and SIGTERM remove the staging folder; the old site stays", arguments: [SIGINT, SIGTERM])
    func signals(_ signal: Int32) throws {
        let folder = try cli.temporaryFolder()
        let path = try cli.write(threads(3_000), "all.jsonl", in: folder)
        #expect(try cli.run(["build", path, "-o", "site", "-q"], in: folder).status == 0)
        let before = try ExternalDiff.snapshot(folder.appendingPathComponent("site").path)
        let changed = try cli.write(threads(3_000, body: "changed"), "all.jsonl", in: folder)
        let process = try start(["build", changed, "-o", "site", "-q", "--jobs", "1"], in: folder)
        // Wait until the build is writing its staging folder.
        let deadline = Date().addingTimeInterval(20)
        func writing() throws -> Bool {
            try beside(folder).contains { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).appendingPathComponent("t").path) }
        }
        while try !writing() && process.isRunning && Date() < deadline { usleep(2_000) }
        #expect(process.isRunning, "the build was still running when signalled")
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == signal)
        #expect(try beside(folder).isEmpty, "no staging folder is left")
        #expect(try ExternalDiff.snapshot(folder.appendingPathComponent("site").path) == before)
    }

    /// A Reddit comment dump, sorted by time across `threads` threads.
    func dump(_ comments: Int, threads: Int = 300) -> String {
        (0..<comments).map { i in
            let thread = i % threads
            let parent = i < threads ? "t3_\(thread)" : "t1_c\(i - threads)"
            return
                #"{"id": "c\#(i)", "link_id": "t3_\#(thread)", "parent_id": "\#(parent)", "author": "u\#(i % 97)", "body": "Comment \#(i) with some words in it to make the line a realistic length for a dump of a forum", "created_utc": \#(1_700_000_000 + i)}"#
        }.joined(separator: "\n") + "\n"
    }

    @Test(
        "a dump build killed while it spills or renders leaves its spill inside the staging folder, which the next build removes; SIGTERM and SIGINT remove both at once",
        arguments: [SIGKILL, SIGTERM, SIGINT])
    func killedDump(_ signal: Int32) throws {
        let folder = try cli.temporaryFolder()
        let path = try cli.write(dump(12_000, threads: 150), "RC_test.jsonl", in: folder)
        let process = try start(["build", path, "-o", "site", "-q", "--jobs", "1", "--no-fsync"], in: folder)
        let deadline = Date().addingTimeInterval(30)
        func spilling() throws -> Bool {
            try beside(folder).contains { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).appendingPathComponent(".threadfold-spill").path) }
        }
        while try !spilling() && process.isRunning && Date() < deadline { usleep(1_000) }
        #expect(process.isRunning, "the build was still running when signalled")
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == signal)
        if signal != SIGKILL { #expect(try beside(folder).isEmpty, "no staging folder and no spill are left") }
        let next = try cli.run(["build", path, "-o", "site", "-q", "--no-fsync"], in: folder)
        #expect(next.status == 0, "\(next.err)")
        #expect(try beside(folder).isEmpty, "the next build removed what the kill left")
        let site = folder.appendingPathComponent("site")
        #expect(!FileManager.default.fileExists(atPath: site.appendingPathComponent(".threadfold-spill").path))
        #expect(try cli.run(["build", path, "-o", "full", "-q", "--no-fsync"], in: folder).status == 0)
        #expect(try ExternalDiff.run(site.path, folder.appendingPathComponent("full").path).isEmpty)
    }

    @Test("a check killed by SIGINT or SIGTERM while it spills or checks leaves no temporary folder", arguments: [SIGINT, SIGTERM])
    func interruptedCheck(_ signal: Int32) throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A check renders nothing, so it needs more lines than a build to be surely still at work
        // when the signal comes (12,000 finished in the moment between the two under a loaded suite).
        let path = try cli.write(dump(60_000, threads: 150), "RC_test.jsonl", in: folder)
        let (process, temporary) = try startSpilling(["check", path, "--jobs", "1"], in: folder)
        #expect(process.isRunning, "the check was still running when signalled")
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == signal)
        #expect(cli.files(temporary).isEmpty, "\(cli.files(temporary))")
    }

    @Test("a dump render killed while it spills leaves nothing once the next render ran; SIGTERM leaves nothing at once", arguments: [SIGKILL, SIGTERM])
    func killedRender(_ signal: Int32) throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try cli.write(dump(12_000, threads: 150), "RC_test.jsonl", in: folder)
        let arguments = ["render", path, "-o", "site", "-q", "--no-fsync"]
        let (process, temporary) = try startSpilling(arguments, in: folder)
        #expect(process.isRunning, "the render was still running when signalled")
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == signal)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("site").path), "nothing was published")
        if signal == SIGTERM {
            let left = try beside(folder)
            #expect(cli.files(temporary).isEmpty && left.isEmpty, "no spill and no staging folder are left: \(left)")
        }
        let next = try cli.run(arguments, in: folder, environment: ["TMPDIR": temporary.path])
        #expect(next.status == 0, "\(next.err)")
        #expect(cli.files(temporary).isEmpty, "the next render removed the spill the kill left: \(cli.files(temporary))")
        #expect(try beside(folder).isEmpty, "and the staging folder")
        #expect(cli.files(folder.appendingPathComponent("site")).filter { $0.hasSuffix(".html") }.count == 150)
    }

    /// A fake `pagefind` in `folder/bin` that hangs: it and a grandchild it starts keep making
    /// `<staging>/pagefind` in the build's staging folder `folder/.site.staging-…`, once there is
    /// one (Pagefind starts before it), recreating it should it be removed; they write their pids
    /// to `folder/child.pid` and `folder/grandchild.pid`. The environment puts it first on PATH.
    func hangingPagefind(in folder: URL) throws -> [String: String] {
        let bin = folder.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let script = """
            #!/bin/sh
            until site=$(ls -d "\(folder.path)"/.site.staging-* 2>/dev/null | head -n 1) && [ -n "$site" ]; do sleep 0.05; done
            ( while :; do mkdir -p "$site/pagefind"; sleep 0.1; done ) &
            echo $! > "\(folder.path)/grandchild.pid"
            echo $$ > "\(folder.path)/child.pid"
            while :; do mkdir -p "$site/pagefind"; sleep 0.1; done

            """
        let path = try cli.write(script, "bin/pagefind", in: folder)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return ["PATH": bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
    }

    /// The pids the fake pagefind wrote, once both are there (30 s at most).
    func pagefindPids(in folder: URL, while process: Process? = nil) -> [pid_t] {
        let deadline = Date().addingTimeInterval(30)
        func read() -> [pid_t] {
            ["child.pid", "grandchild.pid"].compactMap { name in
                (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))
                    .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            }
        }
        while read().count < 2 && (process?.isRunning ?? true) && Date() < deadline { usleep(10_000) }
        return read()
    }

    @Test(
        "attack: a hung pagefind that starts a grandchild is ended by --search-timeout with an error naming pagefind and the timeout; its whole group is dead and nothing is published or left beside the site"
    )
    func hungPagefind() throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = try hangingPagefind(in: folder)
        let path = try cli.write(threads(5), "all.jsonl", in: folder)
        let run = try cli.run(
            ["build", path, "-o", "site", "--search", "pagefind", "--search-timeout", "2s", "--no-fsync"],
            in: folder, environment: environment)
        #expect(run.status == 1)
        #expect(
            run.err.hasPrefix("pagefind: error: did not finish indexing the site within 2s, the search timeout; it was stopped with everything it started, and nothing was published"), "\(run.err)")
        #expect(!run.err.contains("staging"))
        let pids = pagefindPids(in: folder)
        defer { for pid in pids { kill(pid, SIGKILL) } }
        #expect(pids.count == 2)
        for pid in pids { #expect(!ChildProcess.isRunning(pid), "pagefind's process \(pid) was killed") }
        // Were anything of it still running, it would make the staging folder again.
        usleep(500_000)
        #expect(try beside(folder).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("site").path))
    }

    @Test("attack: SIGTERM or SIGINT while pagefind hangs kills its process group before the staging folder goes; nothing is left beside the site", arguments: [SIGTERM, SIGINT])
    func signalledPagefind(_ signal: Int32) throws {
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = try hangingPagefind(in: folder)
        let path = try cli.write(threads(5), "all.jsonl", in: folder)
        let process = try start(["build", path, "-o", "site", "--search", "pagefind", "--no-fsync"], in: folder, environment: environment)
        let pids = pagefindPids(in: folder, while: process)
        // Should the build leave them running, they are ended here, so a failure does not hang.
        defer { for pid in pids { kill(pid, SIGKILL) } }
        #expect(pids.count == 2 && process.isRunning, "pagefind was running when the build was signalled")
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == signal)
        for pid in pids { #expect(!ChildProcess.isRunning(pid), "pagefind's process \(pid) was killed") }
        usleep(500_000)
        #expect(try beside(folder).isEmpty, "no staging folder, and no pagefind/ made again")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("site").path))
    }
}
