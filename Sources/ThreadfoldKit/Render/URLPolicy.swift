/// Which URLs from untrusted input may become links and images.
///
/// cmark's safe mode blanks only `javascript:`, `vbscript:`, `file:` and most `data:` URLs;
/// this is an allowlist instead. The scheme is read the way a browser reads it: leading and
/// trailing spaces and controls are ignored, and tabs and newlines anywhere are removed.
package enum URLPolicy {
    /// Links: http, https, mailto, and relative references (paths, `?query`, `#fragment`).
    package static func allowsLink(_ url: String) -> Bool {
        switch scheme(of: url) {
        case .none: return hasHost(url, scheme: nil)
        case .some(let scheme): return scheme == "mailto" || (scheme == "http" || scheme == "https") && hasHost(url, scheme: scheme)
        }
    }

    /// An http(s) URL, or a scheme-relative `//…` one, names a host: `https:/x`, `https:x`,
    /// `//#x` and `///x` are not valid URLs (browsers guess; the W3C checker refuses them).
    /// Other relative references need none.
    static func hasHost(_ url: String, scheme: String?) -> Bool {
        var bytes = Substring(url).utf8.drop { $0 <= 0x20 }.filter { $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }[...]
        if let scheme { bytes = bytes.dropFirst(scheme.utf8.count + 1) }
        let slash = UInt8(ascii: "/")
        guard bytes.first == slash, bytes.dropFirst().first == slash else { return scheme == nil }
        guard let host = bytes.dropFirst(2).first else { return false }
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
        switch scheme(of: url) {
        case .some(let scheme): return (scheme == "http" || scheme == "https") && hasHost(url, scheme: scheme)
        case .none: return false
        }
    }

    /// The lower-cased scheme, or nil for a relative reference. A string that starts like a
    /// scheme but is not a valid one is treated as relative, as browsers do.
    static func scheme(of url: String) -> String? {
        var cleaned: [UInt8] = []
        for byte in url.utf8 where byte != 0x09 && byte != 0x0A && byte != 0x0D { cleaned.append(byte) }
        var start = 0, end = cleaned.count
        while start < end && cleaned[start] <= 0x20 { start += 1 }
        while end > start && cleaned[end - 1] <= 0x20 { end -= 1 }
        var scheme: [UInt8] = []
        for i in start..<end {
            let byte = cleaned[i]
            switch byte {
            case UInt8(ascii: ":"):
                guard let first = scheme.first, isLetter(first) else { return nil }
                return String(decoding: scheme, as: UTF8.self)
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                scheme.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                scheme.append(byte + 32)
            default:
                return nil // '/', '?', '#' or anything else before a ':' means no scheme
            }
        }
        return nil
    }

    private static func isLetter(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }
}
