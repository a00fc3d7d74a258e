/// Reads any JSON list of comments through a `FieldMapping`: a JSON array, an object holding
/// one (its first member that is an array), or JSON Lines. Comments are grouped into threads by
/// the `thread` field, in order of first appearance.
enum MappedImporter {
    static func decode(_ context: inout ImportContext, mapping: FieldMapping, lenient: Bool,
                       skipped: inout [InputError]) -> [ThreadRecord] {
        let document = context.document
        var list = document.root
        var listPath = "$"
        if document.kind(list) == .object {
            var found: (Int, String)?
            document.forEachMember(list) { key, value in
                if found == nil && document.kind(value) == .array { found = (value, key) }
            }
            guard let (array, key) = found else {
                context.fail(list, "$", "found an object without an array of comments; expected an array, an object holding one, or JSON Lines")
                return []
            }
            list = array
            listPath = "$.\(key)"
        }
        guard document.kind(list) == .array else {
            context.fail(list, listPath, "expected an array of comments, found \(document.kind(list).described)")
            return []
        }

        func value(_ object: Int, _ field: FieldMapping.Field) -> Int? {
            guard let path = mapping.paths[field] else { return nil }
            var node = object
            for part in path {
                guard document.kind(node) == .object, let next = document.member(node, part) else { return nil }
                node = next
            }
            return document.kind(node) == .null ? nil : node
        }
        func fieldPath(_ base: String, _ field: FieldMapping.Field) -> String {
            base + "." + (mapping.paths[field] ?? []).joined(separator: ".")
        }
        let reader = context.reader
        func idValue(_ node: Int) -> CommentID? { reader.id(node) }

        // Threads are keyed by their key's bytes: NFC and NFD spellings are different threads.
        var order: [CommentID] = []
        var threads: [CommentID: ThreadRecord] = [:]
        document.forEachElement(list) { position, item in
            let path = "\(listPath)[\(position)]"
            guard document.kind(item) == .object else {
                context.fail(item, path, "expected a comment object, found \(document.kind(item).described)")
                return
            }
            guard let idNode = value(item, .id) else {
                let mapped = (mapping.paths[.id] ?? []).joined(separator: ".")
                var error = reader.error(at: item, path: fieldPath(path, .id),
                                         lenient ? "has no id (mapped as id=\(mapped)); skipped"
                                             : "expected an id here (mapped as id=\(mapped)), found none",
                                         severity: lenient ? .warning : .error)
                error.hint = lenient ? .skipped : .lenient
                if lenient { error.kind = "skipped" }
                if lenient { skipped.append(error) } else if context.errors.count < ThreadDecoder.errorLimit { context.errors.append(error) }
                return
            }
            guard let id = idValue(idNode) else {
                context.fail(idNode, fieldPath(path, .id), "expected a string or an integer id, found \(document.kind(idNode).described)")
                return
            }
            let threadKey = value(item, .thread).flatMap(idValue)
            let key = threadKey ?? CommentID("")
            if threads[key] == nil {
                var record = ThreadRecord(id: threadKey, file: context.file, source: document.bytes)
                record.info.sourceFormat = "mapped"
                threads[key] = record
                order.append(key)
            }
            var comment = CommentRecord(id: id, origin: RecordOrigin(offset: Int32(document.offset(item)), container: -1,
                                                                     key: String(path.dropFirst()), index: -1))
            if let parentNode = value(item, .parent) {
                guard let parent = idValue(parentNode) else {
                    context.fail(parentNode, fieldPath(path, .parent), "expected a string or an integer, found \(document.kind(parentNode).described)")
                    return
                }
                let text = parent.string
                let topLevel = text.isEmpty || text == "0" || parent == threadKey || text == mapping.topLevelParent
                if !topLevel { comment.parentID = parent }
            }
            if let node = value(item, .author) { comment.author = text(&context, node, fieldPath(path, .author)) }
            if let node = value(item, .body) { comment.body = text(&context, node, fieldPath(path, .body)) ?? "" }
            if let node = value(item, .time) { comment.createdAt = time(&context, node, fieldPath(path, .time)) }
            if let node = value(item, .edited) {
                switch document.kind(node) {
                case .true: comment.edited = true
                case .false: break
                default:
                    comment.editedAt = time(&context, node, fieldPath(path, .edited))
                    comment.edited = comment.editedAt != nil
                }
            }
            if let node = value(item, .score) {
                if let exact = document.int64(node) { comment.score = exact }
                else if let double = document.double(node), double.isFinite, abs(double) < 9e18 { comment.score = Int64(double.rounded()) }
                else { context.fail(node, fieldPath(path, .score), "expected a number, found \(document.kind(node).described)") }
            }
            if let node = value(item, .deleted) {
                switch document.kind(node) {
                case .true: comment.deleted = true
                case .false: break
                default: context.fail(node, fieldPath(path, .deleted), "expected true or false, found \(document.kind(node).described)")
                }
            }
            if threads[key]!.info.title == nil, let node = value(item, .title) { threads[key]!.info.title = text(&context, node, fieldPath(path, .title)) }
            if threads[key]!.info.url == nil, let node = value(item, .url) { threads[key]!.info.url = text(&context, node, fieldPath(path, .url)) }
            if threads[key]!.info.category == nil, let node = value(item, .category) {
                threads[key]!.info.category = text(&context, node, fieldPath(path, .category))
            }
            threads[key]!.comments.append(comment)
        }
        return order.map { threads[$0]! }
    }

    private static func text(_ context: inout ImportContext, _ node: Int, _ path: String) -> String? {
        switch context.document.kind(node) {
        case .string: return context.document.string(node)
        case .number: return context.document.numberText(node)
        default:
            context.fail(node, path, "expected a string, found \(context.document.kind(node).described)")
            return nil
        }
    }

    private static func time(_ context: inout ImportContext, _ node: Int, _ path: String) -> Timestamp? {
        if let value = context.document.timestamp(node) { return value }
        context.fail(node, path, "expected an ISO 8601 date or Unix seconds or milliseconds, found \(context.document.kind(node).described)")
        return nil
    }
}
