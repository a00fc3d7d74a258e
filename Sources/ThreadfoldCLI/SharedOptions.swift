import Foundation
import ThreadfoldKit

/// Options that `render` and `check` share, and how they become `RenderOptions`.
enum SharedOptions {
    static let thread: [OptionSpec] = [
        OptionSpec("from", value: "form", kind: .oneOf(SourceFormat.named.map(\.rawValue)), wrapped("Input form: \(formNames) (default: auto, which says what it recognised).")),
        OptionSpec("body-format", value: "format", kind: .cases(of: BodyFormat.self), "Read every body as markdown, html or text, whatever\nthe importer would choose."),
        OptionSpec("map", value: "fields", mapHelp),
        OptionSpec("map-file", value: "file", kind: .file, "The same mapping as a JSON object in a file\n({\"id\": \"objectID\", …, \"top_level_parent\": \"0\"}); with --map,\n--map's keys win."),
        OptionSpec("top-level-parent", value: "value", "A parent value that means top level (with --map)."),
        OptionSpec("categories", value: "file", kind: .file, "Discourse category names: the forum's /categories.json\nor /site.json (without it, a topic's category is \"Category N\")."),
        OptionSpec("lenient", "Skip comments missing a required field and report them,\ninstead of failing the file."),
        OptionSpec("max-skipped", value: "percent", "With --lenient, refuse a file when more than this share\nof its comments would be skipped (default: 50)."),
        OptionSpec("sort", value: "order", kind: .cases(of: CommentOrder.self), "Order of top-level comments: oldest, newest, top or input\n(the file's order; default: oldest)."),
        OptionSpec("reply-sort", value: "order", kind: .cases(of: CommentOrder.self), "Order of replies (default: the same as --sort)."),
        OptionSpec("allow-duplicates", "Keep the first comment of a repeated id and warn,\ninstead of failing."),
        OptionSpec("source-url", value: "url", "The forum's address (https://forum.example/): relative\nlinks and images in HTML bodies resolve against it; without it\nthey keep their text only."),
        OptionSpec("max-decompressed", value: "size", "The most a compressed file read whole may decompress to,\nand the most blank lines before a file's first line (default:\n2GiB, the most; e.g. 256MiB). A dump read a line at a time holds\none line, whatever its size."),
        OptionSpec("max-window", value: "size", "The largest zstd window a frame may ask for, which the\ndecoder holds in memory (default: 2GiB, as Pushshift dumps\nneed; a power of two, e.g. 128MiB)."),
    ]

    /// `--map`'s help, its keys listed from `FieldMapping`'s own (`FieldMapping.keys`).
    static var mapHelp: String {
        let fields = FieldMapping.Field.allCases.map(\.rawValue).joined(separator: " ")
        let threadFields = FieldMapping.ThreadField.allCases.map { "thread.\($0.rawValue)" }.joined(separator: " ")
        return wrapped("Read any JSON list of comments by naming its fields: id=objectID,parent=parent_id,body=text,thread=story_id"
            + " (comment keys: \(fields); path is a chain of ids ending in the comment's own, as Lemmy's 0.12.34;"
            + " values: members or dotted paths). Also: comments=$.data (the array to read), replies=children (nested replies),"
            + " thread keys from the document's root, like thread.title=$.title (\(threadFields)),"
            + " where.kind=t1 (read only such items), strip=t1_|t3_ (id prefixes), format=html (the bodies' format),"
            + " top_level_parent=0 (as --top-level-parent).")
    }

    /// A list of comments from many threads, read as a dump (`build` and `check`).
    static let threadKey: [OptionSpec] = [
        OptionSpec("thread-key", value: "field", "Input is one list of comments from many threads: this\nfield says which thread each belongs to (e.g. story_id)."),
        OptionSpec("thread-title-key", value: "field", "With --thread-key: the field holding the thread title."),
    ]

    /// What a folder input's walk leaves out (`build` and `preview`, the commands that walk folders).
    static let exclude = OptionSpec("exclude", value: "glob", repeatable: true,
                                    "Leave out of folder inputs the files and folders this\nmatches, as in .gitignore: a name at any depth (*.bak,\ndrafts), or with a / a path below the folder given\n(2019/*.json, **/old/); * and ? stop at /, ** is any\nfolders. Repeatable. Inputs named here are always read;\nThreadfold's own sites and the output are always left out.")

    /// `--exclude`'s globs, and Threadfold's output (sites by their marker, and `output`), left
    /// out of folder inputs.
    static func folderFilter(_ parsed: ParsedArguments, output: String?) throws -> FolderFilter {
        var globs: [FolderFilter.Glob] = []
        for pattern in parsed.all("exclude") {
            guard let glob = FolderFilter.Glob(pattern) else {
                throw UsageError(message: "'--exclude' must be a glob naming files or folders, like *.bak or drafts/; found '\(pattern)'")
            }
            globs.append(glob)
        }
        return FolderFilter(excludes: globs, output: output, marker: SiteWriter.markerName)
    }

