import Foundation
import ThreadfoldKit

/// Options that several commands share, each declared once (`Option`, `Flag`), the tables
/// commands list them in, and how they become `ImportOptions` and `RenderOptions`.
enum SharedOptions {
    // MARK: Reading a thread

    static let from: Option<SourceFormat> = .choice(
        "from", value: "form", among: SourceFormat.named,
        wrapped("Input form: \(formNames) (default: auto, which says what it recognised)."))
    static let bodyFormat: Option<BodyFormat> = .choice("body-format", value: "format", "Read every body as markdown, html or text, whatever\nthe importer would choose.")
    static let map: Option<String> = .text("map", value: "fields", mapHelp)
    static let mapFile: Option<String> = .file("map-file", "The same mapping as a JSON object in a file\n({\"id\": \"objectID\", …, \"top_level_parent\": \"0\"}); with --map,\n--map's keys win.")
    static let topLevelParent: Option<String> = .text("top-level-parent", value: "value", "A parent value that means top level (with --map).")
    static let categories: Option<String> = .file("categories", "Discourse category names: the forum's /categories.json\nor /site.json (without it, a topic's category is \"Category N\").")
    static let lenient = Flag("lenient", "Skip comments missing a required field and report them,\ninstead of failing the file.")
    /// The share of a file's comments `--lenient` may skip, from 0 to 1.
    static let maxSkipped = Option<Double>(OptionSpec("max-skipped", value: "percent", "With --lenient, refuse a file when more than this share\nof its comments would be skipped (default: 50).")) {
        text throws(ThreadfoldError) in
        guard let percent = Double(text), percent >= 0, percent <= 100 else {
            throw ThreadfoldError.usage("'--max-skipped' must be a percentage from 0 to 100; found '\(text)'")
        }
        return percent / 100
    }
    static let sort: Option<CommentOrder> = .choice("sort", value: "order", "Order of top-level comments: oldest, newest, top or input\n(the file's order; default: oldest).")
    static let replySort: Option<CommentOrder> = .choice("reply-sort", value: "order", "Order of replies (default: the same as --sort).")
    static let allowDuplicates = Flag("allow-duplicates", "Keep the first comment of a repeated id and warn,\ninstead of failing.")
    static let sourceURL = Option<String>(
        OptionSpec("source-url", value: "url", "The forum's address (https://forum.example/): relative\nlinks and images in HTML bodies resolve against it; without it\nthey keep their text only.")
    ) { text throws(ThreadfoldError) in
        guard let scheme = URL(string: text)?.scheme?.lowercased(), scheme == "http" || scheme == "https",
            URL(string: text)?.host?.isEmpty == false
        else {
            throw ThreadfoldError.usage("'--source-url' must be an absolute http or https URL such as https://forum.example/; found '\(text)'")
        }
        return text
    }
    static let maxDecompressed: Option<Int> = .size(
        "max-decompressed", in: 1...InputLimits.maxDocumentBytes + 2,
        "The most a compressed file read whole may decompress to,\nand the most blank lines before a file's first line (default:\n2GiB, the most; e.g. 256MiB). A dump read a line at a time holds\none line, whatever its size."
    )
    static let maxWindow: Option<Int> = .size(
        "max-window", in: 1 << 10...1 << 31, "The largest zstd window a frame may ask for, which the\ndecoder holds in memory (default: 2GiB, as Pushshift dumps\nneed; a power of two, e.g. 128MiB).")

    static let thread: [OptionSpec] = [
        from.spec, bodyFormat.spec, map.spec, mapFile.spec, topLevelParent.spec, categories.spec, lenient.spec, maxSkipped.spec,
        sort.spec, replySort.spec, allowDuplicates.spec, sourceURL.spec, maxDecompressed.spec, maxWindow.spec,
    ]

    /// `--map`'s help, its keys listed from `FieldMapping`'s own (`FieldMapping.keys`).
    static var mapHelp: String {
        let fields = FieldMapping.Field.allCases.map(\.rawValue).joined(separator: " ")
        let threadFields = FieldMapping.ThreadField.allCases.map { "thread.\($0.rawValue)" }.joined(separator: " ")
        return wrapped(
            "Read any JSON list of comments by naming its fields: id=objectID,parent=parent_id,body=text,thread=story_id"
                + " (comment keys: \(fields); path is a chain of ids ending in the comment's own, as Lemmy's 0.12.34;"
                + " values: members or dotted paths). Also: comments=$.data (the array to read), replies=children (nested replies),"
                + " thread keys from the document's root, like thread.title=$.title (\(threadFields)),"
                + " where.kind=t1 (read only such items), strip=t1_|t3_ (id prefixes), format=html (the bodies' format),"
                + " top_level_parent=0 (as --top-level-parent).")
    }

