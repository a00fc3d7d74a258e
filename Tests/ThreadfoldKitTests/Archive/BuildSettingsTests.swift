import Testing

@testable import ThreadfoldKit

@Suite("Build settings")
struct BuildSettingsTests {
    /// The members of the object at `path` (keys joined by dots) in the settings text.
    static func members(_ options: ArchiveOptions, _ path: [String]) throws -> Int {
        let reader = try JSONReader(bytes: BuildSettings.text(options, shard: nil, precompress: false), file: "settings")
        var node = reader.root
        for key in path { node = try #require(reader.document.member(node, key)) }
        return reader.document.count(node)
    }

    @Test("every stored option is written under its own name, so a new option cannot be left out of the cache key")
    func everyField() throws {
        var options = ArchiveOptions()
        options.render.importing.mapping = FieldMapping(paths: [.id: ["a"]])
        #expect(try Self.members(options, ["render"]) == Mirror(reflecting: options.render).children.count)
        #expect(try Self.members(options, ["render", "importing"]) == Mirror(reflecting: options.render.importing).children.count)
        #expect(try Self.members(options, ["render", "thread"]) == Mirror(reflecting: options.render.thread).children.count)
        #expect(try Self.members(options, ["render", "layout"]) == Mirror(reflecting: options.render.layout).children.count)
        #expect(try Self.members(options, ["render", "markdown"]) == Mirror(reflecting: options.render.markdown).children.count)
        // The archive's own fields, plus the version, the shard and precompress around them.
        #expect(try Self.members(options, []) == Mirror(reflecting: options).children.count + 3)
    }

    @Test("every build option is in the key or named here as not changing which files are written")
    func buildOptions() throws {
        // How a build runs, not what it writes; the archive's options and the resources are in
        // the key by their own fields and fingerprint; `exclude` decides which inputs are units,
        // and the manifest records the units themselves.
        let elsewhere: Set = ["archive", "resources", "jobs", "incremental", "durable", "searchTimeout", "exclude"]
        let reader = try JSONReader(bytes: BuildSettings.text(ArchiveOptions(), shard: nil, precompress: false), file: "settings")
        let fields = Mirror(reflecting: BuildOptions()).children.compactMap(\.label)
        #expect(fields.count > elsewhere.count)
        for field in fields where !elsewhere.contains(field) {
            #expect(reader.document.member(reader.root, field) != nil, "BuildOptions.\(field) is not written into the key")
        }
    }

    @Test("each option that changes output changes the key; the same options give the same key")
    func changes() throws {
        let resources = ResourceStore()
        let base = BuildSettings.hash(ArchiveOptions(), shard: nil, precompress: false, resources: resources)
        #expect(BuildSettings.hash(ArchiveOptions(), shard: nil, precompress: false, resources: resources) == base)
        var variants: [(String, (inout ArchiveOptions) -> Void)] = [
            ("perPage", { $0.perPage = 7 }), ("sections", { $0.sections = .month }), ("pageDepth", { $0.pageDepth = 3 }),
            ("pageSize", { $0.pageSize = 9 }), ("layout", { $0.layout = .flat }), ("flatThreshold", { $0.flatThreshold = 2.5 }),
            ("orders", { $0.orders = [.top] }), ("baseURL", { $0.baseURL = "https://x.example/" }), ("title", { $0.title = "T" }),
            ("feedEntries", { $0.feedEntries = 3 }), ("sectionPreview", { $0.sectionPreview = 4 }),
            ("search", { $0.search = .titles }), ("search pagefind", { $0.search = .pagefind }), ("authors", { $0.authors = true }),
            ("sort", { $0.render.thread.sort = .top }), ("replySort", { $0.render.thread.replySort = .newest }),
            ("allowDuplicates", { $0.render.thread.allowDuplicates = true }), ("preview", { $0.render.layout.preview = 5 }),
            ("openDepth", { $0.render.layout.openDepth = 0 }), ("maxDepth", { $0.render.layout.maxDepth = 1 }),
            ("smart", { $0.render.markdown.smart = true }), ("hardBreaks", { $0.render.markdown.hardBreaks = false }),
            ("maxBytes", { $0.render.markdown.maxBytes = 10 }), ("flavor", { $0.render.markdown.flavor = .commonmark }), ("locale", { $0.render.locale = "zh-Hans" }),
            ("sourceURL", { $0.render.sourceURL = "https://forum.example/" }),
            ("format", { $0.render.importing.format = .reddit }), ("bodyFormat", { $0.render.importing.bodyFormat = .html }),
            ("lenient", { $0.render.importing.lenient = true }), ("maxSkipped", { $0.render.importing.maxSkipped = 0.9 }),
            ("mapping", { $0.render.importing.mapping = FieldMapping(paths: [.id: ["objectID"]]) }),
        ]
        variants.append(("mapping path", { $0.render.importing.mapping = FieldMapping(paths: [.id: ["object", "id"]]) }))
        var seen: Set<String> = [base]
        for (name, change) in variants {
            var options = ArchiveOptions()
            change(&options)
            let key = BuildSettings.hash(options, shard: nil, precompress: false, resources: resources)
            #expect(!seen.contains(key), "changing \(name) left the key as another's")
            seen.insert(key)
        }
        #expect(BuildSettings.hash(ArchiveOptions(), shard: Shard(index: 1, count: 2), precompress: false, resources: resources) != base)
        #expect(BuildSettings.hash(ArchiveOptions(), shard: nil, precompress: true, resources: resources) != base, "precompress")
    }
}
