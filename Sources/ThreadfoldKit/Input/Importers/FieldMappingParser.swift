/// Reading, checking and applying a `FieldMapping`.
extension FieldMapping {
    /// Every key a mapping takes (`set`), `where.<path>` standing for each condition's key.
    package static var keys: [String] {
        Field.allCases.map(\.rawValue) + ["comments", "replies"] + ThreadField.allCases.map { "thread.\($0.rawValue)" }
            + ["strip", "where.<path>", "format", "top_level_parent"]
    }

    /// The keys a mapping takes, for messages.
    static var keysDescribed: String { keys.joined(separator: ", ") }

    /// Parses `key=path,…` over `base`: each key given replaces the base's (the command line over
    /// a mapping file). A part without `=` after `strip=` is one more prefix (`strip=t1_,t3_`).
    /// The result is not validated.
    static func parse(_ text: String, over base: FieldMapping) throws(ThreadfoldError) -> FieldMapping {
        var mapping = base
        var stripping = false
        var stripped: [String] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces }
            if pieces.count == 1, stripping, !pieces[0].isEmpty {
                stripped.append(pieces[0])
                continue
            }
            stripping = false
            guard pieces.count == 2, !pieces[1].isEmpty else {
                throw ThreadfoldError.usage("found '\(part)'; expected key=path, like id=objectID")
            }
            if pieces[0] == "strip" {
                stripping = true
                stripped.append(contentsOf: pieces[1].split(separator: "|").map(String.init))
                continue
            }
            try mapping.set(pieces[0], pieces[1])
        }
        if !stripped.isEmpty { mapping.strip = stripped }
        return mapping
    }

    /// Sets one key (`id`, `comments`, `thread.title`, `where.kind`, `format`, …) from its text.
    mutating func set(_ key: String, _ value: String) throws(ThreadfoldError) {
        if let field = Field(rawValue: key) {
            paths[field] = try Self.splitPath(value)
        } else if key == "comments" {
            comments = try Self.splitPath(value, root: true)
        } else if key == "replies" {
            replies = try Self.splitPath(value)
        } else if key.hasPrefix("thread."), let field = ThreadField(rawValue: String(key.dropFirst("thread.".count))) {
            thread[field] = try Self.splitPath(value, root: true)
        } else if key.hasPrefix("where.") {
            let path = try Self.splitPath(String(key.dropFirst("where.".count)))
            conditions.removeAll { $0.path == path }
            conditions.append(Condition(path: path, value: value))
        } else if key == "strip" {
            strip = value.split(separator: "|").map(String.init)
        } else if key == "format" {
            guard let format = BodyFormat(rawValue: value) else {
                throw ThreadfoldError.usage("found format=\(value); expected markdown, html or text")
            }
            bodyFormat = format
        } else if key == "top_level_parent" || key == "top-level-parent" {
            topLevelParent = value
        } else {
            throw ThreadfoldError.usage("found the key '\(key)'; expected one of \(Self.keysDescribed)")
        }
    }

    /// Checks what every mapping needs: an id.
    func validate() throws(ThreadfoldError) {
        guard paths[.id] != nil else {
            throw ThreadfoldError.usage("the mapping has no id; expected id=<member> (every comment needs an id)")
        }
    }

    /// The mapping of `--map-file` with `--map`'s keys over it (the command line wins per key);
    /// either may be missing, not both.
    package static func combined(file: FieldMapping?, command text: String?) throws(ThreadfoldError) -> FieldMapping {
        var mapping = file ?? FieldMapping(paths: [:])
        if let text { mapping = try parse(text, over: mapping) }
        try mapping.validate()
        return mapping
    }

    /// Reads a mapping file: one JSON object with the keys `--map` takes (`{"id": "objectID",
    /// "comments": "$.data", "thread.title": "$.title", "where.kind": "t1", "strip": ["t1_"],
    /// "top_level_parent": "0"}`). With `requireID` false (a `--map` will be laid over it), it
    /// may lack an id.
    package static func load(json bytes: [UInt8], file: String, requireID: Bool = true) throws(ThreadfoldError) -> FieldMapping {
        let r = try JSONReader(bytes: bytes, file: file)
        var mapping = FieldMapping(paths: [:])
        do throws(JSONError) {
            try r.members(r.root, "$", expected: "an object of field names to member paths, like {\"id\": \"objectID\"}") { key, value throws(JSONError) in
                let path = "$." + key
                let text: String
                if key == "strip", r.kind(value) == .array {
                    mapping.strip = try r.strings(value, path)
                    return
                }
                switch r.kind(value) {
                case .string: text = try r.string(value, path)
                case .number where key == "top_level_parent" || key.hasPrefix("where."): text = r.scalarText(value) ?? ""
                case .true where key.hasPrefix("where."): text = "true"
                case .false where key.hasPrefix("where."): text = "false"
                case .null where key.hasPrefix("where."): text = "null"
                default:
                    let expected: String
                    switch key {
                    case "top_level_parent": expected = "a string or a number"
                    case "strip": expected = "an array of prefixes, like [\"t1_\", \"t3_\"]"
                    case "format": expected = "markdown, html or text"
                    default: expected = key.hasPrefix("where.") ? "a value to compare with" : "a member path as a string"
                    }
                    throw r.mismatch(value, path, expected: expected)
                }
                do throws(ThreadfoldError) { try mapping.set(key, text) } catch {
                    // "found X; expected Y", as a mismatch says it: "expected Y, found X".
                    let parts = error.message.components(separatedBy: "; expected ")
                    if parts.count == 2, parts[0].hasPrefix("found ") {
                        throw JSONError(node: value, path: path, expected: parts[1], found: String(parts[0].dropFirst("found ".count)))
                    }
                    throw JSONError(node: value, path: path, expected: "a mapping key and its value", found: error.message)
                }
            }
            if requireID && mapping.paths[.id] == nil {
                throw JSONError(node: r.root, path: "$.id", expected: "an id mapping", found: "none")
            }
        } catch {
            throw ThreadfoldError.input([r.error(error)])
        }
        return mapping
    }

    /// Splits a path into its steps: member names at dots, `[N]` as the step `N`. A leading `$`
    /// (the root, or the comment for comment fields) is dropped; `$` alone is the empty path,
    /// allowed only where `root` is.
    static func splitPath(_ text: String, root: Bool = false) throws(ThreadfoldError) -> [String] {
        var rest = Substring(text)
        var dollar = false
        if rest.hasPrefix("$") {
            dollar = true
            rest = rest.dropFirst()
            if rest.hasPrefix(".") { rest = rest.dropFirst() }
        }
        if rest.isEmpty {
            guard dollar && root else {
                throw ThreadfoldError.usage("found the path '\(text)'; expected member names joined by dots, like user.name")
            }
            return []
        }
        var steps: [String] = []
        for segment in rest.split(separator: ".", omittingEmptySubsequences: false) {
            var name = segment
            var indices: [String] = []
            while name.hasSuffix("]"), let open = name.lastIndex(of: "[") {
                let digits = name[name.index(after: open)..<name.index(before: name.endIndex)]
                guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                    throw ThreadfoldError.usage("found '\(segment)' in the path '\(text)'; expected an element's index in brackets, like data.children[0]")
                }
                indices.insert(String(digits), at: 0)
                name = name[..<open]
            }
            guard !name.isEmpty || !indices.isEmpty else {
                throw ThreadfoldError.usage("found the path '\(text)'; expected member names joined by dots, like user.name")
            }
            guard !name.contains("[") && !name.contains("]") else {
                throw ThreadfoldError.usage("found '\(segment)' in the path '\(text)'; expected an element's index in brackets, like data.children[0]")
            }
            if !name.isEmpty { steps.append(String(name)) }
            steps.append(contentsOf: indices)
        }
        return steps
    }

    /// The node at `path` from `node`: a member of an object by name, an element of an array by
    /// its index. Nil when a step is missing or the value there is null.
    static func resolve(_ json: JSONReader, _ node: Int, _ path: [String]) -> Int? {
        var current = node
        for step in path {
            if json.isObject(current) {
                guard let next = json.member(current, step) else { return nil }
                current = next
            } else {
                guard let element = Int(step).flatMap({ json.element(current, at: $0) }) else { return nil }
                current = element
            }
        }
        return json.isNull(current) ? nil : current
    }

    /// Whether the item at `item` meets every `where` condition.
    func admits(_ json: JSONReader, _ item: Int) -> Bool {
        for condition in conditions {
            guard let node = Self.resolve(json, item, condition.path) else {
                if condition.value == "null" && json.isObject(item) { continue }
                return false
            }
            let text: String
            switch json.kind(node) {
            case .true: text = "true"
            case .false: text = "false"
            default:
                guard let scalar = json.scalarText(node) else { return false }
                text = scalar
            }
            guard condition.matches(text) else { return false }
        }
        return true
    }

    /// A path as written: `data.children[0]`.
    static func written(_ path: [String]) -> String {
        var text = ""
        for step in path {
            if !step.isEmpty, step.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { text += "[\(step)]" } else { text += (text.isEmpty ? "" : ".") + step }
        }
        return text
    }

    /// A path from the root as written: `$`, `$.data.children`, `$[1].data`.
    static func rooted(_ path: [String]) -> String {
        guard let first = path.first else { return "$" }
        return "$" + (first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) ? "" : ".") + written(path)
    }

    /// The id with the first prefix of `strip` that fits taken off (never down to nothing).
    func stripped(_ id: CommentID) -> CommentID {
        guard !strip.isEmpty else { return id }
        let text = id.string.utf8
        for prefix in strip where text.starts(with: prefix.utf8) && text.count > prefix.utf8.count {
            return CommentID(String(decoding: text.dropFirst(prefix.utf8.count), as: UTF8.self))
        }
        return id
    }
}

extension FieldMapping.Condition {
    /// Whether `text` is the value, or one of the values `|` separates.
    func matches(_ text: String) -> Bool {
        value.utf8.split(separator: UInt8(ascii: "|"), omittingEmptySubsequences: false).contains { text.utf8.elementsEqual($0) }
    }
}

private extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