    // MARK: A list of comments from many threads, read as a dump (`build` and `check`)

    static let threadKey: Option<String> = .text("thread-key", value: "field", "Input is one list of comments from many threads: this\nfield says which thread each belongs to (e.g. story_id).")
    static let threadTitleKey: Option<String> = .text("thread-title-key", value: "field", "With --thread-key: the field holding the thread title.")

    static let threadKeys: [OptionSpec] = [threadKey.spec, threadTitleKey.spec]

    // MARK: Folder inputs (`build` and `preview`, the commands that walk folders)

    /// What a folder input's walk leaves out.
    static let exclude = Repeatable<FolderFilter.Glob>(
        "exclude", value: "glob",
        "Leave out of folder inputs the files and folders this\nmatches, as in .gitignore: a name at any depth (*.bak,\ndrafts), or with a / a path below the folder given\n(2019/*.json, **/old/); * and ? stop at /, ** is any\nfolders. Repeatable. Inputs named here are always read;\nThreadfold's own sites and the output are always left out."
    ) { pattern throws(ThreadfoldError) in
        guard let glob = FolderFilter.Glob(pattern) else {
            throw ThreadfoldError.usage("'--exclude' must be a glob naming files or folders, like *.bak or drafts/; found '\(pattern)'")
        }
        return glob
    }

    /// `--exclude`'s globs, and Threadfold's output (sites by their marker, and `output`), left
    /// out of folder inputs.
    static func folderFilter(_ parsed: ParsedArguments, output: String?) throws(ThreadfoldError) -> FolderFilter {
        FolderFilter(excludes: try parsed[exclude], output: output, marker: SiteWriter.markerName)
    }

    // MARK: A page

    static let preview: Option<Int> = .integer("preview", value: "n", in: 0...Int.max, "Replies shown per level before \"Show K more replies\"\n(default: \(LayoutOptions().preview)).")
    static let openDepth: Option<Int> = .integer("open-depth", value: "d", in: 0...Int.max, "Reply sections of the first d levels start open\n(default: \(LayoutOptions().openDepth); 0 closes all).")
    static let maxDepth: Option<Int> = .integer(
        "max-depth", value: "d", in: 1...LayoutOptions.maxDepthLimit,
        "Flatten replies deeper than d into level d, each saying\nwhom it answers (default: \(LayoutOptions().maxDepth), at most \(LayoutOptions.maxDepthLimit); 1 gives two levels).")
    static let smart = Flag("smart", "Smart punctuation: curly quotes, dashes, ellipses.")
    static let markdown: Option<MarkdownFlavor> = .choice(
        "markdown", value: "flavor",
        "Markdown dialect of bodies: gfm (CommonMark with bare URLs\nlinked, ~~strikethrough~~, tables and task lists), reddit (GFM's\nbut task lists, plus ^superscript, >!spoilers!< and r/ and u/\nlinks) or commonmark. Default: reddit for Reddit exports, else gfm."
    )
    /// Where `r/` and `u/` links point, without a trailing slash.
    static let redditBase = Option<String>(OptionSpec("reddit-base", value: "url", "Where r/sub and u/name links point (default:\nhttps://www.reddit.com).")) { text throws(ThreadfoldError) in
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false, url.query == nil, url.fragment == nil
        else {
            throw ThreadfoldError.usage("'--reddit-base' must be an absolute http or https URL such as https://old.reddit.com; found '\(text)'")
        }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }
    static let hardBreaks = Flag("hard-breaks", "Single newlines in bodies become line breaks (the default,\nbut for Reddit Markdown).")
    static let noHardBreaks = Flag("no-hard-breaks", "Single newlines in bodies are spaces, as in CommonMark and\non Reddit (the default for Reddit Markdown).")
    static let locale: Option<String> = .text("locale", value: "tag", "Language of the page's own words (default: the input's\n\"lang\" when there is a locale for it, else en).")
    static let templates: Option<String> = .folder("templates", "Folder of .mustache templates (and locales/*.json) that\nreplace the built-in ones of the same name.")
    static let assets: Option<String> = .folder("assets", "Folder of files that replace or add to the built-in\nstylesheet and script.")

