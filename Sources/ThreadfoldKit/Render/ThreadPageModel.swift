/// What the `page`, `comment`, `replies` and `notice` templates see of one page of a thread: a
/// `TemplateModel` whose nodes are indices into the page model's arrays (keys are listed in
/// docs/templates.md). Bodies are rendered before the page, so no lookup calls cmark.
struct ThreadPageModel: TemplateModel {
    enum Node {
        case page
        /// `{{s.key}}`: a message without a count.
        case messages
        /// `{{iso}}` for `<time datetime>`, `{{display}}` for people.
        case time(Timestamp)
        /// One comment where it is shown, by entry.
        case comment(Int32)
        /// A comment's edit note, by comment.
        case edited(Int32)
        case score(Int64)
        /// "↳ replying to @name", by the comment replied to.
        case replyingTo(Int32)
        /// A comment's reply section: the summary with its precomputed counts, the shown replies
        /// and the fold with the rest, by reply block.
        case replies(Int32)
        /// The fold inside a reply section: "Show 2 more replies (8 comments, 3 people)", by reply block.
        case more(Int32)
        /// "Continue this thread", by comment.
        case continued(Int32)
        /// "Continue this thread on Reddit", by comment: replies that go on at the source.
        case atSource(Int32)
        /// The links of an archive page: the index, the sort orders, the parts of a long thread,
        /// and on a branch page the comments it hangs from.
        case nav
        case link(NavigationLink)
        case group(NavigationGroup)
        /// A comment above a branch page's root, by its place in `navigation.ancestors`.
        case ancestor(Int32)
        /// One item of the top level in display order: a comment or a notice, which answers only
        /// `comment` and `notice`, so a template picks its partial by kind.
        case item(TimelineItem)
        /// A notice about the thread (closed, pinned, split), by its place in the page model's notices.
        case notice(Int32)
        /// A post's reactions ("👍 3 · ❤️ 1"), by comment, or -1 for the opening post.
        case reactions(Int32)
        /// One of them: its post as above, and its place in the post's reactions.
        case reaction(Int32, Int32)
        /// A post's poll, by comment, or -1 for the opening post.
        case poll(Int32)
        /// One of its options: its post as above, and its place among them.
        case pollOption(Int32, Int32)

        var kind: Int {
            switch self {
            case .page: return 0
            case .messages: return 1
            case .time: return 2
            case .comment: return 3
            case .edited: return 4
            case .score: return 5
            case .replyingTo: return 6
            case .replies: return 7
            case .more: return 8
            case .continued: return 9
            case .nav: return 10
            case .link: return 11
            case .group: return 12
            case .ancestor: return 13
            case .atSource: return 14
            case .item: return 15
            case .notice: return 16
            case .reactions: return 17
            case .reaction: return 18
            case .poll: return 19
            case .pollOption: return 20
            }
        }
    }

    enum TimelineItem {
        /// A top-level comment, by entry.
        case comment(Int32)
        /// A notice, by its place in the page model's notices.
        case notice(Int32)
    }

    enum NavigationLink {
        case index, thread, continuedFrom
        case order(Int32)
        case page(Int32)
    }

    enum NavigationGroup { case orders, pages, ancestors }

    typealias Value = TemplateValue<Node>

    let info: ThreadInfo
    let totals: ThreadTotals
    // The model's arrays, held directly so a lookup borrows them.
    let records: [CommentRecord]
    let flags: [CommentFlags]
    let anchors: [String]
    let rootEntries: [Int32]
    let entries: [PageModel.Entry]
    let notices: [NoticeRecord]
    let shownNotices: [PageModel.Notice]
    let blocks: [PageModel.ReplyBlock]
    let stats: [CommentStats]
    let language: PageLanguage
    let assets: String
    let generator: String
    /// Every shown body, rendered before the page and indexed like `records`.
    let bodies: [HTML?]
    /// Every notice's body, indexed like `notices`.
    let noticeBodies: [HTML?]
    /// The opening post's body, on the first page of a thread only.
    let threadBody: HTML?
    let navigation: PageNavigation?

