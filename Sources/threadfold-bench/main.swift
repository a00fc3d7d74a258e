// `make bench`: generates a seeded synthetic corpus (power-law replies per comment, long-tail
// depth, Markdown bodies of log-normal size, ~116,000 comments in ~2,000 thread files), renders
// it with the threadfold binary, and prints comments/s, MB/s, peak memory, and the same bodies
// through the cmark CLI in one process as the reference; then builds it as an archive and, when
// `hugo` is installed, as a Hugo site. It also times the JSON stage against Foundation's parsers,
// which is where ARCHITECTURE.md's numbers come from. Then it builds a synthetic subreddit in the
// Reddit dump form, RS and RC files of 1,000,000 comments in time order (DumpBench.swift; skip it
// with --no-dump, size it with --dump-comments N).
import Foundation
import ThreadfoldKit

struct Settings: Sendable {
    var threadfold = ".build/release/threadfold"
    var corpus = "bench-corpus"
    var threads = 2_000
    var comments = 116_000
    var seed: UInt64 = 20_240_303
    /// `--bodies rich|short`: the corpus's comment bodies. `rich` (the default) has Markdown in a
    /// third of its blocks; `short` is what most forums hold: short plain paragraphs, a link in
    /// about one body in ten, quotes and lists rarely (`shortBody`).
    var bodies = BodyProfile.rich
    var runs = 5
    /// `--pathological`: time cmark's slow shapes instead of the corpus.
    var pathological = false
    /// `--huge MB`: also render one generated thread file of about this many megabytes.
    var hugeMB = 0
    /// `--time-body SHAPE BYTES CAPPED`: internal; time one body in this fresh process.
    var timeBody: (Int, Int, Bool)?
    /// `--no-dump` turns off the Reddit dump benchmark; `--dump-only` runs only it.
    var dump = true
    var dumpOnly = false
    /// `--dump-check`: build one dump and check its peak memory (make check-slow).
    var dumpCheck = false
    /// `--dump-comments N`: comments in the synthetic dump (threads: N/50).
    var dumpComments = 1_000_000
    /// `--dump-runs N`: runs of each dump build, the best kept.
    var dumpRuns = 2
    /// `--warnings-comments N`: comments in the smaller dump that times warnings.
    var warningsComments = 100_000
    /// `--dump-timeout S`: a dump build still running after S seconds is stopped and reported;
    /// by default 30 times what the 50,000 comments/s target allows the build, at least 2 minutes
    /// (a loaded machine; and the limit is there for builds that would take hours).
    var dumpTimeout: Double?
    /// `--import-scaling`: time `check` on every form's reply shapes at `importSizes` (make check-slow).
    var importScaling = false
    /// `--import-sizes N,N,...`: the item counts, growing.
    var importSizes = [20_000, 200_000]
    /// `--generate-dump main|warnings COMMENTS FORM`: internal; write a dump in this fresh process.
    var generateDump: (warnings: Bool, comments: Int, form: String)?
}

let usage = """
    usage: threadfold-bench [options]
      --threadfold PATH        the binary to measure (default .build/release/threadfold)
      --corpus DIR             where the corpus is generated and cached (default bench-corpus)
      --threads N, --comments N, --seed N
                               the corpus's shape (default 2000 threads, 116000 comments)
      --runs N                 alternating runs of each measure (default 5)
      --no-dump | --dump-only  leave out, or run only, the Reddit dump benchmark
      --dump-comments N        comments in the synthetic dump (default 1000000)
      --dump-runs N            runs of each dump build, the best kept (default 2)
      --warnings-comments N    comments in the dump that times warnings (default 100000)
      --dump-timeout S         stop a dump build after S seconds
      --dump-check             build one dump and check its peak memory (make check-slow)
      --import-scaling [--import-sizes N,N,...]
                               time check on every form's parent chain, reversed chain and cycle
                               with hanging items at each size (default 20000,200000); fails when
                               10x the items take more than 10x the time
      --pathological [--huge MB]
                               time cmark's slow shapes (and one generated thread of MB megabytes)
    """

/// A bad command line: what was wrong and the usage, on standard error, and exit status 2.
func usageError(_ message: String) -> Never {
    FileHandle.standardError.write(Data("threadfold-bench: \(message)\n\(usage)\n".utf8))
    exit(2)
}

func parseSettings() -> Settings {
    var settings = Settings()
    // The options that take no value, and what each turns on.
    let switches: [String: (inout Settings) -> Void] = [
        "--pathological": { $0.pathological = true },
        "--no-dump": { $0.dump = false },
        "--import-scaling": { $0.importScaling = true },
        "--dump-only": { $0.dumpOnly = true },
        "--dump-check": { $0.dumpCheck = true },
    ]
    var arguments = Array(CommandLine.arguments.dropFirst())
    func number<T: LosslessStringConvertible>(_ text: String, _ flag: String, as: T.Type = Int.self) -> T {
        guard let value = T(text) else { usageError("\(flag) expects a number, not '\(text)'") }
        return value
    }
    while !arguments.isEmpty {
        let flag = arguments.removeFirst()
        if flag == "--help" || flag == "-h" {
            print(usage)
            exit(0)
        }
        if let on = switches[flag] {
            on(&settings)
            continue
        }
        if flag == "--generate-dump", arguments.count >= 3 {
            settings.generateDump = (arguments[0] == "warnings", number(arguments[1], flag), arguments[2])
            arguments.removeFirst(3)
            continue
        }
        if flag == "--time-body", arguments.count >= 3 {
            settings.timeBody = (number(arguments[0], flag), number(arguments[1], flag), arguments[2] == "capped")
            arguments.removeFirst(3)
            continue
        }
        guard let value = arguments.first else { usageError("\(flag) needs a value") }
        arguments.removeFirst()
        switch flag {
        case "--threadfold": settings.threadfold = value
        case "--corpus": settings.corpus = value
        case "--threads": settings.threads = number(value, flag)
        case "--comments": settings.comments = number(value, flag)
        case "--seed": settings.seed = number(value, flag, as: UInt64.self)
        case "--bodies":
            guard let profile = BodyProfile(rawValue: value) else { usageError("--bodies expects rich or short, not '\(value)'") }
            settings.bodies = profile
        case "--runs": settings.runs = number(value, flag)
        case "--huge": settings.hugeMB = number(value, flag)
        case "--import-sizes": settings.importSizes = value.split(separator: ",").map { number(String($0), flag) }
        case "--dump-comments": settings.dumpComments = max(50, number(value, flag))
        case "--dump-runs": settings.dumpRuns = max(1, number(value, flag))
        case "--warnings-comments": settings.warningsComments = max(50, number(value, flag))
        case "--dump-timeout": settings.dumpTimeout = number(value, flag, as: Double.self)
        default: usageError("unknown option \(flag)")
        }
    }
    return settings
}

let settings = parseSettings()

// MARK: Corpus

struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

let words = """
    the archive thread reply forum people comment static page build deploy server link code quote list \
    markdown render fold summary detail count latest moderator question answer thanks agree disagree \
    because however actually probably maybe exactly interesting problem solution version update release \
    bug feature test benchmark memory speed parser tree depth branch history export import json html
    """.split(separator: " ").map(String.init)

