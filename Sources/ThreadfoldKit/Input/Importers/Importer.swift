/// The threads read from one file, and the form they were read as.
package struct ImportResult: Sendable {
    package var threads: [ThreadRecord]
    package var format: SourceFormat
    /// The form was recognised rather than given with `--from`.
    package var detected: Bool
    /// Comments left out, as warnings: skipped for a missing required field (only with `lenient`;
    /// kind `skipped`), or by the form's own rule (Mastodon's private statuses; kind `notPublic`).
    package var skipped: [Problem] = []
}

/// Reads any supported form into `ThreadRecord`s: each form of `SourceFormat.forms`, or any JSON
/// through a field mapping. A file that is JSON Lines (one value per line) is read as an array of
/// its lines.
package enum Importer {
    /// Reads `bytes`. `records`, for a dump thread, names the members its form reads of each
    /// record, so the parse keeps no others (`JSONDocument.init(records:)`).
    package static func read(
        bytes: [UInt8], file: String, options: ImportOptions = ImportOptions(),
        records: JSONMemberFilter? = nil
    ) throws(ThreadfoldError) -> ImportResult {
        // Forms that are not JSON (Disqus's XML) are recognised, or named, before JSON is parsed.
        if options.mapping == nil {
            let named = options.format.form.flatMap { $0.readsBytes ? $0 : nil }
            if let form = named ?? (options.format == .auto ? SourceFormat.forms.first(where: { $0.readsBytes && $0.recognises(bytes) }) : nil) {
                var (threads, skipped) = try form.decode(bytes: bytes, file: file, options: options)
                for t in threads.indices {
                    threads[t].info.sourceFormat = form.name
                    if threads[t].info.markdownFlavor == nil { threads[t].info.markdownFlavor = form.markdownFlavor }
                    if let bodyFormat = options.bodyFormat {
                        threads[t].info.bodyFormat = bodyFormat
                        for c in threads[t].comments.indices { threads[t].comments[c].bodyFormat = bodyFormat }
                    }
                }
                return ImportResult(threads: threads, format: form.format, detected: named == nil, skipped: skipped)
            }
        }
        // A server's error saved in place of the export is named as such, whatever form was asked for.
        if options.mapping == nil, records == nil, let error = ServerResponse.html(bytes, file: file) { throw ThreadfoldError.input([error]) }
        let json = try JSONReader(bytes: bytes, file: file, lines: true, records: records)
        if options.mapping == nil, records == nil, let error = ServerResponse.json(json) { throw ThreadfoldError.input([error]) }
        var format = options.mapping != nil ? .mapped : options.format
        let detected = format == .auto
        if detected {
            guard let found = SourceFormat.detect(json) else {
                let forms = SourceFormat.forms.map { "\($0.name) (\($0.described))" }
                throw ThreadfoldError.input(
                    [
                        Problem(
                            file: file, line: 1, column: 1, path: "$",
                            message: "cannot tell which form this is; expected one of: \(forms.joined(separator: ", "))", hint: .nameForm)
                    ]
                        + ImportAudit.undetected(json))
            }
            format = found
        }
        var context = ImportContext(reader: json, format: format, options: options)
        let form = format.form
        var threads: [ThreadRecord]
        if let mapping = options.mapping {
            var skipped: [Problem] = []
            threads = MappedImporter.decode(&context, mapping: mapping, lenient: options.lenient, skipped: &skipped)
            context.skipped = skipped + context.skipped
        } else if let form {
            threads = try form.decode(&context)
            for t in threads.indices {
                threads[t].info.sourceFormat = form.name
                if threads[t].info.markdownFlavor == nil { threads[t].info.markdownFlavor = form.markdownFlavor }
            }
        } else {
            threads = []
        }
        if !context.errors.isEmpty { throw ThreadfoldError.input(context.errors) }
        for t in threads.indices { threads[t].locator = json.locator }
        // The audit asks whether a guessed form (or a mapping's field names) fits; a form named with `--from` is read as named.
        try ImportAudit.check(
            json, format: format, threads: threads, skipped: context.skipped,
            unreadArrays: form?.auditsUnreadArrays ?? false, guessed: detected || format == .mapped, options: options)
        if let bodyFormat = options.bodyFormat {
            for t in threads.indices {
                threads[t].info.bodyFormat = bodyFormat
                for c in threads[t].comments.indices { threads[t].comments[c].bodyFormat = bodyFormat }
            }
        }
        return ImportResult(threads: threads, format: format, detected: detected, skipped: context.skipped)
    }
}