    init(
        model: PageModel, language: PageLanguage, assets: String, generator: String, bodies: [HTML?],
        noticeBodies: [HTML?], threadBody: HTML?, navigation: PageNavigation?
    ) {
        info = model.thread.info
        totals = model.thread.totals
        records = model.thread.records
        flags = model.thread.flags
        anchors = model.anchors
        rootEntries = model.rootEntries
        entries = model.entries
        notices = model.thread.notices
        shownNotices = model.notices
        blocks = model.blocks
        stats = model.thread.stats
        self.language = language
        self.assets = assets
        self.generator = generator
        self.bodies = bodies
        self.noticeBodies = noticeBodies
        self.threadBody = threadBody
        self.navigation = navigation
    }

    var strings: StringsTable { language.strings }

    /// The display dates made on this page, by day, in 64 slots (a day in slot `day & 63`): a
    /// thread's comments mostly fall on a few days, and a display date names the day alone
    /// (`StringsTable.DatePattern` has no time fields). Comments are shown in reply order, not
    /// time order, and reply sections say their latest date between them, so the days come
    /// interleaved: one remembered day would be made again and again. And the reply sections'
    /// summaries, which are made of such dates and small counts. A model is made for one page and
    /// read by one thread.
    private let memo = Memo()

    private final class Memo {
        var days = [Int64](repeating: Int64.min, count: 64)
        var texts = [String](repeating: "", count: 64)
        /// Reply sections' summaries by what they say, in 64 slots: most sections of a page hold
        /// one to three replies by as many people, on a few days, so the same summary comes back.
        var summaryKeys = [SummaryKey?](repeating: nil, count: 64)
        var summaries = [String](repeating: "", count: 64)
    }

    /// What a reply section's summary says: its replies, the comments below it, its people and the
    /// day of its latest activity (`Int64.min` for none).
    private struct SummaryKey: Equatable {
        let items: Int
        let total: Int
        let people: Int
        let day: Int64

        var slot: Int { Int(truncatingIfNeeded: (items &* 31 &+ total &* 7 &+ people) &* 17 &+ Int(truncatingIfNeeded: day)) & 63 }
    }

    /// `strings.date(time)`, made once per day while no other day takes its slot (`Timestamp.epochDay`).
    private func date(_ time: Timestamp) -> String {
        let day = time.epochDay
        let slot = Int(day & 63)
        if memo.days[slot] == day { return memo.texts[slot] }
        let text = strings.date(time)
        memo.days[slot] = day
        memo.texts[slot] = text
        return text
    }

    func kind(of node: Node) -> Int? { node.kind }

    /// The page's own keys are the page's alone (and the messages', which answer every name): a
    /// page-level name (`s.…`, `pagefind`) inside nested comments asks no comment or reply section.
    func kinds(answering key: TemplateKey) -> UInt64 {
        switch key.field {
        case .lang, .dir, .title, .url, .tags, .stats, .commentCount, .participantCount, .levelCount, .hasComments, .timeline,
            .hasTimeline, .assets, .generator, .s, .nav, .pagefind, .category, .year:
            return 1 << UInt64(Node.page.kind) | 1 << UInt64(Node.messages.kind)
        default: return ~0
        }
    }

    func value(_ key: TemplateKey, of node: Node) -> Value? {
        switch node {
        case .page: return page(key)
        case .messages: return .text(language.message(key))
        case .time(let time): return self.time(key, time)
        case .comment(let entry): return comment(key, entry: entries[Int(entry)])
        case .edited(let comment): return edited(key, comment: Int(comment))
        case .score(let score): return self.score(key, score)
        case .replyingTo(let comment): return replyingTo(key, comment: Int(comment))
        case .replies(let block): return replies(key, block: block)
        case .more(let block): return more(key, block: block)
        case .continued(let comment): return continued(key, comment: comment)
        case .atSource(let comment): return atSource(key, comment: Int(comment))
        case .nav: return navigation.flatMap { nav(key, $0) }
        case .link(let link): return navigation.flatMap { self.link(key, link, $0) }
        case .group(let group): return navigation.flatMap { self.group(key, group, $0) }
        case .ancestor(let i): return ancestor(key, i)
        case .item(let item): return self.item(key, item)
        case .notice(let place): return notice(key, index: Int(shownNotices[Int(place)].notice))
        case .reactions(let post): return reactions(key, post: post)
        case .poll(let post): return poll(key, post: post)
        case .pollOption(let post, let i): return pollOption(key, post: post, i)
        case .reaction(let post, let i): return reaction(key, post: post, i)
        }
    }