    static let page: [OptionSpec] = [
        OptionSpec("preview", value: "n", "Replies shown per level before \"Show K more replies\"\n(default: 2)."),
        OptionSpec("open-depth", value: "d", "Reply sections of the first d levels start open\n(default: 2; 0 closes all)."),
        OptionSpec("max-depth", value: "d", "Flatten replies deeper than d into level d, each saying\nwhom it answers (default: 8, at most 64; 1 gives two levels)."),
        OptionSpec("smart", "Smart punctuation: curly quotes, dashes, ellipses."),
        OptionSpec("markdown", value: "flavor", kind: .cases(of: MarkdownFlavor.self), "Markdown dialect of bodies: gfm (CommonMark with bare URLs\nlinked, ~~strikethrough~~, tables and task lists), reddit (GFM's\nbut task lists, plus ^superscript, >!spoilers!< and r/ and u/\nlinks) or commonmark. Default: reddit for Reddit exports, else gfm."),
        OptionSpec("reddit-base", value: "url", "Where r/sub and u/name links point (default:\nhttps://www.reddit.com)."),
        OptionSpec("hard-breaks", "Single newlines in bodies become line breaks (the default,\nbut for Reddit Markdown)."),
        OptionSpec("no-hard-breaks", "Single newlines in bodies are spaces, as in CommonMark and\non Reddit (the default for Reddit Markdown)."),
        OptionSpec("locale", value: "tag", "Language of the page's own words (default: the input's\n\"lang\" when there is a locale for it, else en)."),
        OptionSpec("templates", value: "dir", kind: .directory, "Folder of .mustache templates (and locales/*.json) that\nreplace the built-in ones of the same name."),
        OptionSpec("assets", value: "dir", kind: .directory, "Folder of files that replace or add to the built-in\nstylesheet and script."),
    ]

    static func sortOrder(_ parsed: ParsedArguments, _ name: String) throws -> CommentOrder? {
        guard let text = parsed.value(name) else { return nil }
        guard let order = CommentOrder(rawValue: text) else {
            throw UsageError(message: "'--\(name)' must be oldest, newest, top or input; found '\(text)'")
        }
        return order
    }

    static func integer(_ parsed: ParsedArguments, _ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = parsed.value(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            let bound = range.upperBound == Int.max ? "\(range.lowerBound) or more" : "from \(range.lowerBound) to \(range.upperBound)"
            throw UsageError(message: "'--\(name)' must be a whole number \(bound); found '\(text)'")
        }
        return value
    }

