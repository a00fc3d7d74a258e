/// How input files are read.
public struct ImportOptions: Sendable {
    /// The form of the input; `auto` recognises it.
    public var format: SourceFormat = .auto
    /// Overrides the importer's choice of body format for every body.
    public var bodyFormat: BodyFormat?
    /// Reads any JSON list of comments through this mapping instead of a known form.
    public var mapping: FieldMapping?
    /// A comment missing a required field is skipped and reported instead of failing the file.
    public var lenient = false
    /// With `lenient`, the most comments of a file that may be skipped, as a share: past it the
    /// file is refused, so lenient reading never turns a file into an empty page.
    public var maxSkipped = 0.5

    public init(format: SourceFormat = .auto, bodyFormat: BodyFormat? = nil, mapping: FieldMapping? = nil, lenient: Bool = false) {
        self.format = format
        self.bodyFormat = bodyFormat
        self.mapping = mapping
        self.lenient = lenient
    }
}

/// The threads read from one file, and the form they were read as.
package struct ImportResult: Sendable {
    package var threads: [ThreadRecord]
    package var format: SourceFormat
    /// The form was recognised rather than given with `--from`.
    package var detected: Bool
    /// Comments skipped for a missing required field (only with `lenient`), as warnings.
    package var skipped: [InputError] = []
}

/// Reads any supported form into `ThreadRecord`s: Threadfold's own format, Reddit, Hacker News,
/// Discourse. A file that is JSON Lines (one value per line) is read as an array of its lines.
package enum Importer {
    package static func read(bytes: [UInt8], file: String, options: ImportOptions = ImportOptions()) throws(InputErrors) -> ImportResult {
        let document = try parse(bytes, file: file)
        var format = options.mapping != nil ? .mapped : options.format
        let detected = format == .auto
        if detected {
            guard let found = SourceFormat.detect(document) else {
                let forms = SourceFormat.named.filter { $0 != .auto }.map { "\($0.rawValue) (\($0.described))" }
                throw InputErrors([InputError(file: file, line: 1, column: 1, path: "$",
                    message: "cannot tell which form this is; expected one of: \(forms.joined(separator: ", "))", hint: .nameForm)])
            }
            format = found
        }
        var threads: [ThreadRecord]
        var skipped: [InputError] = []
        var context = ImportContext(document: document, file: file, format: format)
        switch format {
        case .auto, .threadfold:
            threads = try decodeThreads(document, file: file, lenient: options.lenient, skipped: &skipped)
        case .mapped:
            threads = MappedImporter.decode(&context, mapping: options.mapping!, lenient: options.lenient, skipped: &skipped)
        case .reddit:
            let root = document.root
            if document.kind(root) == .array, document.count(root) > 0,
               document.member(root + 1, "link_id") != nil || DumpForm.isRedditSubmission(document, root + 1) {
                threads = RedditImporter.decodeDump(&context)
            } else {
                threads = [RedditImporter.decode(&context)]
            }
        case .discourse:
            threads = [DiscourseImporter.decode(&context)]
        case .lobsters:
            threads = [LobstersImporter.decode(&context)]
        case .hn:
            var items: [(node: Int, path: String)] = []
            if document.kind(document.root) == .array {
                document.forEachElement(document.root) { position, element in items.append((element, "$[\(position)]")) }
            } else {
                items = [(document.root, "$")]
            }
            threads = HackerNewsImporter.decode(&context, items: items)
        }
        if !context.errors.isEmpty { throw InputErrors(context.errors) }
        for t in threads.indices { threads[t].locator = document.locator }
        try ImportAudit.check(document, file: file, format: format, threads: threads, skipped: skipped, options: options)
        if let bodyFormat = options.bodyFormat {
            for t in threads.indices {
                threads[t].info.bodyFormat = bodyFormat
                for c in threads[t].comments.indices { threads[t].comments[c].bodyFormat = bodyFormat }
            }
        }
        return ImportResult(threads: threads, format: format, detected: detected, skipped: skipped)
    }

    /// One thread, or many: `{"threads": [...]}`, or an array (JSON Lines) of thread objects.
    static func decodeThreads(_ document: JSONDocument, file: String, lenient: Bool,
                              skipped: inout [InputError]) throws(InputErrors) -> [ThreadRecord] {
        let root = document.root
        var list: (node: Int, path: String)?
        if document.kind(root) == .object, document.member(root, "comments") == nil,
           let threads = document.member(root, "threads"), document.kind(threads) == .array {
            list = (threads, ".threads")
        } else if document.kind(root) == .array, document.count(root) > 0, document.kind(root + 1) == .object,
                  document.member(root + 1, "comments") != nil {
            list = (root, "")
        }
        guard let list else {
            return [try ThreadDecoder.decode(document: document, file: file, lenient: lenient, skipped: &skipped)]
        }
        var threads: [ThreadRecord] = []
        var errors: [InputError] = []
        var elements: [Int] = []
        document.forEachElement(list.node) { _, element in elements.append(element) }
        for (position, element) in elements.enumerated() {
            do {
                threads.append(try ThreadDecoder.decode(document: document, at: element, path: "\(list.path)[\(position)]",
                                                        file: file, lenient: lenient, skipped: &skipped))
            } catch {
                errors.append(contentsOf: error.errors)
                if errors.count >= ThreadDecoder.errorLimit { break }
            }
        }
        if !errors.isEmpty { throw InputErrors(errors) }
        return threads
    }

    /// Parses the file as one JSON document, or as JSON Lines when a first value is followed by more.
    static func parse(_ bytes: [UInt8], file: String) throws(InputErrors) -> JSONDocument {
        try JSONReader(bytes: bytes, file: file, lines: true).document
    }
}
