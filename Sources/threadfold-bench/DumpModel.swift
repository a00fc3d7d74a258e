// The synthetic subreddit of `make bench`'s dump benchmark: two files shaped like the monthly
// Reddit dumps Pushshift and Arctic Shift distribute (RS_<month>.zst, RC_<month>.zst), seeded and
// deterministic. What is modelled:
//
// - One subreddit over 30 days from 2024-01-01 00:00 UTC. N comments (`--dump-comments`, default
//   1,000,000) in N/50 threads; each thread's submission time is uniform over the month.
// - Thread sizes: Pareto (alpha 1.2, capped at 10,000x the minimum) shifted so a thread can be a
//   single comment, scaled to exactly N comments: at 1,000,000 the median thread has 11 comments,
//   the p90 74, the p99 569 and the largest about 20,000.
// - Comment times: a thread lives hours to days (a time constant log-uniform from 2 hours to 3
//   days); its comments arrive at a rate that decays exponentially from the submission (delays
//   are that constant times an Exp(1) sample, sorted, so a reply is never older than its parent).
// - Reply structure: the corpus generator's (`replyParent` in main.swift): power-law replies per
//   comment (preferential attachment), long-tail depth, one comment in five at top level.
// - Both files in created_utc order, as the real ones are: one thread's comments are spread across
//   the whole comment file, between those of the threads it overlaps in time. Ids are base36 and
//   grow with time (comments by their place in the file, submissions by theirs).
// - Comment bodies: the corpus's `body(...)` at `bodySize(...)` (log-normal, median 270 B, p90 850 B,
//   p99 about 2,100 B, capped at 20 KB), one body in twenty with a Reddit-only ending (r/ and u/
//   names, ^(superscript), >!spoilers!<, a pipe table or an emoji), and `&`, `<`, `>` escaped as
//   Reddit's API sends them (`&gt; quote`).
// - Comments: 3% deleted (author and body "[deleted]"), 2% removed (body "[removed]", half of them
//   with the author kept), 2% with a deleted account over a surviving body. A deleted or removed
//   comment without visible replies is left out of its page with one warning: about 2.7% of
//   comments. created_utc is an integer, a string of digits for 1%; edited is false, a time for 3%;
//   author_flair_text is null but for 6%; distinguished is null but for 0.3% ("moderator").
//   Every line carries the fields a 2023 Pushshift or Arctic Shift comment carries, most of which
//   Threadfold does not read (all_awardings, author_flair_richtext, collapsed_because_crowd_control,
//   gildings, treatment_tags, …: 58 to 61 members, 1.78 KB a line on average, so 1.78 GB for
//   1,000,000 comments), so reading past them is part of the cost, as it is on real dumps.
//   Submissions carry the usual fields of theirs too (about 80 members).
// - Submissions: 40% link posts (url and domain, empty selftext, is_self false), the rest self
//   posts with a Markdown selftext (one in five empty); 3% deleted, 2% removed; num_comments is
//   the thread's comments plus up to 8% more (dumps lose comments); stickied, locked, over_18 and
//   spoiler are true for 0.2% to 1%.
//
// One comment, in the middle of the file, starts with the marker `threadfold-bench-revision-A`:
// the incremental benchmark changes its last letter (B, C, …, then A again), which changes that one
// body in place (same line, same length) and nothing else.
import Foundation
import ThreadfoldKit

let dumpSubreddit = "SyntheticBench"
/// 2024-01-01 00:00:00 UTC.
let dumpEpoch = 1_704_067_200
let dumpDays = 30
let dumpMarker = Array("threadfold-bench-revision-".utf8)
/// First ids: 7 base36 digits, as in 2024's dumps.
let submissionIDBase = 2_400_000_000
let commentIDBase = 48_000_000_000

enum DumpCommentKind: UInt8 {
    case normal
    /// Author and body "[deleted]".
    case deleted
    /// Body "[removed]", author "[deleted]".
    case removed
    /// Body "[removed]", author kept.
    case removedAuthorKept
    /// Author "[deleted]" over a body that survives.
    case accountDeleted

    /// Threadfold leaves these out of the page, with a warning, when nothing visible answers them.
    var isPlaceholder: Bool { self == .deleted || self == .removed || self == .removedAuthorKept }
}

