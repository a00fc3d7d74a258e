// Writing the synthetic dump (DumpModel.swift) to disk, and the cache that keeps it between runs.
//
// bench-corpus/.dump-<N>/            the dump benchmark (hidden, so the corpus's folder build skips it)
//   RS_bench.zst, RC_bench.zst       submissions and comments, zstd -3 --long=27
//   threads/<id>.json                the same records (with the submission first when Threadfold
//                                    reads that) grouped per thread, uncompressed, byte for byte the
//                                    dump's lines, as one JSON array a thread: a thread file read
//                                    whole, not a dump streamed through partitions
//   SUMMARY, STAMP                   what was generated; the settings it was generated with
// bench-corpus/.dump-warnings-<N>/   RS_bench.zst and RC_none/RC_1x/RC_10x.zst: the same comments with
//                                    no, the usual, and ten times the comments that cost a warning
//
// Generating runs in a fresh process (the bench starts itself with --generate-dump), so the bench
// process never holds the model.
import Foundation

/// How each thread's file in threads/ is written.
enum PerThreadForm: String {
    /// No per-thread folder (check-slow's run needs none).
    case none
    /// The thread's comments only: Threadfold does not read a submission line among comments.
    case comments
    /// The submission line, then the thread's comments.
    case withSubmission = "with-submission"
}

/// Writes lines to a file through the zstd CLI (`zstd -3 --long=27`), counting the bytes.
final class ZstdWriter {
    let process = Process()
    let input: FileHandle
    var buffer: [UInt8] = []
    var bytes = 0

    init(zstd: String, path: String) throws {
        process.executableURL = URL(fileURLWithPath: zstd)
        // A fast level, as generation time matters; --long as the real dumps (which use up to 31).
        process.arguments = ["-q", "-f", "-3", "--long=27", "-T1", "-o", path]
        let pipe = Pipe()
        process.standardInput = pipe
        input = pipe.fileHandleForWriting
        try process.run()
        buffer.reserveCapacity(1 << 22)
    }

    func write(_ line: [UInt8]) throws {
        buffer.append(contentsOf: line)
        bytes += line.count
        if buffer.count >= 1 << 22 { try flush() }
    }

    func flush() throws {
        try input.write(contentsOf: Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    func finish() throws {
        try flush()
        try input.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw benchError("zstd failed (status \(process.terminationStatus))") }
    }
}

func benchError(_ message: String) -> NSError {
    NSError(domain: "bench", code: 1, userInfo: [NSLocalizedDescriptionKey: message])
}

/// Appends each thread's lines to threads/<id>.json, holding at most about 64 MB between writes: `[`
/// and the first line, then `,` and each further line, and `]` when `finish` closes every file.
struct PerThreadWriter {
    let folder: String
    let model: DumpModel
    let form: PerThreadForm
    var buffers: [[UInt8]]
    var started: [Bool]
    var held = 0

    init(folder: String, model: DumpModel, form: PerThreadForm) throws {
        self.folder = folder
        self.model = model
        self.form = form
        buffers = Array(repeating: [], count: model.threads.count)
        started = Array(repeating: false, count: model.threads.count)
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    mutating func append(_ line: [UInt8], thread: Int) throws {
        if !started[thread] {
            started[thread] = true
            buffers[thread] += Array("[\n".utf8)
            if form == .withSubmission {
                var first: [UInt8] = []
                submissionLine(model, thread, into: &first)
                buffers[thread] += first + [UInt8(ascii: ",")]
                held += first.count
            }
        } else {
            buffers[thread].append(UInt8(ascii: ","))
        }
        buffers[thread] += line
        held += line.count
        if held >= 64 << 20 { try flush() }
    }

    /// Writes what is held and closes every thread's array.
    mutating func finish() throws {
        for t in buffers.indices where started[t] { buffers[t] += Array("]\n".utf8) }
        try flush()
    }

    mutating func flush() throws {
        for t in buffers.indices where !buffers[t].isEmpty {
            let path = folder + "/" + String(submissionIDBase + t, radix: 36) + ".json"
            try appendToFile(buffers[t], path: path)
            buffers[t] = []
        }
        held = 0
    }
}

/// Appends `bytes` to the file at `path`, made first when it is missing.
func appendToFile(_ bytes: [UInt8], path: String) throws {
    if !FileManager.default.fileExists(atPath: path), !FileManager.default.createFile(atPath: path, contents: nil) {
        throw benchError("cannot write \(path)")
    }
    do {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: bytes)
    } catch {
        throw benchError("cannot write \(path): \(error.localizedDescription)")
    }
}

/// median, p90, p99, max of `values`.
func percentiles(_ values: [Int]) -> [Int] {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return [0, 0, 0, 0] }
    return [0.5, 0.9, 0.99].map { sorted[min(sorted.count - 1, Int(Double(sorted.count) * $0))] } + [sorted.last!]
}

