/// Fits the headings of a rendered body into the page's outline.
///
/// A body is written for a page of its own, where its `# Title` is the top; on a thread page it
/// sits under the page's headings (the thread's `<h1>` for the opening post, the `<h2>` over the
/// comments for a comment). So its headings are shifted as a whole: the shallowest becomes the
/// level just below `parent`, the others keep their distance from it, capped at `<h6>`, and a
/// heading more than one level below the one before it (the body's own `<h1>` then `<h3>`) is
/// raised to one below it, so the page's outline never skips a level (axe-core's `heading-order`).
///
/// It reads the HTML that cmark and `HTMLSanitizer` write, where `<h1>`…`<h6>` and their closing
/// tags can only be headings (text and attribute values have every `<` escaped), and headings
/// never nest. One pass finds the levels, a second writes the new ones: linear in the body.
enum HeadingLevels {
    /// `html` with its headings fitted below a heading of level `parent` (1 to 5).
    static func fit(_ html: HTML, below parent: Int) -> HTML {
        var levels: [Int] = []
        var raw = html.raw
        let changed: [UInt8]? = raw.withUTF8 { bytes in
            forEachTag(in: bytes) { _, level, closing in if !closing { levels.append(level) } }
            guard let shallowest = levels.min() else { return nil }
            let shift = parent + 1 - shallowest
            var previous = parent
            var fitted: [Int] = []
            fitted.reserveCapacity(levels.count)
            for level in levels {
                let new = min(6, level + shift, previous + 1)
                fitted.append(new)
                previous = new
            }
            guard fitted != levels else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var copied = 0
            var next = -1
            forEachTag(in: bytes) { digit, _, closing in
                if !closing { next += 1 }
                out.append(contentsOf: bytes[copied..<digit])
                out.append(UInt8(ascii: "0") + UInt8(fitted[max(next, 0)]))
                copied = digit + 1
            }
            out.append(contentsOf: bytes[copied...])
            return out
        }
        return changed.map { HTML(trusted: String(decoding: $0, as: UTF8.self)) } ?? html
    }

    /// Calls `body` for each `<hN>` and `</hN>` (N from 1 to 6) in `bytes`, in order, with the
    /// offset of its digit, its level and whether it closes.
    private static func forEachTag(in bytes: UnsafeBufferPointer<UInt8>, _ body: (Int, Int, Bool) -> Void) {
        var i = 0
        while let at = ByteSearch.first(UInt8(ascii: "<"), in: bytes, from: i) {
            var j = at + 1
            let closing = j < bytes.count && bytes[j] == UInt8(ascii: "/")
            if closing { j += 1 }
            if j + 2 < bytes.count, bytes[j] == UInt8(ascii: "h"), (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(bytes[j + 1]),
                bytes[j + 2] == UInt8(ascii: ">")
            {
                body(j + 1, Int(bytes[j + 1] - UInt8(ascii: "0")), closing)
                i = j + 3
            } else {
                i = at + 1
            }
        }
    }
}
