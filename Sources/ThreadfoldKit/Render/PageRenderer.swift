/// Renders a `PageModel` to HTML through the `page` template.
///
/// Templates see the model through small lookup objects (documented in docs/templates.md),
/// so nothing is copied into dictionaries and each body goes through cmark exactly once,
/// when the template asks for it.
public struct PageRenderer: Sendable {
    public let templates: TemplateSet
    public let strings: StringsTable
    public let markdown: MarkdownRenderer
    public let sanitizer = HTMLSanitizer()
    public let generator: String

    public init(templates: TemplateSet, strings: StringsTable, markdown: MarkdownRenderer,
                generator: String = "Threadfold \(Threadfold.version)") {
        self.templates = templates
        self.strings = strings
        self.markdown = markdown
        self.generator = generator
    }

    /// - Parameter assets: the relative path from the page to the stylesheet and script folder.
    public func render(_ model: PageModel, assets: String = "", lang: String? = nil) throws(TemplateError) -> [UInt8] {
        var bodies = [HTML?](repeating: nil, count: model.thread.records.count)
        renderBodies(model, into: &bodies)
        return try render(model, assets: assets, lang: lang, bodies: bodies, navigation: nil)
    }

    /// Renders the bodies `model` shows that `cache` does not hold yet. The cache is indexed like
    /// `thread.records`, so the pages of one thread (its parts, branches and orders) share it and
    /// each body goes through cmark once.
    public func renderBodies(_ model: PageModel, into cache: inout [HTML?]) {
        for entry in model.entries where cache[Int(entry.comment)] == nil && !model.thread.flags[Int(entry.comment)].contains(.placeholder) {
            let record = model.thread.records[Int(entry.comment)]
            cache[Int(entry.comment)] = body(record.body, record.bodyFormat)
        }
    }

    /// Renders one page of a thread whose bodies are in `bodies` (see `renderBodies`), with the
    /// links of an archive page (`navigation`), or none for a standalone page.
    public func render(_ model: PageModel, assets: String, lang: String?, bodies: [HTML?],
                       navigation: PageNavigation?) throws(TemplateError) -> [UInt8] {
        // A language tag from the input is used only when it looks like one (BCP 47 letters,
        // digits and hyphens); otherwise the page takes the locale's own tag.
        let requested = lang ?? model.thread.info.lang ?? strings.locale
        let page = PageContext(model: model, renderer: self, assets: assets,
                               lang: PageRenderer.isLanguageTag(requested) ? requested : strings.locale,
                               bodies: bodies, navigation: navigation)
        // About 700 bytes of markup per comment plus its body.
        var expected = 8 * 1024 + model.entries.count * 768
        for entry in model.entries { expected += bodies[Int(entry.comment)]?.raw.utf8.count ?? 0 }
        return try templates.render("page", .object(page), expectedSize: expected)
    }
}

extension PageRenderer {
    /// A body rendered by its format: Markdown through cmark, HTML through the sanitizer, text escaped.
    func body(_ text: String, _ format: BodyFormat) -> HTML {
        switch format {
        case .markdown: return markdown.render(text)
        case .html: return sanitizer.sanitize(text)
        case .text: return markdown.plainText(text)
        }
    }

    static func isLanguageTag(_ text: String) -> Bool {
        let bytes = text.utf8
        guard (2...35).contains(bytes.count), bytes.first.map({ ($0 | 0x20) >= 97 && ($0 | 0x20) <= 122 }) == true else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"): return true
            default: return false
            }
        }
    }
}

private final class PageContext: MustacheObject {
    static var keysDependOnTypeOnly: Bool { true }
    let model: PageModel
    // The model's arrays, held directly so a lookup borrows them instead of copying the model.
    let records: [CommentRecord]
    let flags: [CommentFlags]
    let anchors: [String]
    let entries: [PageModel.Entry]
    let blocks: [PageModel.ReplyBlock]
    let stats: [CommentStats]
    let renderer: PageRenderer
    let assets: String
    let lang: String
    let strings: StringsTable
    /// Every shown body rendered up front, in one batch, indexed like `records`: keeping cmark's
    /// allocations apart from the template's measurably speeds up both.
    let bodies: [HTML?]
    let threadBody: HTML?
    let navigation: PageNavigation?