/// One comment's structure; everything else (author, body, score…) is drawn from its own random
/// stream when its line is written, so a line is the same whichever order lines are written in.
struct DumpComment {
    /// Seconds after `dumpEpoch`.
    var time: Int32
    var thread: Int32
    /// Index in `DumpModel.comments` of the comment it answers, or -1 at top level.
    var parent: Int32
    /// Added to `commentIDBase`.
    var id: Int32
    var kind: DumpCommentKind
}

struct DumpThread {
    /// Seconds after `dumpEpoch`.
    var time: Int32
    var comments: Int32
}

struct DumpModel {
    var seed: UInt64
    /// People commenting (more write little than much: `dumpAuthor`).
    var authors: Int
    var threads: [DumpThread]
    /// Thread by thread, each thread's comments in time order.
    var comments: [DumpComment]
    /// Indices into `comments` in file order: by time, then thread, then place in the thread.
    var order: [Int32]
    /// The comment whose body carries the revision marker.
    var marker: Int
}

/// The random stream of one thing (a comment, a submission): independent of every other.
func stream(_ seed: UInt64, _ kind: UInt64, _ index: Int) -> SplitMix64 {
    var mix = SplitMix64(state: seed ^ (kind << 56) ^ UInt64(index))
    return SplitMix64(state: mix.next())
}

/// `order`: every comment sorted by time, ties by index (so a parent stays before its replies).
func fileOrder(_ comments: [DumpComment]) -> [Int32] {
    var keys = comments.indices.map { UInt64(UInt32(bitPattern: comments[$0].time)) << 32 | UInt64($0) }
    keys.sort()
    return keys.map { Int32(truncatingIfNeeded: $0) }
}

func makeDumpModel(comments total: Int, seed: UInt64) -> DumpModel {
    var rng = SplitMix64(state: seed ^ 0x5245_4444_4954)
    let threadCount = max(1, total / 50)
    // Sizes: shifted Pareto, scaled to the total, the rounding error given to the largest.
    let raw = (0..<threadCount).map { _ in 1.0 / pow(1 - rng.unit() * 0.9999, 1 / 1.2) - 0.9 }
    let scale = Double(total) / raw.reduce(0, +)
    var sizes = raw.map { max(1, Int(($0 * scale).rounded())) }
    let largest = sizes.indices.max { sizes[$0] < sizes[$1] }!
    sizes[largest] = max(1, sizes[largest] + total - sizes.reduce(0, +))
    let period = Double(dumpDays * 86_400)
    let starts = (0..<threadCount).map { _ in Int32(rng.unit() * period) }.sorted()

    var threads: [DumpThread] = []
    var comments: [DumpComment] = []
    comments.reserveCapacity(sizes.reduce(0, +))
    for t in 0..<threadCount {
        let n = sizes[t]
        let lifetime = exp(log(2.0 * 3600) + rng.unit() * log(36.0))  // 2 hours to 3 days
        var delays = (0..<n).map { _ in 20 - lifetime * log(1 - rng.unit()) }
        delays.sort()
        var replies = [Int](repeating: 0, count: n)
        let first = comments.count
        for i in 0..<n {
            let parent = replyParent(&rng, index: i, replies: &replies)
            let u = rng.unit()
            let kind: DumpCommentKind = u < 0.03 ? .deleted : u < 0.04 ? .removed : u < 0.05 ? .removedAuthorKept : u < 0.07 ? .accountDeleted : .normal
            comments.append(
                DumpComment(
                    time: starts[t] + Int32(min(delays[i], 1e9)), thread: Int32(t),
                    parent: parent < 0 ? -1 : Int32(first + parent), id: 0, kind: kind))
        }
        threads.append(DumpThread(time: starts[t], comments: Int32(n)))
    }
    let order = fileOrder(comments)
    for (position, index) in order.enumerated() { comments[Int(index)].id = Int32(position) }
    // The marker goes on an ordinary comment in the middle of the file.
    var marker = Int(order[order.count / 2])
    for index in order[(order.count / 2)...] where comments[Int(index)].kind == .normal {
        marker = Int(index)
        break
    }
    return DumpModel(seed: seed, authors: max(1_000, total / 8), threads: threads, comments: comments, order: order, marker: marker)
}