    private func time(_ key: TemplateKey, _ time: Timestamp) -> Value? {
        switch key.field {
        case .iso: return .text(time.iso8601)
        case .display: return .text(date(time))
        default: return nil
        }
    }

    private func edited(_ key: TemplateKey, comment: Int) -> Value? {
        switch key.field {
        case .label: return .text(strings.text("edited"))
        case .time: return records[comment].editedAt.map { .node(.time($0)) } ?? .null
        default: return nil
        }
    }

    private func score(_ key: TemplateKey, _ score: Int64) -> Value? {
        switch key.field {
        case .value: return .text(String(score))
        case .text: return .text(language.counts.points(Int(clamping: score)))
        default: return nil
        }
    }

    private func replyingTo(_ key: TemplateKey, comment: Int) -> Value? {
        switch key.field {
        case .label: return .text(strings.text("replying_to"))
        case .anchor: return .text(anchors[comment])
        case .author: return .text(displayName(of: comment))
        default: return nil
        }
    }

    /// "Continue this thread": the branch page of `comment`'s replies.
    private func continued(_ key: TemplateKey, comment: Int32) -> Value? {
        let count = Int(stats[Int(comment)].totalReplies)
        switch key.field {
        case .href: return navigation?.branchHrefs[comment].map(Value.text) ?? .null
        case .count: return .int(count)
        case .text: return .text(strings.text("continue_thread", count: count))
        default: return nil
        }
    }

    private func atSource(_ key: TemplateKey, comment: Int) -> Value? {
        switch key.field {
        case .href: return URLPolicy.originalLink(records[comment].continuation).map(Value.text) ?? .null
        case .text: return .text(strings.text("continue_at_source"))
        default: return nil
        }
    }

    /// A breadcrumb: the comment at place `i` above a branch page's root.
    private func ancestor(_ key: TemplateKey, _ i: Int32) -> Value? {
        guard let ancestor = navigation?.ancestors[Int(i)] else { return nil }
        let comment = Int(ancestor.comment)
        switch key.field {
        case .author: return .text(displayName(of: comment))
        case .href: return .text(ancestor.href)
        case .excerpt: return .text(flags[comment].contains(.placeholder) ? "" : bodies[comment].map { PageNavigation.excerpt($0) } ?? "")
        default: return nil
        }
    }

    private func item(_ key: TemplateKey, _ item: TimelineItem) -> Value? {
        switch (key.field, item) {
        case (.comment, .comment(let entry)): return .node(.comment(entry))
        case (.notice, .notice(let place)): return .node(.notice(place))
        case (.comment, _), (.notice, _): return .null
        default: return nil
        }
    }

    private func reactions(_ key: TemplateKey, post: Int32) -> Value? {
        let list = reactions(of: post)
        switch key.field {
        case .text: return .text(strings.join(list.map { "\($0.emoji) \(strings.number(Int(clamping: $0.count)))" }))
        case .items: return .list(list.indices.map { .node(.reaction(post, Int32($0))) })
        default: return nil
        }
    }

    private func reaction(_ key: TemplateKey, post: Int32, _ i: Int32) -> Value? {
        let reaction = reactions(of: post)[Int(i)]
        switch key.field {
        case .emoji: return .text(reaction.emoji)
        case .count: return .int(Int(clamping: reaction.count))
        default: return nil
        }
    }