    init(model: PageModel, renderer: PageRenderer, assets: String, lang: String, bodies: [HTML?], navigation: PageNavigation?) {
        self.model = model
        self.records = model.thread.records
        self.flags = model.thread.flags
        self.anchors = model.anchors
        self.entries = model.entries
        self.blocks = model.blocks
        self.stats = model.thread.stats
        self.renderer = renderer
        self.strings = renderer.strings
        self.bodies = bodies
        self.navigation = navigation
        // The opening post shows on the first page of a thread only.
        let showsPost = navigation?.showsPost ?? true
        self.threadBody = showsPost ? model.thread.info.body.map { renderer.body($0, model.thread.info.bodyFormat) } : nil
        self.assets = assets
        self.lang = lang
    }

    /// The name shown for comment `index`: "[deleted]" or "[removed]" for placeholders,
    /// "[unknown]" when the author is missing.
    func displayName(of index: Int) -> String {
        if flags[index].contains(.placeholder) { return strings.text(records[index].removed ? "removed" : "deleted") }
        return records[index].author.flatMap { $0.isEmpty ? nil : $0 } ?? strings.text("unknown_author")
    }

    func value(forKey key: String) -> MustacheValue? {
        let info = model.thread.info
        let totals = model.thread.totals
        switch key {
        case "lang": return .string(lang)
        case "dir": return .string(strings.direction)
        case "title": return .string(info.title.flatMap { $0.isEmpty ? nil : $0 } ?? strings.text("untitled"))
        case "author": return info.author.map(MustacheValue.string) ?? .null
        case "created": return info.createdAt.map { .object(TimeContext(time: $0, strings: strings)) } ?? .null
        case "url":
            return URLPolicy.originalLink(info.url).map(MustacheValue.string) ?? .null
        case "stats":
            return .string(strings.join([
                strings.text("comments", count: totals.comments),
                strings.text("people", count: totals.participants),
                strings.text("levels", count: totals.levels),
            ]))
        case "body": return threadBody.flatMap { $0.raw.isEmpty ? nil : MustacheValue.html($0) } ?? .null
        case "unarchived":
            guard info.unarchivedComments > 0 else { return .null }
            return .string(strings.text("not_archived", count: info.unarchivedComments))
        case "commentCount": return .int(totals.comments)
        case "participantCount": return .int(totals.participants)
        case "levelCount": return .int(totals.levels)
        case "latest": return totals.latestActivity.map { .object(TimeContext(time: $0, strings: strings)) } ?? .null
        case "comments": return .list(model.roots.map { .object(CommentContext(page: self, entry: $0)) })
        case "hasComments": return .bool(!model.roots.isEmpty)
        case "assets": return .string(assets)
        case "generator": return .string(renderer.generator)
        case "s": return .object(MessagesContext(strings: strings))
        case "nav": return navigation.map { .object(NavigationContext(page: self, navigation: $0)) } ?? .null
        default: return nil
        }
    }
}

/// `{{s.key}}`: a message without a count.
private struct MessagesContext: MustacheObject {
    static var keysDependOnTypeOnly: Bool { true }
    let strings: StringsTable
    func value(forKey key: String) -> MustacheValue? { .string(strings.text(key)) }
}

/// `{{iso}}` for `<time datetime>`, `{{display}}` for people.
private struct TimeContext: MustacheObject {
    static var keysDependOnTypeOnly: Bool { true }
    let time: Timestamp
    let strings: StringsTable
    func value(forKey key: String) -> MustacheValue? {
        switch key {
        case "iso": return .string(time.iso8601)
        case "display": return .string(strings.date(time))
        default: return nil
        }
    }
}

/// One comment where it is shown. Answers every comment key (with `.null` when empty) so a
/// lookup never falls through to an enclosing comment.
private struct CommentContext: MustacheObject {
    static var keysDependOnTypeOnly: Bool { true }
    let page: PageContext
    let entry: Int32

