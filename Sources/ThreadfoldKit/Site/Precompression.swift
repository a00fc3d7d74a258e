// Site stage: the compressed siblings of a site's text files, for servers that send them as
// they are (nginx's gzip_static and brotli_static).

/// Which files get compressed siblings, and what they hold.
///
/// Every HTML, XML, JSON, CSS and JavaScript file gets `NAME.gz` (gzip, level 9) and `NAME.br`
/// (Brotli, quality 9) beside it, each only when it is smaller than the file itself (so tiny
/// files get none). Both are made from the file's bytes alone, with no name or time in them:
/// the same file always gets the same siblings, which is why a build may keep the siblings of a
/// file whose bytes did not change.
package enum Precompression {
    package enum Encoding: CaseIterable, Sendable {
        case gzip, brotli

        /// What a sibling's name adds to its file's name.
        package var suffix: String {
            switch self {
            case .gzip: ".gz"
            case .brotli: ".br"
            }
        }

        var name: String {
            switch self {
            case .gzip: "gzip"
            case .brotli: "Brotli"
            }
        }

        func encode(_ bytes: [UInt8]) -> [UInt8]? {
            switch self {
            case .gzip: Gzip.encode(bytes)
            case .brotli: Brotli.encode(bytes)
            }
        }
    }

    /// The extensions of the files that get siblings, in lower case.
    static let extensions: Set<String> = ["html", "xml", "json", "css", "js"]

    /// Whether the file at `path` gets compressed siblings.
    package static func applies(to path: String) -> Bool {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        return extensions.contains(path[path.index(after: dot)...].lowercased())
    }

    /// The file whose sibling `path` would be (`index.html` for `index.html.gz`), if any.
    static func file(ofSibling path: String) -> String? {
        for encoding in Encoding.allCases where path.hasSuffix(encoding.suffix) {
            let file = String(path.dropLast(encoding.suffix.count))
            if applies(to: file) { return file }
        }
        return nil
    }

    /// The sibling at `path` of a file holding `bytes`, or nil when it would not be smaller.
    static func sibling(of bytes: [UInt8], _ encoding: Encoding, path: String) throws(ThreadfoldError) -> [UInt8]? {
        guard !bytes.isEmpty else { return nil }
        guard let encoded = encoding.encode(bytes) else {
            throw ThreadfoldError.output(path: path, message: "could not be compressed with \(encoding.name): its library failed, which happens when memory runs out")
        }
        return encoded.count < bytes.count ? encoded : nil
    }
}