/// 5 to 18 words, fewer when the next would pass `budget` bytes (there is always one).
func sentence(_ rng: inout SplitMix64, budget: Int = .max, plain: Bool = false) -> String {
    let n = 5 + rng.below(14)
    var parts: [String] = []
    var size = 1
    for i in 0..<n {
        var word = words[rng.below(words.count)]
        if i == 0 { word = word.prefix(1).uppercased() + word.dropFirst() }
        // Rich sentences mark a word in ten; plain ones a word in 200, never as a link.
        switch (plain, rng.below(plain ? 600 : 40)) {
        case (false, 0): word = "**\(word)**"
        case (_, 1), (true, 0): word = "*\(word)*"
        case (false, 2): word = "`\(word)()`"
        case (true, 2): word = "`\(word)`"
        case (false, 3): word = "[\(word)](https://example.org/\(word)/\(rng.below(1000)))"
        default: break
        }
        if i > 0 && size + 1 + word.utf8.count > budget { break }
        size += (i > 0 ? 1 : 0) + word.utf8.count
        parts.append(word)
    }
    return parts.joined(separator: " ") + (rng.below(5) == 0 ? "?" : ".")
}

/// Body sizes of real forum comments (the tracker issue's measurement): log-normal with a median
/// of 270 bytes and a p90 of 850 (sigma = ln(850/270) / 1.2816), capped at 20 KB so one sample in
/// a million does not make a page of its own.
func bodySize(_ rng: inout SplitMix64) -> Int {
    let z = (-2 * log(1 - rng.unit())).squareRoot() * cos(2 * Double.pi * rng.unit())
    return min(20_000, max(8, Int(270 * exp(0.8949 * z))))
}

enum BodyProfile: String, Sendable {
    case rich, short
}

/// Body sizes of short comments, as the vendored Reddit, Hacker News and Discourse exports hold
/// them: log-normal with a median of 200 bytes and a p90 of 600, capped at 20 KB.
func shortBodySize(_ rng: inout SplitMix64) -> Int {
    let z = (-2 * log(1 - rng.unit())).squareRoot() * cos(2 * Double.pi * rng.unit())
    return min(20_000, max(8, Int(200 * exp(0.8572 * z))))
}

/// A short forum comment of about `target` bytes: plain paragraphs of sentences; a link (bare or
/// in brackets) in about one body in ten; a quoted line first in one in twenty; a short list in
/// one in thirty.
func shortBody(_ rng: inout SplitMix64, target: Int) -> String {
    var out = ""
    if rng.below(20) == 0 { out += "> " + sentence(&rng, budget: max(16, target / 3), plain: true) }
    while out.isEmpty || target - out.utf8.count >= 16 {
        if !out.isEmpty { out += rng.below(3) == 0 ? "\n\n" : " " }
        if rng.below(30) == 0 && target - out.utf8.count > 60 {
            let room = target - out.utf8.count
            out += (out.isEmpty ? "" : "\n\n") + fill(2 + rng.below(3), "\n", room) { "- " + sentence(&rng, budget: $1 - 3, plain: true) } + "\n\n"
            continue
        }
        out += sentence(&rng, budget: target - out.utf8.count, plain: true)
    }
    if rng.below(10) == 0 {
        let word = words[rng.below(words.count)]
        out += rng.below(2) == 0 ? " https://example.org/\(word)/\(rng.below(100_000))" : " See [the \(word)](https://example.org/\(word)/\(rng.below(1000)))."
    }
    return out
}

/// Joins parts from `make(index, room left)` with `separator` until `count` parts, or until less
/// than 16 bytes of `budget` is left: a one-word "Count." at the end of each body would be noise.
func fill(_ count: Int, _ separator: String, _ budget: Int, _ make: (Int, Int) -> String) -> String {
    var text = ""
    for i in 0..<count where i == 0 || budget - text.utf8.count >= 16 {
        if i > 0 { text += separator }
        text += make(i, budget - text.utf8.count)
    }
    return text
}

/// A Markdown body of about `target` bytes: quotes, lists, code and paragraphs until the target
/// is reached, each cut to the room left, so the sampled size sets the length, not a block count.
func body(_ rng: inout SplitMix64, target: Int) -> String {
    var out = ""
    while out.isEmpty || target - out.utf8.count >= 16 {
        if !out.isEmpty { out += "\n\n" }
        let room = target - out.utf8.count
        switch rng.below(12) {
        case 0: out += "> " + sentence(&rng, budget: room - 3)
        case 1: out += fill(2 + rng.below(4), "\n", room) { "- " + sentence(&rng, budget: $1 - 3) }
        case 2 where room > 40:
            let name = words[rng.below(words.count)]
            out +=
                "```\nlet \(name) = \(rng.below(100))\n"
                + fill(1 + rng.below(6), "\n", room - 24) { _, _ in ["print(\(name) * 2)", "if \(name) > \(rng.below(50)) { return }", "\(name) += 1"][rng.below(3)] }
                + "\n```"
        case 3: out += fill(2 + rng.below(3), "\n", room) { "\($0 + 1). " + sentence(&rng, budget: $1 - 4) }
        default: out += fill(1 + rng.below(4), rng.below(3) == 0 ? "\n" : " ", room) { sentence(&rng, budget: $1 - 1) }
        }
    }
    return out
}

func jsonString(_ text: String) -> String {
    var writer = JSONWriter(pretty: false)
    writer.string(text)
    return String(decoding: writer.out, as: UTF8.self)
}

/// The parent of comment `i` of a thread (-1 for top level), counting it in `replies`.
/// Preferential attachment: a comment with many replies draws more; 20% start a branch.
func replyParent(_ rng: inout SplitMix64, index i: Int, replies: inout [Int]) -> Int {
    guard i > 0 && rng.below(5) != 0 else { return -1 }
    let pick = rng.below(i)
    let parent = rng.below(3) == 0 ? pick : (replies[pick] > 0 || rng.below(2) == 0 ? pick : max(0, i - 1 - rng.below(min(i, 4))))
    replies[parent] += 1
    return parent
}

struct Corpus {
    var files: [String]
    var bodies: String
    var bytes: Int
    var comments: Int
    /// What the bodies model, in bytes of Markdown: median, p90, p99, max, total (the BODIES file).
    var bodySizes: [Int]
}

