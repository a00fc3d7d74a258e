/// Which URLs from untrusted input may become links and images.
///
/// cmark's safe mode blanks only `javascript:`, `vbscript:`, `file:` and most `data:` URLs;
/// this is an allowlist instead. The scheme is read the way a browser reads it: leading and
/// trailing spaces and controls are ignored, and tabs and newlines anywhere are removed.
package enum URLPolicy {
    /// A URL's scheme, as far as the policy tells schemes apart.
    enum Scheme: Equatable {
        case http, https, mailto
        /// Any other scheme (`javascript`, `data`, `ftp`, …), of this many bytes.
        case other(length: Int)

        /// Its length in bytes, without the ':'.
        var length: Int {
            switch self {
            case .http: return 4
            case .https: return 5
            case .mailto: return 6
            case .other(let length): return length
            }
        }
    }

    /// Links: http, https, mailto, and relative references (paths, `?query`, `#fragment`).
    package static func allowsLink(_ url: String) -> Bool {
        var url = url
        return url.withUTF8 { allowsLink($0) }
    }

    /// `allowsLink` of a URL's UTF-8 (cmark's, read in place).
    static func allowsLink(_ url: UnsafeBufferPointer<UInt8>) -> Bool {
        switch scheme(of: url) {
        case .none: return hasHost(url, scheme: nil)
        case .mailto: return true
        case .some(let scheme): return (scheme == .http || scheme == .https) && hasHost(url, scheme: scheme)
        }
    }

    /// An http(s) URL, or a scheme-relative `//…` one, names a host: `https:/x`, `https:x`,
    /// `//#x` and `///x` are not valid URLs (browsers guess; the W3C checker refuses them).
    /// Other relative references need none.
    static func hasHost(_ url: String, scheme: Scheme?) -> Bool {
        var url = url
        return url.withUTF8 { hasHost($0, scheme: scheme) }
    }

    static func hasHost(_ url: UnsafeBufferPointer<UInt8>, scheme: Scheme?) -> Bool {
        // The bytes after the scheme and its ':', past leading spaces and controls, with tabs and
        // newlines taken out (as browsers do), looked at without copying the URL.
        var skip = scheme.map { $0.length + 1 } ?? 0
        var seen: (UInt8, UInt8, UInt8) = (0, 0, 0)
        var count = 0
        var leading = true
        for byte in url {
            if leading && byte <= 0x20 { continue }
            leading = false
            if byte == 0x09 || byte == 0x0A || byte == 0x0D { continue }
            if skip > 0 {
                skip -= 1
                continue
            }
            switch count {
            case 0: seen.0 = byte
            case 1: seen.1 = byte
            default: seen.2 = byte
            }
            count += 1
            if count == 3 { break }
        }
        let slash = UInt8(ascii: "/")
        guard count >= 2, seen.0 == slash, seen.1 == slash else { return scheme == nil }
        guard count == 3 else { return false }
        let host = seen.2
        return host != slash && host != UInt8(ascii: "?") && host != UInt8(ascii: "#") && host != UInt8(ascii: "\\") && host > 0x20
    }

    /// The original thread's link on a page or in a sidecar: an allowed link with a scheme (an
    /// absolute http, https or mailto URL), never a relative one that would point into the site.
    package static func originalLink(_ url: String?) -> String? {
        guard let url, allowsLink(url), scheme(of: url) != nil else { return nil }
        return url
    }

    /// Images: absolute http and https only.
    package static func allowsImage(_ url: String) -> Bool {
        var url = url
        return url.withUTF8 { allowsImage($0) }
    }

    /// `allowsImage` of a URL's UTF-8.
    static func allowsImage(_ url: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let scheme = scheme(of: url), scheme == .http || scheme == .https else { return false }
        return hasHost(url, scheme: scheme)
    }

    /// The scheme, read case-insensitively, or nil for a relative reference. A string that starts
    /// like a scheme but is not a valid one is treated as relative, as browsers do. Nothing is
    /// allocated: the scheme's first eight bytes, lower-cased, are gathered into one word.
    static func scheme(of url: String) -> Scheme? {
        var url = url
        return url.withUTF8 { scheme(of: $0) }
    }

    static func scheme(of url: UnsafeBufferPointer<UInt8>) -> Scheme? {
        // Tabs and newlines anywhere are ignored, and so are leading spaces and controls; the
        // scheme is what comes before the first ':', if it is all scheme characters.
        var length = 0
        var first: UInt8 = 0
        var word: UInt64 = 0
        var leading = true
        for byte in url where byte != 0x09 && byte != 0x0A && byte != 0x0D {
            if leading && byte <= 0x20 { continue }
            leading = false
            switch byte {
            case UInt8(ascii: ":"):
                guard length > 0, isLetter(first | 0x20) else { return nil }
                switch (length, word) {
                case (4, http): return .http
                case (5, https): return .https
                case (6, mailto): return .mailto
                default: return .other(length: length)
                }
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                if length == 0 { first = byte }
                if length < 8 {
                    let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
                    word |= UInt64(lower) << (8 * UInt64(length))
                }
                length += 1
            default:
                return nil  // '/', '?', '#' or anything else before a ':' means no scheme
            }
        }
        return nil
    }

    /// The schemes told apart, as `scheme(of:)` gathers them: bytes little-endian in a word.
    private static let http: UInt64 = 0x7074_7468, https: UInt64 = 0x73_7074_7468, mailto: UInt64 = 0x6F74_6C69_616D

    private static func isLetter(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }
}
