// The sidecar format, `thread.json`: written with `JSONWriter`, read with `JSONReader`.

extension ThreadSummary {
    func write(into w: inout JSONWriter) {
        func time(_ w: inout JSONWriter, _ name: String, _ point: TimePoint?) {
            w.key(name)
            guard let point else { return w.null() }
            w.object { w in
                w.field("iso", point.iso)
                w.key("ms")
                w.int(point.ms)
            }
        }
        w.object { w in
            w.field("format", format)
            w.field("id", id)
            w.field("path", path)
            w.field("title", title)
            w.field("author", author)
            w.field("url", url)
            w.field("lang", lang)
            w.field("category", category)
            w.field("tags", strings: tags)
            time(&w, "created", created)
            w.key("stats")
            w.object { w in
                w.field("comments", stats.comments)
                w.field("participants", stats.participants)
                w.field("topLevel", stats.topLevel)
                w.field("levels", stats.levels)
                w.key("depthHistogram")
                w.array { w in for n in stats.depthHistogram { w.int(n) } }
                time(&w, "firstActivity", stats.firstActivity)
                time(&w, "lastActivity", stats.lastActivity)
                w.field("unarchived", stats.unarchived)
            }
            w.field("layout", layout)
            w.field("pages", strings: pages)
            w.field("orders", strings: orders)
            if !posts.isEmpty {
                w.key("posts")
                w.array { w in
                    for post in posts {
                        w.object { w in
                            w.field("author", post.author)
                            w.field("page", post.page)
                            w.field("anchor", post.anchor)
                            time(&w, "created", post.created)
                            w.field("excerpt", post.excerpt)
                        }
                    }
                }
            }
        }
    }

    /// The sidecar's bytes: pretty JSON, keys in a fixed order, a final newline.
    package func encoded() -> [UInt8] {
        var w = JSONWriter(pretty: true)
        write(into: &w)
        return w.out + [0x0A]
    }

    init(reader r: JSONReader, node: Int, path: String) throws(JSONError) {
        // One pass over the members with a switch: no dictionary per object.
        var format: Int64?, id: String?, summaryPath: String?, layout: String?
        var title: String?, author: String?, url: String?, lang: String?, category: String?
        var tags: [String]?, pages: [String]?, orders: [String]?
        var created: TimePoint?
        var stats: Stats?
        var posts: [Post] = []
        var postsNode: Int?
        try r.members(node, path) { key, value throws(JSONError) in
            switch key {
            case "format": format = try r.int(value, path + ".format")
            case "id": id = try r.string(value, path + ".id")
            case "path": summaryPath = try r.string(value, path + ".path")
            case "title": title = try r.optionalString(value, path + ".title")
            case "author": author = try r.optionalString(value, path + ".author")
            case "url": url = try r.optionalString(value, path + ".url")
            case "lang": lang = try r.optionalString(value, path + ".lang")
            case "category": category = try r.optionalString(value, path + ".category")
            case "tags": tags = try r.strings(value, path + ".tags")
            case "created": created = try Self.time(r, value, path + ".created")
            case "layout": layout = try r.string(value, path + ".layout")
            case "pages": pages = try r.strings(value, path + ".pages")
            case "orders": orders = try r.strings(value, path + ".orders")
            case "posts":
                postsNode = value
                posts += try Self.posts(r, value, path + ".posts")
            case "stats": stats = try Self.stats(r, value, path + ".stats")
            default: break
            }
        }
        func missing(_ key: String, _ expected: String) -> JSONError {
            JSONError(node: node, path: path + "." + key, expected: expected, found: "none")
        }
        guard let format else { throw missing("format", "an integer") }
        guard let id else { throw missing("id", "a string") }
        guard let summaryPath else { throw missing("path", "a string") }
        guard let stats else { throw missing("stats", "an object") }
        guard let layout else { throw missing("layout", "a string") }
        guard let pages else { throw missing("pages", "an array") }
        if let postsNode, posts.contains(where: { $0.page >= pages.count }) {
            throw r.mismatch(postsNode, path + ".posts", expected: "pages within the \(pages.count) of $.pages")
        }
        self.init(
            format: Int(format), id: id, path: summaryPath, title: title, author: author, url: url, lang: lang,
            category: category, tags: tags ?? [], created: created, stats: stats, layout: layout, pages: pages,
            orders: orders ?? [], posts: posts)
    }

