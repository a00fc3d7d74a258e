// `make bench`'s Reddit dump benchmark: `threadfold build RS_bench.zst RC_bench.zst` on the
// synthetic subreddit of DumpModel.swift (--dump-comments, default 1,000,000), against the same
// threads as a file each, an incremental rebuild after one comment's body changes, and the cost of
// warnings (a smaller dump with no, the usual, and ten times the comments that cost one). Numbers
// are printed beside their targets, never asserted; a build that fails is reported and the bench
// goes on. `--dump-check` (make check-slow) builds one larger dump and exits 1 when its peak
// memory breaks the bound.
import Foundation
import ThreadfoldKit

/// 512 MB, the bound on a dump build's peak memory, in MiB.
let dumpMemoryBoundMiB = 512_000_000.0 / 1_048_576

/// One dump build: its times and peak memory, and the counts its own `--report` gave.
struct DumpBuild {
    var run = Run.none
    /// The report's numbers by their names there (`threads`, `threadsRendered`, `dumpPartitions`, …).
    var counts: [String: Int] = [:]
    /// Warnings and notes, a message each (deleted and removed comments left out are notes).
    var messages = 0

    var seconds: Double { run.seconds }
    var cpu: Double { run.cpu }
    var peakMiB: Double { run.peakMiB }

    /// The report's count `name`, 0 when it has none.
    func count(_ name: String) -> Int { counts[name] ?? 0 }
}

/// A build that did not succeed, as its message says it: what it printed on standard error, shortened.
func buildFailure(_ message: String) -> ThreadfoldError {
    ThreadfoldError(kind: .output, problems: [Problem(file: "threadfold build", message: message)])
}

/// One `threadfold build` of `inputs` into `site` (`--jobs 2 -q --no-fsync` unless `extra` says
/// otherwise), its peak memory and counts from its own `--report`.
func dumpBuild(_ inputs: [String], site: String, scratch: String, comments: Int, extra: [String] = []) throws(ThreadfoldError) -> DumpBuild {
    let report = scratch + "/report.json"
    let errors = scratch + "/stderr.txt"
    try? FileManager.default.removeItem(atPath: report)
    let run: Run
    let limit = settings.dumpTimeout ?? max(120, 30 * Double(comments) / 50_000)
    let start = DispatchTime.now()
    do {
        run = try time(
            settings.threadfold, ["build"] + inputs + ["-o", site, "--jobs", "2", "-q", "--no-fsync", "--report", report] + extra,
            stderr: errors, timeout: limit)
    } catch {
        let status = (error as NSError).code
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        if status & 0x7F == SIGKILL && elapsed >= limit {
            throw buildFailure("threadfold build did not finish in \(format(limit, 0)) s (--dump-timeout); stopped")
        }
        let how = status & 0x7F != 0 ? "killed by signal \(status & 0x7F)" : "exit status \(status >> 8)"
        let text = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n").prefix(6).map { $0.count > 300 ? $0.prefix(300) + "…" : $0 }
        throw buildFailure("threadfold build failed (\(how))" + lines.map { "\n      " + $0 }.joined())
    }
    var build = DumpBuild(run: run)
    if let data = FileManager.default.contents(atPath: report),
        let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    {
        for (name, value) in json { if let number = value as? Int { build.counts[name] = number } }
        // The build's own VmHWM: a spawned child's maxrss also counts this process.
        if let peak = build.counts["peakMemoryMiB"] { build.run.peakMiB = Double(peak) }
        build.messages = ((json["warnings"] as? [Any])?.count ?? 0) + ((json["notes"] as? [Any])?.count ?? 0)
    }
    return build
}

/// A folder no build has written yet, for a site named `name` in `scratch`. Full builds each
/// write a new folder and the sites are removed together when the bench ends: on ext4 without a
/// journal (this machine's disk), creating a file within a minute or so of removing many walks
/// past every inode just freed (`recently_deleted` in the kernel), which tripled a build's system
/// time when each run first removed the site before it.
func freshSite(_ scratch: String, _ name: String) -> String {
    freshSites += 1
    return scratch + "/\(name)-\(freshSites)"
}
nonisolated(unsafe) var freshSites = 0