/// A generated dump as the bench finds it.
struct DumpFiles {
    let folder: String
    var submissions: String { folder + "/RS_bench.zst" }
    var comments: String { folder + "/RC_bench.zst" }
    var perThread: String { folder + "/threads" }
    func variant(_ name: String) -> String { folder + "/RC_\(name).zst" }
    /// SUMMARY: name and value a line.
    var summary: [String: String] = [:]
    func number(_ key: String) -> Int { Int(summary[key] ?? "") ?? 0 }
}

func dumpFolder(warnings: Bool, comments: Int) -> String {
    settings.corpus + (warnings ? "/.dump-warnings-\(comments)" : "/.dump-\(comments)")
}

func dumpStamp(warnings: Bool, comments: Int, form: PerThreadForm) -> String {
    "dump v3 \(warnings ? "warnings" : "main") comments=\(comments) seed=\(settings.seed) per-thread=\(form.rawValue)"
}

/// The generated dump, from the cache when its STAMP matches, else generated now in a fresh process.
/// A cached dump with a per-thread folder also serves a run that needs none.
func ensureDump(warnings: Bool, comments: Int, form: PerThreadForm) throws -> (DumpFiles, fresh: Bool) {
    let folder = dumpFolder(warnings: warnings, comments: comments)
    func cached() -> DumpFiles? {
        guard let stamp = try? String(contentsOfFile: folder + "/STAMP", encoding: .utf8),
            let text = try? String(contentsOfFile: folder + "/SUMMARY", encoding: .utf8)
        else { return nil }
        let forms = form == .none ? [PerThreadForm.none, .comments, .withSubmission] : [form]
        guard forms.contains(where: { dumpStamp(warnings: warnings, comments: comments, form: $0) == stamp }) else { return nil }
        var files = DumpFiles(folder: folder)
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { files.summary[String(parts[0])] = String(parts[1]) }
        }
        let needed = [files.submissions] + (warnings ? ["none", "1x", "10x"].map(files.variant) : [files.comments])
        return needed.allSatisfy(FileManager.default.fileExists) ? files : nil
    }
    if let files = cached() { return (files, false) }
    // What this process printed goes first: the generator writes to the same output.
    fflush(nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
    process.arguments = [
        "--generate-dump", warnings ? "warnings" : "main", String(comments), form.rawValue,
        "--corpus", settings.corpus, "--seed", String(settings.seed),
    ]
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0, let files = cached() else { throw benchError("generating the dump in \(folder)/ failed") }
    return (files, true)
}

