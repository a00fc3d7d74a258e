/// A comment or thread id, compared and hashed by its exact UTF-8 bytes.
///
/// Swift's `String ==` treats canonically equivalent strings as equal (NFC and NFD forms,
/// U+212A KELVIN SIGN and "K"); source data and file systems do not, so ids never use it.
/// Integer ids keep the digits they were written with, however many there are.
package struct CommentID: Hashable, Sendable, CustomStringConvertible {
    package let string: String

    package init(_ string: String) { self.string = string }

    package static func == (lhs: CommentID, rhs: CommentID) -> Bool {
        lhs.string.utf8.elementsEqual(rhs.string.utf8)
    }

    package func hash(into hasher: inout Hasher) {
        var string = self.string
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    package var description: String { string }
}
