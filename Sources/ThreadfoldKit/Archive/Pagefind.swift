import Foundation

/// Runs Pagefind (`--search pagefind`) on a staged site, before it is swapped in, so the
/// published site and its `pagefind/` index always match: every build, incremental or not, and
/// every merge indexes the whole staged site afresh (the recycled spare's old index is removed
/// with everything else its manifest does not vouch for). Pagefind has no way to add to or
/// take from an index it wrote, so an incremental build sends every page's record again; it
/// reads them from the pages, which costs far less than rendering them.
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
        guard let outcome = try? ChildProcess.run(probe, timeout: 60), outcome.status == 0 else { return nil }
        return [python, "-m", "pagefind"]
    }

    /// The error for a build that needs Pagefind where none is installed.
    package static func missing(_ output: String) -> ThreadfoldError {
        ThreadfoldError.output(path: output, message: "needs Pagefind to index its pages, and it is not installed; expected the pagefind command on PATH or PyPI's package: \(install)")
    }

    /// Indexes the thread pages of the staged site at `site` (a merge's) into `site/pagefind/`, through Pagefind's
    /// service (`pagefind --service`): each page under `t/` marked `data-pagefind-body` is read
    /// as Threadfold wrote it and sent as a record of its text, anchors, title and filters
    /// (`PagefindRecord`), so Pagefind neither crawls the site nor parses its HTML. Pagefind runs
    /// in a process group of its own that is killed, with everything it started, after `timeout`
    /// seconds or when the build is interrupted. Its errors name the tool (`pagefind: error: …`),
    /// with its own words when it fails.
    package static func index(site: String, command: [String], timeout: Double) throws(ThreadfoldError) {
        let piped = try start(command)
        let queue = Queue(site: site, pages: try pages(site), deadline: deadline(timeout))
        var session = Session(piped: piped, queue: queue)
        let failure = session.run()
        if failure == nil { session.awaitWrites() }
        try check(failure, status: ChildProcess.end(piped), errors: session.errors, timeout: timeout)
    }

    /// Starts `command --service`.
    static func start(_ command: [String]) throws(ThreadfoldError) -> ChildProcess.Piped {
        do { return try ChildProcess.start(command + ["--service"]) } catch {
            throw ThreadfoldError.output(path: "pagefind", message: "could not be started (\(command.joined(separator: " "))): \(SystemError.describe(error.code))", errno: error.code)
        }
    }

    /// Nanoseconds of uptime `timeout` seconds from now.
    static func deadline(_ timeout: Double) -> UInt64 { DispatchTime.now().uptimeNanoseconds + UInt64(max(timeout, 0) * 1e9) }

    /// Nothing when the session wrote the index; else the error that says why not.
    static func check(_ failure: Failure?, status: Int32?, errors: [UInt8], timeout: Double) throws(ThreadfoldError) {
        guard var failure else { return }
        if SiteWriter.interrupted { throw ThreadfoldError.output(path: "pagefind", message: "was stopped: the build was interrupted") }
        if failure == .timedOut {
            throw ThreadfoldError.output(
                path: "pagefind",
                message:
                    "did not finish indexing the site within \(duration(timeout)), the search timeout; it was stopped with everything it started, and nothing was published; expected it to finish in time (allow it longer)"
            )
        }
        if case .exited = failure, let status { failure = .exited("failed (exit status \(status))") }
        let tail = String(decoding: errors.suffix(2000), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        throw ThreadfoldError.output(path: "pagefind", message: "\(failure.words) indexing the site\(tail.isEmpty ? "" : ": " + tail)")
    }

    /// The HTML files under `site`/t/ (their paths from `site`): a folder's files in name
    /// order, then its sub-folders' in name order. Folders are opened one at a time; an entry that
    /// is a link is neither entered nor read.
    static func pages(_ site: String) throws(ThreadfoldError) -> [String] {
        var found: [String] = []
        var folders = ["t"]
        do {
            guard try SourceFolder.open(site).kind("t") == .folder else { return [] }
            while let path = folders.popLast() {
                let entries = try SourceFolder.open(site + "/" + path).entries()
                for (name, kind) in entries where kind == .file && name.hasSuffix(".html") { found.append(path + "/" + name) }
                folders += entries.filter { $0.kind == .folder }.map { path + "/" + $0.name }.reversed()
            }
        } catch {
            throw ThreadfoldError.output(path: site, message: "could not list its pages for Pagefind: \(SystemError.describe(error.code))", errno: error.code)
        }
        return found
    }

    /// Seconds as a message says them: `90s`, `10m`, `1.5s`.
    static func duration(_ seconds: Double) -> String {
        if seconds >= 60 && seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60))m" }
        return seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s"
    }
}