/// `--generate-dump`: writes one dump folder (see the top of this file) and its SUMMARY and STAMP.
func generateDump(warnings: Bool, comments: Int, form: PerThreadForm) throws {
    guard let zstd = which("zstd") else { throw benchError("the zstd CLI is missing (apt-get install zstd)") }
    let fm = FileManager.default
    let folder = dumpFolder(warnings: warnings, comments: comments)
    try? fm.removeItem(atPath: folder)
    try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let files = DumpFiles(folder: folder)
    let start = DispatchTime.now()
    print("generating \(comments) comments (\(warnings ? "the warnings variants" : "the dump")) in \(folder)/…")
    fflush(nil)
    let model = makeDumpModel(comments: comments, seed: settings.seed)
    var summary: [(String, String)] = [("comments", String(model.comments.count)), ("threads", String(model.threads.count))]

    let submissions = try ZstdWriter(zstd: zstd, path: files.submissions)
    var line: [UInt8] = []
    for t in model.threads.indices {
        line.removeAll(keepingCapacity: true)
        submissionLine(model, t, into: &line)
        try submissions.write(line)
    }
    try submissions.finish()
    summary.append(("rs_bytes", String(submissions.bytes)))

    let omitted = omittedComments(model.comments)
    if warnings {
        summary += try writeWarningVariants(model, omitted: omitted, files: files, zstd: zstd)
    } else {
        summary += try writeComments(model, omitted: omitted, files: files, zstd: zstd, form: form)
    }
    summary.append(("seconds", String(format: "%.1f", Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9)))
    try Data(summary.map { "\($0) \($1)\n" }.joined().utf8).write(to: URL(fileURLWithPath: folder + "/SUMMARY"))
    try Data(dumpStamp(warnings: warnings, comments: comments, form: warnings ? .none : form).utf8)
        .write(to: URL(fileURLWithPath: folder + "/STAMP"))
}

/// The warnings dump's comment files: the same comments with none of the omitted ones; as
/// generated; and with nine times as many again added as deleted or removed replies nobody
/// answered, so every variant shows the same comments and only the warnings differ.
func writeWarningVariants(_ model: DumpModel, omitted: [Bool], files: DumpFiles, zstd: String) throws -> [(String, String)] {
    let warningCount = omitted.filter { $0 }.count
    var summary: [(String, String)] = []
    var line: [UInt8] = []
    var extended = model
    var rng = SplitMix64(state: settings.seed ^ 0x5741_524E)
    let visible = model.comments.indices.filter { !omitted[$0] }
    for k in 0..<(9 * warningCount) {
        let parent = visible[rng.below(visible.count)]
        let kind: DumpCommentKind = rng.below(2) == 0 ? .deleted : .removed
        extended.comments.append(
            DumpComment(
                time: model.comments[parent].time + Int32(30 + rng.below(7200)),
                thread: model.comments[parent].thread, parent: Int32(parent),
                id: Int32(model.comments.count + k), kind: kind))
    }
    extended.order = fileOrder(extended.comments)
    let variants: [(String, DumpModel, (Int) -> Bool)] = [("none", model, { !omitted[$0] }), ("1x", model, { _ in true }), ("10x", extended, { _ in true })]
    for (name, source, keep) in variants {
        let writer = try ZstdWriter(zstd: zstd, path: files.variant(name))
        for index in source.order where keep(Int(index)) {
            line.removeAll(keepingCapacity: true)
            commentLine(source, Int(index), into: &line)
            try writer.write(line)
        }
        try writer.finish()
        summary.append(("rc_\(name)_bytes", String(writer.bytes)))
    }
    summary += [("warnings_none", "0"), ("warnings_1x", String(warningCount)), ("warnings_10x", String(10 * warningCount))]
    return summary
}

/// The main dump's comment file (and the same threads as a file each, unless `form` is none),
/// with what SUMMARY says of them.
func writeComments(_ model: DumpModel, omitted: [Bool], files: DumpFiles, zstd: String, form: PerThreadForm) throws -> [(String, String)] {
    var summary: [(String, String)] = []
    var line: [UInt8] = []
    let writer = try ZstdWriter(zstd: zstd, path: files.comments)
    var perThread = form == .none ? nil : try PerThreadWriter(folder: files.perThread, model: model, form: form)
    var bodySizes: [Int] = []
    bodySizes.reserveCapacity(model.comments.count)
    for index in model.order {
        line.removeAll(keepingCapacity: true)
        let size = commentLine(model, Int(index), into: &line)
        if size > 0 { bodySizes.append(size) }
        try writer.write(line)
        try perThread?.append(line, thread: Int(model.comments[Int(index)].thread))
    }
    try writer.finish()
    try perThread?.finish()
    summary.append(("rc_bytes", String(writer.bytes)))
    summary.append(("bodies", percentiles(bodySizes).map(String.init).joined(separator: " ")))
    summary.append(("thread_sizes", percentiles(model.threads.map { Int($0.comments) }).map(String.init).joined(separator: " ")))
    let kinds = model.comments.reduce(into: [Int](repeating: 0, count: 5)) { $0[Int($1.kind.rawValue)] += 1 }
    summary.append(("deleted", String(kinds[1])))
    summary.append(("removed", String(kinds[2] + kinds[3])))
    summary.append(("account_deleted", String(kinds[4])))
    summary.append(("warnings", String(omitted.filter { $0 }.count)))
    let last = model.comments.map(\.time).max() ?? 0
    summary.append(("days", String(format: "%.1f", Double(last) / 86_400)))
    summary.append(("marker_thread", String(submissionIDBase + Int(model.comments[model.marker].thread), radix: 36)))
    return summary
}

