import Foundation
import TestSupport
import Testing
import ThreadfoldKit

/// `make dist`'s Debian package and tarball, which `make test` writes into .build/dist-test:
/// Depends found by dpkg-shlibdeps, the files, and the packaged binary run with the Swift
/// toolchain's folder hidden under an empty tmpfs, as on a Debian machine without Swift.
/// Outside CI the suite runs when that package is there; in CI a missing one is a failure.
@Suite("Debian package and tarball", .enabled(if: ExternalTools.inCI || FileManager.default.fileExists(atPath: DistTest.package.path)))
struct PackageTests {
    static let folder = DistTest.folder
    static let package = DistTest.package
    static let tarball = DistTest.tarball

    /// Every file the package installs, under /usr.
    static let files =
        [
            "usr/bin/threadfold",
            "usr/share/man/man1/threadfold.1.gz",
            "usr/share/bash-completion/completions/threadfold",
            "usr/share/zsh/vendor-completions/_threadfold",
            "usr/share/fish/vendor_completions.d/threadfold.fish",
            "usr/share/doc/threadfold/copyright",
        ] + schemas.map { "usr/share/threadfold/" + $0 }

    /// docs/*.schema.json.
    static var schemas: [String] {
        let docs = folder.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs")
        return ((try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []).filter { $0.hasSuffix(".schema.json") }.sorted()
    }

    let cli = CLITests()

    func dpkgDeb(_ arguments: [String]) throws -> String {
        let result = try ExternalTools.run("/usr/bin/dpkg-deb", arguments)
        #expect(result.status == 0, "dpkg-deb \(arguments): \(result.output)")
        return result.output
    }

    @Test("dpkg-deb -I: its Depends, from dpkg-shlibdeps, name Debian's libraries and nothing of Swift's")
    func depends() throws {
        try #require(FileManager.default.fileExists(atPath: Self.package.path), "no \(Self.package.path): make test builds it (make dist)")
        let info = try dpkgDeb(["-I", Self.package.path])
        #expect(info.contains(" Package: threadfold\n") && info.contains(" Version: \(Threadfold.version)\n") && info.contains(" Architecture: amd64\n"))
        let depends = try #require(info.split(separator: "\n").first { $0.hasPrefix(" Depends: ") })
        let names = Set(depends.dropFirst(" Depends: ".count).split(separator: ",").map { $0.split(separator: " ")[0] })
        for library in ["libcmark0.30.2", "libgumbo1", "libzstd1", "libbrotli1", "zlib1g", "libxml2", "libc6", "libstdc++6"] {
            #expect(names.contains(Substring(library)), "Depends lacks \(library): \(depends)")
        }
        #expect(!depends.lowercased().contains("swift"), "\(depends)")
    }

    @Test("it holds the binary, the man page, the three completions and the JSON Schemas, owned by root")
    func contents() throws {
        try #require(FileManager.default.fileExists(atPath: Self.package.path), "no \(Self.package.path): make test builds it (make dist)")
        #expect(!Self.schemas.isEmpty)
        let listing = try dpkgDeb(["-c", Self.package.path]).split(separator: "\n")
        let files = listing.filter { $0.hasPrefix("-") }
        #expect(Set(files.map { String($0.split(separator: " ").last!.dropFirst(2)) }) == Set(Self.files))
        #expect(listing.allSatisfy { $0.contains(" root/root ") })
        #expect(files.first { $0.hasSuffix("usr/bin/threadfold") }?.hasPrefix("-rwxr-xr-x") == true)
    }

    @Test(
        "the packaged binary renders the example with the Swift toolchain hidden; the test's own build cannot",
        .enabled(if: getuid() == 0 || ExternalTools.inCI, "needs root, for unshare -m and mount"))
    func withoutSwift() throws {
        try #require(FileManager.default.fileExists(atPath: Self.package.path), "no \(Self.package.path): make test builds it (make dist)")
        let folder = try cli.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try dpkgDeb(["-x", Self.package.path, folder.appendingPathComponent("root").path])
        let binary = folder.appendingPathComponent("root/usr/bin/threadfold").path
        let toolchain = try #require(Self.toolchain(), "cannot tell where libswiftCore.so was loaded from")
        let example = Self.folder.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/examples/thread.json").path
        let site = folder.appendingPathComponent("site").path
        let rendered = try hidden(toolchain, [binary, "render", "-o", site, example])
        #expect(rendered.status == 0, "\(rendered.output)")
        let page = try String(contentsOfFile: site + "/thread.html", encoding: .utf8)
        #expect(page.contains("<details") && page.contains("Threadfold \(Threadfold.version)"))
        let version = try hidden(toolchain, [binary, "--version"])
        #expect(version.status == 0 && version.output.hasPrefix("threadfold \(Threadfold.version)\n"), "\(version.output)")
        // The same hiding stops a binary that links the toolchain's libraries: it is real.
        let dynamic = try hidden(toolchain, [CLITests.binary.path, "--version"])
        #expect(dynamic.status == 127 && dynamic.output.contains("libswift"), "\(dynamic.output)")
    }

    @Test("the tarball holds the same files under threadfold-<version>/, and an INSTALL naming the packages")
    func tarball() throws {
        try #require(FileManager.default.fileExists(atPath: Self.tarball.path), "no \(Self.tarball.path): make test builds it (make dist)")
        let listing = try ExternalTools.run("/usr/bin/env", ["tar", "-tzvf", Self.tarball.path])
        #expect(listing.status == 0)
        let files = listing.output.split(separator: "\n").filter { $0.hasPrefix("-") }.map { String($0.split(separator: " ").last!) }
        let top = "threadfold-\(Threadfold.version)/"
        let expected =
            Self.files.map { top + $0.dropFirst("usr/".count) }
            .map { $0.replacingOccurrences(of: "zsh/vendor-completions", with: "zsh/site-functions") } + [top + "INSTALL"]
        #expect(Set(files) == Set(expected))
        let install = try ExternalTools.run("/usr/bin/env", ["tar", "-xzOf", Self.tarball.path, top + "INSTALL"])
        #expect(install.output.contains("sudo apt-get install ") && install.output.contains("libcmark0.30.2") && install.output.contains("cp -R bin share"))
    }

    /// Runs `command` in a mount namespace with an empty tmpfs over `toolchain`.
    func hidden(_ toolchain: String, _ command: [String]) throws -> (status: Int32, output: String) {
        let script = #"mount -t tmpfs tmpfs "$0" && ! test -e "$0/usr" && exec "$@""#
        return try ExternalTools.run("/usr/bin/unshare", ["-m", "sh", "-c", script, toolchain] + command)
    }

    /// The toolchain's folder (/opt/swift), from where this process loaded libswiftCore.so.
    static func toolchain() -> String? {
        // Read to the end: /proc files say they are empty.
        guard let data = FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile(),
            let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first(where: { $0.hasSuffix("/libswiftCore.so") }),
            let path = line.split(separator: " ").last,
            let range = path.range(of: "/usr/lib/swift/")
        else { return nil }
        return String(path[..<range.lowerBound])
    }
}

/// Where `make test` writes the package and tarball (`make dist DIST=.build/dist-test`).
enum DistTest {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/dist-test")
    static let package = folder.appendingPathComponent("threadfold_\(Threadfold.version)_amd64.deb")
    static let tarball = folder.appendingPathComponent("threadfold-\(Threadfold.version)-linux-x86_64.tar.gz")
}
