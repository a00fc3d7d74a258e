import Testing

@testable import ThreadfoldKit

@Suite("Manifest units")
struct ManifestUnitsTests {
    static func summary(_ n: Int, pages: [String] = [""], orders: [String] = ["oldest"]) -> ThreadSummary {
        ThreadSummary(
            id: "i\(n)", path: "t/thread-i\(n)", title: "Thread \(n)", author: "u", url: nil, lang: nil, category: nil, tags: [],
            created: ThreadSummary.TimePoint(Timestamp(milliseconds: Int64(n) * 1000)),
            stats: .init(
                comments: n, participants: 1, topLevel: 1, levels: 1, depthHistogram: [n], firstActivity: nil,
                lastActivity: nil, unarchived: 0),
            layout: "nested", pages: pages, orders: orders)
    }

    static func unit(_ threads: [ThreadSummary], files: [String]? = nil, warnings: Int = 0) -> Manifest.Unit {
        let files = files ?? Manifest.files(of: threads)
        return Manifest.Unit(
            hash: StableHash.hex(UInt64(threads.count) &* 0x9E37_79B9_7F4A_7C15), threads: threads, files: files,
            warnings: (0..<warnings).map { Problem(file: "RC.zst", line: $0 + 1, message: "left out", severity: .warning) },
            comments: threads.reduce(0) { $0 + $1.stats.comments },
            stamps: files.indices.map { FileStamp(inode: UInt64($0) + 7, size: Int64($0), mtime: -Int64($0), ctime: Int64($0) * 3, hash: UInt64($0) &* 0x9E37_79B9_7F4A_7C15) })
    }

    /// Units whose files follow from their summaries, add compressed siblings, or are listed.
    static let units: [(key: String, unit: Manifest.Unit)] = {
        let two = [summary(2, pages: ["", "c/x"], orders: ["oldest", "top"]), summary(3)]
        let siblings = Manifest.files(of: two).flatMap { file in
            file.hasSuffix("thread.json") ? [file] : file.hasSuffix("atom.xml") ? [file, file + ".gz", file + ".br"] : [file, file + ".br"]
        }
        return [
            (StableHash.hex(9), unit([summary(1)], warnings: 2)),
            (StableHash.hex(3), unit(two, files: siblings)),
            (StableHash.hex(0xFFFF_FFFF_FFFF_FFFF), unit([summary(4)], files: ["t/thread-i4/index.html", "t/evil/x"], warnings: 1)),
            (StableHash.hex(5), unit([])),
        ]
    }()

    @Test("a unit's files follow from its summaries: every page of every order, then the sidecar and the feed, with no order or several, one page or several")
    func filesOfSummaries() {
        let threads = [
            Self.summary(1), Self.summary(2, pages: ["", "2", "c/x"], orders: ["oldest", "top", "new"]), Self.summary(3, pages: ["", "2"], orders: []),
            Self.summary(4, pages: [], orders: ["oldest"]), Self.summary(5, pages: ["é/ü"], orders: ["oldest", "best"]),
        ]
        var expected: [String] = []
        for t in threads {
            let orders = t.orders.isEmpty ? [""] : t.orders
            for (k, order) in orders.enumerated() {
                for page in t.pages { expected.append([t.path, k == 0 ? nil : order, page.isEmpty ? nil : page, "index.html"].compactMap { $0 }.joined(separator: "/")) }
            }
            expected += [t.path + "/thread.json", t.path + "/atom.xml"]
        }
        #expect(Manifest.files(of: threads) == expected)
        #expect(Manifest.files(of: threads).prefix(4) == ["t/thread-i1/index.html", "t/thread-i1/thread.json", "t/thread-i1/atom.xml", "t/thread-i2/index.html"])
        #expect(Manifest.files(of: []).isEmpty)
    }

    /// The unit of an entry that is one (not JSON as read).
    static func unit(_ entry: Manifest.Entry) -> Manifest.Unit? {
        if case .unit(let unit) = entry { return unit }
        return nil
    }

    static func same(_ a: (key: String, unit: Manifest.Unit), _ b: (key: String, unit: Manifest.Unit)) -> Bool {
        a.key == b.key && a.unit.hash == b.unit.hash && a.unit.threads == b.unit.threads && a.unit.files == b.unit.files
            && a.unit.warnings == b.unit.warnings && a.unit.comments == b.unit.comments && a.unit.stamps == b.unit.stamps
    }

