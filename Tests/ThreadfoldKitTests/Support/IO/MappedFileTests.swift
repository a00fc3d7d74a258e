import Foundation
import Testing

@testable import ThreadfoldKit

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Mapped files", .serialized)
struct MappedFileTests {
    /// A new file of `count` bytes (a repeating pattern), opened for reading and writing.
    func file(_ count: Int) throws -> (path: String, fd: Int32, bytes: [UInt8]) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tf-mapped-\(UUID().uuidString)").path
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 % 251 + 1) }
        let fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        try #require(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == count)
        return (path, fd, bytes)
    }

    @Test("a mapped file's bytes are the file's")
    func bytes() throws {
        let (path, fd, bytes) = try file(3 * 4096 + 17)
        defer {
            close(fd)
            unlink(path)
        }
        let mapped = try #require(MappedFile(fd, count: bytes.count))
        #expect(Array(mapped.bytes) == bytes)
        #expect(!mapped.damaged)
        #expect(MappedFile(fd, count: 0) == nil, "nothing to map: the caller reads")
    }

    @Test("a file cut short while it is mapped reads as zeros past its new end and says so, never a bus error")
    func cutShort() throws {
        let (path, fd, bytes) = try file(64 * 4096)
        defer {
            close(fd)
            unlink(path)
        }
        let mapped = try #require(MappedFile(fd, count: bytes.count))
        #expect(ftruncate(fd, 4096) == 0)
        var read: [UInt8] = []
        read.reserveCapacity(bytes.count)
        for byte in mapped.bytes { read.append(byte) }
        #expect(mapped.damaged)
        #expect(Array(read[..<4096]) == Array(bytes[..<4096]), "the page still in the file is as it was")
        #expect(read[4096...].allSatisfy { $0 == 0 })
        // Another mapping, of a file left whole, is not marked.
        let (otherPath, otherFd, otherBytes) = try file(8192)
        defer {
            close(otherFd)
            unlink(otherPath)
        }
        let other = try #require(MappedFile(otherFd, count: otherBytes.count))
        #expect(Array(other.bytes) == otherBytes && !other.damaged)
    }

    @Test("past the mappings a handler can watch, a file is not mapped (it is read instead), until one is let go")
    func slots() throws {
        let (path, fd, bytes) = try file(4096)
        defer {
            close(fd)
            unlink(path)
        }
        var open: [MappedFile] = []
        while let mapped = MappedFile(fd, count: bytes.count) {
            open.append(mapped)
            try #require(open.count <= 64, "the table is bounded")
        }
        #expect(!open.isEmpty)
        open.removeLast()
        // (Another suite's listing may hold the slot let go for a moment.)
        var again: MappedFile?
        for _ in 0..<100 where again == nil {
            again = MappedFile(fd, count: bytes.count)
            if again == nil { usleep(10_000) }
        }
        #expect(again != nil)
    }
}
