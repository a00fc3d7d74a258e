#if canImport(Glibc)
    import Glibc
#endif

/// A comment or thread id, compared and hashed by its exact UTF-8 bytes.
///
/// Swift's `String ==` treats canonically equivalent strings as equal (NFC and NFD forms,
/// U+212A KELVIN SIGN and "K"); source data and file systems do not, so ids never use it.
/// Integer ids keep the digits they were written with, however many there are.
package struct CommentID: Hashable, Sendable, CustomStringConvertible {
    package let string: String

    package init(_ string: String) { self.string = string }

    package static func == (lhs: CommentID, rhs: CommentID) -> Bool {
        let a = lhs.string.utf8, b = rhs.string.utf8
        guard a.count == b.count else { return false }
        // Native strings keep their UTF-8 contiguous: one memcmp, not a loop over the view
        // (a dictionary of ids compares one on every hit, at 360 instructions apiece that way).
        let equal = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
        }
        return (equal ?? nil) ?? a.elementsEqual(b)
    }

    package func hash(into hasher: inout Hasher) {
        var string = self.string
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    package var description: String { string }
}