    private func pollOption(_ key: TemplateKey, post: Int32, _ i: Int32) -> Value? {
        guard let option = poll(of: post)?.options[Int(i)] else { return nil }
        switch key.field {
        case .text: return .text(option.text)
        case .votes: return option.votes.map { .text(strings.text("votes", count: Int(clamping: $0))) } ?? .null
        case .count: return option.votes.map { .int(Int(clamping: $0)) } ?? .null
        default: return nil
        }
    }

    /// The poll of comment `post`, or of the opening post for -1.
    func poll(of post: Int32) -> Poll? { post < 0 ? info.poll : records[Int(post)].poll }

    /// A poll's keys: "Poll · 11,249 votes · voting until 3 Mar 2024" and its options, each with
    /// its votes when the source gives them.
    private func poll(_ key: TemplateKey, post: Int32) -> Value? {
        guard let poll = poll(of: post) else { return nil }
        switch key.field {
        case .label: return .text(strings.text("poll"))
        case .total: return poll.total.map { .text(strings.text("votes", count: Int(clamping: $0))) } ?? .null
        case .ends: return poll.endsAt.map { .node(.time($0)) } ?? .null
        case .options: return .list(poll.options.indices.map { .node(.pollOption(post, Int32($0))) })
        default: return nil
        }
    }

    /// The reactions of comment `post`, or of the opening post for -1.
    func reactions(of post: Int32) -> [Reaction] { post < 0 ? info.reactions : records[Int(post)].reactions }

    /// The top level in display order: the top-level comments, with each notice before the
    /// comment its place names (after them all when it names none).
    var timeline: [Value] {
        var items: [Value] = []
        items.reserveCapacity(rootEntries.count + shownNotices.count)
        var next = 0
        for (position, entry) in rootEntries.enumerated() {
            while next < shownNotices.count, shownNotices[next].position <= position {
                items.append(.node(.item(.notice(Int32(next)))))
                next += 1
            }
            items.append(.node(.item(.comment(entry))))
        }
        for rest in next..<shownNotices.count { items.append(.node(.item(.notice(Int32(rest))))) }
        return items
    }

    /// Answers every notice key (with `.null` when empty), so a notice never shows the page's
    /// `created` or `body`.
    private func notice(_ key: TemplateKey, index: Int) -> Value? {
        let notice = notices[index]
        switch key.field {
        case .actor: return .text(notice.actor ?? strings.text("unknown_author"))
        case .action: return .text(action(of: notice))
        case .code: return notice.action.map(Value.text) ?? .null
        case .created: return notice.createdAt.map { .node(.time($0)) } ?? .null
        case .body: return noticeBodies[index].flatMap { $0.raw.isEmpty ? nil : Value.html($0) } ?? .null
        default: return nil
        }
    }

    /// What a notice says was done, in the page's words: the locale's `notice.<code>` ("closed the
    /// topic", "invited {who}"); for a code the locale does not name, `notice_other` with the code
    /// itself; without a code, `notice_none`. Plain text, escaped like any other.
    func action(of notice: NoticeRecord) -> String {
        guard let code = notice.action else { return strings.text("notice_none") }
        let key = "notice." + code
        guard strings.contains(key) else { return strings.text("notice_other", ["code": code]) }
        return strings.text(key, ["who": notice.subject ?? strings.text("unknown_author")])
    }

    /// The name shown for comment `index`: "[deleted]" or "[removed]" for placeholders,
    /// "[unknown]" when the author is missing.
    func displayName(of index: Int) -> String {
        if flags[index].contains(.placeholder) { return strings.text(records[index].removed ? "removed" : "deleted") }
        return records[index].author.flatMap { $0.isEmpty ? nil : $0 } ?? strings.text(records[index].authorDeleted ? "deleted" : "unknown_author")
    }