/// The best of `runs` builds: least wall and CPU time, most memory.
func bestBuild(_ runs: Int, _ body: () throws(ThreadfoldError) -> DumpBuild) throws(ThreadfoldError) -> DumpBuild {
    var best = DumpBuild()
    for _ in 0..<max(1, runs) {
        let run = try body()
        if ProcessInfo.processInfo.environment["BENCH_VERBOSE"] != nil {
            print("    run: \(format(run.seconds, 3)) s wall, \(format(run.cpu, 3)) s CPU, \(format(run.peakMiB, 0)) MiB")
        }
        let peak = max(best.peakMiB, run.peakMiB)
        if run.seconds < best.seconds { best = run }
        best.run.cpu = min(best.cpu, run.cpu)
        best.run.peakMiB = peak
    }
    return best
}

func grouped(_ n: Int) -> String {
    let digits = String(n.magnitude)
    var out = ""
    for (i, c) in digits.enumerated() {
        if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
        out.append(c)
    }
    return (n < 0 ? "-" : "") + out
}

func megabytes(_ bytes: Int) -> String { format(Double(bytes) / 1_000_000, 1) + " MB" }

func fileSize(_ path: String) -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }

// Two of each, as one line alone is read as a single JSON document rather than JSON Lines.
let probeSubmissionLines = """
    {"author":"someone","created_utc":1704067200,"domain":"self.SyntheticBench","id":"probe1","is_self":true,"name":"t3_probe1","num_comments":2,"permalink":"/r/SyntheticBench/comments/probe1/probe/","score":1,"selftext":"The post itself.","subreddit":"SyntheticBench","title":"Probe submission title","url":"https://www.reddit.com/r/SyntheticBench/comments/probe1/probe/"}
    {"author":"someone","created_utc":1704067201,"domain":"example.org","id":"probe2","is_self":false,"name":"t3_probe2","num_comments":0,"permalink":"/r/SyntheticBench/comments/probe2/probe/","score":1,"selftext":"","subreddit":"SyntheticBench","title":"Another probe","url":"https://example.org/"}

    """
let probeCommentLines = """
    {"author":"other","body":"A reply.","created_utc":1704067300,"id":"c1","link_id":"t3_probe1","parent_id":"t3_probe1","score":1,"subreddit":"SyntheticBench"}
    {"author":"someone","body":"An answer.","created_utc":1704067400,"id":"c2","link_id":"t3_probe1","parent_id":"t1_c1","score":1,"subreddit":"SyntheticBench"}

    """

/// Builds tiny files (`.zst` names are compressed) and says whether the thread page shows the probe
/// submission's title and text, or why not: what this threadfold makes of submissions.
func probeSubmission(_ files: [(name: String, text: String)], scratch: String) -> String? {
    let folder = scratch + "/probe"
    try? FileManager.default.removeItem(atPath: folder)
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for file in files {
        let plain = folder + "/" + (file.name.hasSuffix(".zst") ? String(file.name.dropLast(4)) + ".jsonl" : file.name)
        guard (try? Data(file.text.utf8).write(to: URL(fileURLWithPath: plain))) != nil else { return "cannot write \(plain)" }
        if file.name.hasSuffix(".zst") {
            guard let zstd = which("zstd"), (try? time(zstd, ["-q", "-f", "--rm", plain, "-o", folder + "/" + file.name])) != nil else { return "zstd failed" }
        }
    }
    let site = scratch + "/probe-site"
    do {
        _ = try dumpBuild(files.map { folder + "/" + $0.name }, site: site, scratch: scratch, comments: 1)
    } catch {
        return error.message
    }
    let pages = (try? FileManager.default.contentsOfDirectory(atPath: site + "/t")) ?? []
    let shown = pages.contains { page in
        let html = (try? String(contentsOfFile: site + "/t/\(page)/index.html", encoding: .utf8)) ?? ""
        return html.contains("Probe submission title") && html.contains("The post itself.")
    }
    return shown ? nil : "it built, but no page shows the submission's title and text"
}