    static let page: [OptionSpec] = [
        preview.spec, openDepth.spec, maxDepth.spec, smart.spec, markdown.spec, redditBase.spec, hardBreaks.spec, noHardBreaks.spec,
        locale.spec, templates.spec, assets.spec,
    ]

    // MARK: Running a command (each command may word their help in its own way, with `.help(…)`)

    static let output: Option<String> = .folder("output", short: "o", "Folder to write (default: threadfold-site). It is replaced\nwhole, atomically; a folder Threadfold did not write is refused.")
    static let quiet = Flag("quiet", short: "q", "Print nothing but errors.")
    static let noFsync = Flag("no-fsync", "Do not flush the pages to the disk before publishing them.")
    static let example = Flag("example", "Render the bundled example thread (docs/examples/thread.json).")
    /// Threads rendered or checked at once.
    static let jobs: Option<Int> = .integer("jobs", short: "j", in: 1...1024, "Threads rendered at once (default: all cores).")

    /// The names `--from` takes: "auto, threadfold, reddit, … or lobsters".
    static var formNames: String { listed(SourceFormat.named.map(\.rawValue)) }

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
    static func inputLimits(_ parsed: ParsedArguments) throws(ThreadfoldError) {
        if let bytes = try parsed[maxDecompressed] {
            InputLimits.maxDecompressedBytes = bytes
        }
        if let bytes = try parsed[maxWindow] {
            guard bytes & (bytes - 1) == 0 else {
                throw ThreadfoldError.usage("'--max-window' must be a power of two (zstd windows are); found '\(parsed.given(maxWindow)!)'")
            }
            InputLimits.maxWindowBytes = bytes
        }
    }

    static func importOptions(_ parsed: ParsedArguments) throws -> ImportOptions {
        try inputLimits(parsed)
        var options = ImportOptions()
        let format = try parsed[from]
        if let format { options.format = format }
        options.mapping = try fieldMapping(parsed)
        if options.mapping != nil, let format, format != .auto {
            throw ThreadfoldError.usage("'--from \(format.rawValue)' and a field mapping cannot be used together")
        }
        if let path = try parsed[categories] {
            let data: [UInt8]
            do { data = try InputFile.read(path, display: path, streams: true) } catch {
                throw ThreadfoldError.usage("'--categories': \(error.description)")
            }
            options.categoryNames = try DiscourseCategories.load(json: data, file: path)
        }
        options.lenient = parsed[lenient]
        if let share = try parsed[maxSkipped] { options.maxSkipped = share }
        if let format = try parsed[bodyFormat] { options.bodyFormat = format }
        return options
    }

    /// The field mapping of `--map-file`, with `--map`'s keys over it (the command line wins per
    /// key), and `--top-level-parent`; nil when none is given.
    static func fieldMapping(_ parsed: ParsedArguments) throws -> FieldMapping? {
        var fileMapping: FieldMapping?
        let command = try parsed[map]
        if let path = try parsed[mapFile] {
            let data: [UInt8]
            do { data = try InputFile.read(path, display: path, streams: true) } catch {
                throw ThreadfoldError.usage("'--map-file': \(error.description)")
            }
            fileMapping = try FieldMapping.load(json: data, file: path, requireID: command == nil)
        }
        var mapping: FieldMapping?
        if fileMapping != nil || command != nil {
            do { mapping = try FieldMapping.combined(file: fileMapping, command: command) } catch {
                throw ThreadfoldError.usage("'--map': \(error.message)")
            }
        }
        if let value = try parsed[topLevelParent] {
            guard mapping != nil else { throw ThreadfoldError.usage("'--top-level-parent' goes with --map or --map-file") }
            mapping?.topLevelParent = value
        }
        return mapping
    }