/// Which comments Threadfold leaves out of their page (deleted or removed, nothing visible below),
/// found bottom-up as its tree builder does: each is one warning.
func omittedComments(_ comments: [DumpComment]) -> [Bool] {
    var answered = [Bool](repeating: false, count: comments.count)
    var omitted = [Bool](repeating: false, count: comments.count)
    // Replies come after their parents in `comments` (each thread in order; extra comments after all).
    for i in comments.indices.reversed() {
        if comments[i].kind.isPlaceholder && !answered[i] {
            omitted[i] = true
        } else if comments[i].parent >= 0 {
            answered[Int(comments[i].parent)] = true
        }
    }
    return omitted
}

// MARK: Lines

/// `&`, `<` and `>` as Reddit's API sends them in Markdown.
func redditEscaped(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }) else { return text }
    var out = ""
    out.reserveCapacity(text.utf8.count + 16)
    for character in text.unicodeScalars {
        switch character {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        default: out.unicodeScalars.append(character)
        }
    }
    return out
}

func dumpAuthor(_ rng: inout SplitMix64, pool: Int) -> (name: String, fullname: String) {
    // Skewed: a few people write much of a subreddit.
    let k = Int(Double(pool) * pow(rng.unit(), 2.5))
    return ("\(words[k % words.count])_\(k)", "t2_" + String(1_000_000_000 + k * 7919, radix: 36))
}

/// 5 to 14 words, no Markdown.
func dumpTitle(_ rng: inout SplitMix64) -> String {
    let n = 5 + rng.below(10)
    var parts = (0..<n).map { _ in words[rng.below(words.count)] }
    parts[0] = parts[0].prefix(1).uppercased() + parts[0].dropFirst()
    return parts.joined(separator: " ") + (rng.below(3) == 0 ? "?" : "")
}

/// Reddit's permalink slug: the title's first words, lower case, joined by underscores.
func dumpSlug(_ title: String) -> String {
    var slug = ""
    for word in title.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }) {
        if slug.count + word.count > 50 { break }
        slug += (slug.isEmpty ? "" : "_") + word
    }
    return slug
}

/// A body of the corpus's size distribution, one in twenty with a Reddit-only ending.
func dumpBody(_ rng: inout SplitMix64, author: String) -> String {
    var text = body(&rng, target: bodySize(&rng))
    if rng.below(20) == 0 {
        let word = words[rng.below(words.count)]
        switch rng.below(6) {
        case 0: text += " See r/\(word) for more."
        case 1: text += " Thanks u/\(author)!"
        case 2: text += " ^(\(word) \(words[rng.below(words.count)]))"
        case 3: text += " >!The \(word) was fine all along.!<"
        case 4: text += "\n\n| \(word) | count |\n|---|---|\n| a | \(rng.below(100)) |\n| b | \(rng.below(100)) |"
        default: text += " Edit: \(word) 😄"
        }
    }
    return text
}

let linkDomains = [
    "github.com", "youtube.com", "i.redd.it", "swift.org", "forums.swift.org", "en.wikipedia.org",
    "medium.com", "arstechnica.com", "news.ycombinator.com", "example.org",
]