func benchDump() {
    print("")
    guard which("zstd") != nil else {
        print("Reddit dump: skipped (the zstd CLI is missing: apt-get install zstd)")
        return
    }
    let fm = FileManager.default
    // Sites go to the temp folder, as the corpus's do (creating files under /work costs more here).
    let scratch = (NSTemporaryDirectory() as NSString).appendingPathComponent("threadfold-bench-dump-\(getpid())")
    try? fm.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    defer { try? fm.removeItem(atPath: scratch) }
    // What this threadfold reads, from two tiny builds: a submission file with a comment file (the
    // dump), and a submission line followed by comments in one file (the per-thread form).
    let pairProblem = probeSubmission([("RS_probe.zst", probeSubmissionLines), ("RC_probe.zst", probeCommentLines)], scratch: scratch)
    let form: PerThreadForm =
        probeSubmission([("t3_probe1.jsonl", String(probeSubmissionLines.split(separator: "\n")[0]) + "\n" + probeCommentLines)], scratch: scratch) == nil ? .withSubmission : .comments
    let files: DumpFiles
    do {
        (files, _) = try ensureDump(warnings: false, comments: settings.dumpComments, form: form)
    } catch {
        print("Reddit dump: \(error.localizedDescription)")
        return
    }
    describeDump(files)
    // 1. The dump, end to end.
    let inputs = pairProblem == nil ? [files.submissions, files.comments] : [files.comments]
    let label = pairProblem == nil ? "RS + RC" : "RC only (no submissions)"
    if let pairProblem {
        print("  this threadfold does not read a submission file beside a comment file (RS_probe.zst RC_probe.zst, two lines each): \(pairProblem)")
        print("  so RC_bench.zst is built alone")
    }
    let full = benchDumpFull(inputs, label: label, files: files, scratch: scratch)
    // 2. The same threads as a file each.
    benchPerThread(files, form: form, label: label, inputs: inputs, full: full, scratch: scratch)
    // 3. Incremental: one comment's body changed in place.
    if let full { benchDumpIncremental(inputs, files: files, full: full, scratch: scratch) }
    // 4. Warnings: no, the usual and ten times the deleted comments without replies.
    benchDumpWarnings(scratch: scratch, commentsOnly: inputs.count == 1)
}

/// What was generated: its size, its bodies and its threads, and what costs a warning.
func describeDump(_ files: DumpFiles) {
    let n = files.number("comments"), threads = files.number("threads")
    let runs = settings.dumpRuns
    print("Reddit dump (seed \(settings.seed); --dump-comments \(grouped(n)); best of \(runs) unless said; --jobs 2 -q --no-fsync; each full build into a new folder, all removed at the end):")
    print(
        "  generated: r/\(dumpSubreddit), \(grouped(threads)) submissions and \(grouped(n)) comments over \(files.summary["days"] ?? "?") days, in time order, in \(files.folder)/ (\(files.summary["seconds"] ?? "?") s to generate)"
    )
    print(
        "  RS_bench.zst \(megabytes(fileSize(files.submissions))) (\(megabytes(files.number("rs_bytes"))) of JSON) · RC_bench.zst \(megabytes(fileSize(files.comments))) (\(megabytes(files.number("rc_bytes"))) of JSON)"
    )
    let bodies = (files.summary["bodies"] ?? "").split(separator: " ")
    let sizes = (files.summary["thread_sizes"] ?? "").split(separator: " ")
    if bodies.count == 4 && sizes.count == 4 {
        print("  bodies: median \(bodies[0]) B, p90 \(bodies[1]) B, p99 \(bodies[2]) B, max \(bodies[3]) B · comments a thread: median \(sizes[0]), p90 \(sizes[1]), p99 \(sizes[2]), max \(sizes[3])")
    }
    print(
        "  \(grouped(files.number("deleted"))) deleted, \(grouped(files.number("removed"))) removed, \(grouped(files.number("account_deleted"))) by deleted accounts; \(grouped(files.number("warnings"))) of the deleted and removed have no replies (one note each)"
    )
}

/// The dump, end to end. When this threadfold does not read submissions beside comments, the
/// comments alone still measure the comment path (a thread per link_id, titled by its id).
func benchDumpFull(_ inputs: [String], label: String, files: DumpFiles, scratch: String) -> DumpBuild? {
    let n = files.number("comments"), threads = files.number("threads")
    var full: DumpBuild?
    do {
        full = try bestBuild(settings.dumpRuns) { () throws(ThreadfoldError) in try dumpBuild(inputs, site: freshSite(scratch, "site"), scratch: scratch, comments: n) }
    } catch {
        print("  build \(inputs.map { ($0 as NSString).lastPathComponent }.joined(separator: " ")): \(error.message)")
    }
    if let full {
        let rate = Double(n) / full.seconds
        print(
            "  \(label): \(format(full.seconds, 2)) s wall, \(format(full.cpu, 2)) s CPU · \(grouped(Int(rate))) comments/s (target: at least 100,000) · peak RSS \(format(full.peakMiB, 0)) MiB (target: under 256 MiB)"
        )
        print(
            "    read \(grouped(full.count("threads"))) threads (expected \(grouped(threads))), \(grouped(full.count("comments"))) comments, \(grouped(full.messages)) warnings and notes (expected \(grouped(files.number("warnings"))))"
        )
    }
    return full
}