    /// `--thread-key` and `--thread-title-key`: the mapping (given, or Threadfold's own field
    /// names) reads each comment's thread, and its title, from those fields.
    static func readThreadKey(_ parsed: ParsedArguments, into options: inout ImportOptions) throws(ThreadfoldError) {
        if let key = try parsed[threadKey] {
            var mapping =
                options.mapping
                ?? FieldMapping(paths: [
                    .id: ["id"], .parent: ["parent_id"], .author: ["author"], .body: ["body"], .time: ["created_at"],
                    .edited: ["edited_at"], .score: ["score"], .deleted: ["deleted"], .removed: ["removed"], .url: ["url"], .category: ["category"],
                ])
            mapping.paths[.thread] = key.split(separator: ".").map(String.init)
            if let title = try parsed[threadTitleKey] { mapping.paths[.title] = title.split(separator: ".").map(String.init) }
            options.mapping = mapping
            if let format = try parsed[from], format != .auto {
                throw ThreadfoldError.usage("'--thread-key' reads a list of comments by field names; it cannot be used with '--from \(format.rawValue)'")
            }
        } else if try parsed[threadTitleKey] != nil {
            throw ThreadfoldError.usage("'--thread-title-key' goes with --thread-key")
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
    static func noteForms(_ files: [DumpFile], importing: ImportOptions, _ console: Console) {
        guard importing.format == .auto else { return }
        for file in files where file.form != .mapped {
            console.err("\(Printable.escape(file.display)): note: read as \(file.form.described); --from \(file.form.rawValue) says so explicitly\n")
        }
    }

    /// Dumps named by their files, escaped: the first three, or the first and how many more.
    static func dumpsLabel(_ files: [DumpFile]) -> String {
        let names = files.map { Printable.escape($0.display) }
        return names.count <= 3 ? names.joined(separator: " + ") : "\(names[0]) + \(Printable.count(names.count - 1, "more dump", "more dumps"))"
    }

    static func renderOptions(_ parsed: ParsedArguments) throws -> RenderOptions {
        var options = RenderOptions()
        options.importing = try importOptions(parsed)
        if let order = try parsed[sort] { options.thread.sort = order }
        options.thread.replySort = try parsed[replySort]
        options.thread.allowDuplicates = parsed[allowDuplicates]
        if let count = try parsed[preview] { options.layout.preview = count }
        if let depth = try parsed[openDepth] { options.layout.openDepth = depth }
        if let depth = try parsed[maxDepth] { options.layout.maxDepth = depth }
        options.markdown.smart = parsed[smart]
        if let flavor = try parsed[markdown] { options.markdown.flavor = flavor }
        if let base = try parsed[redditBase] { options.markdown.redditBase = base }
        if parsed[hardBreaks] && parsed[noHardBreaks] {
            throw ThreadfoldError.usage("'--hard-breaks' and '--no-hard-breaks' cannot be used together")
        }
        if parsed[hardBreaks] { options.markdown.hardBreaks = true }
        if parsed[noHardBreaks] { options.markdown.hardBreaks = false }
        options.locale = try parsed[locale]
        if let source = try parsed[sourceURL] { options.sourceURL = source }
        return options
    }

    static func resources(_ parsed: ParsedArguments) throws(ThreadfoldError) -> ResourceStore {
        try ResourceStore(templatesDirectory: parsed[templates], assetsDirectory: parsed[assets])
    }

    /// The folders `--templates` and `--assets` name, as a build's options take them.
    static func resourceFolders(_ parsed: ParsedArguments) throws(ThreadfoldError) -> Resources {
        try Resources(templatesDirectory: parsed[templates], assetsDirectory: parsed[assets])
    }

    /// Reads an input argument: a regular file or a pipe (`<(…)`, a FIFO), or `-` for standard
    /// input (once). Folders, devices and sockets are refused; sizes are capped
    /// (`InputLimits.maxDocumentBytes`).
    static func read(_ input: String, _ console: Console) -> Result<[UInt8], ThreadfoldError> {
        do throws(ThreadfoldError) {
            if input == "-" { return .success(try console.readStandardInput()) }
            switch try InputFile.kind(input, missing: "no such file; expected a thread JSON file or '-' for standard input") {
            case .folder:
                return .failure(ThreadfoldError.input(Problem(file: input, message: "is a folder; expected a thread JSON file (archives of many threads come with 'threadfold build')")))
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
        case let error as ThreadfoldError where error.kind == .input:
            for item in error.problems { console.err(item.shown + "\n") }
        default:
            console.err(Printable.escapeLines("\(error)\n".replacingOccurrences(of: "\n\n", with: "\n")))
        }
    }
}