/// One submission line (RS), with its newline.
func submissionLine(_ model: DumpModel, _ t: Int, into out: inout [UInt8]) {
    var rng = stream(model.seed, 1, t)
    let thread = model.threads[t]
    let id = String(submissionIDBase + t, radix: 36)
    let title = dumpTitle(&rng)
    let permalink = "/r/\(dumpSubreddit)/comments/\(id)/\(dumpSlug(title))/"
    let (name, fullname) = dumpAuthor(&rng, pool: model.authors)
    let fate = rng.below(100)  // 0-2 deleted, 3-4 removed
    let isSelf = rng.below(10) >= 4
    var selftext = ""
    if isSelf && rng.below(5) != 0 {
        selftext = redditEscaped(body(&rng, target: bodySize(&rng) * 3 / 2))
    }
    if fate < 3 && isSelf { selftext = "[deleted]" }
    if fate >= 3 && fate < 5 && isSelf { selftext = "[removed]" }
    let domain = isSelf ? "self.\(dumpSubreddit)" : linkDomains[rng.below(linkDomains.count)]
    let url = isSelf ? "https://www.reddit.com\(permalink)" : "https://\(domain)/\(words[rng.below(words.count)])/\(rng.below(100_000))"
    let score = Int(pow(1 - rng.unit(), -1.1)) - 1
    let created = dumpEpoch + Int(thread.time)
    let extra = Int(Double(thread.comments) * 0.08 * rng.unit()) + (rng.below(4) == 0 ? 1 : 0)
    func flag(_ percentTimesTen: Int) -> String { rng.below(1000) < percentTimesTen ? "true" : "false" }
    out.append(contentsOf: Array("{\"all_awardings\":[],\"allow_live_comments\":false,\"archived\":false,\"author\":".utf8))
    JSONWriter.appendString(fate < 3 ? "[deleted]" : name, to: &out)
    out.append(
        contentsOf: Array(
            ",\"author_flair_background_color\":null,\"author_flair_css_class\":null,\"author_flair_richtext\":[],\"author_flair_template_id\":null,\"author_flair_text\":null,\"author_flair_text_color\":null,\"author_flair_type\":\"text\""
                .utf8))
    if fate >= 3 { out.append(contentsOf: Array(",\"author_fullname\":\"\(fullname)\",\"author_patreon_flair\":false,\"author_premium\":false".utf8)) }
    out.append(
        contentsOf: Array(
            ",\"awarders\":[],\"banned_by\":null,\"can_gild\":true,\"can_mod_post\":false,\"category\":null,\"content_categories\":null,\"contest_mode\":false,\"created_utc\":\(created),\"discussion_type\":null,\"distinguished\":null,\"domain\":\"\(domain)\",\"edited\":false,\"gilded\":0,\"gildings\":{},\"hidden\":false,\"hide_score\":false,\"id\":\"\(id)\",\"is_created_from_ads_ui\":false,\"is_crosspostable\":true,\"is_meta\":false,\"is_original_content\":false,\"is_reddit_media_domain\":\(domain == "i.redd.it"),\"is_robot_indexable\":true,\"is_self\":\(isSelf),\"is_video\":false,\"link_flair_background_color\":\"\",\"link_flair_css_class\":null,\"link_flair_richtext\":[],\"link_flair_text\":null,\"link_flair_text_color\":\"dark\",\"link_flair_type\":\"text\",\"locked\":\(flag(10)),\"media\":null,\"media_embed\":{},\"media_only\":false,\"name\":\"t3_\(id)\",\"no_follow\":false,\"num_comments\":\(Int(thread.comments) + extra),\"num_crossposts\":0,\"over_18\":\(flag(10)),\"parent_whitelist_status\":\"all_ads\",\"permalink\":"
                .utf8))
    JSONWriter.appendString(permalink, to: &out)
    out.append(
        contentsOf: Array(
            ",\"pinned\":false,\"pwls\":6,\"quarantine\":false,\"removed_by_category\":\(fate < 3 ? "\"deleted\"" : fate < 5 ? "\"moderator\"" : "null"),\"retrieved_on\":\(created + 129_600 + rng.below(3600)),\"score\":\(score),\"selftext\":"
                .utf8))
    JSONWriter.appendString(selftext, to: &out)
    out.append(contentsOf: Array(",\"send_replies\":true,\"spoiler\":\(flag(10)),\"stickied\":\(flag(2)),\"subreddit\":\"\(dumpSubreddit)\",\"subreddit_id\":\"t5_3bench\",\"title\":".utf8))
    JSONWriter.appendString(title, to: &out)
    out.append(
        contentsOf: Array(
            ",\"subreddit_name_prefixed\":\"r/\(dumpSubreddit)\",\"subreddit_subscribers\":48213,\"subreddit_type\":\"public\",\"suggested_sort\":null,\"thumbnail\":\"\(isSelf ? "self" : "default")\",\"total_awards_received\":0,\"treatment_tags\":[],\"upvote_ratio\":0.\(80 + rng.below(20)),\"url\":"
                .utf8))
    JSONWriter.appendString(url, to: &out)
    out.append(contentsOf: Array(",\"whitelist_status\":\"all_ads\",\"wls\":6}\n".utf8))
}

let flairs = ["Contributor", "Verified", "Swift", "Rust", "Long-time reader", ":snoo: Helper"]