    /// The names `--from` takes: "auto, threadfold, reddit, … or lobsters".
    static var formNames: String {
        let names = SourceFormat.named.map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    /// Help text broken into lines of at most 60 characters, at spaces.
    static func wrapped(_ text: String) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > 60 {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return (lines + [line]).joined(separator: "\n")
    }

    /// `--max-decompressed` and `--max-window`: process-wide limits on reading, set before any
    /// input is read (`InputLimits`).
    static func inputLimits(_ parsed: ParsedArguments) throws {
        if let bytes = try size(parsed, "max-decompressed", in: 1...InputLimits.maxDocumentBytes + 2) {
            InputLimits.maxDecompressedBytes = bytes
        }
        if let bytes = try size(parsed, "max-window", in: 1 << 10...1 << 31) {
            guard bytes & (bytes - 1) == 0 else {
                throw UsageError(message: "'--max-window' must be a power of two (zstd windows are); found '\(parsed.value("max-window")!)'")
            }
            InputLimits.maxWindowBytes = bytes
        }
    }

    /// A size in bytes: a whole number, optionally followed by KiB, MiB or GiB (or K, M, G, each
    /// a power of 1,024).
    static func size(_ parsed: ParsedArguments, _ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = parsed.value(name) else { return nil }
        let units: [(String, Int)] = [("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("B", 1)]
        var number = Substring(text)
        var scale = 1
        if let (suffix, factor) = units.first(where: { text.hasSuffix($0.0) }) {
            number = number.dropLast(suffix.count)
            scale = factor
        }
        guard let value = Int(number.trimmingCharacters(in: .whitespaces)), value >= 0,
              value <= Int.max / scale, range.contains(value * scale) else {
            throw UsageError(message: "'--\(name)' must be a size from \(range.lowerBound) bytes to \(range.upperBound >> 30) GiB, as bytes or with KiB, MiB or GiB (e.g. 256MiB); found '\(text)'")
        }
        return value * scale
    }

    static func importOptions(_ parsed: ParsedArguments) throws -> ImportOptions {
        try inputLimits(parsed)
        var options = ImportOptions()
        if let text = parsed.value("from") {
            guard let format = SourceFormat(rawValue: text), SourceFormat.named.contains(format) else {
                throw UsageError(message: "'--from' must be \(formNames); found '\(text)'")
            }
            options.format = format
        }
        // A mapping file, with --map's keys over it (the command line wins per key).
        var fileMapping: FieldMapping?
        if let path = parsed.value("map-file") {
            let data: [UInt8]
            do { data = try InputFile.read(path, display: path, streams: true) } catch {
                throw UsageError(message: "'--map-file': \(error.description)")
            }
            fileMapping = try FieldMapping.load(json: data, file: path, requireID: parsed.value("map") == nil)
        }
        if fileMapping != nil || parsed.value("map") != nil {
            do { options.mapping = try FieldMapping.combined(file: fileMapping, command: parsed.value("map")) } catch {
                throw UsageError(message: "'--map': \(error.message)")
            }
        }
        if let value = parsed.value("top-level-parent") {
            guard options.mapping != nil else { throw UsageError(message: "'--top-level-parent' goes with --map or --map-file") }
            options.mapping?.topLevelParent = value
        }
        if options.mapping != nil, let from = parsed.value("from"), from != "auto" {
            throw UsageError(message: "'--from \(from)' and a field mapping cannot be used together")
        }
        if let path = parsed.value("categories") {
            let data: [UInt8]
            do { data = try InputFile.read(path, display: path, streams: true) } catch {
                throw UsageError(message: "'--categories': \(error.description)")
            }
            options.categoryNames = try DiscourseCategories.load(json: data, file: path)
        }
        options.lenient = parsed.has("lenient")
        if let text = parsed.value("max-skipped") {
            guard let percent = Double(text), percent >= 0, percent <= 100 else {
                throw UsageError(message: "'--max-skipped' must be a percentage from 0 to 100; found '\(text)'")
            }
            options.maxSkipped = percent / 100
        }
        if let text = parsed.value("body-format") {
            guard let format = BodyFormat(rawValue: text) else {
                throw UsageError(message: "'--body-format' must be markdown, html or text; found '\(text)'")
            }
            options.bodyFormat = format
        }
        return options
    }

    /// `--thread-key` and `--thread-title-key`: the mapping (given, or Threadfold's own field
    /// names) reads each comment's thread, and its title, from those fields.
    static func threadKey(_ parsed: ParsedArguments, into options: inout ImportOptions) throws {
        if let key = parsed.value("thread-key") {
            var mapping = options.mapping ?? FieldMapping(paths: [
                .id: ["id"], .parent: ["parent_id"], .author: ["author"], .body: ["body"], .time: ["created_at"],
                .edited: ["edited_at"], .score: ["score"], .deleted: ["deleted"], .removed: ["removed"], .url: ["url"], .category: ["category"],
            ])
            mapping.paths[.thread] = key.split(separator: ".").map(String.init)
            if let title = parsed.value("thread-title-key") { mapping.paths[.title] = title.split(separator: ".").map(String.init) }
            options.mapping = mapping
            if let from = parsed.value("from"), from != "auto" {
                throw UsageError(message: "'--thread-key' reads a list of comments by field names; it cannot be used with '--from \(from)'")
            }
        } else if parsed.value("thread-title-key") != nil {
            throw UsageError(message: "'--thread-title-key' goes with --thread-key")
        }
    }

    /// Says which form `auto` recognised, when it is not Threadfold's own.
    static func noteDetected(_ result: ImportResult, file: String, _ console: Console) {
        for warning in result.skipped.prefix(10) { console.err(warning.shown + "\n") }
        if result.skipped.count > 10 {
            // Notes of posts the export lacks are about threads, not comments left out.
            let comments = result.skipped.count { $0.kind != "notArchived" }
            let threads = result.skipped.count - comments
            var said: [String] = []
            if comments > 0 { said.append("\(Printable.count(comments, "comment")) left out") }
            if threads > 0 { said.append("\(Printable.count(threads, "thread")) missing posts") }
            console.err("\(Printable.escape(file)): note: \(said.joined(separator: " and ")) in all\n")
        }
        guard result.detected, result.format != .threadfold else { return }
        console.err("\(Printable.escape(file)): note: read as \(result.format.described); --from \(result.format.rawValue) says so explicitly\n")
    }

    /// For dumps whose form was detected, not named with --from: what each was read as.
    static func noteForms(_ files: [(path: String, display: String, form: DumpForm)], importing: ImportOptions, _ console: Console) {
        guard importing.format == .auto else { return }
        for file in files where file.form != .mapped {
            console.err("\(Printable.escape(file.display)): note: read as \(file.form.described); --from \(file.form.rawValue) says so explicitly\n")
        }
    }

    /// Dumps named by their files, escaped: the first three, or the first and how many more.
    static func dumpsLabel(_ files: [(path: String, display: String, form: DumpForm)]) -> String {
        let names = files.map { Printable.escape($0.display) }
        return names.count <= 3 ? names.joined(separator: " + ") : "\(names[0]) + \(Printable.count(names.count - 1, "more dump", "more dumps"))"
    }

    static func renderOptions(_ parsed: ParsedArguments) throws -> RenderOptions {
        var options = RenderOptions()
        options.importing = try importOptions(parsed)
        if let sort = try sortOrder(parsed, "sort") { options.thread.sort = sort }
        options.thread.replySort = try sortOrder(parsed, "reply-sort")
        options.thread.allowDuplicates = parsed.has("allow-duplicates")
        if let preview = try integer(parsed, "preview", in: 0...Int.max) { options.layout.preview = preview }
        if let depth = try integer(parsed, "open-depth", in: 0...Int.max) { options.layout.openDepth = depth }
        if let depth = try integer(parsed, "max-depth", in: 1...LayoutOptions.maxDepthLimit) { options.layout.maxDepth = depth }
        options.markdown.smart = parsed.has("smart")
        if let flavor = parsed.value("markdown") {
            guard let chosen = MarkdownFlavor(rawValue: flavor) else {
                throw UsageError(message: "'--markdown' must be gfm, reddit or commonmark; found '\(flavor)'")
            }
            options.markdown.flavor = chosen
        }
        if let base = parsed.value("reddit-base") {
            guard let url = URL(string: base), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  url.host?.isEmpty == false, url.query == nil, url.fragment == nil else {
                throw UsageError(message: "'--reddit-base' must be an absolute http or https URL such as https://old.reddit.com; found '\(base)'")
            }
            options.markdown.redditBase = base.hasSuffix("/") ? String(base.dropLast()) : base
        }
        if parsed.has("hard-breaks") && parsed.has("no-hard-breaks") {
            throw UsageError(message: "'--hard-breaks' and '--no-hard-breaks' cannot be used together")
        }
        if parsed.has("hard-breaks") { options.markdown.hardBreaks = true }
        if parsed.has("no-hard-breaks") { options.markdown.hardBreaks = false }
        options.locale = parsed.value("locale")
        if let source = parsed.value("source-url") {
            guard let scheme = URL(string: source)?.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  URL(string: source)?.host?.isEmpty == false else {
                throw UsageError(message: "'--source-url' must be an absolute http or https URL such as https://forum.example/; found '\(source)'")
            }
            options.sourceURL = source
        }
        return options
    }

    static func resources(_ parsed: ParsedArguments) -> ResourceStore {
        ResourceStore(templatesDirectory: parsed.value("templates"), assetsDirectory: parsed.value("assets"))
    }

    /// Reads an input argument: a regular file or a pipe (`<(…)`, a FIFO), or `-` for standard
    /// input (once). Folders, devices and sockets are refused; sizes are capped
    /// (`InputLimits.maxDocumentBytes`).
    static func read(_ input: String, _ console: Console) -> Result<[UInt8], InputError> {
        do throws(InputError) {
            if input == "-" { return .success(try console.readStandardInput()) }
            switch try InputFile.kind(input, missing: "no such file; expected a thread JSON file or '-' for standard input") {
            case .folder:
                return .failure(InputError(file: input, message: "is a folder; expected a thread JSON file (archives of many threads come with 'threadfold build')"))
            case .regular, .pipe:
                return .success(try InputFile.read(input, display: input, streams: true))
            }
        } catch {
            return .failure(error)
        }
    }

    /// Prints diagnostics, at most `limit` of each kind, and says how many more there were.
    static func report(_ diagnostics: [Diagnostic], file: String, limit: Int, _ console: Console) {
        var shown: [Diagnostic.Kind: Int] = [:]
        var hidden = 0
        for diagnostic in diagnostics {
            let count = shown[diagnostic.kind, default: 0]
            if count < limit {
                console.err(diagnostic.error.shown + "\n")
                shown[diagnostic.kind] = count + 1
            } else {
                hidden += 1
            }
        }
        if hidden > 0 {
            let file = Printable.escape(file)
            console.err("\(file): note: \(Printable.count(hidden, "more warning", "more warnings")) like these; 'threadfold check --all \(file)' lists every one\n")
        }
    }

    /// Prints errors one a line, escaped for the terminal: input errors escape their own parts;
    /// other errors (site, template, resource errors) are escaped line by line here.
    static func printErrors(_ error: Error, _ console: Console) {
        switch error {
        case let errors as InputErrors:
            for item in errors.errors { console.err(item.shown + "\n") }
        case let item as InputError:
            console.err(item.shown + "\n")
        default:
            console.err(Printable.escapeLines("\(error)\n".replacingOccurrences(of: "\n\n", with: "\n")))
        }
    }
}