    func value(forKey key: String) -> MustacheValue? {
        let entry = page.entries[Int(entry)]
        let index = Int(entry.comment)
        let flags = page.flags[index]
        let strings = page.strings
        switch key {
        case "anchor": return .string(page.anchors[index])
        case "id": return .string(page.records[index].id.string)
        case "level": return .int(Int(entry.level))
        case "author": return .string(page.displayName(of: index))
        case "placeholder": return .bool(flags.contains(.placeholder))
        case "isOP": return .bool(flags.contains(.byThreadAuthor))
        case "flair":
            guard !flags.contains(.placeholder), let flair = page.records[index].authorFlair, !flair.isEmpty else { return .null }
            return .string(flair)
        case "created": return page.records[index].createdAt.map { .object(TimeContext(time: $0, strings: strings)) } ?? .null
        case "edited":
            guard page.records[index].edited, !flags.contains(.placeholder) else { return .null }
            return .object(EditedContext(time: page.records[index].editedAt, strings: strings))
        case "score":
            guard let score = page.records[index].score, !flags.contains(.placeholder) else { return .null }
            return .object(ScoreContext(score: score, strings: strings))
        case "body":
            return page.bodies[index].map(MustacheValue.html) ?? .null
        case "unarchived":
            let count = page.records[index].unarchivedReplies
            guard count > 0 else { return .null }
            return .string(strings.text("not_archived", count: count))
        case "orphan": return .bool(flags.contains(.orphan))
        case "cycle": return .bool(flags.contains(.cycleBroken))
        case "replyingTo":
            guard entry.replyingTo >= 0 else { return .null }
            return .object(ReplyingToContext(page: page, comment: entry.replyingTo))
        case "replies":
            guard entry.replies >= 0 else { return .null }
            return .object(RepliesContext(page: page, block: entry.replies))
        case "continue":
            guard entry.continued, let href = page.navigation?.branchHrefs[entry.comment] else { return .null }
            let count = Int(page.stats[index].totalReplies)
            return .object(MustacheDictionary(["href": .string(href), "count": .int(count),
                                               "text": .string(strings.text("continue_thread", count: count))]))
        default: return nil
        }
    }
}

private struct EditedContext: MustacheObject {
    static var keysDependOnTypeOnly: Bool { true }
    let time: Timestamp?
    let strings: StringsTable
    func value(forKey key: String) -> MustacheValue? {
        switch key {
        case "label": return .string(strings.text("edited"))
        case "time": return time.map { .object(TimeContext(time: $0, strings: strings)) } ?? .null
        default: return nil
        }
    }
}

private struct ScoreContext: MustacheObject {
    static var keysDependOnTypeOnly: Bool { true }
    let score: Int64
    let strings: StringsTable
    func value(forKey key: String) -> MustacheValue? {
        switch key {
        case "value": return .string(String(score))
        case "text": return .string(strings.text("points", count: Int(clamping: score)))
        default: return nil
        }
    }
}

private struct ReplyingToContext: MustacheObject {
    static var keysDependOnTypeOnly: Bool { true }
    let page: PageContext
    let comment: Int32
    func value(forKey key: String) -> MustacheValue? {
        let index = Int(comment)
        switch key {
        case "label": return .string(page.strings.text("replying_to"))
        case "anchor": return .string(page.anchors[index])
        case "author": return .string(page.displayName(of: index))
        default: return nil
        }
    }
}

/// A comment's reply section: the summary with its precomputed counts, the shown replies and
/// the fold with the rest.
private struct RepliesContext: MustacheObject {
    static var keysDependOnTypeOnly: Bool { true }
    let page: PageContext
    let block: Int32

