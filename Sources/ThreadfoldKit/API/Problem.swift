/// A problem with an input file, located by line and column and, where it helps, a JSON path.
///
/// Prints as `file:line:col: error: $.comments[3].parent_id: message`, with the message saying
/// what was found and what was expected. The file name, path and message are escaped for the
/// terminal (`Printable.escape`): they carry input strings and file names.
public struct Problem: Sendable, Equatable, CustomStringConvertible {
    /// An error stops the file; a warning is something a reader may miss (`--strict` fails on
    /// it); a note is something left out as asked or as the forum itself hides it (a deleted
    /// comment without replies), said so that nothing is lost silently.
    public enum Severity: String, Sendable { case error, warning, note }

    public var file: String
    public var line: Int?
    public var column: Int?
    public var path: String?
    public var message: String
    public var severity: Severity
    /// What a front end can suggest for the problem. The library's messages name no
    /// command-line flag; the CLI turns the hint into one.
    public var hint: Hint?
    /// The kind of a warning that many comments can share (`orphan`, `cycle`, `duplicate`,
    /// `omittedDeleted`, `skipped`), so a front end can count them rather than list each.
    public var kind: String?
    /// Another place the message is about (where a duplicate id was first used), printed after
    /// the message; located like the error itself, so a front end that moves the error (a dump's
    /// thread back to its file's lines) moves it too.
    public var related: Related?

    /// A second place in the input that a message points to.
    public struct Related: Sendable, Equatable {
        /// What is there, as the message's words: "first used".
        public var label: String
        /// Set when it is in another file than the error.
        public var file: String?
        public var line: Int?
        public var column: Int?
        public var path: String?

        public init(label: String, file: String? = nil, line: Int? = nil, column: Int? = nil, path: String? = nil) {
            self.label = label
            self.file = file
            self.line = line
            self.column = column
            self.path = path
        }

        /// "first used at 12:3 ($[11])", or with the file when it differs.
        public var description: String {
            var place = file.map { Printable.escape($0) + ":" } ?? ""
            if let line, let column { place += "\(line):\(column)" }
            if let path { place += place.isEmpty ? Printable.escape(path) : " (\(Printable.escape(path)))" }
            return "\(label) at \(place.isEmpty ? "?" : place)"
        }
    }

    /// A way around a problem that a front end may offer.
    public enum Hint: String, Sendable {
        /// Comments without a required field can be skipped instead.
        case lenient
        /// The comment was skipped because skipping was asked for.
        case skipped
        /// The file can be read as another form.
        case otherForm
        /// The file's form can be named, or its fields mapped.
        case nameForm
        /// Duplicate ids can be allowed, keeping the first.
        case allowDuplicates
        /// A sharded build writes the folders a merge takes.
        case shard
        /// The most a compressed input may decompress to can be raised.
        case decompressedLimit
        /// The largest zstd window allowed can be raised.
        case windowLimit
    }

    public init(
        file: String, line: Int? = nil, column: Int? = nil, path: String? = nil,
        message: String, severity: Severity = .error, hint: Hint? = nil
    ) {
        self.file = file
        self.line = line
        self.column = column
        self.path = path
        self.message = message
        self.severity = severity
        self.hint = hint
    }

    public var description: String {
        var text = Printable.escape(file)
        if let line, let column { text += ":\(line):\(column)" }
        text += ": \(severity.rawValue): "
        if let path { text += "\(Printable.escape(path)): " }
        text += Printable.escape(message)
        if let related { text += " (\(related.description))" }
        return text
    }
}
