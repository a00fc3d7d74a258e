import Foundation
import Testing

@testable import ThreadfoldKit

/// Which files are read and how much of them: regular files within the size limit, pipes named
/// on the command line as streams within the same limit, nothing else.
@Suite("Input files")
struct InputFileTests {
    /// A FIFO at `path`, written `bytes` by another thread once a reader opens it.
    static func fifo(_ path: String, writing bytes: [UInt8]) throws {
        #expect(mkfifo(path, 0o600) == 0)
        // The reader may stop early (that is the point of a limit); the writer must not die of it.
        signal(SIGPIPE, SIG_IGN)
        Thread.detachNewThread {
            let fd = open(path, O_WRONLY)
            guard fd >= 0 else { return }
            var done = 0
            while done < bytes.count {
                let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
                if n <= 0 { break }
                done += n
            }
            close(fd)
        }
    }

    @Test("a character device named as an input is refused, not read")
    func devices() throws {
        for device in ["/dev/zero", "/dev/urandom", "/dev/null"] {
            do {
                _ = try ArchiveInput.units([device], readStandardInput: { [] })
                Issue.record("\(device) was accepted")
            } catch {
                #expect(error.problems.map(\.description) == ["\(device): error: is a character device; expected a regular file, a pipe or '-'"])
            }
        }
    }

    @Test("a FIFO named as an input is read as a stream; a FIFO in a folder is skipped")
    func fifos() throws {
        let folder = try ArchiveFixture.folder()
        let thread = ArchiveFixture.thread(id: "p")
        let path = folder.appendingPathComponent("pipe.json").path
        try Self.fifo(path, writing: Array(thread.utf8))
        let units = try ArchiveInput.units([path], readStandardInput: { [] })
        #expect(units.count == 1 && units.first?.display == path)
        #expect(try units.first?.read() == Array(thread.utf8))
        #expect(units.first?.key(contentHash: nil) == "stream:" + path)

        // In a folder: the FIFO is neither read nor waited on; the regular file is listed.
        let regular = try ArchiveFixture.write(thread, "a.json", in: folder)
        #expect(mkfifo(folder.appendingPathComponent("b.json").path, 0o600) == 0)
        let listed = try ArchiveInput.units([folder.path], readStandardInput: { [] })
        #expect(listed.map(\.display) == [regular])
    }

    @Test("a FIFO put where a listed file was is refused without blocking")
    func fifoInPlaceOfAFile() throws {
        let folder = try ArchiveFixture.folder()
        let path = folder.appendingPathComponent("swapped.json").path
        #expect(mkfifo(path, 0o600) == 0)
        #expect(throws: ThreadfoldError.self) { try ArchiveUnit(source: .file(path: path), display: path).read() }
        do { _ = try ArchiveUnit(source: .file(path: path), display: path).read() } catch {
            #expect(error.description == "\(path): error: is a pipe (FIFO); expected a regular file")
        }
    }

    @Test("a file larger than the document limit is refused by its size, before it is read")
    func sizeLimit() throws {
        let folder = try ArchiveFixture.folder()
        let path = folder.appendingPathComponent("huge.json").path
        // Sparse: no disk and no time; reading it would allocate 2 GiB.
        let fd = open(path, O_WRONLY | O_CREAT, 0o600)
        #expect(fd >= 0 && ftruncate(fd, off_t(InputLimits.maxDocumentBytes + 1)) == 0)
        close(fd)
        defer { unlink(path) }
        let expected =
            "\(path): error: is 2147483647 bytes; expected at most 2147483646 bytes (2 GiB), the most Threadfold reads as one document (JSON Lines of threads are read a line at a time and may be larger)"
        let units = try ArchiveInput.units([path], readStandardInput: { [] })
        #expect(units.count == 1)
        do {
            _ = try units[0].read()
            Issue.record("read")
        } catch { #expect(error.description == expected) }
        do {
            _ = try InputFile.read(path, display: path, streams: true)
            Issue.record("read")
        } catch { #expect(error.description == expected) }
    }

    @Test("streams stop at the limit: a pipe, and standard input's reader")
    func streamLimit() throws {
        let folder = try ArchiveFixture.folder()
        let path = folder.appendingPathComponent("big.json").path
        try Self.fifo(path, writing: [UInt8](repeating: 0x20, count: 100_000))
        do {
            _ = try InputFile.read(path, display: path, streams: true, limit: 1000)
            Issue.record("read past the limit")
        } catch {
            #expect(error.description == "\(path): error: holds more than 1000 bytes; expected at most 1000 bytes, the most Threadfold reads as one document")
        }
        let small = folder.appendingPathComponent("small.json").path
        try Self.fifo(small, writing: Array("[]".utf8))
        #expect(try InputFile.read(small, display: small, streams: true, limit: 2) == Array("[]".utf8))

        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        #expect(write(ends[1], "0123456789", 10) == 10)
        close(ends[1])
        #expect(FileIO.readAll(ends[0], limit: 9) == .failure(.tooLarge))
        close(ends[0])
        #expect(pipe(&ends) == 0)
        #expect(write(ends[1], "0123456789", 10) == 10)
        close(ends[1])
        #expect(FileIO.readAll(ends[0], limit: 10) == .success(Array("0123456789".utf8)))
        close(ends[0])

        // A size hint that is right, too small (the buffer grows) or too large (the end comes first).
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }
        let file = folder.appendingPathComponent("bytes.bin").path
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        for hint in [0, 1, 1_000, 199_999, 200_000, 200_001, 1 << 20] {
            let fd = open(file, O_RDONLY)
            #expect(FileIO.readAll(fd, limit: 1 << 20, sizeHint: hint) == .success(bytes), "hint \(hint)")
            #expect(lseek(fd, 0, SEEK_SET) == 0)
            #expect(FileIO.readAll(fd, limit: 199_999, sizeHint: hint) == .failure(.tooLarge), "hint \(hint)")
            close(fd)
        }
    }

    @Test("errors name the errno: a link loop is ELOOP, not a missing file")
    func errnoNames() throws {
        let folder = try ArchiveFixture.folder()
        let path = folder.appendingPathComponent("loop.json").path
        #expect(symlink(path, path) == 0)
        do {
            _ = try ArchiveInput.units([path], readStandardInput: { [] })
            Issue.record("accepted")
        } catch {
            #expect(error.description == "\(path): error: cannot be read: Too many levels of symbolic links (ELOOP)")
        }
        #expect(SystemError.describe(EACCES) == "Permission denied (EACCES)")
        #expect(SystemError.name(9999) == "errno 9999")
    }
}