    private func page(_ key: TemplateKey) -> Value? {
        switch key.field {
        case .lang: return .text(language.tag)
        case .dir: return .text(strings.direction)
        case .title: return .text(info.title.flatMap { $0.isEmpty ? nil : $0 } ?? strings.text("untitled"))
        case .author: return info.author.map(Value.text) ?? .null
        case .created: return info.createdAt.map { .node(.time($0)) } ?? .null
        case .url: return URLPolicy.originalLink(info.url).map(Value.text) ?? .null
        case .score: return info.score.map { .node(.score($0)) } ?? .null
        case .reactions: return info.reactions.isEmpty ? .null : .node(.reactions(-1))
        case .poll: return info.poll == nil ? .null : .node(.poll(-1))
        case .tags: return info.tags.isEmpty ? .null : .list(info.tags.map(Value.text))
        case .stats:
            return .text(
                strings.join([
                    strings.text("comments", count: totals.comments),
                    strings.text("people", count: totals.participants),
                    strings.text("levels", count: totals.levels),
                ]))
        case .body: return threadBody.flatMap { $0.raw.isEmpty ? nil : Value.html($0) } ?? .null
        case .unarchived:
            guard info.unarchivedComments > 0 else { return .null }
            return .text(strings.text("not_archived", count: info.unarchivedComments))
        case .commentCount: return .int(totals.comments)
        case .participantCount: return .int(totals.participants)
        case .levelCount: return .int(totals.levels)
        case .latest: return totals.latestActivity.map { .node(.time($0)) } ?? .null
        case .comments: return .list(rootEntries.map { .node(.comment($0)) })
        case .hasComments: return .bool(!rootEntries.isEmpty)
        case .timeline: return .list(timeline)
        case .hasTimeline: return .bool(!rootEntries.isEmpty || !shownNotices.isEmpty)
        case .assets: return .text(assets)
        case .generator: return .text(generator)
        case .s: return .node(.messages)
        case .nav: return navigation == nil ? .null : .node(.nav)
        case .authorHref: return navigation?.threadAuthorFolder.map { .text(assets + "u/" + $0 + "/index.html") } ?? .null
        case .pagefind: return .bool(navigation?.pagefind ?? false)
        case .category: return info.category.flatMap { $0.isEmpty ? nil : Value.text($0) } ?? .null
        case .year:
            guard let year = info.createdAt?.components.year, (1...9999).contains(year) else { return .null }
            return .text(String(year))
        default: return nil
        }
    }

    /// The author page of comment `index`'s author, relative to this page, when the archive has them.
    func authorHref(of index: Int) -> Value {
        guard let navigation, index < navigation.authorFolders.count, !flags[index].contains(.placeholder),
            let folder = navigation.authorFolders[index]
        else { return .null }
        return .text(assets + "u/" + folder + "/index.html")
    }

    /// Answers every comment key (with `.null` when empty), so a lookup never falls through to
    /// an enclosing comment.
    private func comment(_ key: TemplateKey, entry: PageModel.Entry) -> Value? {
        let index = Int(entry.comment)
        let flags = flags[index]
        switch key.field {
        case .anchor: return .text(anchors[index])
        case .id: return .text(records[index].id.string)
        case .level: return .int(Int(entry.level))
        case .author: return .text(displayName(of: index))
        case .authorHref: return authorHref(of: index)
        case .placeholder: return .bool(flags.contains(.placeholder))
        case .isOP: return .bool(flags.contains(.byThreadAuthor))
        case .flair:
            guard !flags.contains(.placeholder), let flair = records[index].authorFlair, !flair.isEmpty else { return .null }
            return .text(flair)
        case .created: return records[index].createdAt.map { .node(.time($0)) } ?? .null
        case .edited:
            guard records[index].edited, !flags.contains(.placeholder) else { return .null }
            return .node(.edited(entry.comment))
        case .score:
            guard let score = records[index].score, !flags.contains(.placeholder) else { return .null }
            return .node(.score(score))
        case .reactions:
            guard !records[index].reactions.isEmpty, !flags.contains(.placeholder) else { return .null }
            return .node(.reactions(entry.comment))
        case .poll:
            guard records[index].poll != nil, !flags.contains(.placeholder) else { return .null }
            return .node(.poll(entry.comment))
        case .body: return bodies[index].map(Value.html) ?? .null
        case .unarchived:
            let count = records[index].unarchivedReplies
            guard count > 0 else { return .null }
            return .text(strings.text("not_archived", count: count))
        case .atSource:
            guard records[index].continuation != nil else { return .null }
            return .node(.atSource(entry.comment))
        case .hidden:
            // What folding the comment hides: itself and every reply below it.
            return .text(language.counts.foldHidden(1 + Int(stats[index].totalReplies)))
        case .orphan: return .bool(flags.contains(.orphan))
        case .cycle: return .bool(flags.contains(.cycleBroken))
        case .replyingTo: return entry.replyingTo >= 0 ? .node(.replyingTo(entry.replyingTo)) : .null
        case .replies: return entry.replies >= 0 ? .node(.replies(entry.replies)) : .null
        case .continue:
            guard entry.continued, navigation?.branchHrefs[entry.comment] != nil else { return .null }
            return .node(.continued(entry.comment))
        default: return nil
        }
    }

