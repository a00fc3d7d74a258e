import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The inputs of an archive build, as units that can be read one at a time and in any order:
/// a whole file (any form, one thread or many), one line of a JSON Lines file that holds a
/// thread per line, or standard input.
///
/// Folders are walked for `*.json`, `*.jsonl` and `*.ndjson` files, and those compressed
/// (`Compression.fileExtensions`), hidden names and what `FolderFilter` leaves out skipped, in
/// byte order of their paths, so the list does not depend on the file system's order. In a
/// folder, `.json` files are single documents and only `.jsonl`/`.ndjson` files are looked into
/// for JSON Lines (so listing a folder reads no thread); a file named on the command line is
/// always looked into. A JSON
/// Lines file of threads is scanned for line boundaries only; each line is read when its turn
/// comes, so memory holds the threads being rendered, not the archive.
package struct ArchiveUnit: Sendable {
    package enum Source: Sendable {
        case file(path: String)
        /// Bytes `offset..<offset+length` of `path`, starting on line `line` (1-based).
        case line(path: String, offset: Int, length: Int, line: Int)
        case bytes([UInt8])
        /// A dump (`DumpForm`): JSON Lines, plain or compressed, whose records are spread across
        /// threads; it is streamed into partitions, never read whole.
        case dump(path: String, form: DumpForm)
    }

    package var source: Source
    /// The name used in messages: the path as given, or `<stdin>`.
    package var display: String
    /// For a thread inside a document of many (`$.threads[3]`): its JSON path, which prefixes the
    /// paths in its messages, and the columns before it on its first line, which a message on
    /// that line adds to its column. (Its bytes are read as they are, never indented: in a
    /// document on one line that would cost the length of every thread before it.)
    package var element: (path: String, indent: Int)?
    /// The hash of the unit's bytes (`contentHash(of:)`) when listing it read them (a thread of
    /// a document), with the file's size, modification time (ns) and inode as it read them: a
    /// build that finds the file so still need not read the unit to know it.
    package var listed: (hash: UInt64, size: Int64, mtime: Int64, inode: UInt64)?

    package init(source: Source, display: String) {
        self.source = source
        self.display = display
    }

    /// Lines in this unit's messages are the file's lines.
    package var lineBase: Int {
        if case .line(_, _, _, let line) = source { return line - 1 }
        return 0
    }

    /// The unit's bytes. A file must still be a regular file within `InputLimits.maxDocumentBytes`;
    /// an error about a line of a JSON Lines file says line 1, as the unit's other errors do
    /// before they are shifted by `lineBase`.
    package func read() throws(ThreadfoldError) -> [UInt8] {
        switch source {
        case .bytes(let bytes): return bytes
        case .dump:
            throw ThreadfoldError.input([Problem(file: display, message: "is a dump, which is streamed into partitions rather than read whole")])
        case .file(let path):
            return try InputFile.read(path, display: display, streams: false)
        case .line(let path, let offset, let length, _):
            let file: OpenFile
            do { file = try OpenFile.open(path) } catch { throw ThreadfoldError.input([InputFile.cannotRead(display, error.code, line: 1)]) }
            guard file.kind == .regular, let bytes = file.read(count: length, at: offset), bytes.count == length else {
                throw ThreadfoldError.input([Problem(file: display, line: 1, column: 1, message: "changed while it was read; expected the file as it was listed")])
            }
            return bytes
        }
    }

    /// The hash that tells a unit's bytes from others (`StableHash.wide`): taken of every thread
    /// of a document as it is listed, so it is the one hash of its kind worth making fast.
    package static func contentHash(of raw: UnsafeRawBufferPointer) -> UInt64 { StableHash.wide(raw) }

    package static func contentHash(of bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { contentHash(of: $0) } }

    /// A key for what decides the unit's files besides the build's settings. A file, a line of
    /// JSON Lines and a thread of a document are known by their bytes alone (`contentHash`),
    /// wherever they lie: a renamed or moved file, a reordered document and a thread moved
    /// between files are the same units. Nothing else in their pages depends on their place
    /// (a thread without an id is named from what it says, `ThreadRecord.threadID`), and their
    /// messages are put at their place when reported.
    package func key(contentHash: UInt64?) -> String {
        switch source {
        case .file, .line: return "bytes:" + (contentHash.map(StableHash.hex) ?? "")
        case .dump(let path, _): return "dump:" + path
        // Standard input, or a pipe named on the command line.
        case .bytes: return display == "<stdin>" ? "stdin" : "stream:" + display
        }
    }
}