/// Sets the revision marker's last letter (generated as A) in the compressed comment file to
/// `letter`, streaming it through `zstd -d` and `zstd` into a new file that then replaces it: one
/// comment's body changes in place, every other byte stays. The letter is noted in REVISION beside
/// the file first, so a bench stopped before restoring A restores it next time (`restoreMarker`).
func setMarker(_ path: String, to letter: Character) throws {
    let note = (path as NSString).deletingLastPathComponent + "/REVISION"
    try Data(String(letter).utf8).write(to: URL(fileURLWithPath: note))
    guard let zstd = which("zstd") else { throw benchError("the zstd CLI is missing") }
    let temporary = path + ".revision"
    let decompress = Process()
    decompress.executableURL = URL(fileURLWithPath: zstd)
    decompress.arguments = ["-d", "-c", "-q", "--long=27", path]
    let out = Pipe()
    decompress.standardOutput = out
    let compress = try ZstdWriter(zstd: zstd, path: temporary)
    try decompress.run()
    var pending: [UInt8] = []
    var found = false
    let reader = out.fileHandleForReading
    while true {
        let chunk = reader.readData(ofLength: 1 << 22)
        let done = chunk.isEmpty
        pending.append(contentsOf: chunk)
        if !found, let at = firstRange(of: dumpMarker, in: pending), at + dumpMarker.count < pending.count {
            pending[at + dumpMarker.count] = letter.asciiValue!
            found = true
        }
        // Keep a marker's length back, in case one straddles two chunks.
        let keep = done || found ? 0 : min(pending.count, dumpMarker.count + 1)
        try compress.write(Array(pending[..<(pending.count - keep)]))
        pending.removeFirst(pending.count - keep)
        if done { break }
    }
    decompress.waitUntilExit()
    try compress.finish()
    guard decompress.terminationStatus == 0, found else {
        try? FileManager.default.removeItem(atPath: temporary)
        throw benchError(found ? "zstd -d failed on \(path)" : "no revision marker in \(path)")
    }
    guard rename(temporary, path) == 0 else { throw benchError("cannot replace \(path): \(String(cString: strerror(errno)))") }
    if letter == "A" { try? FileManager.default.removeItem(atPath: note) }
}

/// Puts the marker back to A when REVISION says an earlier bench left it otherwise.
func restoreMarker(_ path: String) throws {
    let note = (path as NSString).deletingLastPathComponent + "/REVISION"
    if FileManager.default.fileExists(atPath: note) { try setMarker(path, to: "A") }
}

/// Where `needle` first occurs in `haystack` (memchr for its first byte, then a comparison).
func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
    haystack.withUnsafeBufferPointer { bytes -> Int? in
        guard let base = bytes.baseAddress, !needle.isEmpty else { return nil }
        var at = 0
        while at + needle.count <= bytes.count {
            guard let hit = memchr(base + at, Int32(needle[0]), bytes.count - at) else { return nil }
            let i = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            guard i + needle.count <= bytes.count else { return nil }
            if bytes[i..<(i + needle.count)].elementsEqual(needle) { return i }
            at = i + 1
        }
        return nil
    }
}