/// Writes the corpus unless an identical one (same settings) is already there.
/// Also says whether it was written now.
func generateCorpus() throws -> (Corpus, fresh: Bool) {
    let fm = FileManager.default
    // v3: log-normal body sizes.
    let stamp = "threads=\(settings.threads) comments=\(settings.comments) seed=\(settings.seed) v3" + (settings.bodies == .rich ? "" : " bodies=\(settings.bodies.rawValue)")
    let stampPath = settings.corpus + "/STAMP"
    let bodiesPath = settings.corpus + "/bodies.md"
    func numbers(_ name: String) -> [Int] {
        ((try? String(contentsOfFile: settings.corpus + "/" + name, encoding: .utf8)) ?? "").split(separator: " ").compactMap { Int($0) }
    }
    // COUNT holds the comments and the JSON bytes: a bench killed during the incremental runs
    // leaves one thread with an extra comment, and the size tells.
    if (try? String(contentsOfFile: stampPath, encoding: .utf8)) == stamp, case let count = numbers("COUNT"), count.count == 2,
        case let sizes = numbers("BODIES"), sizes.count == 5
    {
        let files = try fm.contentsOfDirectory(atPath: settings.corpus).filter { $0.hasSuffix(".json") }.sorted()
            .map { settings.corpus + "/" + $0 }
        let bytes = try files.reduce(0) { $0 + (try fm.attributesOfItem(atPath: $1)[.size] as! Int) }
        if bytes == count[1] { return (Corpus(files: files, bodies: bodiesPath, bytes: bytes, comments: count[0], bodySizes: sizes), false) }
    }
    // The dumps (hidden .dump-* folders) have caches of their own.
    for name in (try? fm.contentsOfDirectory(atPath: settings.corpus)) ?? [] where !name.hasPrefix(".dump-") {
        try? fm.removeItem(atPath: settings.corpus + "/" + name)
    }
    try fm.createDirectory(atPath: settings.corpus, withIntermediateDirectories: true)
    var rng = SplitMix64(state: settings.seed)
    // Thread sizes: Pareto (alpha 1.3), scaled to the target total.
    var sizes = (0..<settings.threads).map { _ in 1.0 / pow(1 - rng.unit() * 0.999, 1 / 1.3) }
    let scale = Double(settings.comments) / sizes.reduce(0, +)
    sizes = sizes.map { max(1, ($0 * scale).rounded()) }
    var files: [String] = []
    var allBodies = ""
    var bytes = 0
    var total = 0
    var bodySizes: [Int] = []
    let separator = "\n\n<!-- -->\n\n"
    for t in 0..<settings.threads {
        let n = Int(sizes[t])
        var replies = [Int](repeating: 0, count: n)
        var json = "{\"id\":\(t + 1),\"title\":\(jsonString(sentence(&rng))),\"author\":\"user\(rng.below(5000))\",\"created_at\":\(1_600_000_000 + t * 3600),\"comments\":["
        var time = 1_600_000_000 + t * 3600
        for i in 0..<n {
            let parent = replyParent(&rng, index: i, replies: &replies)
            time += 30 + rng.below(3600)
            let text = settings.bodies == .rich ? body(&rng, target: bodySize(&rng)) : shortBody(&rng, target: shortBodySize(&rng))
            bodySizes.append(text.utf8.count)
            allBodies += text + separator
            if i > 0 { json += "," }
            json +=
                "{\"id\":\(i + 1),\"parent_id\":\(parent < 0 ? "null" : String(parent + 1)),\"author\":\"user\(rng.below(5000))\",\"created_at\":\(time),\"score\":\(rng.below(50) - 5),\"body\":\(jsonString(text))}"
        }
        json += "]}\n"
        let path = String(format: "%@/thread-%05d.json", settings.corpus, t + 1)
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        files.append(path)
        bytes += json.utf8.count
        total += n
    }
    try Data(allBodies.utf8).write(to: URL(fileURLWithPath: bodiesPath))
    try Data("\(total) \(bytes)".utf8).write(to: URL(fileURLWithPath: settings.corpus + "/COUNT"))
    bodySizes.sort()
    let summary =
        [0.5, 0.9, 0.99].map { bodySizes[min(bodySizes.count - 1, Int(Double(bodySizes.count) * $0))] }
        + [bodySizes.last ?? 0, bodySizes.reduce(0, +)]
    try Data(summary.map(String.init).joined(separator: " ").utf8).write(to: URL(fileURLWithPath: settings.corpus + "/BODIES"))
    try Data(stamp.utf8).write(to: URL(fileURLWithPath: stampPath))
    return (Corpus(files: files, bodies: bodiesPath, bytes: bytes, comments: total, bodySizes: summary), true)
}

// MARK: Archive

