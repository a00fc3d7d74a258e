import ThreadfoldKit

extension Problem {
    /// The problem as the command line shows it: the library's message, then the flag that
    /// helps, when there is one.
    var shown: String { description + flagHint }

    /// The message with its flag hint, for `--report`.
    var shownMessage: String { message + (related.map { " (\($0.description))" } ?? "") + flagHint }

    private var flagHint: String {
        switch hint {
        case nil: return ""
        case .lenient: return "; --lenient skips such comments"
        case .skipped: return " (--lenient)"
        case .otherForm: return "; --from picks another form"
        case .nameForm: return ". Name it with --from, or map its fields with --map"
        case .allowDuplicates: return " (--allow-duplicates keeps the first)"
        case .shard: return " ('threadfold build --shard K/N' writes one)"
        case .decompressedLimit: return " (--max-decompressed raises it)"
        case .windowLimit: return " (--max-window raises it, up to 2 GiB)"
        }
    }
}
