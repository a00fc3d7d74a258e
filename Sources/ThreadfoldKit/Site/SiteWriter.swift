// Site stage: rendered pages in, files on disk out. The only stage that writes.
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Publishes a set of files as one folder, atomically.
///
/// Everything is written into a staging folder beside the target, then swapped into place in
/// one step (`renameat2(RENAME_EXCHANGE)` where the kernel has it, two renames otherwise). A
/// failed or interrupted build leaves the previous folder as it was.
///
/// Every path under the output, the staging folder and the spare is resolved from a folder
/// descriptor one component at a time without following links (`Folder`), so nothing outside
/// them is read, written or removed, whatever links are planted inside.
///
/// With `keepSpare` (incremental builds) the swapped-out site is kept beside the output as
/// `.<name>.spare` (double buffering) and recycled as the next build's staging folder. The spare
/// is a cache, not a source of truth: the caller says which files it vouches for (their stamps
/// in the spare's manifest), and everything else in it, a stranger's file, an edited page, a
/// link, is removed before the build uses it. A build takes the spare by renaming it to its own
/// staging name, so a build killed at any moment leaves either a whole spare or a staging
/// folder that the next build removes; the order of deletion never matters. Files in a recycled
/// folder are only ever unlinked and created anew, never written in place, because they may be
/// hard links shared with the live site.
///
/// Two builds of one output exclude each other with `flock` on the site's own `.threadfold`
/// marker (and on the staging folder's, which becomes the new site's), so no lock file is left
/// beside the output.
///
/// With `precompress`, every file written that `Precompression` applies to gets its compressed
/// siblings (`index.html.gz`, `index.html.br`) written with it.
package struct SiteWriter: Sendable {
    /// Marks a folder as Threadfold's output, which a later build may replace whole.
    package static let markerName = ".threadfold"
    static let markerText = "This folder is written by Threadfold and replaced whole on every build.\n"

    package let output: URL
    /// How the output is named in messages: the path as it was given. Files written in the
    /// staging folder are named by it, as they will be once published.
    package let display: String
    /// Flush the staged files to the disk before the swap and the swap itself after it, so a
    /// power loss leaves the old site or the new one. Off for throwaway builds (`--no-fsync`).
    package var durable = true
    /// Write the compressed siblings of HTML, XML, JSON, CSS and JS files (`Precompression`).
    package var precompress = false
    /// Keep each written file's stamp, with the hash of its bytes, for a manifest to vouch for
    /// (`Staging.take`). Off where no manifest is written (`render`): a file then costs no
    /// `fstat` after its write and no pass over its bytes.
    package var stamps = true

    package init(output: URL, durable: Bool = true, precompress: Bool = false, stamps: Bool = true) {
        self.output = output.standardizedFileURL
        display = output.relativePath
        self.durable = durable
        self.precompress = precompress
        self.stamps = stamps
    }

    var name: String { output.lastPathComponent }
    var spareName: String { ".\(name).spare" }
    /// Where an incremental build's dump spill waits for the next (`Staging.keep`).
    var keptSpillName: String { ".\(name).spill" }
    /// The scratch folders a staging folder may hold (a build's spill, and the kept one it
    /// continues): spared while a recycled folder is cleaned, never published.
    package static let scratchNames = (current: ".threadfold-spill", previous: ".threadfold-spill-previous")
    /// Where the previous site is kept between incremental builds.
    package var spare: URL { output.deletingLastPathComponent().appendingPathComponent(spareName) }

    /// Writes `files` (relative path to bytes) as the new contents of `output`.
    package func publish(_ files: [(path: String, bytes: [UInt8])]) throws(ThreadfoldError) {
        let staging = try begin()
        do {
            for file in files { try staging.write(file.path, file.bytes) }
            try staging.commit()
        } catch {
            staging.abandon()
            throw error
        }
    }

    /// Checks the target, takes its lock and opens a staging folder beside it. Write pages into
    /// it as they are rendered, then `commit()` to swap it into place, or `abandon()` to leave
    /// the old output.
    ///
    /// - Parameters:
    ///   - keepSpare: after the swap, keep the old output as the spare instead of deleting it;
    ///     without it, a spare left by earlier builds is removed.
    ///   - recycle: called, with keepSpare and a spare present, with a reader of the spare's
    ///     metadata files; returns the stamps of the files the spare's manifest vouches for, or
    ///     nil to start from an empty folder. Files that do not match are removed from it. With
    ///     `meanwhile`, it runs on the thread that cleans, beside `meanwhile`.
    ///   - meanwhile: work on the staging folder that needs none of its pages, which runs on this
    ///     thread while a recycled folder is cleaned on another, which this one then helps (a
    ///     build's dumps are partitioned into their spill meanwhile). It must write nothing but a
    ///     spill (`spill`), and read nothing of the recycled files: the staging folder says what it
    ///     kept once this returns.
    package func begin(
        keepSpare: Bool = false,
        recycle: Recycle? = nil,
        meanwhile: ((Staging) -> Void)? = nil
    ) throws(ThreadfoldError) -> Staging {
        let parentPath = output.deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: parentPath, withIntermediateDirectories: true)
        } catch {
            throw ThreadfoldError.output(path: parentPath, message: "cannot create this folder: \((error as NSError).localizedDescription)")
        }
        let parent = try Folder.open(parentPath)
        let (exists, claimed) = try claimOutput(in: parent)
        var locks = claimed
        func unlock() { for fd in locks { close(fd) } }
        Self.removeAbandoned(in: parent, prefixes: [".\(name).staging-", ".\(name).old-"])
        let tag = "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        // What this build changes in its staging folder, flushed alone when it commits.
        let journal = durable ? WriteJournal() : nil
        let stagingName = ".\(name).staging-\(tag)"
        // The staging name is registered for SIGINT and SIGTERM from before anything holds it (the
        // spare renamed to it, or a new folder) until the staging folder registers itself.
        let pending = PendingStaging()
        Staging.active.withLock { $0[ObjectIdentifier(pending)] = (parent, stagingName) }
        defer { _ = Staging.active.withLock { $0.removeValue(forKey: ObjectIdentifier(pending)) } }

        let recycling: Folder?
        do {
            recycling = try takeSpare(
                in: parent, as: stagingName, tag: tag, exists: exists, keepSpare: keepSpare, recycle: recycle,
                journal: journal, locks: &locks)
        } catch {
            unlock()
            throw error
        }
        // A kept spill serves incremental builds only.
        if !keepSpare, parent.entry(keptSpillName) != nil { discard(keptSpillName, in: parent, tag: tag) }
        let folder: Folder
        do throws(ThreadfoldError) {
            if let recycling {
                folder = recycling
            } else {
                guard mkdirat(parent.fd, stagingName, 0o755) == 0 else {
                    let code = errno
                    throw ThreadfoldError.output(
                        path: parent.path(stagingName),
                        message: "cannot create the staging folder: \(SystemError.describe(code)); expected a folder you can write in", errno: code)
                }
                folder = try parent.folder(stagingName, display: display, journal: journal)
                try folder.create(Self.markerName, Array(Self.markerText.utf8))
                locks.append(try Self.lock(folder, display: folder.display))
            }
        } catch {
            unlock()
            try? parent.removeTree(stagingName)
            throw error
        }
        let staging = Staging(
            writer: self, parent: parent, folder: folder, name: stagingName, exists: exists,
            keepSpare: keepSpare, locks: locks)
        guard let recycling, let recycle else {
            meanwhile?(staging)
            return staging
        }
        try clean(recycling, recycle: recycle, staging: staging, meanwhile: meanwhile)
        return staging
    }

    /// What `begin` asks of a spare it takes: the stamps of the files its manifest vouches for,
    /// from a reader of its metadata files, or nil when it vouches for none.
    package typealias Recycle = @Sendable (_ readMetadata: (String) -> [UInt8]?) -> [String: FileStamp]?

    /// The output: none, or a real folder that is empty or Threadfold's, whose marker is then
    /// locked. Returns whether it exists, and the lock's descriptor.
    private func claimOutput(in parent: Folder) throws(ThreadfoldError) -> (exists: Bool, locks: [Int32]) {
        guard let found = parent.entry(name) else { return (false, []) }
        switch found.kind {
        case .link: throw ThreadfoldError.output(path: output.path, message: "is a symbolic link; expected a folder Threadfold owns (or none)")
        case .file, .other: throw ThreadfoldError.output(path: output.path, message: "is a file; expected a folder Threadfold owns (or none)")
        case .folder: break
        }
        let live = try parent.folder(name)
        guard !live.names().isEmpty else { return (true, []) }
        guard let marker = live.entry(Self.markerName), marker.kind == .file else {
            throw ThreadfoldError.output(path: output.path, message: "holds files Threadfold did not write; expected an empty folder, a new one, or an earlier Threadfold output")
        }
        guard marker.own, found.own else {
            let owner = marker.own ? found.owner : marker.owner
            throw ThreadfoldError.output(
                path: output.path, message: "is a Threadfold output that belongs to another user (uid \(owner)) or that others can write; expected your own (remove it, or build as its owner)")
        }
        return (true, [try Self.lock(live, display: output.path)])
    }

    /// The spare, taken (renamed to `stagingName`) and, when it is to be recycled (`recycle`)
    /// and is a staging folder of this user's, locked; what its manifest vouches for is read
    /// when it is cleaned. Otherwise it is removed, and nil. A spare that is not this user's own
    /// is never taken (`isOwn`): it is discarded unread.
    private func takeSpare(
        in parent: Folder, as stagingName: String, tag: String, exists: Bool, keepSpare: Bool,
        recycle: Recycle?, journal: WriteJournal?, locks: inout [Int32]
    ) throws(ThreadfoldError) -> Folder? {
        guard let spare = parent.entry(spareName) else { return nil }
        guard keepSpare, exists, spare.kind == .folder, spare.own, renameat(parent.fd, spareName, parent.fd, stagingName) == 0 else {
            discard(spareName, in: parent, tag: tag)
            return nil
        }
        do throws(ThreadfoldError) {
            let folder = try parent.folder(stagingName, display: display, journal: journal)
            if folder.isOwnFolder, let marker = folder.entry(Self.markerName), marker.kind == .file, marker.own, recycle != nil {
                locks.append(try Self.lock(folder, display: folder.display))
                return folder
            }
        } catch {
            try? parent.removeTree(stagingName)
            throw error
        }
        try? parent.removeTree(stagingName)
        return nil
    }

    /// Cleans a recycled staging folder: what the spare's manifest vouches for (`recycle`) is
    /// kept, everything else removed, on another thread while `meanwhile` runs on this one (then
    /// on both), or on every core without it. A spare whose manifest vouches for nothing is
    /// emptied, and the staging folder is then not a recycled one. Abandons the staging folder
    /// when cleaning fails.
    private func clean(
        _ folder: Folder, recycle: @escaping Recycle, staging: Staging, meanwhile: ((Staging) -> Void)?
    ) throws(ThreadfoldError) {
        let read: @Sendable (String) -> [UInt8]? = { name in Self.metadata(name, in: folder) }
        let cleaned: Result<[String: FileStamp], ThreadfoldError>
        let vouches: Bool
        if let meanwhile {
            // One thread reads the manifest while `meanwhile` runs here (a dump's partition pass
            // need not wait for a large manifest), and another then cleans, both yielding, so
            // they take what the cores `meanwhile` leaves (a listing's wait, a dump's
            // decompression: paired, the decode at the build's priority cost a dump's increment
            // 5 to 8%). Once `meanwhile` is done, the walk stops at its next folder and ends on
            // every core, at the build's own priority.
            let sparing: Set<String> = [Self.scratchNames.current, Self.scratchNames.previous]
            let prepared = Background(yielding: true) { () -> (SpareCleaning, vouches: Bool) in
                let vouched = recycle(read)
                return (SpareCleaning(folder, keeping: vouched ?? [:], sparing: sparing), vouched != nil)
            }
            let helper = Background(yielding: true) { prepared.wait().0.walk(yielding: true) }
            meanwhile(staging)
            let cleaning: SpareCleaning
            (cleaning, vouches) = prepared.wait()
            cleaning.stopYielding()
            cleaned = Result { () throws(ThreadfoldError) in try cleaning.onEveryCore(joining: [helper.wait()]) }
        } else {
            let vouched = recycle(read)
            vouches = vouched != nil
            cleaned = Result { () throws(ThreadfoldError) in try Self.clean(folder, keeping: vouched ?? [:]) }
        }
        switch cleaned {
        case .success(let kept):
            if vouches { staging.recycled(kept) }
        case .failure(let error):
            staging.abandon()
            throw error
        }
    }

    /// A key for a staging name registered before its folder is (`begin`).
    private final class PendingStaging {}

    /// Takes the exclusive lock on a site's marker; fails when another build holds it.
    ///
    /// A lock let go is not always free at once: a process this one starts (Pagefind, or any
    /// other in a program that uses the library) shares the open file that holds the lock from
    /// its fork until its exec closes it. So a held lock is asked for again for about a fifth of
    /// a second before the build gives up; a build that really holds it holds it far longer.
    static func lock(_ site: Folder, display: String) throws(ThreadfoldError) -> Int32 {
        let fd = openat(site.fd, markerName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw ThreadfoldError.output(path: site.path(markerName), message: "cannot be opened to lock the site: \(SystemError.describe(code))", errno: code)
        }
        var attempts = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            attempts += 1
            if (code == EWOULDBLOCK || code == EINTR) && attempts < 20 {
                usleep(10_000)
                continue
            }
            close(fd)
            if code == EWOULDBLOCK {
                throw ThreadfoldError.output(
                    path: display, message: "another Threadfold build is writing this folder (it holds the lock on its \(markerName)); expected one build at a time", errno: code, temporary: true)
            }
            throw ThreadfoldError.output(path: site.path(markerName), message: "cannot be locked: \(SystemError.describe(code))", errno: code)
        }
        return fd
    }

    /// Removes from a recycled folder everything that is not a file `vouched` for (`Folder.verify`:
    /// this user's own, with the same stamp or content), or a folder of this user's on the way to
    /// one (any other folder goes whole); returns the files kept, with their stamps now. Hidden names are
    /// Threadfold's own bookkeeping at the top level only. (`SpareCleaning` also spares the
    /// top-level names of a spill being made while the folder is cleaned: `begin`'s `meanwhile`,
    /// which removes whatever stood at its names first.)
    ///
    /// Sub-folders wait as (parent, name) and are opened when their turn comes, so the walk holds
    /// one descriptor per level, not one per folder waiting (20,000 thread folders under `t/`
    /// would pass the limit on open files). `jobs` threads walk at once (`SpareCleaning`).
    static func clean(
        _ root: Folder, keeping vouched: [String: FileStamp], jobs: Int = ProcessInfo.processInfo.activeProcessorCount
    ) throws(ThreadfoldError) -> [String: FileStamp] {
        try SpareCleaning(root, keeping: vouched, sparing: []).onEveryCore(jobs: jobs)
    }

    /// A recycled folder being cleaned (`clean`) by any number of threads, each taking the folder
    /// that waited last from one queue (`SpareQueue`): the walk stays depth first, its open
    /// descriptors few, and the thread folders under `t/` spread over the threads whatever order
    /// the folder lists its names in.
    private final class SpareCleaning: Sendable {
        private let root: Folder
        private let rules: SpareWalk
        private let queue = SpareQueue(SpareWalk.Waiting(parent: nil, name: "", prefix: ""))

        init(_ root: Folder, keeping vouched: [String: FileStamp], sparing: Set<String>) {
            // The folders on the way to a vouched file; any other folder goes whole, so nothing of
            // a stranger's (not even an empty folder) is published.
            var folders: Set<Substring> = []
            for path in vouched.keys {
                var rest = path[...]
                // By bytes: a slash is never part of a longer character.
                while let slash = rest.utf8.lastIndex(of: UInt8(ascii: "/")) {
                    rest = rest[..<slash]
                    if !folders.insert(rest).inserted { break }
                }
            }
            self.root = root
            rules = SpareWalk(vouched: vouched, folders: folders, sparing: sparing)
        }

        /// While set, a walk that yields goes on (`stopYielding`).
        private let yields = Atomic<Bool>(true)

        /// A walk that yields (`walk(yielding: true)`) takes no folder after this.
        func stopYielding() { yields.store(false, ordering: .releasing) }

        /// Walks folders from the queue until none is left (or one thread's walk failed); with
        /// `yielding`, only until `stopYielding`.
        func walk(yielding: Bool = false) -> Result<SpareWalk, ThreadfoldError> {
            var walk = rules
            var children: [SpareWalk.Waiting] = []
            while !yielding || yields.load(ordering: .acquiring), let next = queue.take() {
                do throws(ThreadfoldError) {
                    try walk.visit(next, root: root, pending: &children) { queue.add(&$0) }
                } catch {
                    queue.fail()
                    return .failure(error)
                }
                queue.done(adding: &children)
            }
            return .success(walk)
        }

        /// The walk done (or ended) on `jobs` threads, with the `earlier` walks of threads that
        /// stopped before it was: the files kept.
        func onEveryCore(
            jobs: Int = ProcessInfo.processInfo.activeProcessorCount, joining earlier: [Result<SpareWalk, ThreadfoldError>] = []
        ) throws(ThreadfoldError) -> [String: FileStamp] {
            let jobs = max(jobs, 1)
            return try finish(earlier + Parallel.map(count: jobs, jobs: jobs) { _ in self.walk() })
        }

        /// The files kept, from every thread's walk: those whose stamps moved are hashed now.
        private func finish(_ walks: [Result<SpareWalk, ThreadfoldError>]) throws(ThreadfoldError) -> [String: FileStamp] {
            var kept: [String: FileStamp] = [:]
            kept.reserveCapacity(rules.vouched.count)
            var toHash: [(path: String, expected: FileStamp)] = []
            for result in walks {
                let walk = try result.get()
                for (path, stamp) in walk.kept { kept[path] = stamp }
                toHash += walk.toHash
            }
            try keepByContent(toHash, in: root, into: &kept)
            return kept
        }
    }

    /// The folders of a recycled folder waiting to be walked, shared by the threads that walk it:
    /// each takes the one that waited last (so the walk stays depth first, and its descriptors
    /// few), and the walk ends when none waits and none is being walked.
    private final class SpareQueue: Sendable {
        private struct State {
            var waiting: [SpareWalk.Waiting]
            var walking = 0
            var failed = false
        }

        private let state: Mutex<State>

        init(_ first: SpareWalk.Waiting) { state = Mutex(State(waiting: [first])) }

        /// The next folder to walk; nil when the walk is over (or has failed).
        func take() -> SpareWalk.Waiting? {
            while true {
                let next: (SpareWalk.Waiting?, over: Bool) = state.withLock { state in
                    if state.failed { return (nil, true) }
                    if let next = state.waiting.popLast() {
                        state.walking += 1
                        return (next, false)
                    }
                    return (nil, state.walking == 0)
                }
                if let folder = next.0 { return folder }
                if next.over { return nil }
                // Another thread is walking a folder whose sub-folders may yet wait.
                usleep(50)
            }
        }

        /// Sub-folders of a folder still being walked wait (and are taken out of `children`), so
        /// another thread need not wait for the end of a large folder (`t/`) to start on them.
        func add(_ children: inout [SpareWalk.Waiting]) { push(&children, walked: false) }

        /// A folder is walked: `children`, its sub-folders to walk, wait (and are taken out).
        func done(adding children: inout [SpareWalk.Waiting]) { push(&children, walked: true) }

        private func push(_ children: inout [SpareWalk.Waiting], walked: Bool) {
            let added = children
            children.removeAll(keepingCapacity: true)
            state.withLock { state in
                state.waiting += added
                if walked { state.walking -= 1 }
            }
        }

        func fail() { state.withLock { $0.failed = true } }
    }

    /// A walk of a recycled folder (`clean`): what it kept, what it must hash, and the rules.
    private struct SpareWalk: Sendable {
        /// A folder waiting to be walked: its name in `parent` (the root when nil) and the path
        /// of what it holds.
        struct Waiting: Sendable {
            let parent: Folder?
            let name: String
            let prefix: String
        }

        let vouched: [String: FileStamp]
        let folders: Set<Substring>
        let sparing: Set<String>
        var kept: [(path: String, stamp: FileStamp)] = []
        var toHash: [(path: String, expected: FileStamp)] = []

        /// Walks the folder `waiting`: its files kept, hashed later or removed; its sub-folders
        /// on the way to a vouched file added to `pending`, handed to `share` each 16 of them;
        /// anything else removed.
        mutating func visit(
            _ waiting: Waiting, root: Folder, pending: inout [Waiting], share: (inout [Waiting]) -> Void
        ) throws(ThreadfoldError) {
            let prefix = waiting.prefix
            let folder = try waiting.parent.map { (parent) throws(ThreadfoldError) in try parent.folder(waiting.name) } ?? root
            for entry in folder.names() {
                guard let name = String(validating: entry.name, as: UTF8.self) else {
                    // removeTree unlinks whatever is not a folder, so one call serves any entry.
                    try folder.removeTree(bytes: entry.name)
                    continue
                }
                let path = prefix + name
                if prefix.isEmpty && sparing.contains(name) { continue }
                let found = folder.entry(name)
                if prefix.isEmpty && name == markerName && found?.kind == .file && found?.own == true { continue }
                if found?.kind == .folder && found?.own == true && !name.hasPrefix(".") && folders.contains(path[...]) {
                    pending.append(Waiting(parent: folder, name: name, prefix: path + "/"))
                    if pending.count == 16 { share(&pending) }
                    continue
                }
                let expected = found?.kind == .file && found?.own == true ? vouched[path] : nil
                if let found, let expected, found.stamp == expected {
                    kept.append((path, found.stamp.hashed(expected.hash)))
                } else if let found, let expected, expected.hash != 0, found.stamp.size == expected.size {
                    // Its stamp moved: checked by its content later, on every core.
                    toHash.append((path, expected))
                } else {
                    try folder.removeEntry(name)
                }
            }
        }
    }

    /// The files whose stamps moved (a cache restore makes them all anew) read and hashed on
    /// every core (`Folder.verify`): kept when their bytes are the ones recorded, removed
    /// otherwise. Each file's folder is opened again from the root, one name at a time.
    private static func keepByContent(
        _ files: [(path: String, expected: FileStamp)], in root: Folder,
        into kept: inout [String: FileStamp]
    ) throws(ThreadfoldError) {
        guard !files.isEmpty else { return }
        let verified = Parallel.map(count: files.count, jobs: ProcessInfo.processInfo.activeProcessorCount) { i -> FileStamp? in
            var parts = RelativePath.segments(files[i].path)
            let name = String(parts.removeLast())
            guard let folder = try? root.folder(at: parts) else { return nil }
            return folder.verify(name, expected: files[i].expected)
        }
        for (file, stamp) in zip(files, verified) {
            if let stamp {
                kept[file.path] = stamp
                continue
            }
            var parts = RelativePath.segments(file.path)
            let name = String(parts.removeLast())
            if let folder = try? root.folder(at: parts) { try folder.removeEntry(name) }
        }
    }

    /// Renames an unusable folder beside the output out of the way (atomically, so it can never
    /// be mistaken for a whole one again), then removes it. Its new name is one the next build
    /// removes (`.<site>.old-<pid>-…`) should this process be killed before the removal ends.
    func discard(_ name: String, in parent: Folder, tag: String) {
        let trash = ".\(self.name).old-\(tag)"
        if renameat(parent.fd, name, parent.fd, trash) == 0 {
            try? parent.removeTree(trash)
        } else {
            _ = try? parent.removeEntry(name)
        }
    }

    /// The folders a run of writes on one thread opened last, from the staging folder down
    /// (`Staging.write(_:_:mode:folders:)`): held open until the run ends.
    package struct OpenFolders {
        fileprivate var names: [Substring] = []
        fileprivate var open: [Folder] = []

        package init() {}
    }

    /// An open staging folder. Writes may come from many threads at once.
    package final class Staging: @unchecked Sendable {
        let writer: SiteWriter
        let parent: Folder
        let folder: Folder
        let name: String
        let exists: Bool
        let keepSpare: Bool
        /// The folder is the recycled spare, and its manifest vouched for files: it holds those
        /// of them (from the site of two builds ago) it found intact, and nothing else.
        package var recycled: Bool { kept != nil }
        /// The recycled files this build found intact, with their stamps (set by `begin` before
        /// it returns).
        package private(set) var kept: [String: FileStamp]?
        private let state: Mutex<(folders: Set<String>, stamps: [String: FileStamp], finished: Bool, locks: [Int32])>
        /// The compressed siblings this build wrote or kept, by their file's path, and how many
        /// it wrote and kept.
        private let siblings = Mutex<(paths: [String: [String]], written: Int, kept: Int)>(([:], 0, 0))
        /// This build made a spill (`spill(count:bufferBytes:format:)`), so the kept spill is its to continue or drop.
        let spilled = Atomic<Bool>(false)

        init(writer: SiteWriter, parent: Folder, folder: Folder, name: String, exists: Bool, keepSpare: Bool, locks: [Int32]) {
            self.writer = writer
            self.parent = parent
            self.folder = folder
            self.name = name
            self.exists = exists
            self.keepSpare = keepSpare
            state = Mutex(([""], [:], false, locks))
            Self.active.withLock { $0[ObjectIdentifier(self)] = (parent, name) }
        }

        /// The folder was recycled, keeping `kept`: set once, before anything is written in it.
        fileprivate func recycled(_ kept: [String: FileStamp]) {
            state.withLock { state in
                precondition(self.kept == nil && state.stamps.isEmpty, "a staging folder is recycled before anything is written in it")
                state.stamps = kept
            }
            self.kept = kept
        }

        /// The staging folder's path, for a tool that works on the staged site (Pagefind).
        package var path: String { parent.path(name) }

        /// Says that another program writes in the staging folder (at `path`): what it writes is
        /// made durable by flushing the whole file system (`WriteJournal.overflow`).
        package func handedToAnotherProgram() { folder.journal?.overflow() }

        /// What committing flushes (`WriteJournal.recorded`); nil for the whole file system, and
        /// for a writer that is not `durable`, which flushes nothing.
        var journalled: (files: Set<String>, folders: Set<String>)? { folder.journal?.recorded }

        /// The files this build wrote, linked or kept that have not been taken (`take`).
        package var untaken: [String] { state.withLock { Array($0.stamps.keys) } }

        /// Stops keeping track of `paths` and of the compressed siblings written or kept beside
        /// them, and returns them, each file followed by its siblings, with their stamps, for a
        /// manifest to vouch for. A build takes each thread's files as soon as they are written,
        /// so this record holds the files in flight, not the whole site's.
        package func take(_ paths: [String]) -> (files: [String], stamps: [FileStamp]) {
            let files = siblings.withLock { siblings in
                siblings.paths.isEmpty ? paths : paths.flatMap { [$0] + (siblings.paths.removeValue(forKey: $0) ?? []) }
            }
            let stamps = state.withLock { state in files.map { state.stamps.removeValue(forKey: $0) ?? .unknown } }
            return (files, stamps)
        }

        /// Writes one file at a safe relative path (no `..`, no absolute or hidden parts), with
        /// `mode` less the umask. In a recycled folder, a file that already holds these bytes
        /// with that mode is left alone (false). With `precompress`, its compressed siblings
        /// are written too (`writeSiblings`).
        @discardableResult
        package func write(_ path: String, _ bytes: [UInt8], mode: mode_t = publishedMode) throws(ThreadfoldError) -> Bool {
            var folders = OpenFolders()
            return try write(path, bytes, mode: mode, folders: &folders)
        }

        /// `write`, in a run of writes on one thread that keeps the folders it last opened
        /// (`folders`): a thread's pages, sidecar and feed open their folder once, not once a file.
        package func write(_ path: String, _ bytes: [UInt8], mode: mode_t = publishedMode, folders: inout OpenFolders) throws(ThreadfoldError) -> Bool {
            if writer.precompress, let original = Precompression.file(ofSibling: path) {
                throw ThreadfoldError.output(path: path, message: "has the name a compressed copy of \(original) would have; expected no file of the site named like one")
            }
            let (directory, file) = try open(path, folders: &folders)
            if recycled {
                if let current = directory.read(file, limit: bytes.count), current.bytes == bytes,
                    state.withLock({ $0.stamps[path] == current.stamp }), directory.permissions(file) == Folder.created(mode)
                {
                    try writeSiblings(path, bytes, in: directory, name: file, unchanged: true, mode: mode)
                    return false
                }
                try directory.removeEntry(file)
            }
            let stamp = try directory.create(file, bytes, mode: mode, stamped: writer.stamps)
            if writer.stamps { state.withLock { $0.stamps[path] = stamp } }
            try writeSiblings(path, bytes, in: directory, name: file, unchanged: false, mode: mode)
            return true
        }

        /// With `precompress`, writes the compressed siblings of the file `name` in `directory`
        /// (at `path`, holding `bytes`), each only when it is smaller, removing any older one.
        /// Beside a file left unchanged, a sibling the recycled folder's manifest vouched for is
        /// kept: it was written with that file, from the same bytes. Siblings take the file's `mode`.
        private func writeSiblings(
            _ path: String, _ bytes: [UInt8], in directory: Folder, name: String, unchanged: Bool,
            encodings: [Precompression.Encoding] = Precompression.Encoding.allCases, mode: mode_t = publishedMode
        ) throws(ThreadfoldError) {
            guard writer.precompress, Precompression.applies(to: path) else { return }
            var present: [String] = []
            var written = 0, kept = 0
            for encoding in encodings {
                let siblingPath = path + encoding.suffix, siblingName = name + encoding.suffix
                if unchanged, let found = directory.entry(siblingName), found.kind == .file,
                    state.withLock({ $0.stamps[siblingPath] == found.stamp }), directory.permissions(siblingName) == Folder.created(mode)
                {
                    present.append(siblingPath)
                    kept += 1
                    continue
                }
                if try directory.removeEntry(siblingName) { state.withLock { _ = $0.stamps.removeValue(forKey: siblingPath) } }
                guard let compressed = try Precompression.sibling(of: bytes, encoding, path: siblingPath) else { continue }
                let stamp = try directory.create(siblingName, compressed, mode: mode)
                state.withLock { $0.stamps[siblingPath] = stamp }
                present.append(siblingPath)
                written += 1
            }
            siblings.withLock {
                $0.paths[path, default: []] += present
                $0.written += written
                $0.kept += kept
            }
        }

        /// Writes the compressed siblings in `encodings` of the file already at `path` here, from
        /// its own bytes: for `merge`, when a shard lacks them.
        func writeSiblings(of path: String, encodings: [Precompression.Encoding]) throws(ThreadfoldError) {
            let (directory, file) = try open(path)
            guard let current = directory.read(file, limit: Int.max) else {
                throw ThreadfoldError.output(path: directory.path(file), message: "cannot be read back to be compressed; expected the regular file just put there")
            }
            try writeSiblings(path, current.bytes, in: directory, name: file, unchanged: false, encodings: encodings)
        }

        /// How many compressed siblings this build wrote, and how many it left as they were.
        package var siblingCounts: (written: Int, unchanged: Int) { siblings.withLock { ($0.written, $0.kept) } }

        /// Puts the live site's file at `path` here as a hard link, so an unchanged page costs no
        /// rendering and no copy, but only when it is a regular file whose stamp is `expected`
        /// (what the live site's manifest recorded), or, with `expected` nil, whose bytes are
        /// `bytes`. Returns false when the live file does not qualify; nothing is linked then.
        /// A file linked by its bytes gets its compressed siblings written from them; one linked
        /// by its stamp does not (its manifest lists its siblings as files of their own).
        package func link(_ path: String, expected: FileStamp?, bytes: [UInt8]? = nil) throws(ThreadfoldError) -> Bool {
            guard let parts = RelativePath.safeSegments(path), let live = try? parent.folder(writer.name).folder(at: parts.dropLast()) else { return false }
            var expected = expected
            if let bytes {
                guard let current = live.read(String(parts.last!), limit: bytes.count), current.bytes == bytes else { return false }
                expected = current.stamp.hashed(FileStamp.contentHash(bytes))
            }
            guard expected != nil else { return false }
            let (directory, file) = try open(path)
            guard let stamp = try directory.link(file, as: file, from: live, expected: expected) else { return false }
            state.withLock { $0.stamps[path] = stamp }
            if let bytes { try writeSiblings(path, bytes, in: directory, name: file, unchanged: false) }
            return true
        }

        /// Puts each of the live site's `paths` here as `link(_:expected:)` does, each only when
        /// its stamp is its entry in `stamps`, all or none: when one does not qualify (false) or
        /// linking throws, the ones linked before it are removed again. Each folder, here and in
        /// the live site, is opened once for the files in it that come one after another (a
        /// thread's files share one), not once a file.
        package func link(_ paths: [String], expected stamps: [FileStamp]) throws(ThreadfoldError) -> Bool {
            guard stamps.count == paths.count, let site = try? parent.folder(writer.name) else { return false }
            var linked = 0
            defer { if linked < paths.count { for path in paths.prefix(linked) { remove(path) } } }
            var open: (folder: [Substring], live: Folder, here: Folder)?
            for (path, stamp) in zip(paths, stamps) {
                guard var parts = RelativePath.safeSegments(path) else { return false }
                let file = String(parts.removeLast())
                if open?.folder != parts {
                    // A folder is made here only for a file that qualifies, so a refusal leaves
                    // no empty folder behind.
                    guard let live = try? site.folder(at: parts), live.verify(file, expected: stamp) != nil else { return false }
                    open = (parts, live, try self.open(path).0)
                }
                guard let (_, live, here) = open else { return false }
                guard let stamp = try here.link(file, as: file, from: live, expected: stamp) else { return false }
                state.withLock { $0.stamps[path] = stamp }
                linked += 1
            }
            return true
        }

        /// Puts a regular file of another folder (a shard) here, as a hard link or a copy.
        func link(_ path: String, from source: Folder, file: String) throws(ThreadfoldError) -> Bool {
            let (directory, name) = try open(path)
            guard let stamp = try directory.link(file, as: name, from: source, expected: nil) else { return false }
            state.withLock { $0.stamps[path] = stamp }
            return true
        }

        /// Removes a file of a recycled folder, and its folders when they become empty.
        package func remove(_ path: String) {
            guard var parts = RelativePath.safeSegments(path) else { return }
            guard let directory = try? folder.folder(at: parts.dropLast()) else { return }
            _ = try? directory.removeEntry(String(parts.last!))
            state.withLock { _ = $0.stamps.removeValue(forKey: path) }
            parts.removeLast()
            while let last = parts.last {
                parts.removeLast()
                guard let above = try? folder.folder(at: Array(parts)), unlinkat(above.fd, String(last), AT_REMOVEDIR) == 0 else { break }
                let name = parts.isEmpty ? String(last) : parts.joined(separator: "/") + "/" + last
                _ = state.withLock { $0.folders.remove(name) }
            }
        }

        /// Writes Threadfold's own bookkeeping (`.threadfold-…`), which is hidden from readers,
        /// piece by piece as `body` hands its `write` the bytes.
        package func writeMetadata(_ name: String, writing body: (_ write: ([UInt8]) throws(ThreadfoldError) -> Void) throws(ThreadfoldError) -> Void) throws(ThreadfoldError) {
            guard name.hasPrefix(SiteWriter.markerName + "-"), !name.contains("/") else {
                throw ThreadfoldError.output(path: name, message: "is not a Threadfold metadata name")
            }
            try folder.removeEntry(name)
            try folder.create(name, writing: body)
        }

        /// Removes metadata file `name` (`.threadfold-…`), if the folder holds one.
        package func removeMetadata(_ name: String) throws(ThreadfoldError) {
            guard name.hasPrefix(SiteWriter.markerName + "-"), !name.contains("/") else {
                throw ThreadfoldError.output(path: name, message: "is not a Threadfold metadata name")
            }
            _ = try folder.removeEntry(name)
        }

        /// The folder that will hold `path` (created as needed, links in the way replaced) and
        /// the file's name in it.
        private func open(_ path: String) throws(ThreadfoldError) -> (Folder, String) {
            var folders = OpenFolders()
            return try open(path, folders: &folders)
        }

        /// `open`, the folders on the way taken from `folders` as far as they are the ones it
        /// opened last, the rest opened (and made) and kept there in their place.
        private func open(_ path: String, folders: inout OpenFolders) throws(ThreadfoldError) -> (Folder, String) {
            guard !Self.terminating.load(ordering: .acquiring) else {
                throw ThreadfoldError.output(path: writer.output.path, message: "was not published: the build was interrupted")
            }
            guard let parts = RelativePath.safeSegments(path) else {
                throw ThreadfoldError.output(path: path, message: "is not a safe relative path inside the output")
            }
            let names = parts.dropLast()
            var kept = 0
            while kept < min(names.count, folders.names.count), folders.names[kept] == names[names.startIndex + kept] { kept += 1 }
            folders.names.removeSubrange(kept...)
            folders.open.removeSubrange(kept...)
            var current = folders.open.last ?? folder
            for name in names.dropFirst(kept) {
                current = try current.folder(String(name), create: true, replace: true)
                folders.names.append(name)
                folders.open.append(current)
            }
            return (current, String(parts.last!))
        }

        /// Swaps the staging folder into place of the output.
        package func commit() throws(ThreadfoldError) {
            guard finish() else { return }
            guard !Self.terminating.load(ordering: .acquiring) else {
                throw ThreadfoldError.output(path: writer.output.path, message: "was not published: the build was interrupted")
            }
            defer { release() }
            // A kept spill no spill of this build continued belongs to inputs the site no longer has.
            if !spilled.load(ordering: .acquiring), parent.entry(writer.keptSpillName) != nil {
                writer.discard(writer.keptSpillName, in: parent, tag: "\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
            }
            do {
                // No spill is ever published (a build removes or keeps its own before this).
                for scratch in [SiteWriter.scratchNames.current, SiteWriter.scratchNames.previous] where folder.entry(scratch) != nil { try folder.removeTree(scratch) }
                if writer.durable {
                    if let journal = folder.journal { journal.sync(folder) } else { WriteJournal.syncFileSystem(folder.fd) }
                }
                try writer.swap(staging: name, in: parent, exists: exists, keepSpare: keepSpare)
            } catch {
                try? parent.removeTree(name)
                throw error
            }
        }

        /// Removes the staging folder; the old output stays as it was (and so does no spare: a
        /// recycled one was this staging folder).
        package func abandon() {
            guard finish() else { return }
            defer { release() }
            try? parent.removeTree(name)
        }

        private func finish() -> Bool {
            state.withLock { state in
                defer { state.finished = true }
                return !state.finished
            }
        }

        private func release() {
            Self.active.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(self)) }
            for fd in state.withLock({ $0.locks }) { close(fd) }
        }

        deinit { abandon() }

        /// Set once the process is ending on a signal: no staging folder is published after it.
        static let terminating = Atomic<Bool>(false)

        /// Staging folders in use, and the scratch folders of checks and renders, so a
        /// signal can remove them before the process ends.
        static let active = Mutex<[ObjectIdentifier: (parent: Folder, name: String)]>([:])
    }

    /// A metadata file (`.threadfold-…`) of the live site at `output`, read without following
    /// any link; nil when there is none.
    static func readMetadata(of output: URL, _ name: String) -> [UInt8]? {
        ownSite(output).flatMap { metadata(name, in: $0) }
    }

    /// The metadata file `name` (`.threadfold-…`) of a site or a spare, when it is the running
    /// user's own regular file (of 2 GiB at most).
    private static func metadata(_ name: String, in folder: Folder) -> [UInt8]? {
        folder.read(name, limit: metadataLimit, own: true)?.bytes
    }

    private static let metadataLimit = 1 << 31

    /// The start of the metadata file `name` of the site at `output`, read `blockBytes` at a time
    /// until `enough` says the bytes so far suffice (or the file ends).
    static func readMetadata(of output: URL, _ name: String, blockBytes: Int = 1 << 20, until enough: ([UInt8]) -> Bool) -> [UInt8]? {
        ownSite(output)?.readHead(name, blockBytes: blockBytes, own: true, limit: metadataLimit, until: enough)
    }

    /// The site folder at `output` when it is this user's own.
    private static func ownSite(_ output: URL) -> Folder? {
        let output = output.standardizedFileURL
        guard let parent = try? Folder.open(output.deletingLastPathComponent().path),
            let site = try? parent.folder(output.lastPathComponent), site.isOwnFolder
        else { return nil }
        return site
    }

    /// Whether a SIGINT or SIGTERM has come (`removeStagingFolders` has begun).
    package static var interrupted: Bool { Staging.terminating.load(ordering: .acquiring) }

    /// Removes every staging folder of this process, and every temporary spill's folder. For a
    /// SIGINT or SIGTERM handler, just before the process exits: nothing is published, and
    /// nothing is left beside the output or in the temporary folder. Child programs working in
    /// a staging folder (Pagefind) are killed first, with everything they started.
    package static func removeStagingFolders() {
        Staging.terminating.store(true, ordering: .releasing)
        ChildProcess.killAll()
        let folders = Staging.active.withLock { Array($0.values) }
        for (parent, name) in folders {
            // A write that began before the flag was set may still land: later passes take it.
            for pass in 0..<5 where parent.entry(name) != nil {
                if pass > 0 { usleep(20_000) }
                try? parent.removeTree(name)
            }
        }
    }

    /// Removes what interrupted runs left in `parent` (staging and old folders beside the output,
    /// a check's temporary spill): this user's own entries named by one of `prefixes`, then
    /// `<pid>-`, for a process that no longer runs.
    static func removeAbandoned(in parent: Folder, prefixes: [String]) {
        for entry in parent.names() {
            guard let sibling = String(validating: entry.name, as: UTF8.self),
                let prefix = prefixes.first(where: { sibling.hasPrefix($0) })
            else { continue }
            let rest = sibling.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = Int32(rest[..<dash]) else { continue }
            // Another user's entry is left alone: it is never this build's to read or remove.
            guard parent.entry(sibling)?.own == true else { continue }
            if pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH {
                try? parent.removeTree(sibling)
            }
        }
    }

    fileprivate func swap(staging: String, in parent: Folder, exists: Bool, keepSpare: Bool) throws(ThreadfoldError) {
        defer { if durable { parent.sync() } }
        if !exists {
            guard Self.rename(parent, staging, name, flags: Self.renameNoReplace) else {
                let code = errno
                if code == EEXIST || code == ENOTEMPTY {
                    throw ThreadfoldError.output(
                        path: display, message: "was created by another build while this one ran (a lost race); nothing was published, run the build again", errno: code, temporary: true)
                }
                throw ThreadfoldError.output(path: output.path, message: "could not be put in place: \(SystemError.describe(code))", errno: code)
            }
            return
        }
        if Self.rename(parent, staging, name, flags: Self.renameExchange) {
            // The staging name now holds the old output.
            keepOld(staging, in: parent, keepSpare: keepSpare)
            return
        }
        let old = ".\(name).old-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard renameat(parent.fd, name, parent.fd, old) == 0 else {
            throw ThreadfoldError.output(path: output.path, message: "could not be moved aside: \(SystemError.last)", errno: errno)
        }
        guard renameat(parent.fd, staging, parent.fd, name) == 0 else {
            let code = errno
            _ = renameat(parent.fd, old, parent.fd, name)
            throw ThreadfoldError.output(path: output.path, message: "could not be put in place: \(SystemError.describe(code))", errno: code)
        }
        keepOld(old, in: parent, keepSpare: keepSpare)
    }

    /// The old output becomes the spare, or is removed.
    private func keepOld(_ old: String, in parent: Folder, keepSpare: Bool) {
        if keepSpare && parent.entry(spareName) == nil && renameat(parent.fd, old, parent.fd, spareName) == 0 { return }
        try? parent.removeTree(old)
    }

    static let renameExchange: UInt32 = 1 << 1
    static let renameNoReplace: UInt32 = 1 << 0

    /// Linux's renameat2, looked up at run time so the binary still runs where libc lacks it;
    /// without it, an exchange fails (the caller falls back to two renames) and a no-replace
    /// rename is a plain one.
    static func rename(_ parent: Folder, _ from: String, _ to: String, flags: UInt32) -> Bool {
        typealias Renameat2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else {
            return flags == renameNoReplace && renameat(parent.fd, from, parent.fd, to) == 0
        }
        let renameat2 = unsafeBitCast(symbol, to: Renameat2.self)
        if renameat2(parent.fd, from, parent.fd, to, flags) == 0 { return true }
        if flags == renameNoReplace && errno == EINVAL { return renameat(parent.fd, from, parent.fd, to) == 0 }
        return false
    }
}

extension ThreadfoldError {
    /// The file system is out of space, inodes or quota.
    package var isFull: Bool { errno.map(SystemError.isFull) ?? false }
}

extension ThreadfoldError {
    /// The error as a located problem: the path and the message.
    var problem: Problem { Problem(file: path, message: message) }
}