    /// A time as the sidecar writes it, `{"iso", "ms"}`, or null.
    private static func time(_ r: JSONReader, _ node: Int, _ path: @autoclosure () -> String) throws(JSONError) -> TimePoint? {
        guard !r.isNull(node) else { return nil }
        var iso: String?, ms: Int64?
        try r.members(node, path(), expected: "an object or null") { key, value throws(JSONError) in
            if key == "iso" { iso = try r.string(value, path() + ".iso") } else if key == "ms" { ms = try r.int(value, path() + ".ms") }
        }
        guard let iso, let ms else { throw r.mismatch(node, path(), expected: "{\"iso\", \"ms\"}") }
        var point = TimePoint(Timestamp(milliseconds: ms))
        point.iso = iso
        return point
    }

    /// The sidecar's `posts` (at `path`), each checked as author pages need it.
    private static func posts(_ r: JSONReader, _ node: Int, _ path: String) throws(JSONError) -> [Post] {
        var posts: [Post] = []
        for (i, item) in try r.array(node, path).enumerated() {
            // Paths are made only for a message.
            func p() -> String { "\(path)[\(i)]" }
            var author: String?, page: Int?, anchor: String?, created: TimePoint?, excerpt: String?
            try r.members(item, p()) { key, v throws(JSONError) in
                switch key {
                case "author": author = try r.string(v, p() + ".author")
                case "page": page = try r.count(v, p() + ".page")
                case "anchor": anchor = try r.string(v, p() + ".anchor")
                case "created": created = try time(r, v, p() + ".created")
                case "excerpt": excerpt = try r.string(v, p() + ".excerpt")
                default: break
                }
            }
            guard let author, !author.isEmpty, let page, let anchor, Post.isAnchor(anchor), let excerpt,
                excerpt.count <= Post.excerptLimit + 1
            else {
                throw r.mismatch(item, p(), expected: "{\"author\", \"page\", \"anchor\" of letters, digits, - and _, \"excerpt\" of at most \(Post.excerptLimit) characters}")
            }
            posts.append(Post(author: author, page: page, anchor: anchor, created: created, excerpt: excerpt))
        }
        return posts
    }

    /// The sidecar's `stats` (at `path`). Counts are whole numbers from 0 to
    /// InputLimits.maxCount, so sums of them are checked, not trusted.
    private static func stats(_ r: JSONReader, _ node: Int, _ path: String) throws(JSONError) -> Stats {
        var s = Stats(comments: -1, participants: -1, topLevel: -1, levels: -1, depthHistogram: [], firstActivity: nil, lastActivity: nil, unarchived: 0)
        try r.members(node, path) { key, v throws(JSONError) in
            // Made only for a message: 2,000 threads' stats built 16,000 paths for nothing.
            func p() -> String { path + "." + key }
            switch key {
            case "comments": s.comments = try r.count(v, p())
            case "participants": s.participants = try r.count(v, p())
            case "topLevel": s.topLevel = try r.count(v, p())
            case "levels": s.levels = try r.count(v, p())
            case "unarchived": s.unarchived = try r.count(v, p())
            case "firstActivity": s.firstActivity = try time(r, v, p())
            case "lastActivity": s.lastActivity = try time(r, v, p())
            case "depthHistogram":
                for (i, n) in try r.array(v, p()).enumerated() { s.depthHistogram.append(try r.count(n, "\(p())[\(i)]")) }
            default: break
            }
        }
        guard s.comments >= 0, s.participants >= 0, s.topLevel >= 0, s.levels >= 0 else {
            throw r.mismatch(node, path, expected: "comments, participants, topLevel and levels")
        }
        return s
    }

    /// Reads a sidecar back. Errors name the file, line and column, and the JSON path.
    package static func decode(_ bytes: [UInt8], file: String) throws(ThreadfoldError) -> ThreadSummary {
        let reader = try JSONReader(bytes: bytes, file: file)
        do throws(JSONError) {
            return try ThreadSummary(reader: reader, node: reader.root, path: "$")
        } catch {
            throw ThreadfoldError.input([reader.error(error, suffix: ", as in a thread.json that 'threadfold build' writes")])
        }
    }
}