/// The same threads as a file each, against the dump's `full` build.
func benchPerThread(_ files: DumpFiles, form: PerThreadForm, label: String, inputs: [String], full: DumpBuild?, scratch: String) {
    let n = files.number("comments"), threads = files.number("threads")
    let perThreadLabel =
        form == .withSubmission
        ? "\(grouped(threads)) files, submission and comments"
        : "\(grouped(threads)) files of comments only: this threadfold does not read a submission line among comments, so unlike the dump these have no submissions"
    do {
        let perThread = try bestBuild(settings.dumpRuns) { () throws(ThreadfoldError) in try dumpBuild([files.perThread], site: freshSite(scratch, "site-threads"), scratch: scratch, comments: n) }
        print("  per-thread files (\(perThreadLabel)): \(format(perThread.seconds, 2)) s wall, \(format(perThread.cpu, 2)) s CPU · peak RSS \(format(perThread.peakMiB, 0)) MiB")
        if let full {
            let compared = form == .withSubmission || inputs.count == 1 ? label : label + " against comments only"
            print("  dump / per-thread: \(format(full.seconds / perThread.seconds, 2))x (\(compared); target: at most 1.3x)")
        }
    } catch {
        print("  per-thread files: \(error.message)")
    }
}

/// Incremental: one comment's body changed in place, each run to a text no earlier build saw
/// (changing it back would find the old site, kept as the spare, already right), then restored.
func benchDumpIncremental(_ inputs: [String], files: DumpFiles, full: DumpBuild, scratch: String) {
    let n = files.number("comments")
    let incrementalSite = scratch + "/site-incremental"
    do throws(ThreadfoldError) {
        do { try restoreMarker(files.comments) } catch { throw buildFailure(error.localizedDescription) }
        _ = try dumpBuild(inputs, site: incrementalSite, scratch: scratch, comments: n, extra: ["--incremental"])
        var revisions = Array("BCDEFGHIJK").makeIterator()
        var changed = false
        defer { if changed { try? setMarker(files.comments, to: "A") } }
        let increment = { () throws(ThreadfoldError) -> DumpBuild in
            do { try setMarker(files.comments, to: revisions.next() ?? "Z") } catch { throw buildFailure(error.localizedDescription) }
            changed = true
            return try dumpBuild(inputs, site: incrementalSite, scratch: scratch, comments: n, extra: ["--incremental"])
        }
        // The first two increments after a full build are not yet the steady state: the first has
        // no spare (it links every kept file from the live site), and the second recycles a spare
        // whose files those links gave new status change times, so it reads them all to trust them.
        let first = try [increment(), increment()]
        print(
            "  the first two increments, one comment changed each: \(first.map { format($0.seconds, 2) + " s" }.joined(separator: ", ")) (no spare yet; then the spare's first recycling, its files read to be trusted)"
        )
        let incremental = try bestBuild(settings.dumpRuns) { () throws(ThreadfoldError) in try increment() }
        print(
            "  incremental, one comment's body changed in place (thread \(files.summary["marker_thread"] ?? "?")), after those: \(format(incremental.seconds, 2)) s wall, \(grouped(incremental.count("threadsRendered"))) threads rendered, \(grouped(incremental.count("threadsReused"))) reused, \(incremental.count("dumpPartitionsReused")) of \(incremental.count("dumpPartitions")) partitions not read back · \(format(100 * incremental.seconds / full.seconds, 1))% of the full build (target: at most 10%)"
        )
    } catch {
        print("  incremental: \(error.message)")
    }
}