    /// A reply section's keys. The block's fields are read in place: copying the block retained
    /// and released its two arrays on every lookup.
    private func replies(_ key: TemplateKey, block index: Int32) -> Value? {
        let b = Int(index)
        switch key.field {
        case .open: return .bool(blocks[b].open)
        case .flattened: return .bool(blocks[b].flattened)
        case .summary:
            let stats = stats[owner(of: b)]
            let key = SummaryKey(
                items: blocks[b].shown.count + blocks[b].hidden.count, total: Int(stats.totalReplies), people: Int(stats.participants),
                day: stats.latestActivity?.epochDay ?? Int64.min)
            let slot = key.slot
            if memo.summaryKeys[slot] == key { return .text(memo.summaries[slot]) }
            let text = summary(key, latest: stats.latestActivity)
            memo.summaryKeys[slot] = key
            memo.summaries[slot] = text
            return .text(text)
        case .hide: return .text(language.counts.hideReplies(blocks[b].shown.count + blocks[b].hidden.count))
        case .count: return .int(blocks[b].shown.count + blocks[b].hidden.count)
        case .total: return .int(Int(stats[owner(of: b)].totalReplies))
        case .people: return .int(Int(stats[owner(of: b)].participants))
        case .latest: return stats[owner(of: b)].latestActivity.map { .node(.time($0)) } ?? .null
        case .shown: return .list(blocks[b].shown.map { .node(.comment($0)) })
        case .more: return blocks[b].hidden.isEmpty ? .null : .node(.more(index))
        default: return nil
        }
    }

