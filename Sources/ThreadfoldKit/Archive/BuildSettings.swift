/// What an earlier build's files depend on besides their input: every option that changes output,
/// written field by field under its own name (never through a type's `description`, whose text a
/// new field or another Swift version may change), with the version, the shard, whether siblings
/// are precompressed and the templates and assets in use. Units and files of a build with other
/// settings are never reused.
///
/// A test counts each options type's stored properties against the fields written here, so a new
/// option cannot be left out by accident.
enum BuildSettings {
    static func hash(_ options: ArchiveOptions, shard: Shard?, precompress: Bool, resources: ResourceStore) -> String {
        StableHash.hex(StableHash.content(text(options, shard: shard, precompress: precompress), seed: resources.fingerprint()))
    }

    /// What a shard and the merge that joins it must agree on: the options `merge` takes (the
    /// listing's, and those of the thread pages' that the listing links to), the templates and
    /// assets, and the version (`shard.json`'s `settings`).
    static func mergeHash(_ o: ArchiveOptions, resources: ResourceStore) -> String {
        var w = JSONWriter(pretty: false)
        w.object { w in
            w.field("version", Release.version)
            w.field("title", o.title)
            w.field("perPage", o.perPage)
            w.field("sections", o.sections.rawValue)
            w.field("baseURL", o.baseURL)
            w.field("feedEntries", o.feedEntries)
            w.field("layout", o.layout.rawValue)
            w.field("search", o.search.rawValue)
            w.key("authors")
            w.bool(o.authors)
            w.field("locale", o.render.locale)
        }
        return StableHash.hex(StableHash.content(w.out, seed: resources.fingerprint()))
    }

    /// The settings as JSON text, keys in a fixed order: the archive's options, and the build
    /// options (`BuildOptions`) that change which files are written.
    static func text(_ options: ArchiveOptions, shard: Shard?, precompress: Bool) -> [UInt8] {
        var w = JSONWriter(pretty: false)
        w.object { w in
            w.field("version", Release.version)
            w.field("shard", shard.map { "\($0.index)/\($0.count)" })
            w.key("precompress")
            w.bool(precompress)
            write(options, into: &w)
        }
        return w.out
    }

    static func write(_ o: ArchiveOptions, into w: inout JSONWriter) {
        w.key("render")
        w.object { w in write(o.render, into: &w) }
        w.field("perPage", o.perPage)
        w.field("sections", o.sections.rawValue)
        w.field("pageDepth", o.pageDepth)
        w.field("pageSize", o.pageSize)
        w.field("layout", o.layout.rawValue)
        w.key("flatThreshold")
        w.string(String(o.flatThreshold))
        w.field("orders", strings: o.orders.map(\.rawValue))
        w.field("baseURL", o.baseURL)
        w.field("title", o.title)
        w.field("feedEntries", o.feedEntries)
        w.field("sectionPreview", o.sectionPreview)
        w.field("search", o.search.rawValue)
        w.key("authors")
        w.bool(o.authors)
    }

    static func write(_ o: RenderOptions, into w: inout JSONWriter) {
        w.key("importing")
        w.object { w in write(o.importing, into: &w) }
        w.key("thread")
        w.object { w in
            w.field("sort", o.thread.sort.rawValue)
            w.field("replySort", o.thread.replySort?.rawValue)
            w.key("allowDuplicates")
            w.bool(o.thread.allowDuplicates)
        }
        w.key("layout")
        w.object { w in
            w.field("preview", o.layout.preview)
            w.field("openDepth", o.layout.openDepth)
            w.field("maxDepth", o.layout.maxDepth)
            w.key("pageDepth")
            o.layout.pageDepth.map { w.int($0) } ?? w.null()
        }
        w.key("markdown")
        w.object { w in
            w.key("smart")
            w.bool(o.markdown.smart)
            w.key("hardBreaks")
            o.markdown.hardBreaks.map { w.bool($0) } ?? w.null()
            w.field("maxBytes", o.markdown.maxBytes)
            w.field("maxImageOpeners", o.markdown.maxImageOpeners)
            w.field("maxQuoteDepth", o.markdown.maxQuoteDepth)
            w.field("flavor", o.markdown.flavor?.rawValue)
            w.field("redditBase", o.markdown.redditBase)
        }
        w.field("locale", o.locale)
        w.field("sourceURL", o.sourceURL)
    }

    static func write(_ o: ImportOptions, into w: inout JSONWriter) {
        w.field("format", o.format.rawValue)
        w.field("bodyFormat", o.bodyFormat?.rawValue)
        w.key("lenient")
        w.bool(o.lenient)
        w.key("categoryNames")
        w.object { w in
            for id in o.categoryNames.keys.sorted() { w.field(id, o.categoryNames[id]) }
        }
        w.key("maxSkipped")
        w.string(String(o.maxSkipped))
        w.key("mapping")
        guard let mapping = o.mapping else { return w.null() }
        w.object { w in
            for field in FieldMapping.Field.allCases {
                if let path = mapping.paths[field] { w.field(field.rawValue, strings: path) }
            }
            w.field("topLevelParent", mapping.topLevelParent)
            if let comments = mapping.comments { w.field("comments", strings: comments) }
            if let replies = mapping.replies { w.field("replies", strings: replies) }
            for field in FieldMapping.ThreadField.allCases {
                if let path = mapping.thread[field] { w.field("thread." + field.rawValue, strings: path) }
            }
            w.field("strip", strings: mapping.strip)
            for condition in mapping.conditions { w.field("where." + condition.path.joined(separator: "."), condition.value) }
            w.field("bodyFormat", mapping.bodyFormat?.rawValue)
        }
    }
}