/// Seconds to write the files of `site` (read into memory first) into a new folder on a memory
/// file system (/dev/shm, else the temp folder), folders made as they come: the floor's writing.
func writeFloor(site: String) throws -> Double {
    let fm = FileManager.default
    var files: [(String, Data)] = []
    if let walk = fm.enumerator(atPath: site) {
        for case let relative as String in walk {
            var isFolder: ObjCBool = false
            guard fm.fileExists(atPath: site + "/" + relative, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            files.append((relative, try Data(contentsOf: URL(fileURLWithPath: site + "/" + relative))))
        }
    }
    let base = fm.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    return try best(3) {
        let target = (base as NSString).appendingPathComponent("threadfold-floor-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        defer { try? fm.removeItem(atPath: target) }
        let start = DispatchTime.now()
        var made: Set<String> = []
        for (relative, bytes) in files {
            let folder = (relative as NSString).deletingLastPathComponent
            if !made.contains(folder) {
                try fm.createDirectory(atPath: target + "/" + folder, withIntermediateDirectories: true)
                made.insert(folder)
            }
            guard fm.createFile(atPath: target + "/" + relative, contents: bytes) else {
                throw NSError(domain: "bench", code: 1, userInfo: [NSLocalizedDescriptionKey: "cannot write \(target)/\(relative)"])
            }
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}

/// `threadfold build` of the corpus, timed: full builds, incremental ones, and the JSON Lines form.
struct ArchiveBench {
    let generated: Corpus
    /// The folder of the sites and the builds' reports.
    let scratch = (NSTemporaryDirectory() as NSString).appendingPathComponent("threadfold-bench-archive-\(getpid())")
    let runs = max(1, min(settings.runs, 3))
    /// The last full build's site.
    var lastFull = ""

    /// Incremental builds rebuild this site; full ones each write a new folder beside it.
    var site: String { scratch + "/site" }
    /// Peak memory comes from the build's own report (VmHWM): a spawned child's maxrss also
    /// counts this process's memory.
    var reportPath: String { scratch + "/report.json" }

    /// Full builds each write a new folder (`freshSite`: removing the last site first would time
    /// the kernel's walk past its freed inodes on this disk); incremental ones rebuild `site`.
    mutating func build(_ extra: [String], input: String = settings.corpus, output incrementalSite: String? = nil) throws -> Run {
        let output = extra.contains("--incremental") ? incrementalSite ?? site : freshSite(scratch, "site")
        if !extra.contains("--incremental") { lastFull = output }
        var run = try time(settings.threadfold, ["build", "-q", "-o", output, input, "--report", reportPath] + extra)
        if let peak = report()?["peakMemoryMiB"] as? Int { run.peakMiB = Double(peak) }
        return run
    }

    /// The last build's `--report`.
    func report() -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: reportPath) else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    /// The best of `runs` runs of `body` (`Run.best`).
    static func bestOf(_ runs: Int, _ body: () throws -> Run) rethrows -> Run {
        var result = Run.none
        for _ in 0..<runs {
            let run = try body()
            if ProcessInfo.processInfo.environment["BENCH_VERBOSE"] != nil {
                print("  run: \(format(run.seconds, 3)) s wall, \(format(run.cpu, 3)) s CPU, \(format(run.system, 3)) s system, \(format(run.peakMiB, 0)) MiB")
            }
            result = result.best(run)
        }
        return result
    }

    func line(_ label: String, _ run: Run) -> String {
        "\(label) \(format(run.seconds, 3)) s wall, \(format(run.cpu, 3)) s CPU (\(format(run.system, 3)) s system) · \(Int(Double(generated.comments) / run.seconds)) comments/s · peak memory \(format(run.peakMiB, 0)) MiB"
    }

    /// Full builds on one, every and two cores, and without fsync: the `--jobs 2` build, which
    /// Hugo and cmark are compared with, the one on every core, and the floor's writing of its site.
    mutating func full(cmarkSeconds: Double) throws -> (two: Run, all: Run, write: Double) {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        print("archive (threadfold build of the corpus folder: \(generated.files.count) threads, index, sidecars, feeds; best of \(runs)):")
        let one = try Self.bestOf(runs) { try build(["--jobs", "1"]) }
        print(line("  --jobs 1:   ", one))
        let all = try Self.bestOf(runs) { try build(["--jobs", String(cores)]) }
        print(line("  --jobs \(cores):   ", all))
        print("  speed-up:    \(format(one.seconds / all.seconds, 2))x with \(cores) cores (target: at least 1.8x on 2 cores)")
        let two = cores == 2 ? all : try Self.bestOf(runs) { try build(["--jobs", "2"]) }
        if cores != 2 { print(line("  --jobs 2:   ", two)) }
        print("  --jobs 2 / cmark CLI: \(format(two.seconds / cmarkSeconds, 2))x of the cmark-only time (target: at most 0.8x)")
        // What flushing the site to the disk before and after the swap costs (the default).
        let unsynced = try Self.bestOf(runs) { try build(["--jobs", String(cores), "--no-fsync"]) }
        print(line("  --jobs \(cores) --no-fsync:", unsynced))
        let written = try writeFloor(site: lastFull)
        print("  fsync costs: \(format(all.seconds - unsynced.seconds, 3)) s (\(format(100 * (all.seconds - unsynced.seconds) / unsynced.seconds, 1))%)")
        return (two, all, written)
    }

    /// Incremental: a full --incremental build, then rebuilds after one thread changes: a new
    /// comment, which changes its page, its counts and its place on the index, then the comment
    /// removed again, so each run has a real change to publish. Then the same after a CI cache
    /// restore. `full` is the full build on every core.
    mutating func incremental(full: Run) throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        _ = try build(["--incremental"])
        let changed = generated.files[generated.files.count / 2]
        let original = try Data(contentsOf: URL(fileURLWithPath: changed))
        defer { try? original.write(to: URL(fileURLWithPath: changed)) }
        var text = String(decoding: original, as: UTF8.self)
        while text.hasSuffix("\n") { text.removeLast() }
        guard text.hasSuffix("]}") else { throw NSError(domain: "bench", code: 1, userInfo: [NSLocalizedDescriptionKey: "unexpected thread file shape"]) }
        text.removeLast(2)
        let withComment = Data(
            (text + ",{\"id\":999999,\"parent_id\":1,\"author\":\"bench\",\"created_at\":1900000000,\"score\":1,\"body\":\"A comment added for the incremental benchmark.\"}]}\n").utf8)
        var flip = false
        let incremental = try Self.bestOf(runs) {
            flip.toggle()
            try (flip ? withComment : original).write(to: URL(fileURLWithPath: changed))
            return try build(["--incremental"])
        }
        print(line("  incremental, one thread gained or lost a comment:", incremental))
        print("  incremental / full (\(cores) jobs): \(format(100 * incremental.seconds / full.seconds, 1))% (target: under 5%)")
        try restored(changed: changed, text: text, incremental: incremental)
    }

    /// A CI cache restore: the site and its spare copied anew (new inodes and status change times,
    /// the modification times kept), then a change neither holds (a comment of new words). Files
    /// are checked by their content hashes and reused; only the changed thread is rendered.
    mutating func restored(changed: String, text: String, incremental: Run) throws {
        let fm = FileManager.default
        let spare = scratch + "/.site.spare"
        var rendered: [Int] = []
        var edition = 0
        let restored = try Self.bestOf(runs) {
            for folder in [site, spare] where fm.fileExists(atPath: folder) {
                _ = try time("/bin/cp", ["-a", folder, folder + ".copy"])
                try fm.removeItem(atPath: folder)
                try fm.moveItem(atPath: folder + ".copy", toPath: folder)
            }
            edition += 1
            let comment = ",{\"id\":999998,\"parent_id\":1,\"author\":\"bench\",\"created_at\":1900000000,\"score\":1,\"body\":\"Edition \(edition) after a restore.\"}]}\n"
            try Data((text + comment).utf8).write(to: URL(fileURLWithPath: changed))
            let run = try build(["--incremental"])
            if let count = report()?["threadsRendered"] as? Int { rendered.append(count) }
            return run
        }
        print(line("  incremental after a cache restore (site and spare copied anew):", restored))
        print(
            "  restored / incremental: \(format(restored.seconds / incremental.seconds, 2))x (target: at most 2x); threads rendered: \(rendered.map(String.init).joined(separator: ", ")) (target: 1)")
    }

    /// JSON Lines: every thread file is one line already, so the corpus joined is one file, read
    /// a line at a time. Hidden, so the folder walk skips it.
    mutating func jsonLines(mb: Double) throws {
        let fm = FileManager.default
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let jsonl = settings.corpus + "/.archive.jsonl"
        if !fm.fileExists(atPath: jsonl) {
            var all = Data()
            for file in generated.files { all.append(try Data(contentsOf: URL(fileURLWithPath: file))) }
            try all.write(to: URL(fileURLWithPath: jsonl))
        }
        let lines = try Self.bestOf(runs) { try build(["--jobs", String(cores)], input: jsonl) }
        print(line("  JSON Lines form (\(format(mb, 1)) MB in one file), \(cores) jobs:", lines))
        print("  peak memory of the JSON Lines build: \(format(lines.peakMiB, 0)) MiB (target: under 1 GB)")
    }

    /// The corpus as one `{"threads": [...]}` document, as a forum's export comes: a full build,
    /// then `--incremental` after one thread changed in it (a comment added, then taken away), and
    /// after the unchanged document was downloaded again under another name (a new file).
    mutating func document(mb: Double) throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let threads = try generated.files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        func joined(_ threads: [Data]) -> Data {
            var document = Data("{\"threads\":[".utf8)
            for (i, thread) in threads.enumerated() {
                if i > 0 { document.append(UInt8(ascii: ",")) }
                document.append(thread.last == 0x0A ? thread.dropLast() : thread)
            }
            document.append(contentsOf: Array("]}\n".utf8))
            return document
        }
        let names = [scratch + "/forum-2024-06-01.json", scratch + "/forum-2024-06-02.json"]
        let original = joined(threads)
        try original.write(to: URL(fileURLWithPath: names[0]))
        let full = try Self.bestOf(runs) { try build(["--jobs", String(cores)], input: names[0]) }
        print(line("  one {\"threads\"} document (\(format(mb, 1)) MB), \(cores) jobs:", full))
        let documentSite = scratch + "/document-site"
        _ = try build(["--jobs", String(cores), "--incremental"], input: names[0], output: documentSite)
        // Each timed build adds a comment to another thread, the earlier ones kept, so each has
        // one thread the last build did not have, as a forum's next export does: neither the
        // recycled spare nor the live site holds it. (Flipping one thread between two versions
        // let the spare, two builds old, serve it.)
        var changed = threads
        var edits = 0
        var changedRendered: [Int] = []
        func addComment() throws {
            let k = (threads.count / 2 + edits) % threads.count
            edits += 1
            var text = String(decoding: threads[k], as: UTF8.self)
            while text.hasSuffix("\n") { text.removeLast() }
            guard text.hasSuffix("]}") else { throw NSError(domain: "bench", code: 1, userInfo: [NSLocalizedDescriptionKey: "unexpected thread file shape"]) }
            changed[k] = Data(
                (text.dropLast(2)
                    + ",{\"id\":\"bench-\(edits)\",\"parent_id\":null,\"author\":\"bench\",\"created_at\":1900000000,\"score\":1,\"body\":\"Comment \(edits) added to the document.\"}]}").utf8)
            try joined(changed).write(to: URL(fileURLWithPath: names[0]))
        }
        // Two increments untimed first, as the dump's: the first has no spare yet and links every
        // kept file from the live site, the second recycles a spare those links gave new status
        // change times, so it reads its files to trust them again.
        for _ in 0..<2 {
            try addComment()
            _ = try build(["--jobs", String(cores), "--incremental"], input: names[0], output: documentSite)
        }
        let one = try Self.bestOf(runs) {
            try addComment()
            let run = try build(["--jobs", String(cores), "--incremental"], input: names[0], output: documentSite)
            if let count = report()?["threadsRendered"] as? Int { changedRendered.append(count) }
            return run
        }
        print(line("  --incremental, one more thread of the document changed each time:", one))
        print("    threads rendered: \(changedRendered.map(String.init).joined(separator: ", ")) (target: 1)")
        print("  one thread changed / full: \(format(100 * one.seconds / full.seconds, 1))% (target: at most 10%)")
        try original.write(to: URL(fileURLWithPath: names[0]))
        _ = try build(["--jobs", String(cores), "--incremental"], input: names[0], output: documentSite)
        var current = 0
        var rendered: [Int] = []
        let renamed = try Self.bestOf(runs) {
            // The same bytes in a new file under the other name, the old one gone.
            try original.write(to: URL(fileURLWithPath: names[1 - current]))
            try FileManager.default.removeItem(atPath: names[current])
            current = 1 - current
            let run = try build(["--jobs", String(cores), "--incremental"], input: names[current], output: documentSite)
            if let count = report()?["threadsRendered"] as? Int { rendered.append(count) }
            return run
        }
        print(line("  --incremental, the document downloaded again under a new name:", renamed))
        print(
            "  renamed / full: \(format(100 * renamed.seconds / full.seconds, 1))% (target: at most 10%); threads rendered: \(rendered.map(String.init).joined(separator: ", ")) (target: 0)"
        )
    }
}

/// Returns the `--jobs 2` build, which Hugo is compared with, and the floor's writing of its site.
func benchArchive(_ generated: Corpus, mb: Double, cmarkSeconds: Double) throws -> (build: Run, write: Double) {
    var bench = ArchiveBench(generated: generated)
    try FileManager.default.createDirectory(atPath: bench.scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: bench.scratch) }
    let (two, all, written) = try bench.full(cmarkSeconds: cmarkSeconds)
    try bench.incremental(full: all)
    try bench.jsonLines(mb: mb)
    try bench.document(mb: mb)
    return (two, written)
}

