extension BuildReport {
    /// What the archive builder reports, as the library tells it.
    init(_ report: ArchiveBuilder.Report) {
        threads = report.threads
        comments = report.comments
        threadsRendered = report.threadsRendered
        threadsReused = report.threadsReused
        threadsInOtherShards = report.threadsInOtherShards
        filesWritten = report.filesWritten
        filesReused = report.filesReused
        formats = report.formats
        warnings = report.warnings
    }
}
