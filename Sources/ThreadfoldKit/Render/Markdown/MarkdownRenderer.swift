/// Renders untrusted Markdown to safe HTML with cmark, the door to Render/Markdown/.
///
/// A body goes one of three ways: plain text when it is too long or has a shape cmark handles
/// in quadratic time (`isPathological`); `PlainMarkdown` when it is plain paragraphs; else cmark
/// (`Cmark`, the one file that imports `Ccmark`), then the flavour's passes over the tree, one
/// file each, then `LinkAttributes` over the HTML.
///
/// Never uses `CMARK_OPT_UNSAFE`: raw HTML in bodies is omitted. Links and images are checked
/// against `URLPolicy` before rendering; a refused one keeps its text and loses its URL. Links
/// get `rel="nofollow ugc noopener"`, images `loading="lazy"`.
package struct MarkdownRenderer: Sendable {
    package let options: MarkdownOptions

    /// The version of the cmark header this was compiled against (`threadfold --version`).
    package static let cmarkVersion = Cmark.version

    package init(options: MarkdownOptions = MarkdownOptions()) { self.options = options }

    /// The most bytes of a task box's name (`TaskLists`).
    static var taskNameLimit: Int { TaskLists.nameLimit }

    /// Renders `markdown` in the flavour the options name, else `sourceFlavor` (the one its
    /// importer chose), else GFM. `spoilerLabel` is what screen readers hear before a spoiler.
    /// With `emoji`, a `:name:` shortcode in text (not in code) is shown as its emoji
    /// (`EmojiShortcodes`), as Discourse and GitHub show them.
    package func render(_ markdown: String, sourceFlavor: MarkdownFlavor? = nil, spoilerLabel: String = "Spoiler", emoji: Bool = false) -> HTML {
        if markdown.utf8.count > options.maxBytes || isPathological(markdown) { return plainText(markdown) }
        let flavor = options.flavor ?? sourceFlavor ?? .gfm
        // cmark copies control characters and noncharacters through; HTML forbids them.
        let text = HTML.scrub(markdown)
        let hardBreaks = options.hardBreaks ?? (flavor != .reddit)
        if !options.smart, let html = Self.plainParagraphs(text, flavor: flavor, hardBreaks: hardBreaks) {
            // Plain paragraphs are text, `<p>` and `<br>`: a shortcode's name holds none of `<>&;`.
            return emoji ? HTML(trusted: EmojiShortcodes.replacing(in: html.raw)) : html
        }
        return renderWithCmark(text, flavor: flavor, hardBreaks: hardBreaks, spoilerLabel: spoilerLabel, emoji: emoji) ?? plainText(markdown)
    }

    /// `text` as `PlainMarkdown` renders it, when it is plain paragraphs and none of the
    /// flavour's extensions would find anything in it; nil otherwise.
    static func plainParagraphs(_ text: String, flavor: MarkdownFlavor, hardBreaks: Bool) -> HTML? {
        var text = text
        return text.withUTF8 { PlainMarkdown.html($0, flavor: flavor, hardBreaks: hardBreaks) }
            .map { HTML(trusted: String(decoding: $0, as: UTF8.self)) }
    }

    /// `text` (scrubbed) rendered by cmark and the flavour's passes, or nil if cmark fails.
    func renderWithCmark(_ text: String, flavor: MarkdownFlavor, hardBreaks: Bool, spoilerLabel: String, emoji: Bool = false) -> HTML? {
        var text = text
        // The extensions' delimiters typed with a backslash (`\~`, `\^`) stand as private-use
        // characters while cmark and the extensions read the text, so they stay as typed.
        var escapes = EscapedDelimiters(flavor)
        if let protected = text.withUTF8({ escapes.protect($0) }) { text = String(decoding: protected, as: UTF8.self) }
        if flavor == .reddit, let prepared = text.withUTF8({ RedditMarkdown.prepare($0) }) {
            text = String(decoding: prepared, as: UTF8.self)
        }
        let inline = InlineExtensions(flavor: flavor, redditBase: options.redditBase, spoilerLabel: spoilerLabel)

        // Every node and buffer of this body comes from this thread's arena, reset when the
        // body is done.
        CmarkArena.begin()
        defer { CmarkArena.end() }
        return text.withUTF8 { source in
            guard let document = Cmark.parse(source, smart: options.smart) else { return nil }
            defer { document.free() }
            if flavor != .commonmark {
                applyExtensions(document, source: source, hardBreaks: hardBreaks, inline: inline)
            }
            if escapes.used { escapes.restore(in: document) }
            if emoji && ByteSearch.contains(UInt8(ascii: ":"), in: source) { ShortcodeEmoji.apply(to: document) }
            // Links and images need '[' or '<' (autolinks); without either there is nothing to check.
            if ByteSearch.contains(UInt8(ascii: "["), in: source) || ByteSearch.contains(UInt8(ascii: "<"), in: source) {
                RefusedURLs.remove(from: document)
            }
            return document.withHTML(hardBreaks: hardBreaks) { LinkAttributes.add(to: $0) }
        }
    }

    /// The passes of GFM and Reddit's extensions, in order, each only when the body holds what
    /// it looks for.
    private func applyExtensions(_ document: CmarkNode, source: UnsafeBufferPointer<UInt8>, hardBreaks: Bool, inline: InlineExtensions) {
        let flavor = inline.flavor
        if MarkdownTable.mayHold(source) {
            TableBlocks(source: source, smart: options.smart, hardBreaks: hardBreaks, inline: inline).apply(to: document)
        }
        let tasks = flavor == .gfm && TaskLists.mayHold(source)
        let spans = MarkdownExtensions.mayApply(source) || (flavor == .reddit && RedditMarkdown.mayApply(source))
        if tasks || spans { document.consolidateTextNodes() }
        if tasks { TaskLists.apply(to: document) }
        if spans { inline.apply(to: document) }
        if flavor == .reddit {
            if ByteSearch.contains(UInt8(ascii: "<"), in: source) { RawHTMLAsText.apply(to: document) }
            if ByteSearch.contains(UInt8(ascii: "!"), in: source) { BlockSpoilers.apply(to: document, source: source, inline) }
        }
    }

    /// One linear pass that finds the shapes Debian's cmark handles in quadratic time: too many
    /// image openers, or block quotes nested too deep.
    func isPathological(_ markdown: String) -> Bool {
        var text = markdown
        return text.withUTF8 { bytes in
            // Image openers: each '!' found with memchr.
            var imageOpeners = 0
            if ByteSearch.any(
                UInt8(ascii: "!"), in: bytes,
                where: { i in
                    if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "[") { imageOpeners += 1 }
                    return imageOpeners > options.maxImageOpeners
                })
            {
                return true
            }
            // Quote depth: the '>' markers at each line's start, when there is a '>' at all.
            guard ByteSearch.contains(UInt8(ascii: ">"), in: bytes) else { return false }
            var lineStart: Int? = 0
            while let start = lineStart {
                var depth = 0
                var i = start
                while i < bytes.count, bytes[i] == UInt8(ascii: ">") || bytes[i] == 0x20 || bytes[i] == 0x09 {
                    if bytes[i] == UInt8(ascii: ">") {
                        depth += 1
                        if depth > options.maxQuoteDepth { return true }
                    }
                    i += 1
                }
                lineStart = ByteSearch.first(0x0A, in: bytes, from: i).map { $0 + 1 }
            }
            return false
        }
    }

    /// The fallback for oversized bodies: paragraphs (split at blank lines) of escaped text, line
    /// breaks kept. One pass over the bytes, linear in the body's length.
    package func plainText(_ text: String) -> HTML {
        var out: [UInt8] = []
        var text = text
        text.withUTF8 { bytes in
            out.reserveCapacity(bytes.count + bytes.count / 8 + 16)
            var lines: [(Int, Int)] = []
            var start = 0
            func flushParagraph() {
                guard !lines.isEmpty else { return }
                out.append(contentsOf: "<p>".utf8)
                for (k, line) in lines.enumerated() {
                    if k > 0 { out.append(contentsOf: "<br>\n".utf8) }
                    HTML.escape(UnsafeBufferPointer(rebasing: bytes[line.0..<line.1]), into: &out)
                }
                out.append(contentsOf: "</p>\n".utf8)
                lines.removeAll(keepingCapacity: true)
            }
            while start <= bytes.count {
                var end = start
                while end < bytes.count && bytes[end] != 0x0A { end += 1 }
                var lineEnd = end
                if lineEnd > start && bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                var blank = true
                for i in start..<lineEnd where bytes[i] != 0x20 && bytes[i] != 0x09 {
                    blank = false
                    break
                }
                if blank { flushParagraph() } else { lines.append((start, lineEnd)) }
                start = end + 1
            }
            flushParagraph()
        }
        return HTML(trusted: String(decoding: out, as: UTF8.self))
    }
}