    @Test("every unit reads back as it was added, alone or after another table's units")
    func roundTrip() {
        var table = ManifestUnits()
        for (key, unit) in Self.units { table.append(key: key, unit) }
        #expect(table.count == Self.units.count)
        for i in Self.units.indices { #expect(Self.same(table[i], Self.units[i])) }
        var joined = ManifestUnits()
        joined.append(key: Self.units[0].key, Self.units[0].unit)
        joined.append(contentsOf: table)
        for i in Self.units.indices { #expect(Self.same(joined[i + 1], Self.units[i])) }
        #expect(Array(joined.summaries) == Self.units[0].unit.threads + Self.units.flatMap(\.unit.threads))
    }

    @Test("the units of many tables come in key order; of two with one key, the later stands, as in a dictionary")
    func order() {
        var table = ManifestUnits()
        for (key, unit) in Self.units { table.append(key: key, unit) }
        let replacement = Self.unit([Self.summary(8)]), last = Self.unit([Self.summary(9)])
        table.append(key: Self.units[0].key, replacement)
        let keys = [StableHash.hex(3), StableHash.hex(5), StableHash.hex(9), StableHash.hex(0xFFFF_FFFF_FFFF_FFFF)]
        let sorted = Array(ManifestUnits.entriesByKey([table]))
        #expect(sorted.map(\.key) == keys)
        #expect(Self.unit(sorted[2].entry)?.threads == replacement.threads)
        var other = ManifestUnits()
        other.append(key: Self.units[0].key, last)
        let both = Array(ManifestUnits.entriesByKey([table, other]))
        #expect(both.map(\.key) == keys && Self.unit(both[2].entry)?.threads == last.threads)
    }

    @Test("the manifest written in pieces from the table is the manifest encoded whole")
    func streamed() throws {
        var manifest = Manifest(settings: "s", units: [:], files: ["f": Manifest.FileState(size: 1, mtime: 2, inode: 3, hash: "h")])
        manifest.listing = ["index.html"]
        manifest.listingStamps = [FileStamp(inode: 1, size: 2, mtime: 3, ctime: 0)]
        var table = ManifestUnits()
        // Enough threads that the writer hands over more than one piece.
        for n in 0..<3000 {
            let unit = Self.unit([Self.summary(n)], warnings: n % 3)
            let key = StableHash.hex(StableHash.content(Array("unit \(n)".utf8)))
            table.append(key: key, unit)
            manifest.units[key] = unit
        }
        var pieces: [[UInt8]] = []
        manifest.write(units: ManifestUnits.entriesByKey([table])) { pieces.append($0) }
        #expect(pieces.count > 1)
        #expect(pieces.flatMap { $0 } == manifest.encoded())
        // Encoded on several threads, in runs of any size, the same bytes.
        for (jobs, runUnits) in [(2, 7), (3, 100), (2, 256), (4, 1)] {
            var parallel: [UInt8] = []
            manifest.write(units: ManifestUnits.entriesByKey([table]), jobs: jobs, runUnits: runUnits) { parallel += $0 }
            #expect(parallel == manifest.encoded(), "\(jobs) jobs, runs of \(runUnits)")
        }
        let read = try #require(Manifest(bytes: manifest.encoded()))
        #expect(read.units.count == 3000 && read.listing == manifest.listing)
    }

    @Test("a unit read back is written again as its own bytes while it is unchanged, through a table too; any change encodes it anew")
    func encodedAsRead() throws {
        var manifest = Manifest(settings: "s", units: [:], files: [:])
        for (key, unit) in Self.units { manifest.units[key] = unit }
        let bytes = manifest.encoded()
        var read = try #require(Manifest(bytes: bytes))
        #expect(read.units.values.allSatisfy { $0.encoded != nil })
        #expect(read.encoded() == bytes)
        // Through tables joined as a build joins its workers'.
        var first = ManifestUnits(), second = ManifestUnits()
        let keys = read.units.keys.sorted()
        first.append(key: keys[0], read.units[keys[0]]!)
        for key in keys.dropFirst() { second.append(key: key, read.units[key]!) }
        first.append(contentsOf: second)
        var pieces: [UInt8] = []
        read.write(units: ManifestUnits.entriesByKey([first])) { pieces += $0 }
        #expect(pieces == bytes)
        var parallel: [UInt8] = []
        read.write(units: ManifestUnits.entriesByKey([first]), jobs: 2, runUnits: 1) { parallel += $0 }
        #expect(parallel == bytes)
        // Taking the same files and stamps keeps the bytes; a stamp's content hash alone, or a
        // warning, changed is a change.
        let key = StableHash.hex(9)
        let unit = read.units[key]!
        #expect(unit.taking(files: unit.files, stamps: unit.stamps).encoded == unit.encoded)
        var moved = unit.stamps
        moved[0].hash &+= 1
        #expect(unit.taking(files: unit.files, stamps: moved).encoded == nil)
        read.units[key]!.warnings.removeAll()
        #expect(read.units[key]!.encoded == nil)
        var fresh = read
        for k in fresh.units.keys { fresh.units[k]!.encoded = nil }
        #expect(read.encoded() == fresh.encoded() && read.encoded() != bytes)
    }

    @Test("the live site's manifest read a unit at a time: each unit as the whole decode reads it, with its bytes; a damaged unit alone is missing, a damaged head or units' object reads nothing")
    func liveManifest() throws {
        var manifest = Manifest(settings: "s", units: [:], files: ["f": Manifest.FileState(size: 1, mtime: 2, inode: 3, hash: "h")])
        manifest.listing = ["index.html"]
        manifest.listingStamps = [FileStamp(inode: 1, size: 2, mtime: 3, ctime: 0)]
        manifest.listingHash = "d"
        for (key, unit) in Self.units { manifest.units[key] = unit }
        let bytes = manifest.encoded()
        let whole = try #require(Manifest(bytes: bytes))
        let live = try #require(LiveManifest(bytes: bytes))
        #expect(live.head.settings == "s" && live.head.units.isEmpty && live.head.files == manifest.files)
        #expect(live.head.listing == manifest.listing && live.head.listingStamps == manifest.listingStamps && live.head.listingHash == "d")
        for (key, unit) in whole.units {
            let read = try #require(live.unit(key))
            #expect(read.hash == unit.hash && read.threads == unit.threads && read.files == unit.files && read.stamps == unit.stamps && read.stamps.map(\.hash) == unit.stamps.map(\.hash))
            #expect(read.warnings == unit.warnings && read.comments == unit.comments && read.encoded == unit.encoded)
        }
        #expect(live.unit(StableHash.hex(4)) == nil)
        // A unit that is JSON but not one a build writes (a count out of range): that unit alone
        // is missing, and its input is rendered.
        let damaged = String(decoding: bytes, as: UTF8.self).replacingOccurrences(
            of: #"{"hash":"\#(Self.units[1].unit.hash)","comments":"#, with: #"{"hash":"x","comments":-1,"count":"#)
        let partly = try #require(LiveManifest(bytes: Array(damaged.utf8)))
        #expect(Manifest(bytes: Array(damaged.utf8)) == nil)
        #expect(partly.unit(Self.units[1].key) == nil && partly.unit(Self.units[0].key)?.hash == Self.units[0].unit.hash)
        // Not JSON in the units, a units' object left open, another format, nothing after the head;
        // and white space after the manifest or after the units' key, which `write` never writes:
        // refused, so the build renders what it would have linked.
        let text = String(decoding: bytes, as: UTF8.self)
        for broken in [
            text.replacingOccurrences(of: #""comments":"#, with: #""comments"::"#), String(text.dropLast()),
            text.replacingOccurrences(of: #"{"format":6"#, with: #"{"format":5"#), String(text.prefix(upTo: text.range(of: #""units":{"#)!.upperBound)),
            text + "\n", text.replacingOccurrences(of: #""units":{"#, with: #""units": {"#),
        ] {
            #expect(LiveManifest(bytes: Array(broken.utf8)) == nil, "\(broken.suffix(40))")
        }
        // A manifest without units.
        #expect(try #require(LiveManifest(bytes: Manifest(settings: "e", units: [:], files: [:]).encoded())).unit(Self.units[0].key) == nil)
    }
}