/// One comment line (RC), with its newline. Returns the body's size in bytes of Markdown (0 for
/// a placeholder).
@discardableResult
func commentLine(_ model: DumpModel, _ index: Int, into out: inout [UInt8]) -> Int {
    let comment = model.comments[index]
    var rng = stream(model.seed, 2, index)
    let (name, fullname) = dumpAuthor(&rng, pool: model.authors)
    let created = dumpEpoch + Int(comment.time)
    let score = Int(pow(1 - rng.unit(), -0.9)) - (rng.below(8) == 0 ? rng.below(12) : 0)
    let createdText = rng.below(100) == 0 ? "\"\(created)\"" : String(created)
    let edited = rng.below(100) < 3 ? String(created + 60 + rng.below(7200)) : "false"
    let flair = rng.below(100) < 6 ? flairs[rng.below(flairs.count)] : nil
    let distinguished = rng.below(1000) < 3
    var text: String
    var author = name
    switch comment.kind {
    case .deleted:
        text = "[deleted]"
        author = "[deleted]"
    case .removed:
        text = "[removed]"
        author = "[deleted]"
    case .removedAuthorKept: text = "[removed]"
    case .accountDeleted:
        text = dumpBody(&rng, author: name)
        author = "[deleted]"
    case .normal: text = dumpBody(&rng, author: name)
    }
    if index == model.marker { text = String(decoding: dumpMarker, as: UTF8.self) + "A " + text }
    let size = comment.kind == .normal || comment.kind == .accountDeleted ? text.utf8.count : 0
    let link = String(submissionIDBase + Int(comment.thread), radix: 36)
    let parent = comment.parent < 0 ? "t3_" + link : "t1_" + String(commentIDBase + Int(model.comments[Int(comment.parent)].id), radix: 36)
    let isSubmitter = rng.below(30) == 0
    let id = String(commentIDBase + Int(comment.id), radix: 36)
    let flaired = flair != nil && author != "[deleted]"
    out.append(contentsOf: Array("{\"all_awardings\":[],\"archived\":false,\"associated_award\":null,\"author\":".utf8))
    JSONWriter.appendString(author, to: &out)
    out.append(
        contentsOf: Array(
            ",\"author_flair_background_color\":\(flaired ? "\"#dadada\"" : "null"),\"author_flair_css_class\":null,\"author_flair_richtext\":[],\"author_flair_template_id\":null,\"author_flair_text\":"
                .utf8))
    if let flair, flaired { JSONWriter.appendString(flair, to: &out) } else { out.append(contentsOf: Array("null".utf8)) }
    out.append(contentsOf: Array(",\"author_flair_text_color\":\(flaired ? "\"dark\"" : "null"),\"author_flair_type\":\"\(flaired ? "richtext" : "text")\"".utf8))
    if author != "[deleted]" { out.append(contentsOf: Array(",\"author_fullname\":\"\(fullname)\",\"author_patreon_flair\":false,\"author_premium\":\(rng.below(20) == 0)".utf8)) }
    out.append(contentsOf: Array(",\"awarders\":[],\"banned_at_utc\":null,\"banned_by\":null,\"body\":".utf8))
    JSONWriter.appendString(redditEscaped(text), to: &out)
    out.append(
        contentsOf: Array(
            ",\"can_gild\":true,\"can_mod_post\":false,\"collapsed\":false,\"collapsed_because_crowd_control\":null,\"collapsed_reason\":null,\"collapsed_reason_code\":null,\"comment_type\":null,\"controversiality\":\(score < 0 ? 1 : 0),\"created_utc\":\(createdText),\"distinguished\":\(distinguished ? "\"moderator\"" : "null"),\"edited\":\(edited),\"gilded\":0,\"gildings\":{},\"id\":\"\(id)\",\"is_submitter\":\(isSubmitter),\"link_id\":\"t3_\(link)\",\"locked\":false,\"mod_note\":null,\"mod_reason_by\":null,\"mod_reason_title\":null,\"mod_reports\":[],\"name\":\"t1_\(id)\",\"no_follow\":\(score < 3),\"parent_id\":\"\(parent)\",\"permalink\":\"/r/\(dumpSubreddit)/comments/\(link)/comment/\(id)/\",\"removal_reason\":null,\"report_reasons\":null,\"retrieved_on\":\(created + 129_600 + rng.below(3600)),\"saved\":false,\"score\":\(score),\"score_hidden\":false,\"send_replies\":true,\"stickied\":false,\"subreddit\":\"\(dumpSubreddit)\",\"subreddit_id\":\"t5_3bench\",\"subreddit_name_prefixed\":\"r/\(dumpSubreddit)\",\"subreddit_type\":\"public\",\"top_awarded_type\":null,\"total_awards_received\":0,\"treatment_tags\":[],\"unrepliable_reason\":null,\"ups\":\(score),\"user_reports\":[]}\n"
                .utf8))
    return size
}