    func value(forKey key: String) -> MustacheValue? {
        let block = page.blocks[Int(block)]
        let owner = Int(page.entries[Int(block.owner)].comment)
        let stats = page.stats[owner]
        let strings = page.strings
        switch key {
        case "open": return .bool(block.open)
        case "flattened": return .bool(block.flattened)
        case "summary":
            var parts: [String] = []
            let items = block.shown.count + block.hidden.count
            parts.append(strings.text("replies", count: items))
            if Int(stats.totalReplies) > items {
                parts.append(strings.text("in_thread", count: Int(stats.totalReplies)))
            }
            parts.append(strings.text("people", count: Int(stats.participants)))
            if let latest = stats.latestActivity {
                parts.append(strings.text("latest", ["date": strings.date(latest)]))
            }
            return .string(strings.join(parts))
        case "count": return .int(block.shown.count + block.hidden.count)
        case "total": return .int(Int(stats.totalReplies))
        case "people": return .int(Int(stats.participants))
        case "latest": return stats.latestActivity.map { .object(TimeContext(time: $0, strings: strings)) } ?? .null
        case "shown": return .list(block.shown.map { .object(CommentContext(page: page, entry: $0)) })
        case "more":
            guard !block.hidden.isEmpty else { return .null }
            return .object(MoreContext(page: page, block: self.block))
        default: return nil
        }
    }
}

/// The fold inside a reply section: "Show 8 more replies by 3 people".
private struct MoreContext: MustacheObject {
    static var keysDependOnTypeOnly: Bool { true }
    let page: PageContext
    let block: Int32

    func value(forKey key: String) -> MustacheValue? {
        let block = page.blocks[Int(block)]
        let strings = page.strings
        switch key {
        case "summary":
            var text = strings.text("more_replies", count: block.hidden.count)
            if block.hiddenPeople > 0 { text += " " + strings.text("by_people", count: Int(block.hiddenPeople)) }
            return .string(text)
        case "count": return .int(block.hidden.count)
        case "comments": return .int(Int(block.hiddenComments))
        case "people": return .int(Int(block.hiddenPeople))
        case "items": return .list(block.hidden.map { .object(CommentContext(page: page, entry: $0)) })
        default: return nil
        }
    }
}

/// `{{#nav}}`: the links of an archive page: the index, the sort orders, the parts of a long
/// thread, and on a branch page the comments it hangs from.
private struct NavigationContext: MustacheObject {
    static var keysDependOnTypeOnly: Bool { true }
    let page: PageContext
    let navigation: PageNavigation

    func value(forKey key: String) -> MustacheValue? {
        let strings = page.strings
        func link(_ label: String, _ href: String, current: Bool = false) -> MustacheValue {
            .object(MustacheDictionary(["label": .string(label), "href": .string(href), "current": .bool(current)]))
        }
        switch key {
        case "index": return navigation.indexHref.map { link(strings.text("all_threads"), $0) } ?? .null
        case "feed": return navigation.feedHref.map { .string($0) } ?? .null
        case "canonical": return navigation.canonical.map { .string($0) } ?? .null
        case "orders":
            guard navigation.orders.count > 1 else { return .null }
            let items = navigation.orders.map { link(strings.text("order_\($0.target.rawValue)"), $0.href, current: $0.current) }
            return .object(MustacheDictionary(["label": .string(strings.text("sort_label")), "items": .list(items)]))
        case "pages":
            guard navigation.pages.count > 1 else { return .null }
            let items = navigation.pages.map { link(strings.number($0.target), $0.href, current: $0.current) }
            return .object(MustacheDictionary(["label": .string(strings.text("pages_label")), "items": .list(items)]))
        case "pageOf":
            guard let current = navigation.pages.first(where: \.current), navigation.pages.count > 1 else { return .null }
            return .string(strings.text("page_of", ["page": strings.number(current.target), "pages": strings.number(navigation.pages.count)]))
        case "continuedFrom":
            guard let previous = navigation.previousPage else { return .null }
            return link(strings.text("continued_from", ["page": strings.number(previous.target)]), previous.href)
        case "thread":
            return navigation.threadHref.map { link(strings.text("back_to_thread"), $0) } ?? .null
        case "ancestors":
            guard !navigation.ancestors.isEmpty else { return .null }
            return .object(MustacheDictionary(["label": .string(strings.text("context_label")), "items": .list(navigation.ancestors.map { ancestor in
                .object(MustacheDictionary([
                    "author": .string(page.displayName(of: Int(ancestor.comment))),
                    "href": .string(ancestor.href),
                    "excerpt": .string(page.flags[Int(ancestor.comment)].contains(.placeholder) ? "" : PageNavigation.excerpt(page.records[Int(ancestor.comment)].body)),
                ]))
            })]))
        default: return nil
        }
    }
}
