import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads a Disqus XML export (Admin → Export): `<disqus>` holding `<category dsq:id>`s (a
/// `<title>`), `<thread dsq:id>`s (`<link>`, `<title>`, `<message>`, `<createdAt>`, `<author>`,
/// a `<category dsq:id>` reference) and `<post dsq:id>`s (`<thread dsq:id>` and `<parent dsq:id>`
/// references, `<message>` HTML in CDATA, `<createdAt>`, `<author>` with `<name>` and
/// `<username>`, `<isDeleted>`, `<isSpam>`).
///
/// Each thread with posts is one `ThreadRecord`; threads without posts (Disqus lists every page
/// of a site) are left out and counted in one warning. Posts are threaded by `<parent>`;
/// deleted ones are placeholders, spam is left out with a warning each (a reply to spam answers
/// the spam's own parent). Bodies are HTML, sanitised like every HTML body.
///
/// XML is read by FoundationXML's `XMLParser` (libxml2's SAX parser underneath): a stream of
/// events into flat arrays, no tree and no recursion. External entities are not resolved, and a
/// document type declaration (the only place entities can be declared) is refused before
/// parsing, so no entity expansion can blow up. Errors are located by the parser's line and
/// column.
enum DisqusImporter: ImporterForm {
    static let name = "disqus"
    static let described = "a Disqus XML export (<disqus>)"

    /// A Disqus export is XML, never JSON.
    static func detect(_ json: JSONReader) -> Bool { false }

    static func decode(_ context: inout ImportContext) throws(ThreadfoldError) -> [ThreadRecord] {
        context.fail(context.reader.root, "$", "expected a Disqus XML export, which starts with <disqus>, found JSON")
        return []
    }

    static var readsBytes: Bool { true }

    /// The file starts, after a byte order mark, white space, an XML declaration, comments (and a
    /// document type declaration, which is then refused), with `<disqus`.
    static func recognises(_ bytes: [UInt8]) -> Bool { prolog(bytes) != nil }

    /// Where the root element starts, and where a document type declaration does, if any; nil
    /// when the root is not `<disqus`.
    static func prolog(_ bytes: [UInt8]) -> (root: Int, doctype: Int?)? {
        var i = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        var doctype: Int?
        func at(_ text: String) -> Bool { bytes[i...].starts(with: text.utf8) }
        func skip(past end: String) -> Bool {
            let needle = Array(end.utf8)
            var j = i
            while j + needle.count <= bytes.count {
                if bytes[j] == needle[0] && bytes[j..<(j + needle.count)].elementsEqual(needle) {
                    i = j + needle.count
                    return true
                }
                j += 1
            }
            return false
        }
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D:
                i += 1
            case UInt8(ascii: "<"):
                if at("<?") {
                    guard skip(past: "?>") else { return nil }
                } else if at("<!--") {
                    guard skip(past: "-->") else { return nil }
                } else if at("<!DOCTYPE") {
                    doctype = i
                    // An internal subset ends with "]>", a plain declaration with ">".
                    let bracket = bytes[i...].firstIndex(of: UInt8(ascii: "[")), close = bytes[i...].firstIndex(of: UInt8(ascii: ">"))
                    if let bracket, let close, bracket < close { guard skip(past: "]") else { return nil } }
                    guard skip(past: ">") else { return nil }
                } else if at("<disqus") {
                    let next = i + 7 < bytes.count ? bytes[i + 7] : 0
                    guard [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(next) else { return nil }
                    return (i, doctype)
                } else {
                    return nil
                }
            default:
                return nil
            }
        }
        return nil
    }

    static func decode(bytes: [UInt8], file: String, options: ImportOptions) throws(ThreadfoldError) -> (threads: [ThreadRecord], skipped: [Problem]) {
        guard let (_, doctype) = prolog(bytes) else {
            throw ThreadfoldError.input([
                Problem(file: file, line: 1, column: 1, message: "expected a Disqus XML export, which starts with <disqus>, found something else (read as \(described))", hint: .otherForm)
            ])
        }
        if let doctype {
            let (line, column) = JSONDocument.location(in: bytes, offset: doctype)
            throw ThreadfoldError.input([
                Problem(
                    file: file, line: line, column: column,
                    message: "found a document type declaration (<!DOCTYPE>); expected a Disqus export, which has none (declared entities are not expanded) (read as \(described))")
            ])
        }
        let events = Events()
        // Fed from a stream, so libxml2 reads the export in chunks: handed as one block, an
        // export past its 10,000,000-byte lookup limit is refused as malformed.
        let parser = XMLParser(stream: InputStream(data: Data(bytes)))
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        parser.delegate = events
        _ = parser.parse()
        // libxml2 may go on after an error and report success: the first error decides.
        if let error = events.error {
            throw ThreadfoldError.input([Problem(file: file, line: error.line, column: error.column, message: "\(error.message) (read as \(described))")])
        }
        return assemble(events, bytes: bytes, file: file)
    }

    /// Threads from the parsed entries: posts grouped by thread in file order, spam left out.
    private static func assemble(_ events: Events, bytes: [UInt8], file: String) -> (threads: [ThreadRecord], skipped: [Problem]) {
        locate(events, in: bytes)
        var skipped: [Problem] = []
        var (records, threadIndex) = threads(events, bytes: bytes, file: file)
        var spam = SpamParents(events)
        var position = 0
        for entry in events.entries where entry.kind == "post" {
            defer { position += 1 }
            let origin = RecordOrigin(offset: Int32(clamping: entry.offset), container: -1, key: "/disqus/post[\(position)]", index: -1)
            guard let id = entry.id, !id.isEmpty else {
                skipped.append(leftOut(entry, position, file, "has no dsq:id, so no reply can name it; left out", kind: "skipped"))
                continue
            }
            if entry.fields["isSpam"] == "true" {
                skipped.append(leftOut(entry, position, file, "is marked as spam (isSpam); left out", kind: "spam"))
                continue
            }
            let thread = entry.references["thread"] ?? ""
            if threadIndex[thread] == nil {
                var record = ThreadRecord(id: CommentID(thread), file: file, source: bytes)
                record.info.title = thread.isEmpty ? "Disqus posts without a thread" : "Disqus thread \(thread)"
                threadIndex[thread] = records.count
                records.append(record)
            }
            var comment = CommentRecord(id: CommentID(id), origin: origin)
            comment.parentID = spam.parent(of: entry).map(CommentID.init)
            comment.bodyFormat = .html
            comment.createdAt = entry.fields["createdAt"].flatMap(Timestamp.init(iso:))
            comment.author = author(entry)
            if entry.fields["isDeleted"] == "true" {
                comment.deleted = true
            } else {
                comment.body = entry.fields["message"] ?? ""
            }
            records[threadIndex[thread]!].comments.append(comment)
        }
        let empty = records.count { $0.comments.isEmpty }
        if empty > 0 {
            var note = Problem(
                file: file, line: 1, column: 1, path: "/disqus",
                message: "\(Printable.count(empty, "thread")) without posts left out", severity: .warning)
            note.kind = "emptyThread"
            skipped.append(note)
        }
        return (records.filter { !$0.comments.isEmpty }, skipped)
    }

    /// Locates each entry where its tag starts (the parser tells where a start tag ends): its
    /// byte offset, line and column.
    private static func locate(_ events: Events, in bytes: [UInt8]) {
        var lineStarts = [0]
        for (offset, byte) in bytes.enumerated() where byte == 0x0A { lineStarts.append(offset + 1) }
        let locator = TextLocator()
        for e in events.entries.indices {
            let line = min(max(events.entries[e].line, 1), lineStarts.count)
            var offset = min(lineStarts[line - 1] + max(events.entries[e].column - 1, 0), max(bytes.count - 1, 0))
            while offset > 0 && bytes[offset] != UInt8(ascii: "<") { offset -= 1 }
            events.entries[e].offset = offset
            (events.entries[e].line, events.entries[e].column) = locator.location(in: bytes, offset: offset)
        }
    }

    /// The export's threads, in file order, with their places by id; a category is named by its
    /// title when the export has one.
    private static func threads(_ events: Events, bytes: [UInt8], file: String) -> ([ThreadRecord], [String: Int]) {
        var categories: [String: String] = [:]
        for entry in events.entries where entry.kind == "category" {
            if let id = entry.id, let title = entry.fields["title"], !title.isEmpty { categories[id] = title }
        }
        var records: [ThreadRecord] = []
        var threadIndex: [String: Int] = [:]
        for entry in events.entries where entry.kind == "thread" {
            guard let id = entry.id, threadIndex[id] == nil else { continue }
            var record = ThreadRecord(id: CommentID(id), file: file, source: bytes)
            record.info.title = entry.fields["title"].flatMap { $0.isEmpty ? nil : $0 }
            record.info.url = entry.fields["link"].flatMap { $0.isEmpty ? nil : $0 }
            record.info.createdAt = entry.fields["createdAt"].flatMap(Timestamp.init(iso:))
            record.info.author = author(entry)
            if let category = entry.references["category"] { record.info.category = categories[category] ?? "Category \(category)" }
            if let message = entry.fields["message"], !message.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                record.info.body = message
                record.info.bodyFormat = .html
            }
            threadIndex[id] = records.count
            records.append(record)
        }
        return (records, threadIndex)
    }

    /// A warning for a post left out, at its element.
    private static func leftOut(_ entry: Entry, _ position: Int, _ file: String, _ message: String, kind: String) -> Problem {
        var warning = Problem(
            file: file, line: entry.line, column: entry.column, path: "/disqus/post[\(position)]",
            message: message, severity: .warning)
        warning.kind = kind
        return warning
    }

    /// Spam is left out; a reply to it answers the spam's own parent.
    private struct SpamParents {
        /// Each spam post's parent, by the spam's id.
        var up: [String: String?] = [:]
        /// Each spam post's first ancestor that is not spam, found once.
        var answered: [String: String?] = [:]

        init(_ events: Events) {
            for entry in events.entries where entry.kind == "post" && entry.fields["isSpam"] == "true" {
                if let id = entry.id { up[id] = entry.references["parent"] }
            }
        }

        /// The entry's parent, past any spam: a walk stops at a spam post already answered, so
        /// all walks together are linear in the spam. A cycle of spam answers the spam post where
        /// the walk met itself, which the thread then reports as missing.
        mutating func parent(of entry: Entry) -> String? {
            var walk: [String] = []
            var onWalk: Set<String> = []
            var current = entry.references["parent"]
            while let id = current, let next = up[id] {
                if let known = answered[id] {
                    current = known
                    break
                }
                guard onWalk.insert(id).inserted else { break }
                walk.append(id)
                current = next
            }
            for id in walk { answered[id] = current }
            return current
        }
    }

    /// An author's display name, else the account's user name.
    private static func author(_ entry: Entry) -> String? {
        for key in ["author.name", "author.username"] {
            if let name = entry.fields[key]?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty { return name }
        }
        return nil
    }

    /// One `<category>`, `<thread>` or `<post>`: its `dsq:id`, where it starts, its leaf fields
    /// (`title`, `author.name`, …) and the `dsq:id`s its `<thread>`, `<parent>` and `<category>` name.
    fileprivate struct Entry {
        var kind: String
        var id: String?
        var line: Int
        var column: Int
        var offset = 0
        var fields: [String: String] = [:]
        var references: [String: String] = [:]
    }

    /// The parser's events, folded into entries as they come: a stack of element names, and the
    /// text of the leaf being read.
    fileprivate final class Events: NSObject, XMLParserDelegate {
        var entries: [Entry] = []
        var error: (line: Int, column: Int, message: String)?
        private var names: [String] = []
        private var current: Entry?
        private var text: [UInt8] = []

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
        ) {
            names.append(elementName)
            text.removeAll(keepingCapacity: true)
            switch names.count {
            case 1:
                if elementName != "disqus" { fail(parser, "found the element <\(elementName)> at the top; expected <disqus>") }
            case 2 where ["category", "thread", "post"].contains(elementName):
                current = Entry(kind: elementName, id: attributeDict["dsq:id"], line: parser.lineNumber, column: parser.columnNumber)
            case 3 where ["thread", "parent", "category"].contains(elementName):
                if let id = attributeDict["dsq:id"] { current?.references[elementName] = id }
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            switch names.count {
            case 2:
                if let entry = current { entries.append(entry) }
                current = nil
            case 3 where elementName != "author":
                current?.fields[elementName] = String(decoding: text, as: UTF8.self)
            case 4 where names[2] == "author":
                current?.fields["author." + elementName] = String(decoding: text, as: UTF8.self)
            default:
                break
            }
            text.removeAll(keepingCapacity: true)
            names.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if current != nil && names.count >= 3 { text.append(contentsOf: string.utf8) }
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            if current != nil && names.count >= 3 { text.append(contentsOf: CDATABlock) }
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
            let code = (parseError as NSError).code
            // Namespace errors (an undeclared dsq: prefix) do not stop libxml2 and change nothing here.
            guard !(200..<300).contains(code) else { return }
            fail(parser, XMLErrorText.describe(code))
        }

        func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? { nil }

        private func fail(_ parser: XMLParser, _ message: String) {
            guard error == nil else { return }
            error = (max(parser.lineNumber, 1), max(parser.columnNumber, 1), message)
            parser.abortParsing()
        }
    }
}