/// Build times of a small dump with 0, 1x and 10x the comments that cost a warning (the same
/// comments are shown in all three), and how the time spent on warnings grows.
func benchDumpWarnings(scratch: String, commentsOnly: Bool) {
    let files: DumpFiles
    do {
        (files, _) = try ensureDump(warnings: true, comments: settings.warningsComments, form: .none)
    } catch {
        print("  warnings: \(error.localizedDescription)")
        return
    }
    let runs = 3
    print("  warnings (\(grouped(files.number("comments"))) comments\(commentsOnly ? ", RC only" : ""); each deleted or removed comment without replies is one; --report lists them; best of \(runs)):")
    var times: [String: DumpBuild] = [:]
    for name in ["none", "1x", "10x"] {
        let inputs = (commentsOnly ? [] : [files.submissions]) + [files.variant(name)]
        do {
            let build = try bestBuild(runs) { () throws(ThreadfoldError) in try dumpBuild(inputs, site: freshSite(scratch, "site-warnings"), scratch: scratch, comments: files.number("comments")) }
            times[name] = build
            let expected = files.number("warnings_" + name)
            print(
                "    \(name.padding(toLength: 5, withPad: " ", startingAt: 0)) \(format(build.seconds, 3)) s wall, \(format(build.cpu, 3)) s CPU · \(grouped(build.messages)) warnings\(build.messages == expected ? "" : " (EXPECTED \(grouped(expected)))") · peak RSS \(format(build.peakMiB, 0)) MiB"
            )
        } catch {
            print("    \(name): \(error.message)")
        }
    }
    guard let none = times["none"], let one = times["1x"], let ten = times["10x"] else { return }
    print("    1x → 10x: \(format(ten.seconds / one.seconds, 2))x the wall time, \(format(ten.cpu / one.cpu, 2))x the CPU time")
    // CPU time, as other builds on this shared machine stretch wall time more than CPU time; what
    // the build without warnings takes is subtracted.
    let oneCost = one.cpu - none.cpu, tenCost = ten.cpu - none.cpu
    let count = Double(files.number("warnings_10x"))
    let wall = "wall: 1x \(format(one.seconds - none.seconds, 3)) s, 10x \(format(ten.seconds - none.seconds, 3)) s"
    // Below ~1% of the build, the 1x difference is the machine's noise, not warnings.
    if oneCost > max(0.01, 0.01 * none.cpu) {
        print(
            "    CPU time on warnings (minus the build without): 1x \(format(oneCost, 3)) s, 10x \(format(tenCost, 3)) s: \(format(tenCost / oneCost, 1))x for 10x the warnings (target: about 10x at most) · \(format(1e6 * tenCost / count, 1)) µs a warning (\(wall))"
        )
    } else {
        print(
            "    CPU time on warnings (minus the build without): 1x \(format(oneCost, 3)) s is within noise, so no ratio (target: about 10x at most); 10x \(format(tenCost, 3)) s, \(format(1e6 * tenCost / count, 1)) µs a warning (\(wall))"
        )
    }
}

/// `--dump-check` (make check-slow): one build of a large dump; false when it fails or its peak
/// memory passes 512 MB.
func checkDumpMemory() -> Bool {
    let fm = FileManager.default
    let scratch = (NSTemporaryDirectory() as NSString).appendingPathComponent("threadfold-bench-dump-check-\(getpid())")
    try? fm.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    defer { try? fm.removeItem(atPath: scratch) }
    let files: DumpFiles
    do {
        (files, _) = try ensureDump(warnings: false, comments: settings.dumpComments, form: .none)
    } catch {
        print("dump: \(error.localizedDescription)")
        return false
    }
    let n = files.number("comments")
    print(
        "Reddit dump: \(grouped(files.number("threads"))) submissions, \(grouped(n)) comments (RS_bench.zst \(megabytes(fileSize(files.submissions))), RC_bench.zst \(megabytes(fileSize(files.comments))), \(megabytes(files.number("rc_bytes"))) of comment JSON)"
    )
    do {
        let build = try dumpBuild([files.submissions, files.comments], site: scratch + "/site", scratch: scratch, comments: n)
        let ok = build.peakMiB < dumpMemoryBoundMiB
        print(
            "dump build: \(format(build.seconds, 1)) s wall, \(grouped(Int(Double(n) / build.seconds))) comments/s, \(grouped(build.count("threads"))) threads · peak RSS \(format(build.peakMiB, 0)) MiB against the bound of 512 MB = \(format(dumpMemoryBoundMiB, 0)) MiB: \(ok ? "ok" : "OVER THE BOUND")"
        )
        return ok
    } catch {
        print("dump build: \(error.message)")
        return false
    }
}