// MARK: Hugo

/// The same threads as a Hugo site: each thread file as data/threads/tNNNNN.json (Hugo 0.111
/// has no content adapters, so pages come from content stubs whose front matter names their
/// data, titles included) and a layout that renders every comment's body with `markdownify`,
/// flat in file order (nesting in Go templates would need a children lookup per comment).
/// Prints Hugo's best of 3 against `threadfold build --jobs 2`.
/// Returns Hugo's best wall time, nil when Hugo is not installed.
@discardableResult
func benchHugo(_ generated: Corpus, build: Run) throws -> Double? {
    guard let hugo = which("hugo") else {
        print("hugo:        skipped (hugo is not on PATH)")
        return nil
    }
    let fm = FileManager.default
    let site = (NSTemporaryDirectory() as NSString).appendingPathComponent("threadfold-bench-hugo-\(getpid())")
    defer { try? fm.removeItem(atPath: site) }
    for dir in ["data/threads", "content", "layouts/_default"] {
        try fm.createDirectory(atPath: site + "/" + dir, withIntermediateDirectories: true)
    }
    func write(_ path: String, _ text: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: site + "/" + path)) }
    // Hard breaks as cmark renders them here (--hardbreaks), and no taxonomies: the corpus has none.
    try write(
        "config.json",
        """
        {"baseURL": "https://example.org/", "title": "Threadfold bench", "disableKinds": ["taxonomy", "term"],
         "markup": {"goldmark": {"renderer": {"hardWraps": true}}}}
        """)
    try write(
        "layouts/_default/single.html",
        """
        <!DOCTYPE html>
        {{ $thread := index site.Data.threads .Params.thread }}<html lang="en"><head><meta charset="utf-8"><title>{{ $thread.title }}</title></head>
        <body><h1>{{ $thread.title }}</h1>
        {{ range $thread.comments }}<article id="c{{ .id }}"><p>{{ .author }} · {{ .score }} points</p>
        {{ .body | markdownify }}</article>
        {{ end }}</body></html>
        """)
    try write(
        "layouts/_default/list.html",
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>{{ .Title }}</title></head>
        <body><ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ (index site.Data.threads .Params.thread).title }}</a></li>{{ end }}</ul></body></html>
        """)
    for (i, file) in generated.files.enumerated() {
        // Copies, not links: Hugo does not follow symbolic links inside the site. Keyed by place,
        // so a corpus of any file names (a held-out one) gives a key a thread.
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        let key = String(format: "t%05d", i + 1)
        try data.write(to: URL(fileURLWithPath: site + "/data/threads/\(key).json"))
        try write("content/\(key).md", "{\"thread\": \"\(key)\"}\n")
    }
    let output = site + "/public"
    var result = Run.none
    for _ in 0..<3 {
        // A cold public/ each run, as Hugo's first build of a new site.
        try? fm.removeItem(atPath: output)
        let run = try time(hugo, ["--quiet", "--source", site, "--destination", output])
        result = result.best(run)
    }
    // Every comment must be on a page, or the time would flatter Hugo.
    var rendered = 0
    for key in try fm.contentsOfDirectory(atPath: output) where key.hasPrefix("t") {
        let page = try Data(contentsOf: URL(fileURLWithPath: output + "/" + key + "/index.html"))
        rendered += String(decoding: page, as: UTF8.self).components(separatedBy: "<article id=").count - 1
    }
    print(
        "hugo:        \(format(result.seconds, 3)) s wall, \(format(result.cpu, 3)) s CPU (\(format(result.system, 3)) s system) · \(Int(Double(rendered) / result.seconds)) comments/s · peak memory \(format(result.peakMiB, 0)) MiB (best of 3, \(rendered) comments rendered\(rendered == generated.comments ? "" : ", EXPECTED \(generated.comments)"))"
    )
    print("hugo / build --jobs 2: Hugo takes \(format(result.seconds / build.seconds, 1))x as long (target: at least 10x)")
    return result.seconds
}

// MARK: Measuring

/// Runs a command with posix_spawn (stdout to /dev/null, stderr to the file `stderr` when given)
/// and returns its wall time and its own peak memory from wait4; fails loudly on a non-zero exit
/// (the error's code is the wait status). With a `timeout`, the command is killed (SIGKILL) once
/// it has run that many seconds. Foundation's Process added about a second of overhead to a 2.5 s
/// run here, so it is not used for timing.
func time(_ executable: String, _ args: [String], stderr: String? = nil, timeout: Double? = nil) throws -> Run {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    if let stderr { posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
    let argv = ([executable] + args).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let start = DispatchTime.now()
    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
    guard spawned == 0 else {
        throw NSError(domain: "bench", code: Int(spawned), userInfo: [NSLocalizedDescriptionKey: "cannot run \(executable): \(String(cString: strerror(spawned)))"])
    }
    var status: Int32 = 0
    var usage = rusage()
    let killer = timeout.map { seconds in
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + seconds)
        timer.setEventHandler { [pid] in kill(pid, SIGKILL) }
        timer.resume()
        return timer
    }
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    killer?.cancel()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    guard status == 0 else {
        throw NSError(domain: "bench", code: Int(status), userInfo: [NSLocalizedDescriptionKey: "\(executable) failed (status \(status))"])
    }
    let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return Run(seconds: seconds, cpu: cpu, peakMiB: Double(usage.ru_maxrss) / 1024, system: system)
}

/// One timed run of a program: wall, CPU and system seconds, and its peak memory.
struct Run {
    var seconds: Double
    var cpu: Double
    var peakMiB: Double
    var system: Double

    /// Nothing measured yet: the best of it and a run is that run.
    static let none = Run(seconds: .infinity, cpu: .infinity, peakMiB: 0, system: .infinity)

    /// The least times and the most memory of the two.
    func best(_ other: Run) -> Run {
        Run(seconds: min(seconds, other.seconds), cpu: min(cpu, other.cpu), peakMiB: max(peakMiB, other.peakMiB), system: min(system, other.system))
    }
}

func best(_ runs: Int, _ body: () throws -> Double) rethrows -> Double {
    var result = Double.infinity
    for _ in 0..<runs { result = min(result, try body()) }
    return result
}

func which(_ name: String) -> String? {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
        let path = "\(dir)/\(name)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}

func format(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }

// MARK: Slow inputs

/// cmark's pathological shapes (its test/pathological_tests.py, and the two CVEs Debian's 0.30.2
/// lacks fixes for), each a function from a repeat count to a body.
func pathologicalShapes() -> [(String, (Int) -> String)] {
    [
        ("CVE-2023-22486 ![[]() repeated", { String(repeating: "![[]()", count: $0 / 6) }),
        ("CVE-2023-24824 deep > with a* runs", { String(repeating: "> ", count: $0 / 4) + String(repeating: "a*", count: $0 / 4) }),
        ("' -' runs with many newlines", { String(repeating: " -", count: $0 / 4) + String(repeating: "\n", count: $0 / 2) }),
        ("nested strong emph", { String(repeating: "*a **a ", count: $0 / 14) + "b" + String(repeating: " a** a*", count: $0 / 14) }),
        ("many emph closers with no openers", { String(repeating: "a_ ", count: $0 / 3) }),
        ("many emph openers with no closers", { String(repeating: "_a ", count: $0 / 3) }),
        ("many link closers with no openers", { String(repeating: "a]", count: $0 / 2) }),
        ("many link openers with no closers", { String(repeating: "[a", count: $0 / 2) }),
        ("mismatched openers and closers", { String(repeating: "*a_ ", count: $0 / 4) }),
        ("openers and closers multiple of 3", { "a**b" + String(repeating: "c* ", count: $0 / 3) }),
        ("link openers and emph closers", { String(repeating: "[ a_", count: $0 / 4) }),
        ("pattern [ (]( repeated", { String(repeating: "[ (](", count: $0 / 5) }),
        ("hard link/emph case", { "**x [a*b**c*](d)" + String(repeating: "x", count: $0 / 2) }),
        ("nested brackets", { String(repeating: "[", count: $0 / 2) + "a" + String(repeating: "]", count: $0 / 2) }),
        ("nested block quotes", { String(repeating: "> ", count: $0 / 2) + "a" }),
        ("deeply nested lists", { count in (0..<min(count / 60, 2000)).map { String(repeating: "  ", count: $0) + "* a\n" }.joined() }),
        ("U+0000 in input", { String(repeating: "abc\u{0}de\u{0}", count: $0 / 7) }),
        ("backticks", { (1...max(1, Int(Double($0).squareRoot() / 2))).map { "e" + String(repeating: "`", count: $0) }.joined() }),
        ("unclosed links A", { String(repeating: "[a](<b", count: $0 / 6) }),
        ("unclosed links B", { String(repeating: "[a](b", count: $0 / 5) }),
        ("link reference map", { count in (0..<(count / 40)).map { "[\($0)]: u\n" }.joined() + String(repeating: "[0] ", count: count / 8) }),
        // The extensions Threadfold adds on cmark's tree (GFM and Reddit flavours).
        (
            "GFM table, 10,000+ columns",
            { count in
                let columns = count / 8
                return String(repeating: "|a", count: columns) + "\n" + String(repeating: "|-", count: columns) + "\n" + String(repeating: "|b", count: columns) + "\n"
            }
        ),
        ("GFM table, 100,000+ rows", { count in "|a|b|\n|-|-|\n" + String(repeating: "|c|d|\n", count: count / 6) }),
        ("GFM 100,000+ ~ runs", { String(repeating: "~a ", count: $0 / 3) }),
        ("GFM nested ~~ spans", { String(repeating: "~~a ", count: $0 / 8) + String(repeating: "a~~ ", count: $0 / 8) }),
        ("GFM task list items", { String(repeating: "- [x] a\n", count: $0 / 8) }),
        ("GFM bare URLs", { String(repeating: "www.a.b ", count: $0 / 8) }),
        ("reddit one word of ^", { String(repeating: "^", count: $0 - 1) + "a" }),
        ("reddit nested ^( )", { String(repeating: "^(", count: $0 / 4) + String(repeating: ")", count: $0 / 4) }),
        ("reddit >! openers without closers", { String(repeating: ">!a ", count: $0 / 4) }),
        ("reddit line spoilers", { String(repeating: ">!a!<\n", count: $0 / 6) }),
        ("reddit r/ and u/ names", { String(repeating: "r/ab u/abc ", count: $0 / 11) }),
    ]
}

func seconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now()
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

/// Times one body in a fresh process (the bench runs itself with --time-body), so that small and
/// large inputs both start with cold caches and a fresh allocator; in one process the small case
/// runs warm and ratios measure caches, not algorithms.
func timeInFreshProcess(shape: Int, bytes: Int, capped: Bool) -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--time-body", String(shape), String(bytes), capped ? "capped" : "uncapped"]
    let pipe = Pipe()
    process.standardOutput = pipe
    guard (try? process.run()) != nil else { return .infinity }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? .infinity
}

/// Prints each shape's time through cmark at two sizes ten times apart (the size cap lifted, so
/// cmark does the work unless the shape guard catches it; 10x the input must cost at most about 15x
/// the time), and at 1 MB as pages render it (cap and guard on; within 1 s).
///
/// The smaller size is 100 KB, or 1 MB or 10 MB for a shape that renders 100 KB in under 5 ms: below
/// that, timer and process noise decide the ratio (a shape at 0.4 ms read anywhere from 9x to 15x).
func checkPathological() -> Bool {
    var ok = true
    print("shape                                   smaller            10x larger          growth   1 MB (pages)  result")
    func size(_ bytes: Int) -> String { bytes >= 1_000_000 ? "\(bytes / 1_000_000) MB" : "\(bytes / 1_000) KB" }
    for (index, (name, _)) in pathologicalShapes().enumerated() {
        var small = 100_000
        var t1 = best(3) { timeInFreshProcess(shape: index, bytes: small, capped: false) }
        while t1 < 0.005, small < 10_000_000 {
            small *= 10
            t1 = best(3) { timeInFreshProcess(shape: index, bytes: small, capped: false) }
        }
        let t2 = best(3) { timeInFreshProcess(shape: index, bytes: small * 10, capped: false) }
        let t3 = best(3) { timeInFreshProcess(shape: index, bytes: 1_000_000, capped: true) }
        let growth = t2 / max(t1, 1e-6)
        let passed = t3 <= 1.0 && growth <= 15
        ok = ok && passed
        func cell(_ seconds: Double, _ bytes: Int) -> String {
            "\(format(seconds * 1000, 2)) ms (\(size(bytes)))".padding(toLength: 19, withPad: " ", startingAt: 0)
        }
        print(
            name.padding(toLength: 40, withPad: " ", startingAt: 0) + cell(t1, small) + cell(t2, small * 10)
                + (format(growth, 1) + "x").padding(toLength: 9, withPad: " ", startingAt: 0)
                + (format(t3 * 1000, 1) + " ms").padding(toLength: 14, withPad: " ", startingAt: 0)
                + (passed ? "ok" : "TOO SLOW"))
    }
    return ok
}

/// Writes one thread file of about `megabytes` MB and renders it with the binary.
func checkHuge(_ megabytes: Int) throws -> Bool {
    let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("threadfold-huge-\(getpid()).json")
    let out = (NSTemporaryDirectory() as NSString).appendingPathComponent("threadfold-huge-site-\(getpid())")
    defer {
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: out)
    }
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    let handle = FileHandle(forWritingAtPath: path)!
    var rng = SplitMix64(state: 7)
    handle.write(Data("{\"title\":\"A \(megabytes) MB thread\",\"comments\":[".utf8))
    var written = 0, count = 0
    var chunk = ""
    while written < megabytes * 1_000_000 {
        let parent = count == 0 || rng.below(4) == 0 ? "null" : String(1 + rng.below(count))
        let item =
            (count > 0 ? "," : "")
            + "{\"id\":\(count + 1),\"parent_id\":\(parent),\"author\":\"u\(rng.below(9000))\",\"created_at\":\(1_600_000_000 + count),\"body\":\(jsonString(body(&rng, target: bodySize(&rng))))}"
        chunk += item
        written += item.utf8.count
        count += 1
        if chunk.utf8.count > 4_000_000 {
            handle.write(Data(chunk.utf8))
            chunk = ""
        }
    }
    handle.write(Data((chunk + "]}\n").utf8))
    try handle.close()
    let run = try time(settings.threadfold, ["render", "-q", "-o", out, path])
    print("huge file:   \(format(Double(written) / 1_000_000, 0)) MB, \(count) comments in one thread: \(format(run.seconds, 2)) s, peak memory \(format(run.peakMiB, 0)) MiB")
    return true
}

if let (shape, bytes, capped) = settings.timeBody {
    let body = pathologicalShapes()[shape].1(bytes)
    let renderer = MarkdownRenderer(options: capped ? MarkdownOptions() : MarkdownOptions(maxBytes: Int.max))
    let flavor: MarkdownFlavor = pathologicalShapes()[shape].0.hasPrefix("reddit") ? .reddit : .gfm
    print(seconds { _ = renderer.render(body, sourceFlavor: flavor) })
    exit(0)
}

if let generate = settings.generateDump {
    do {
        try generateDump(warnings: generate.warnings, comments: generate.comments, form: PerThreadForm(rawValue: generate.form) ?? .none)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("bench: \(error.localizedDescription)\n".utf8))
        exit(1)
    }
}

if settings.dumpCheck {
    print("Reddit dump at \(grouped(settings.dumpComments)) comments: peak memory of threadfold build (--jobs 2)")
    let ok = checkDumpMemory()
    print(ok ? "within the bound" : "the dump build broke the bound or failed")
    exit(ok ? 0 : 1)
}

if settings.importScaling {
    print("Import scaling: threadfold check on every form's reply shapes (best of 3 fresh processes, 1 at 1,000,000 items)")
    let ok = checkImportScaling(sizes: settings.importSizes)
    print(ok ? "every form linear on every shape" : "some form grew faster than its input")
    exit(ok ? 0 : 1)
}

if settings.dumpOnly {
    benchDump()
    exit(0)
}

if settings.pathological {
    print("Slow inputs: cmark's pathological shapes through Threadfold's Markdown renderer (best of 3 fresh processes each)")
    var ok = checkPathological()
    if settings.hugeMB > 0 {
        do { ok = try checkHuge(settings.hugeMB) && ok } catch {
            print("huge file: failed: \(error)")
            ok = false
        }
    }
    print(ok ? "all within limits" : "some inputs broke a limit")
    exit(ok ? 0 : 1)
}

do {
    let (generated, fresh) = try generateCorpus()
    if fresh {
        // Generating left this process's high-water RSS at the whole corpus, and a spawned
        // child's peak memory includes it (see below): start again on the written corpus.
        print("generated the corpus in \(settings.corpus)/; restarting on it")
        fflush(nil)
        let argv = CommandLine.arguments.map { strdup($0) } + [nil]
        execv("/proc/self/exe", argv)
        throw NSError(domain: "bench", code: Int(errno), userInfo: [NSLocalizedDescriptionKey: "cannot restart: \(String(cString: strerror(errno)))"])
    }
    let pin = which("taskset").map { [$0, "-c", "0"] } ?? []
    func pinned(_ command: [String]) throws -> Run {
        try time((pin + command)[0], Array((pin + command).dropFirst()))
    }
    print("Threadfold benchmark (seed \(settings.seed), best of \(settings.runs) alternating runs, one process, one thread\(pin.isEmpty ? ", not pinned: no taskset" : ", pinned to core 0"))")
    // Sites and spill files go to the temp folder. On ext4 without a journal, creating a file
    // first walks past every inode freed in the last minutes (the kernel's recently_deleted
    // check), so a build's system time there says more about the disk's recent past than about
    // Threadfold; a memory file system shows Threadfold alone.
    print("sites and scratch files in \(NSTemporaryDirectory()) (TMPDIR=/dev/shm times them in memory, without the disk)")
    // The bench times a shared machine's cores; say so when something else is using them.
    if let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.flatMap({ Double($0) }), load >= 0.5 {
        print("note: load average \(format(load, 2)) at the start: other processes are using the cores, so times run high")
    }
    let mb = Double(generated.bytes) / 1_000_000
    print("corpus: \(generated.files.count) thread files, \(generated.comments) comments, \(format(mb, 1)) MB of JSON in \(settings.corpus)/")
    let sizes = generated.bodySizes
    print(
        "bodies (\(settings.bodies.rawValue)): \(generated.comments) comments of log-normal size: median \(sizes[0]) B, p90 \(sizes[1]) B, p99 \(sizes[2]) B, max \(sizes[3]) B of Markdown; \(format(Double(sizes[4]) / 1_000_000, 1)) MB in all"
    )

    // End to end: threadfold on every file, and the reference, every body through the cmark CLI
    // in one process. Runs alternate so both see the same machine; the best of each is kept.
    // Both are pinned to core 0, so neither gains from a second core (taskset execs, so wait4
    // still reports the pinned program itself).
    // This comes first: a spawned child's peak memory includes the parent's until it execs,
    // and the in-process measurements below hold the whole corpus.
    guard let cmark = which("cmark") else { throw NSError(domain: "bench", code: 1, userInfo: [NSLocalizedDescriptionKey: "the cmark CLI is missing (apt-get install cmark)"]) }
    // The throwaway output goes to the temp folder: on this project's machines creating files
    // under /work costs about 1.5 s more system time per build than under /tmp on the same
    // disk (measured with /usr/bin/time), which would measure the sandbox, not Threadfold.
    let out = (NSTemporaryDirectory() as NSString).appendingPathComponent("threadfold-bench-site-\(getpid())")
    var tf = (seconds: Double.infinity, cpu: Double.infinity, peakMiB: 0.0)
    var tfUser = Double.infinity, tfSystem = Double.infinity
    var cm = (seconds: Double.infinity, cpu: Double.infinity, peakMiB: 0.0)
    for _ in 0..<settings.runs {
        let run = try pinned([settings.threadfold, "render", "-q", "-o", out] + generated.files)
        if ProcessInfo.processInfo.environment["BENCH_VERBOSE"] != nil {
            print("  run: \(format(run.seconds, 3)) s wall, \(format(run.cpu - run.system, 3)) s user, \(format(run.system, 3)) s system")
        }
        tf = (min(tf.seconds, run.seconds), min(tf.cpu, run.cpu), max(tf.peakMiB, run.peakMiB))
        tfUser = min(tfUser, run.cpu - run.system)
        tfSystem = min(tfSystem, run.system)
        let reference = try pinned([cmark, "--hardbreaks", "--validate-utf8", generated.bodies])
        cm = (min(cm.seconds, reference.seconds), min(cm.cpu, reference.cpu), max(cm.peakMiB, reference.peakMiB))
    }
    print(
        "threadfold:  \(format(tf.seconds, 3)) s wall, \(format(tf.cpu, 3)) s CPU (\(format(tfUser, 3)) s user + \(format(tfSystem, 3)) s system) · \(Int(Double(generated.comments) / tf.seconds)) comments/s · \(format(mb / tf.seconds, 1)) MB/s · peak memory \(format(tf.peakMiB, 0)) MiB"
    )
    print("cmark CLI:   \(format(cm.seconds, 3)) s wall, \(format(cm.cpu, 3)) s CPU for the same bodies in one process (reference; peak memory \(format(cm.peakMiB, 0)) MiB)")
    print("ratio:       \(format(tf.seconds / cm.seconds, 2))x wall, \(format(tf.cpu / cm.cpu, 2))x CPU, \(format(tfUser / cm.cpu, 2))x user CPU of the cmark-only time (target: at most 1.5x)")
    print("             (system time is the kernel creating 2,000 files; on ext4 it grows with recent file churn, 0.2 to 1.9 s here)")
    // The archive: `threadfold build` of the corpus folder with one job and with every core, an
    // incremental rebuild after one thread changes, and the JSON Lines form of the same corpus.
    let (build, writeSeconds) = try benchArchive(generated, mb: mb, cmarkSeconds: cm.seconds)
    let hugoSeconds = try benchHugo(generated, build: build)

    // The floor: each piece no build can skip, alone, on the same input: reading the files,
    // a JSON parse that builds only the tape, cmark over every body (its CLI, pinned), and
    // writing the site's bytes to a memory file system. Their sum is one core's floor; over
    // the cores, a parallel build's.
    let readSeconds = best(settings.runs) {
        let start = DispatchTime.now()
        for file in generated.files { _ = FileManager.default.contents(atPath: file) }
        return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
    let contents = generated.files.compactMap { FileManager.default.contents(atPath: $0).map { [UInt8]($0) } }
    let parseSeconds = best(settings.runs) {
        let start = DispatchTime.now()
        for bytes in contents { _ = try? JSONDocument(bytes: bytes) }
        return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
    let floor = readSeconds + parseSeconds + cm.cpu + writeSeconds
    let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
    print(
        "floor:       read \(format(readSeconds, 3)) s + JSON \(format(parseSeconds, 3)) s + cmark \(format(cm.cpu, 3)) s + write \(format(writeSeconds, 3)) s (the build's site, to a memory file system) = \(format(floor, 3)) s on one core, \(format(floor / cores, 3)) s over \(Int(cores))"
    )
    print(
        "  render, one core: \(format(tf.seconds / floor, 2))x the floor (aim: 1.3x) · build --jobs \(Int(cores)): \(format(build.seconds / (floor / cores), 2))x the floor over \(Int(cores)) cores (aim: 1.3x)"
    )
    print(
        "ecosystem (wall, as ratios of build --jobs \(Int(cores)) = \(format(build.seconds, 3)) s): floor over the cores \(format(floor / cores / build.seconds, 2))x · cmark CLI alone \(format(cm.seconds / build.seconds, 2))x · "
            + (hugoSeconds.map { "Hugo \(format($0 / build.seconds, 1))x" } ?? "Hugo not installed"))

    // In-process: the JSON stage alone, ours against Foundation's.
    var tape = 0.0, serialization = 0.0
    let datas = try generated.files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
    tape = best(settings.runs) {
        let start = DispatchTime.now()
        for data in datas { _ = try? JSONDocument(bytes: [UInt8](data)) }
        return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
    serialization = best(settings.runs) {
        let start = DispatchTime.now()
        for data in datas { _ = try? JSONSerialization.jsonObject(with: data) }
        return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
    struct Comment: Decodable {
        let id: Int
        let parent_id: Int?
        let author: String
        let created_at: Int
        let score: Int
        let body: String
    }
    struct ThreadFile: Decodable {
        let id: Int
        let title: String
        let comments: [Comment]
    }
    let decoder = best(settings.runs) {
        let start = DispatchTime.now()
        for data in datas { _ = try? JSONDecoder().decode(ThreadFile.self, from: data) }
        return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
    print("JSON stage:  threadfold tape parser \(format(tape, 3)) s · Foundation JSONSerialization \(format(serialization, 3)) s · JSONDecoder \(format(decoder, 3)) s")

    // In-process, stage by stage (one thread), to show where the time goes.
    func clock() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    let bytesList = datas.map { [UInt8]($0) }
    var t = clock()
    let records = bytesList.enumerated().compactMap { try? ThreadDecoder.decode(bytes: $1, file: "\($0)") }
    let decodeTime = Double(clock() - t) / 1e9
    t = clock()
    let trees = records.compactMap { try? ThreadBuilder.build($0) }
    let buildTime = Double(clock() - t) / 1e9
    t = clock()
    let entries = trees.reduce(0) { $0 + PageLayout.make($1, options: LayoutOptions()).entries.count }
    let layoutTime = Double(clock() - t) / 1e9
    let markdown = MarkdownRenderer()
    t = clock()
    for record in records { for comment in record.comments { _ = markdown.render(comment.body) } }
    let markdownTime = Double(clock() - t) / 1e9
    // The extensions on and off: every body through each flavour (best of the runs).
    let flavours = MarkdownFlavor.allCases.map { flavor -> String in
        var options = MarkdownOptions()
        options.flavor = flavor
        let renderer = MarkdownRenderer(options: options)
        let time = best(settings.runs) {
            let start = clock()
            for record in records { for comment in record.comments { _ = renderer.render(comment.body) } }
            return Double(clock() - start) / 1e9
        }
        return "\(flavor.rawValue) \(format(time, 3)) s"
    }
    print("Markdown by flavour (commonmark: extensions off): \(flavours.joined(separator: " · "))")
    let resources = ResourceStore()
    precondition(entries > 0)
    // `page` threads and lays out again: take those stages' times off.
    let renderer = try ThreadPipeline(options: ArchiveOptions(), resources: resources)
    t = clock()
    var htmlBytes = 0
    for record in records { htmlBytes += try renderer.page(record).html.count }
    let pageTime = Double(clock() - t) / 1e9 - buildTime - layoutTime
    let plainRenderer = try ThreadPipeline(
        options: ArchiveOptions(render: RenderOptions(markdown: MarkdownOptions(maxBytes: 0))),
        resources: resources)
    t = clock()
    for record in records { _ = try plainRenderer.page(record) }
    let plainPageTime = Double(clock() - t) / 1e9 - buildTime - layoutTime
    print("templates alone (bodies as plain text, no cmark): \(format(plainPageTime, 3)) s")
    print(
        "stages:      decode \(format(decodeTime, 3)) s · tree \(format(buildTime, 3)) s · layout \(format(layoutTime, 3)) s · "
            + "Markdown (cmark + link checks) \(format(markdownTime, 3)) s · templates \(format(pageTime - markdownTime, 3)) s "
            + "(pages incl. Markdown \(format(pageTime, 3)) s, \(format(Double(htmlBytes) / 1_000_000, 1)) MB of HTML)")

    try? FileManager.default.removeItem(atPath: out)
    if settings.dump { benchDump() }
} catch {
    FileHandle.standardError.write(Data("bench: \(error.localizedDescription)\n".utf8))
    exit(1)
}
