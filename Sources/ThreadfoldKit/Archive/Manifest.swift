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

    var format = 1
    var version = Threadfold.version
    /// Hash of everything besides the input that decides the output.
    var settings: String
    var units: [String: Unit]
    /// Per input file: its stat signature and content hash, so an untouched file is not read.
    var files: [String: FileState]
    /// The listing pages, feeds, sitemaps and assets, so a recycled folder can drop stale ones.
    var listing: [String] = []

    struct Unit: Sendable {
        var hash: String
        var threads: [ThreadSummary]
        var files: [String]
        var warnings: [InputError]
        var comments: Int
    }

    struct FileState: Sendable, Equatable {
        var size: Int64
        var mtime: Int64
        var inode: UInt64
        var hash: String
        /// For a JSON Lines file of threads: each line's hash, in order.
        var lines: [String]?
    }

    /// The files a build writes for these threads, in the order `ArchiveRenderer` writes them:
    /// every page of every order, then each thread's sidecar and feed.
    static func files(of threads: [ThreadSummary]) -> [String] {
        var files: [String] = []
        for summary in threads {
            for (k, order) in summary.orders.enumerated() {
                let prefix = summary.path + "/" + (k == 0 ? "" : order + "/")
                for page in summary.pages { files.append(prefix + (page.isEmpty ? "" : page + "/") + "index.html") }
            }
            if summary.orders.isEmpty {
                for page in summary.pages { files.append(summary.path + "/" + (page.isEmpty ? "" : page + "/") + "index.html") }
            }
            files.append(summary.path + "/thread.json")
            files.append(summary.path + "/atom.xml")
        }
        return files
    }

    static func load(from site: URL) -> Manifest? {
        guard let data = FileManager.default.contents(atPath: site.appendingPathComponent(fileName).path) else { return nil }
        return Manifest(bytes: [UInt8](data))
    }

    typealias Signature = (size: Int64, mtime: Int64, inode: UInt64)

    /// A file's size, modification time (ns) and inode, or nil when it cannot be read.
    static func signature(_ path: String) -> Signature? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (Int64(info.st_size), Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec), UInt64(info.st_ino))
    }
}
