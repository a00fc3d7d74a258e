/// The text a body renderer reads for a post whose record keeps parts apart from its text: an
/// opening post's link (`ThreadInfo.link`), a comment's content warning and media
/// (`CommentRecord.parts`). Every value from the record is escaped here; the whole is then
/// rendered like any body of its format (HTML sanitised, Markdown through cmark).
enum PostMarkup {
    /// The opening post's text: its link as a first paragraph (in the body's format), then its
    /// body with its parts. Nil when it has none of these, or only a link the link policy refuses.
    static func openingPost(_ info: ThreadInfo) -> String? {
        let text = info.parts.isEmpty ? info.body : framed(info.body ?? "", info.parts)
        guard let url = info.link else { return text }
        switch info.bodyFormat {
        case .markdown:
            guard let link = markdownLink(url) else { return text }
            return (text ?? "").isEmpty ? link : link + "\n\n" + text!
        case .html, .text:
            guard let link = linkParagraph(url) else { return text }
            return link + (text ?? "")
        }
    }

    /// A comment's text with its parts.
    static func body(of comment: CommentRecord) -> String {
        comment.parts.isEmpty ? comment.body : framed(comment.body, comment.parts)
    }

    /// `body` (HTML) with its parts: the content warning first (a strong paragraph), then the
    /// body, then the media (images with their description, other media as links).
    static func framed(_ body: String, _ parts: [BodyPart]) -> String {
        var html: [UInt8] = []
        for case .warning(let warning) in parts {
            html.append(contentsOf: "<p><strong>CW: ".utf8)
            HTML.escape(warning, into: &html)
            html.append(contentsOf: "</strong></p>".utf8)
        }
        html.append(contentsOf: body.utf8)
        for part in parts {
            switch part {
            case .warning: continue
            case .image(let url, let description):
                html.append(contentsOf: "<p><img src=\"".utf8)
                HTML.escape(url, into: &html)
                html.append(contentsOf: "\" alt=\"".utf8)
                HTML.escape(description, into: &html)
                html.append(contentsOf: "\"></p>".utf8)
            case .media(let url, let description):
                html.append(contentsOf: "<p><a href=\"".utf8)
                HTML.escape(url, into: &html)
                html.append(contentsOf: "\">".utf8)
                HTML.escape(description ?? url, into: &html)
                html.append(contentsOf: "</a></p>".utf8)
            }
        }
        return String(decoding: html, as: UTF8.self)
    }

    /// A link post's URL as an HTML paragraph holding its link; nil for a URL the link policy
    /// refuses.
    static func linkParagraph(_ url: String) -> String? {
        guard URLPolicy.originalLink(url) != nil else { return nil }
        var html: [UInt8] = Array("<p><a href=\"".utf8)
        HTML.escape(url, into: &html)
        html.append(contentsOf: "\">".utf8)
        HTML.escape(url, into: &html)
        html.append(contentsOf: "</a></p>".utf8)
        return String(decoding: html, as: UTF8.self)
    }

    /// A link post's URL as a line of Markdown, `[url](<url>)` with every punctuation mark of the
    /// text escaped; nil for a URL the link policy refuses or one an angle-bracket destination
    /// cannot hold.
    static func markdownLink(_ url: String) -> String? {
        guard URLPolicy.originalLink(url) != nil,
            !url.utf8.contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 < 0x20 || $0 == 0x7F })
        else { return nil }
        var text = ""
        for scalar in url.unicodeScalars {
            if scalar.isASCII, scalar.properties.isPatternSyntax || scalar == "_" { text += "\\" }
            text.unicodeScalars.append(scalar)
        }
        return "[\(text)](<\(url)>)"
    }
}
