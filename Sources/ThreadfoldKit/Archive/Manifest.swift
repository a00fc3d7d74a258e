import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `.threadfold-manifest.json` in a built site (JSONCodec.swift reads and writes it): for every input unit, the hash of its bytes,
/// the threads it gave and the files they wrote. An `--incremental` build renders a unit again
/// only when its hash or the build's settings (options, templates, assets, version) changed;
/// otherwise it links the previous files into the new site.
struct Manifest: Sendable {
    static let fileName = ".threadfold-manifest.json"

    /// The format this build writes and reads (file stamps with their status change time and
    /// content hash; units keyed by their bytes' `ArchiveUnit.contentHash`, not their place
    /// (`ArchiveUnit.key`); a unit's warnings as the unit reads them, put on its file's lines,
    /// columns and name when reported); a manifest of another format is not read, and the build
    /// is a full one.
    static let currentFormat = 6
    var format = currentFormat
    var version = Release.version
    /// Hash of everything besides the input that decides the output.
    var settings: String
    var units: [String: Unit]
    /// Per input file (keyed by `key(path)`): its stat signature and content hash, so an
    /// untouched file is not read.
    var files: [String: FileState]
    /// The listing pages, feeds, sitemaps and assets, so a recycled folder can drop stale ones.
    var listing: [String] = []
    var listingStamps: [FileStamp] = []
    /// The digest of the summaries the listing was rendered from, in index order
    /// (`PackedSummaries.digest`): a build whose summaries have the same digest, with the same
    /// settings, takes these files as they are instead of rendering them again.
    var listingHash: String?

    struct Unit: Sendable {
        var hash: String { didSet { encoded = nil } }
        var threads: [ThreadSummary] { didSet { encoded = nil } }
        var files: [String] { didSet { encoded = nil } }
        var warnings: [Problem] { didSet { encoded = nil } }
        var comments: Int { didSet { encoded = nil } }
        /// Each file's stamp when this build left it, in the order of `files`: a later build
        /// reuses the file only while it still matches.
        var stamps: [FileStamp] = [] { didSet { encoded = nil } }
        /// The unit's JSON as the manifest it was read from holds it, which a build that keeps
        /// the unit as it was writes again as it is (`Manifest.write`) rather than encoding its
        /// summaries anew; any change to the unit drops it.
        var encoded: ArraySlice<UInt8>?

        /// How `write` takes this unit: its JSON as read while it is unchanged.
        var entry: Entry { encoded.map(Entry.encoded) ?? .unit(self) }

        /// This unit with `files` and `stamps`, which keeps `encoded` only when they are the ones
        /// it was read with, every number of every stamp (its content hash too) the same.
        func taking(files: [String], stamps: [FileStamp]) -> Unit {
            var unit = self
            guard files != self.files || !stamps.elementsEqual(self.stamps, by: { $0 == $1 && $0.hash == $1.hash }) else { return unit }
            (unit.files, unit.stamps) = (files, stamps)
            return unit
        }
    }

    /// A unit as the manifest writes it: its JSON as an earlier manifest held it, or the unit to encode.
    enum Entry: Sendable {
        case encoded(ArraySlice<UInt8>)
        case unit(Unit)
    }

    /// Every file the manifest vouches for, with its stamp.
    var stamps: [String: FileStamp] {
        var all: [String: FileStamp] = [:]
        all.reserveCapacity(units.values.reduce(listing.count) { $0 + $1.files.count })
        for unit in units.values { for (file, stamp) in zip(unit.files, unit.stamps) { all[file] = stamp } }
        for (file, stamp) in zip(listing, listingStamps) { all[file] = stamp }
        return all
    }

    /// How an input path or unit key is recorded: hashed, so the site holds no input path.
    static func key(_ text: String) -> String { StableHash.hex(keyValue(text)) }

    /// The value `key` writes in hex.
    static func keyValue(_ text: String) -> UInt64 { StableHash.content(Array(text.utf8)) }

    struct FileState: Sendable, Equatable {
        var size: Int64
        var mtime: Int64
        var inode: UInt64
        var hash: String
        /// For a JSON Lines file of threads, or a document of many: each line's or thread's hash,
        /// in order.
        var lines: [String]?
        /// For a document of many threads: each thread's length in bytes, and how deep its list is
        /// (`KnownElements`).
        var lengths: [Int]?
        var depth: Int?
    }

    /// The files a build writes for these threads, in the order `ThreadPipeline.files` writes them:
    /// every page of every order, then each thread's sidecar and feed.
    ///
    /// Each path is appended to a copy of its folder's, not joined from pieces: a manifest's
    /// files are made anew whenever a unit is packed, unpacked, written or read.
    static func files(of threads: [ThreadSummary]) -> [String] {
        var files: [String] = []
        files.reserveCapacity(threads.reduce(0) { $0 + max($1.orders.count, 1) * $1.pages.count + 2 })
        for summary in threads {
            var folder = summary.path
            folder.append("/")
            // The main order's pages are in the thread's folder (also when it lists no order);
            // each other order's in a folder of its own.
            for k in 0..<max(summary.orders.count, 1) {
                var prefix = folder
                if k > 0 {
                    prefix.append(summary.orders[k])
                    prefix.append("/")
                }
                for page in summary.pages {
                    var file = prefix
                    if !page.isEmpty {
                        file.append(page)
                        file.append("/")
                    }
                    file.append("index.html")
                    files.append(file)
                }
            }
            var sidecar = folder
            sidecar.append("thread.json")
            files.append(sidecar)
            folder.append("atom.xml")
            files.append(folder)
        }
        return files
    }

    typealias Signature = (size: Int64, mtime: Int64, inode: UInt64)

    /// A file's size, modification time (ns) and inode, or nil when it cannot be read.
    static func signature(_ path: String) -> Signature? {
        guard let status = try? FileStatus.of(path) else { return nil }
        return (Int64(status.size), status.modified, status.inode)
    }
}