    /// "3 replies · 5 in thread · 2 people · latest 3 Mar 2024": `strings.join` of the parts,
    /// joined as UTF-8 and made a string once (`String +=` looks for a character across each seam,
    /// which costs more than the copy).
    private func summary(_ key: SummaryKey, latest: Timestamp?) -> String {
        let separator = strings.separator
        var text: [UInt8] = []
        text.reserveCapacity(128)
        Self.append(language.counts.replies(key.items), to: &text)
        if key.total > key.items {
            Self.append(separator, to: &text)
            Self.append(language.counts.inThread(key.total), to: &text)
        }
        Self.append(separator, to: &text)
        Self.append(language.counts.people(key.people), to: &text)
        if let latest {
            Self.append(separator, to: &text)
            Self.append(language.latest(field: "date", date(latest)), to: &text)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends `part`'s UTF-8 as one copy (appending its `utf8` view goes a byte at a time).
    private static func append(_ part: String, to text: inout [UInt8]) {
        var part = part
        part.withUTF8 { text.append(contentsOf: $0) }
    }

    /// The comment whose replies block `b` holds.
    private func owner(of b: Int) -> Int { Int(entries[Int(blocks[b].owner)].comment) }

    private func more(_ key: TemplateKey, block index: Int32) -> Value? {
        let b = Int(index)
        switch key.field {
        case .summary:
            // "Show 1 more reply (5 comments, 4 people)": the comments are the whole hidden branch,
            // said only when there are more of them than replies, and so are the people.
            let replies = blocks[b].hidden.count, comments = Int(blocks[b].hiddenComments), people = Int(blocks[b].hiddenPeople)
            var text = language.counts.moreReplies(replies)
            var details: [String] = []
            if comments > replies { details.append(language.counts.comments(comments)) }
            if people > 0 { details.append(language.counts.foldPeople(people)) }
            if !details.isEmpty { text += language.foldDetails(field: "list", details.joined(separator: language.listSeparator)) }
            return .text(text)
        case .hide: return .text(language.counts.hideReplies(blocks[b].hidden.count))
        case .count: return .int(blocks[b].hidden.count)
        case .comments: return .int(Int(blocks[b].hiddenComments))
        case .people: return .int(Int(blocks[b].hiddenPeople))
        case .items: return .list(blocks[b].hidden.map { .node(.comment($0)) })
        default: return nil
        }
    }

    private func nav(_ key: TemplateKey, _ navigation: PageNavigation) -> Value? {
        switch key.field {
        case .index: return navigation.indexHref == nil ? .null : .node(.link(.index))
        case .feed: return navigation.feedHref.map(Value.text) ?? .null
        case .canonical: return navigation.canonical.map(Value.text) ?? .null
        case .orders: return navigation.orders.count > 1 ? .node(.group(.orders)) : .null
        case .pages: return navigation.pages.count > 1 ? .node(.group(.pages)) : .null
        case .pageOf:
            guard let current = navigation.pages.first(where: \.current), navigation.pages.count > 1 else { return .null }
            return .text(strings.text("page_of", ["page": strings.number(current.target), "pages": strings.number(navigation.pages.count)]))
        case .continuedFrom: return navigation.previousPage == nil ? .null : .node(.link(.continuedFrom))
        case .thread: return navigation.threadHref == nil ? .null : .node(.link(.thread))
        case .ancestors: return navigation.ancestors.isEmpty ? .null : .node(.group(.ancestors))
        default: return nil
        }
    }

    private func group(_ key: TemplateKey, _ group: NavigationGroup, _ navigation: PageNavigation) -> Value? {
        switch (group, key.field) {
        case (.orders, .label): return .text(strings.text("sort_label"))
        case (.orders, .items): return .list(navigation.orders.indices.map { .node(.link(.order(Int32($0)))) })
        case (.pages, .label): return .text(strings.text("pages_label"))
        case (.pages, .items): return .list(navigation.pages.indices.map { .node(.link(.page(Int32($0)))) })
        case (.ancestors, .label): return .text(strings.text("context_label"))
        case (.ancestors, .items): return .list(navigation.ancestors.indices.map { .node(.ancestor(Int32($0))) })
        default: return nil
        }
    }

    private func link(_ key: TemplateKey, _ link: NavigationLink, _ navigation: PageNavigation) -> Value? {
        let label: String, href: String, current: Bool
        switch link {
        case .index: (label, href, current) = (strings.text("all_threads"), navigation.indexHref ?? "", false)
        case .thread: (label, href, current) = (strings.text("back_to_thread"), navigation.threadHref ?? "", false)
        case .continuedFrom:
            let previous = navigation.previousPage
            (label, href, current) = (strings.text("continued_from", ["page": strings.number(previous?.target ?? 0)]), previous?.href ?? "", false)
        case .order(let i):
            let order = navigation.orders[Int(i)]
            (label, href, current) = (strings.text("order_\(order.target.rawValue)"), order.href, order.current)
        case .page(let i):
            let page = navigation.pages[Int(i)]
            (label, href, current) = (strings.number(page.target), page.href, page.current)
        }
        switch key.field {
        case .label: return .text(label)
        case .href: return .text(href)
        case .current: return .bool(current)
        default: return nil
        }
    }
}