package enum ArchiveInput {
    /// Lists the units of `inputs` (paths, folders, or `-`). `threadPerLine` decides, for a JSON
    /// Lines file, whether its lines are threads (streamed one by one) or comments of a file read
    /// whole (Hacker News items, a Reddit dump, a mapped list); nil means look at the first line.
    ///
    /// `dumpForm` says, from a file's first line, whether it is a dump to stream (nil: never).
    ///
    /// Folders are walked with `filter` (`FolderFilter`); what is named in `inputs` is read
    /// whatever it says. A document's threads that are `known` are hashed, not checked again.
    package static func units(
        _ inputs: [String], readStandardInput: () throws(ThreadfoldError) -> [UInt8],
        linesAreThreads: Bool? = nil, dumpForm: (([UInt8]) -> DumpForm?)? = nil,
        filter: FolderFilter = FolderFilter(), known: KnownElements? = nil
    ) throws(ThreadfoldError) -> [ArchiveUnit] {
        var units: [ArchiveUnit] = []
        var errors: [Problem] = []
        // Each file is read once, under the first name it was given (named twice, or named and
        // also in a folder given): a second reading would claim its own threads again.
        var read: Set<Identity> = []
        func first(_ path: String) -> Bool {
            guard let status = try? FileStatus.of(path) else { return true }
            return read.insert(Identity(device: status.device, inode: status.inode)).inserted
        }
        for input in inputs {
            do throws(ThreadfoldError) {
                if input == "-" {
                    units.append(ArchiveUnit(source: .bytes(try readStandardInput()), display: "<stdin>"))
                    continue
                }
                switch try InputFile.kind(input, missing: "no such file or folder; expected thread files, a folder of them, or '-' for standard input") {
                case .pipe:
                    // `<(…)` or a FIFO: read now, as standard input is.
                    units.append(ArchiveUnit(source: .bytes(try InputFile.read(input, display: input, streams: true)), display: input))
                case .regular:
                    guard first(input) else { continue }
                    do { units.append(contentsOf: try fileUnits(input, linesAreThreads: linesAreThreads, dumpForm: dumpForm, known: known)) } catch {
                        errors += error.problems
                    }
                case .folder:
                    let listing = listFolder(input, filter: filter)
                    errors += listing.errors
                    if listing.files.isEmpty && listing.errors.isEmpty {
                        errors.append(Problem(file: input, message: "holds no .json, .jsonl or .ndjson files (plain, or .zst, .zstd or .gz); expected a folder of thread files or dumps"))
                    }
                    for file in listing.files where first(file) {
                        // In a folder, a .json file is one document (of one thread or many); .jsonl
                        // and .ndjson files are looked into.
                        if file.hasSuffix(".json") {
                            units += threadsOfDocument(file, known: known) ?? [ArchiveUnit(source: .file(path: file), display: file)]
                            continue
                        }
                        do { units.append(contentsOf: try fileUnits(file, linesAreThreads: linesAreThreads, dumpForm: dumpForm, known: known)) } catch {
                            errors += error.problems
                        }
                    }
                }
            } catch {
                errors += error.problems
            }
        }
        if !errors.isEmpty { throw ThreadfoldError.input(errors) }
        return units
    }

    /// The dump detector for a build reading with `options`: a file whose first line is a record
    /// of a dump form is streamed.
    package static func dumps(_ options: ImportOptions) -> ([UInt8]) -> DumpForm? {
        { DumpForm.detect($0, options: options) }
    }

    /// The dump form of the regular file at `path`, or nil when `units` would not stream it,
    /// from its first line by the rule `fileUnits` follows: a record of a dump form (`dumpForm`)
    /// in a compressed file, or in a plain one whose first line is not a whole thread. For a
    /// command that reads every other file its own way (`check`).
    package static func dumpForm(ofFile path: String, linesAreThreads: Bool?, dumpForm: ([UInt8]) -> DumpForm?) -> DumpForm? {
        // A file that cannot be looked at (or holds no line) is read whole, which says why.
        guard let first = (try? leadingLine(path, maxLineBytes: InputLimits.maxLineBytes)) ?? nil else { return nil }
        return Self.dumpForm(ofFirstLine: first, plain: !isCompressed(path), linesAreThreads: linesAreThreads, dumpForm: dumpForm)
    }

    /// The rule `dumpForm(ofFile:)` applies to a file's first line (`plain` when the file is not
    /// compressed).
    private static func dumpForm(
        ofFirstLine first: [UInt8], plain: Bool, linesAreThreads: Bool?,
        dumpForm: ([UInt8]) -> DumpForm?
    ) -> DumpForm? {
        if linesAreThreads == true && plain { return nil }
        // The form before `isThread`: `dumpForm` rules most files out without parsing them
        // (`DumpForm.mayDetect`), and `isThread` parses the line.
        guard let form = dumpForm(first) else { return nil }
        if linesAreThreads == nil && plain && isThread(first) { return nil }
        return form
    }

    /// A regular file read once to render it: a dump, or the bytes of a document.
    package enum Contents {
        case dump(DumpForm)
        case document([UInt8])
    }

    /// The largest file `contents(ofFile:dumpForm:)` reads whole to see whether it is a dump: a
    /// dump may be tens of GB. A plain dump up to this size is read whole and then streamed.
    static let wholeReadBytes = 16 << 20

    /// The regular file at `path`, read once for a command that renders each file as its turn
    /// comes (`render`): its dump form when `dumpForm(ofFile:)` would give one, else its bytes
    /// as `InputFile.read` gives them, so a thread file is not read a second time after its
    /// first line was looked at. Nil when the file is not read whole to decide, and the caller
    /// asks `dumpForm(ofFile:)` and reads it as before: a compressed file (told by its first
    /// bytes, before anything else is read), one larger than `wholeReadBytes`, or one that
    /// cannot be read (the later read says why).
    package static func contents(ofFile path: String, dumpForm: ([UInt8]) -> DumpForm?) -> Contents? {
        guard case .success(let file) = OpenFile.regular(path), file.size <= wholeReadBytes,
            InputFile.compression(file.fd) == nil,
            case .success(let bytes) = file.readAll(limit: wholeReadBytes, sizeHint: file.size),
            Compression.detect(bytes) == nil
        else { return nil }
        if let first = Self.firstLine(of: bytes),
            let form = Self.dumpForm(ofFirstLine: first, plain: true, linesAreThreads: nil, dumpForm: dumpForm)
        {
            return .dump(form)
        }
        return .document(bytes)
    }

    /// Input files under `folder`, recursively, sorted by path bytes; hidden names are skipped,
    /// and so is anything that is neither a regular file nor a folder (FIFOs, sockets, devices).
    ///
    /// Links are followed, but each folder is walked once per (device, inode) and each file is
    /// listed once, under its first path in byte order, so links cannot loop or list a thread
    /// twice. Folders are walked depth first with each folder's entries in byte order of
    /// `name/`, which visits folders in byte order of their paths; so the path a folder is
    /// walked under is its first in byte order too. A name that is not UTF-8 cannot be carried
    /// in a path here: such a file or folder is reported, to be renamed.
    ///
    /// `filter` leaves out what is Threadfold's output and what `--exclude` names
    /// (`FolderFilter`), silently, as ripgrep leaves out ignored files: below `folder`, a folder
    /// holding the filter's marker file or the output itself. `folder` itself holding the marker
    /// is an error: a site is not an input.
    static func listFolder(_ folder: String, filter: FolderFilter = FolderFilter()) -> (files: [String], errors: [Problem]) {
        var found: [(path: String, identity: Identity)] = []
        var errors: [Problem] = []
        var walked: Set<Identity> = []
        var pending: [(path: String, relative: [String])] = [(folder, [])]
        while let (current, relative) = pending.popLast() {
            guard let (directory, device) = openFolder(current, relative: relative, filter: filter, walked: &walked, errors: &errors) else { continue }
            defer { closedir(directory) }
            let prefix = current.hasSuffix("/") ? current : current + "/"
            var folders: [(key: [UInt8], path: String, relative: [String])] = []
            while true {
                errno = 0
                guard let entry = readdir(directory) else {
                    if errno != 0 { errors.append(InputFile.cannotRead(current, errno)) }
                    break
                }
                let nameBytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
                guard nameBytes.first != UInt8(ascii: ".") else { continue }
                var type = entry.pointee.d_type
                var identity = Identity(device: device, inode: UInt64(entry.pointee.d_ino))
                if type == UInt8(DT_UNKNOWN) || type == UInt8(DT_LNK) {
                    // Follow links and ask the file system when readdir cannot tell.
                    let found = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                        Result { () throws(SystemCallError) in
                            try FileStatus.of(raw.baseAddress!.assumingMemoryBound(to: CChar.self), in: dirfd(directory))
                        }
                    }
                    let target: FileStatus
                    switch found {
                    case .success(let status): target = status
                    case .failure(let failure):
                        // A link to nothing, or to nothing we may see: worth saying only for an input's name.
                        if isInputName(nameBytes), let name = String(validating: nameBytes, as: UTF8.self) {
                            errors.append(InputFile.cannotRead(prefix + name, failure.code))
                        }
                        continue
                    }
                    type = target.kind == .folder ? UInt8(DT_DIR) : target.kind == .regular ? UInt8(DT_REG) : UInt8(DT_UNKNOWN)
                    identity = Identity(device: target.device, inode: target.inode)
                }
                guard type == UInt8(DT_DIR) || (type == UInt8(DT_REG) && isInputName(nameBytes)) else { continue }
                guard let name = String(validating: nameBytes, as: UTF8.self) else {
                    let what = type == UInt8(DT_DIR) ? "a folder" : "a file"
                    errors.append(
                        Problem(
                            file: prefix + Printable.escape(bytes: nameBytes),
                            message: "is \(what) whose name is not UTF-8 (the bytes that are not are shown as \\xNN); expected a UTF-8 name: rename it"))
                    continue
                }
                if filter.excludes(relative + [name], isFolder: type == UInt8(DT_DIR)) { continue }
                if type == UInt8(DT_DIR) {
                    folders.append((nameBytes + [UInt8(ascii: "/")], prefix + name, relative + [name]))
                } else {
                    found.append((prefix + name, identity))
                }
            }
            // Depth first, the smallest name first: pushed largest first.
            folders.sort { $1.key.lexicographicallyPrecedes($0.key) }
            pending += folders.map { ($0.path, $0.relative) }
        }
        let keys = found.map { Array($0.path.utf8) }
        var seen: Set<Identity> = []
        var files: [String] = []
        for i in found.indices.sorted(by: { keys[$0].lexicographicallyPrecedes(keys[$1]) }) where seen.insert(found[i].identity).inserted {
            files.append(found[i].path)
        }
        return (files, errors)
    }

    /// A device and inode: how a walk knows a folder or a file under any of its paths.
    private struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// Folder `path` of a walk opened for reading, with its device; nil when it is not walked:
    /// it cannot be read (said in `errors`), it was walked under another path, or it is
    /// Threadfold's output (`filter`), which is an error only for the folder given (`relative`
    /// empty).
    private static func openFolder(
        _ path: String, relative: [String], filter: FolderFilter, walked: inout Set<Identity>,
        errors: inout [Problem]
    ) -> (directory: OpaquePointer, device: UInt64)? {
        let folder: OpenFile
        do { folder = try OpenFile.open(path, folder: true) } catch {
            errors.append(InputFile.cannotRead(path, error.code))
            return nil
        }
        let identity = Identity(device: folder.status.device, inode: folder.status.inode)
        guard walked.insert(identity).inserted else { return nil }
        if filter.marker.map({ holds(folder.fd, $0) }) == true || (!relative.isEmpty && filter.isOutput(device: identity.device, inode: identity.inode)) {
            if relative.isEmpty {
                errors.append(Problem(file: path, message: "is a folder Threadfold wrote (it holds \(filter.marker ?? "")); expected a folder of inputs, which skips such folders inside it"))
            }
            return nil
        }
        let fd = folder.release()
        guard let directory = fdopendir(fd) else {
            errors.append(InputFile.cannotRead(path, errno))
            close(fd)
            return nil
        }
        return (directory, identity.device)
    }

    /// Whether the open folder `fd` holds a regular file named `marker`.
    private static func holds(_ fd: Int32, _ marker: String) -> Bool {
        (try? FileStatus.of(marker, in: fd, followLinks: false))?.kind == .regular
    }

    private static let inputSuffixes = [".json", ".jsonl", ".ndjson"] + Compression.fileExtensions.map { "." + $0 }

    static func isInputName(_ name: [UInt8]) -> Bool {
        for suffix in inputSuffixes where name.count > suffix.utf8.count && name.suffix(suffix.utf8.count).elementsEqual(suffix.utf8) {
            return true
        }
        return false
    }

    /// One unit for the file, or one per line when it is JSON Lines of threads. Lines longer than
    /// `maxLineBytes` are errors, naming the line; the file is scanned in chunks, never held whole.
    static func fileUnits(
        _ path: String, linesAreThreads: Bool?, dumpForm: (([UInt8]) -> DumpForm?)? = nil,
        maxLineBytes: Int = InputLimits.maxLineBytes, known: KnownElements? = nil
    ) throws(ThreadfoldError) -> [ArchiveUnit] {
        let file = [ArchiveUnit(source: .file(path: path), display: path)]
        // A dump, plain or compressed, is streamed: its first line says so.
        func dump(_ first: [UInt8]?) -> [ArchiveUnit]? {
            guard let dumpForm, let first, let form = dumpForm(first) else { return nil }
            return [ArchiveUnit(source: .dump(path: path, form: form), display: path)]
        }
        // Opened once: its first bytes, its first line and its lines are all read from this descriptor.
        let opened: OpenFile
        switch OpenFile.regular(path) {
        case .success(let file): opened = file
        case .failure(let failure): throw ThreadfoldError.input([InputFile.refused(path, failure)])
        }
        let compressed = isCompressed(opened)
        if linesAreThreads == false || compressed {
            return dump(try leadingLine(opened, path, compressed: compressed, maxLineBytes: maxLineBytes)) ?? file
        }
        // One document: of one thread, or of many (a unit each).
        var document = documentThreads(opened, path, known: known)
        let whole = document?.units ?? file
        // A document whose root members rule out every dump form (`DumpForm.mayDetectAny`) is
        // its threads: on one line, as the rules below would find; on several, its first line is
        // no whole JSON value (the document is one), so no dump's record either, and no thread.
        // Its names are known from listing it, so neither its lines nor its members are looked for
        // again, and a first line past the limit of JSON Lines is no error.
        if linesAreThreads == nil, let names = document?.rootMembers, !DumpForm.mayDetectAny(rootMembers: names) { return whole }
        // A document of many threads on a line of its own (an export written without line breaks)
        // is not JSON Lines, which takes more than one line: what the scan below would make of
        // its one line (a dump's first line, or not) is decided from the bytes already read.
        if linesAreThreads == nil, let bytes = document?.bytes, let line = bytes.withBuffer(Self.soleLine) {
            guard line.range.count <= maxLineBytes else { return whole }
            let first = bytes.withBuffer { Array($0[line.range]) }
            // Cut short since it was listed: as it is now, a file (its reading says so).
            guard !bytes.damaged else { return file }
            document = nil
            guard let dumped = dump(first) else { return whole }
            return line.ended && Self.isThread(first) ? whole : dumped
        }
        guard opened.rewind() else { throw ThreadfoldError.input([InputFile.cannotRead(path, errno)]) }
        // Scan for line boundaries in chunks; stop early when the file is not JSON Lines of threads.
        var scan = LineScan(path: path, decided: linesAreThreads ?? false, maxLineBytes: maxLineBytes)
        // Chunks of 4 MiB, or the whole file and one byte (to see its end) when it is smaller.
        let chunkBytes = min(4 << 20, max(opened.size, 0) + 1)
        while true {
            guard let chunk = FileIO.read(opened.fd, count: chunkBytes) else { throw ThreadfoldError.input([InputFile.cannotRead(path, errno)]) }
            if chunk.isEmpty { break }
            guard scan.read(chunk) else { return dump(scan.firstLine) ?? whole }
            // Too long a first line in a file too large to read whole: reading it says so.
            if scan.firstTooLong && scan.units.isEmpty && opened.size > InputLimits.maxDocumentBytes { return whole }
        }
        if scan.offset > scan.lineStart {
            if scan.isUndecided { return dump(scan.firstLine) ?? whole }
            scan.add(scan.lineStart, scan.offset)
        }
        // One line holding the whole file is an ordinary file; blank-only lines are dropped.
        scan.units.removeAll { unit in
            guard case .line(_, let start, let length, _) = unit.source else { return false }
            return isBlank(path, start, length)
        }
        if scan.units.count <= 1 && linesAreThreads == nil { return whole }
        // A first line too long to look at, with more lines after it: JSON Lines all the same.
        if !scan.tooLong.isEmpty { throw ThreadfoldError.input(scan.tooLong) }
        return scan.units.isEmpty ? whole : scan.units
    }

    /// The line boundaries of a file read in chunks, as a unit a line, and its first line, kept
    /// (up to the line limit) to decide whether its lines are threads.
    struct LineScan {
        let path: String
        /// Whether the lines are threads is decided (by the caller, or by the first line).
        var decided: Bool
        let maxLineBytes: Int
        var units: [ArchiveUnit] = []
        /// Lines past `maxLineBytes`, as errors.
        var tooLong: [Problem] = []
        var lineStart = 0
        var lineNumber = 1
        /// Bytes read so far.
        var offset = 0
        var firstLine: [UInt8] = []
        /// The first line is longer than the limit: it decides nothing yet.
        var firstTooLong = false

        init(path: String, decided: Bool, maxLineBytes: Int) {
            self.path = path
            self.decided = decided
            self.maxLineBytes = maxLineBytes
        }

        /// No line has decided yet whether the lines are threads.
        var isUndecided: Bool { units.isEmpty && !decided && !firstTooLong }

        /// A unit for the line from `start` to `end`; an error too when it is longer than the limit.
        mutating func add(_ start: Int, _ end: Int) {
            units.append(ArchiveUnit(source: .line(path: path, offset: start, length: end - start, line: lineNumber), display: path))
            if end - start > maxLineBytes {
                tooLong.append(
                    Problem(
                        file: path, line: lineNumber, column: 1,
                        message:
                            "line \(lineNumber) is \(end - start) bytes long; expected at most \(InputLimits.describe(maxLineBytes)) per line of JSON Lines of threads (a thread that large belongs in a file of its own)"
                    ))
            }
        }

        /// Keeps `part` of the first line while it may still decide.
        mutating func keepFirst(_ part: Slice<UnsafeBufferPointer<UInt8>>) {
            guard isUndecided else { return }
            if firstLine.count + part.count > maxLineBytes {
                firstTooLong = true
                firstLine = []
            } else {
                firstLine.append(contentsOf: part)
            }
        }

        /// Reads the lines that end in `chunk`, the next bytes of the file. False when the first
        /// line says the lines are not threads: the scan stops there.
        mutating func read(_ chunk: [UInt8]) -> Bool {
            let more = chunk.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
                let bytes = raw.bindMemory(to: UInt8.self)
                var i = 0
                while i < bytes.count {
                    guard let hit = memchr(bytes.baseAddress! + i, 0x0A, bytes.count - i) else {
                        keepFirst(bytes[i...])
                        break
                    }
                    let end = bytes.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    keepFirst(bytes[i..<end])
                    let absoluteEnd = offset + end
                    if isUndecided && LineStream.isBlank(firstLine) {
                        // Blank lines before the first are skipped, as `LineStream` skips them
                        // (a CRLF file's blank line is "\r").
                        firstLine = []
                    } else if absoluteEnd > lineStart {
                        if isUndecided {
                            // The first line decides: a whole thread on it, with more lines after.
                            decided = ArchiveInput.isThread(firstLine)
                            if !decided { return false }
                        }
                        add(lineStart, absoluteEnd)
                    }
                    lineStart = absoluteEnd + 1
                    lineNumber += 1
                    i = end + 1
                }
                return true
            }
            if more { offset += chunk.count }
            return more
        }
    }

    /// A document of many threads (`{"threads": [...]}`, or an array of thread objects) as a unit
    /// per thread, so its threads are rendered in parallel and rebuilt one by one; nil for any
    /// other file. Each unit is the thread's bytes, read with `pread` when its turn comes, with
    /// its line, its column (as indentation) and its JSON path, so messages name the document's
    /// own places. Only files whose first bytes look like one are parsed here.
    static func threadsOfDocument(_ path: String, known: KnownElements? = nil) -> [ArchiveUnit]? {
        guard case .success(let file) = OpenFile.regular(path) else { return nil }
        return documentThreads(file, path, known: known)?.units
    }

    /// `threadsOfDocument(_:)` of the regular file `file`, open at `path`, with the document's bytes.
    static func documentThreads(
        _ file: OpenFile, _ path: String, known: KnownElements? = nil
    ) -> (units: [ArchiveUnit], bytes: DocumentBytes, rootMembers: [[UInt8]]?)? {
        guard let head = file.read(count: 4096, at: 0), Compression.detect(head) == nil else { return nil }
        let start = head.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        switch start.first {
        case UInt8(ascii: "["):
            guard start.dropFirst().first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) == UInt8(ascii: "{") else { return nil }
        case UInt8(ascii: "{"):
            // `"threads"` among the first bytes: checked at each quote, not by comparing a slice at
            // every offset of 4 KiB, which would be the largest cost per file of an unchanged build.
            let key: StaticString = "\"threads\""
            let found = head.withUnsafeBufferPointer { head in
                ByteSearch.any(UInt8(ascii: "\""), in: head) { at in
                    at + key.utf8CodeUnitCount <= head.count && memcmp(head.baseAddress! + at, key.utf8Start, key.utf8CodeUnitCount) == 0
                }
            }
            guard found else { return nil }
        default:
            return nil
        }
        // Not compressed (its head says so): its bytes on disk are the document, mapped rather
        // than read into new memory (`MappedFile`), or read when they cannot be.
        guard file.size <= InputLimits.maxDocumentBytes else { return nil }
        // Whether the outline already left the document to the parser: it is not run again.
        var undecided = false
        if let mapped = MappedFile(file.fd, count: file.size) {
            let outline = JSONOutline.threadList(mapped.bytes, known: known)
            // Cut short or grown while it was read: listed as it is now, as a file whose size
            // changed before it was read is.
            func changed() -> Bool { mapped.damaged || file.sizeNow != file.size }
            switch outline {
            case .noList: return nil
            case .list(let listPath, let elements, let rootMembers, let hashes):
                let units = documentThreads(mapped.bytes, listPath, elements, hashes, file, path)
                let names = rootMembers.map { $0.map { Array(mapped.bytes[$0]) } }
                guard !changed() else { return nil }
                return (units, .mapped(mapped), names)
            case .undecided:
                // The parser decides, from an array read anew (never from a mapping cut short).
                guard !changed() else { return nil }
                undecided = true
            }
        }
        guard let bytes = file.read(count: file.size + 1, at: 0), bytes.count == file.size,
            let list = undecided ? parsedThreadList(bytes).map({ ($0.path, $0.elements, nil) }) : threadList(bytes)
        else { return nil }
        let units = bytes.withUnsafeBufferPointer { documentThreads($0, list.path, list.elements, nil, file, path) }
        return (units, .read(bytes), list.rootMembers)
    }

    /// A document's bytes as listing read them: mapped, or read into an array when they could not be.
    enum DocumentBytes {
        case mapped(MappedFile)
        case read([UInt8])

        func withBuffer<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            switch self {
            case .mapped(let file): return body(file.bytes)
            case .read(let bytes): return bytes.withUnsafeBufferPointer(body)
            }
        }

        /// Whether the mapped file was cut short under what has been read of it so far.
        var damaged: Bool {
            if case .mapped(let file) = self { return file.damaged }
            return false
        }
    }

    /// The units of the threads at `elements` of the list at `listPath` in the document's bytes,
    /// with their `hashes` when listing took them.
    private static func documentThreads(
        _ bytes: UnsafeBufferPointer<UInt8>, _ listPath: String, _ elements: [Range<Int>], _ hashes: [UInt64]?, _ file: OpenFile,
        _ path: String
    ) -> [ArchiveUnit] {
        let locator = TextLocator()
        var units: [ArchiveUnit] = []
        units.reserveCapacity(elements.count)
        for (position, element) in elements.enumerated() {
            let (line, column) = locator.location(in: bytes, offset: element.lowerBound)
            var unit = ArchiveUnit(source: .line(path: path, offset: element.lowerBound, length: element.count, line: line), display: path)
            unit.element = ("\(listPath)[\(position)]", column - 1)
            let hash = hashes?[position] ?? ArchiveUnit.contentHash(of: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[element]))
            unit.listed = (hash, Int64(file.size), file.status.modified, file.status.inode)
            units.append(unit)
        }
        return units
    }

    /// The first line of `bytes` (`LineStream.firstLine(of:)`) as the dump rules read it. A file
    /// of one line that is not blank (most thread files) is given whole, not copied: what else it
    /// holds is blank lines, which JSON reads as whitespace, as the rules do. Not when the line
    /// opens with a byte order mark after blank lines: JSON skips one only at the very start.
    static func firstLine(of bytes: [UInt8]) -> [UInt8]? {
        guard let line = soleLine(bytes), line.range.lowerBound == 0 || !bytes[line.range].starts(with: [0xEF, 0xBB, 0xBF]) else {
            return LineStream.firstLine(of: bytes)
        }
        return line.range.count <= InputLimits.maxLineBytes ? bytes : nil
    }

    /// The one line of `bytes` that is not blank (`LineStream.isBlank`), and whether a line break
    /// ends it; nil when there are more, or none.
    static func soleLine(_ bytes: [UInt8]) -> (range: Range<Int>, ended: Bool)? { bytes.withUnsafeBufferPointer(soleLine) }

    /// `soleLine(_:)` of bytes not in an array.
    static func soleLine(_ b: UnsafeBufferPointer<UInt8>) -> (range: Range<Int>, ended: Bool)? {
        var found: (range: Range<Int>, ended: Bool)?
        var start = 0
        while true {
            let end = ByteSearch.first(0x0A, in: b, from: start) ?? b.count
            if !LineStream.isBlank(b[start..<end]) {
                guard found == nil else { return nil }
                found = (start..<end, end < b.count)
            }
            guard end < b.count else { return found }
            start = end + 1
        }
    }

    /// The thread list of a document of many threads and each thread's bytes (from its `{` to
    /// its `}`), or nil when it is not one: one pass over the bytes (`JSONOutline`), or, when
    /// that pass leaves it undecided, the parsed document.
    /// With the outline's list, the names of the root object's members (`JSONOutline`); nil
    /// from the parsed document, or for a root array.
    static func threadList(_ bytes: [UInt8]) -> (path: String, elements: [Range<Int>], rootMembers: [[UInt8]]?)? {
        switch bytes.withUnsafeBufferPointer({ JSONOutline.threadList($0) }) {
        case .list(let path, let elements, let rootMembers, _): return (path, elements, rootMembers.map { $0.map { Array(bytes[$0]) } })
        case .noList: return nil
        case .undecided: return parsedThreadList(bytes).map { ($0.path, $0.elements, nil) }
        }
    }

    /// `threadList(_:)` from the parsed document.
    static func parsedThreadList(_ bytes: [UInt8]) -> (path: String, elements: [Range<Int>])? {
        guard let document = try? JSONDocument(bytes: bytes), let found = ThreadfoldForm.threadList(document), document.count(found.node) > 1
        else { return nil }
        let path = "$" + found.path
        var nodes: [Int] = []
        document.forEachElement(found.node) { _, element in nodes.append(element) }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        var elements: [Range<Int>] = []
        for (position, element) in nodes.enumerated() {
            guard document.kind(element) == .object else { return nil }
            let begin = document.offset(element)
            // The element ends before the separator that follows it: a comma, or for the last one
            // the array's `]` (and the root's `}` or the next member's comma).
            let after = document.next(element)
            var end = after < document.nodes.count ? document.offset(after) : bytes.count
            func skip(_ token: UInt8) {
                while end > begin && isSpace(bytes[end - 1]) { end -= 1 }
                if end > begin && bytes[end - 1] == token { end -= 1 }
            }
            if position < nodes.count - 1 {
                skip(UInt8(ascii: ","))
            } else {
                if path != "$" { skip(after < document.nodes.count ? UInt8(ascii: ",") : UInt8(ascii: "}")) }
                skip(UInt8(ascii: "]"))
            }
            while end > begin && isSpace(bytes[end - 1]) { end -= 1 }
            guard end > begin, bytes[end - 1] == UInt8(ascii: "}") else { return nil }
            elements.append(begin..<end)
        }
        return (path, elements)
    }

    /// Whether the file starts with zstd's or gzip's magic bytes.
    static func isCompressed(_ path: String) -> Bool {
        guard let file = try? OpenFile.open(path) else { return false }
        return isCompressed(file)
    }

    static func isCompressed(_ file: OpenFile) -> Bool { InputFile.compression(file.fd) != nil }

    /// The file's first non-blank line (decompressed when it is compressed), or nil when it
    /// cannot be read or has none; errors are left to the reading that follows.
    /// The first non-blank line of a file read as a stream (a compressed one decompressed as it
    /// is read); nil when it cannot be read, or is plain and blank, which reading it whole then
    /// reports. A compressed file of nothing but blank lines is an error here, decided while
    /// streaming, so its blank lines are never held: a few kilobytes of zstd hold gigabytes.
    static func leadingLine(_ path: String, maxLineBytes: Int) throws(ThreadfoldError) -> [UInt8]? {
        guard case .success(let file) = OpenFile.regular(path) else { return nil }
        return try leadingLine(file, path, compressed: isCompressed(file), maxLineBytes: maxLineBytes)
    }

    /// `leadingLine(_:maxLineBytes:)` of the regular file `file`, open at `path`.
    static func leadingLine(_ file: OpenFile, _ path: String, compressed: Bool, maxLineBytes: Int) throws(ThreadfoldError) -> [UInt8]? {
        var stream = LineStream(file: file, path: path, display: path)
        stream.maxLineBytes = maxLineBytes
        stream.chunkBytes = 64 << 10
        guard let leading = try? stream.leading() else { return nil }
        switch leading {
        case .line(let line): return line
        case .blank where !compressed:
            // A plain file holds on disk what reading it whole holds; reading it says it is empty.
            return nil
        case .blank(let lines, _, cut: true):
            let limit = InputLimits.maxDecompressedBytes
            throw ThreadfoldError.input([
                Problem(
                    file: path, line: lines, column: 1,
                    message: "holds more than \(InputLimits.describe(limit)) of blank lines before its first line once decompressed; expected JSON",
                    hint: limit < InputLimits.maxDocumentBytes ? .decompressedLimit : nil)
            ])
        case .blank(let lines, let bytes, cut: false):
            let held = bytes == 0 ? "" : " (\(Printable.count(Int(bytes), "byte")) of blank lines once decompressed)"
            throw ThreadfoldError.input([Problem(file: path, line: lines, column: 1, message: "the file is empty\(held); expected a JSON value")])
        }
    }

    static func isBlank(_ path: String, _ offset: Int, _ length: Int) -> Bool {
        guard length < 64 else { return false }
        guard let bytes = try? ArchiveUnit(source: .line(path: path, offset: offset, length: length, line: 0), display: path).read() else { return false }
        return LineStream.isBlank(bytes)
    }

    /// A line that is one whole thread in the form it is recognised as (Threadfold's own thread
    /// object, a Discourse topic, a Reddit thread listing, …; `ImporterForm.isWholeThread`).
    /// Anything else (a comment, an HN item) means the file is read whole.
    static func isThread(_ line: [UInt8]) -> Bool {
        guard let document = try? JSONDocument(bytes: line) else { return false }
        return SourceFormat.isWholeThread(document)
    }
}
