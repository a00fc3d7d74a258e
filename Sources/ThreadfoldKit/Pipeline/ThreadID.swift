extension ThreadRecord {
    /// The thread's id, or for a thread without one, a stand-in made from what it says: 16 hex
    /// digits of a hash of its title, author, time, link and opening post and of its first
    /// comment's id, author, time and body. Never from where the file lies, which would be
    /// published in `thread.json` and the manifest; stable while comments are added after the first.
    package var threadID: CommentID {
        if let id = info.id { return id }
        var bytes: [UInt8] = []
        func add(_ text: String?) {
            // Each field with its length, so no two lists of fields make the same bytes.
            let field = text.map { Array($0.utf8) } ?? []
            bytes += "\(text == nil ? -1 : field.count):".utf8
            bytes += field
        }
        for text in [info.title, info.author, info.createdAt.map { String($0.milliseconds) }, info.url, PostMarkup.openingPost(info)] { add(text) }
        if let first = comments.first {
            for text in [first.id.string, first.author, first.createdAt.map { String($0.milliseconds) }, PostMarkup.body(of: first)] { add(text) }
        }
        return CommentID(StableHash.hex(StableHash.content(bytes)))
    }
}
