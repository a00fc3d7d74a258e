import Foundation

/// `render` for dumps, read the way a build reads them (and `DumpCheck` for `check`): every dump
/// streamed once into a spill of whole threads in a temporary folder of its own, then each
/// partition's threads gathered, imported and rendered to one standalone page each. So a Reddit
/// dump's submissions join their comments across files, and memory follows the largest thread,
/// not the dump.
///
/// Pages come out on the calling thread, one at a time, in the spill's order (partition by
/// partition, each partition's threads in the order their first records appear), which depends
/// on the input alone; so page names claimed in that order are the same on every run. `render`
/// is the one-core command: `build` spreads a dump's threads over `--jobs`.
package struct DumpRender: Sendable {
    package var files: [DumpFile]
    package var importing: ImportOptions
    /// Threads that read the partition pass's keys.
    package var jobs: Int
    /// Where the spill's temporary folder is made.
    package var temporaryDirectory = FileManager.default.temporaryDirectory.path
    /// Warnings kept of each kind; the rest are counted.
    package var messagesPerKind = 10
    package var errorsKept = ThreadDecoder.errorLimit

    /// The render of `units`' dumps (the `.dump` units; others are left out), in their order.
    package init(units: [ArchiveUnit], importing: ImportOptions, jobs: Int = ProcessInfo.processInfo.activeProcessorCount) {
        files = units.compactMap(\.dumpFile)
        self.importing = importing
        self.jobs = jobs
    }

    /// One thread's page.
    package struct Page: Sendable {
        /// The thread's id.
        package var id: String?
        /// Where its first record is: the file's place among the dumps (in `files`), and the line.
        package var place: [Int]
        package var comments: Int
        package var html: [UInt8]
    }

    package struct Report: Sendable {
        /// Errors in the dumps' order: the first `errorsKept`, then how many more there were.
        /// When any, pages after the first error are rendered but not handed out.
        package var errors: [Problem] = []
        package var moreErrors = 0
        package var threads = 0
        package var comments = 0
        /// Lines read, and lines skipped (`lenient`) because they were not records of their form.
        package var lines = 0
        package var skippedLines = 0
        /// Comments the importer skipped (`lenient`).
        package var skippedComments = 0
        /// Warnings in the dumps' order: the first `messagesPerKind` of each kind; then how many more.
        package var warnings: [Problem] = []
        package var moreWarnings = 0
    }

    /// Streams the dumps into a temporary spill, renders every thread with `renderer`, hands
    /// each page to `deliver` while no error has been found, and removes the spill. An error
    /// `deliver` throws (the page could not be written) ends the run and is rethrown.
    package func run(pipeline: ThreadPipeline, deliver: (Page) throws(ThreadfoldError) -> Void) throws(ThreadfoldError) -> Report {
        var report = Report()
        let (outcome, dumps) = DumpInputs.partition(files, importing: importing, jobs: jobs, temporaryIn: temporaryDirectory)
        defer { dumps?.spill.remove() }
        report.lines = outcome.lines
        report.skippedLines = outcome.skipped.count
        let start = FirstMessages.start(outcome, files: files, errorsKept: errorsKept, warningsKept: messagesPerKind)
        var (errors, warnings) = (start.errors, start.warnings)
        let places = start.places
        var empty = 0
        if outcome.errors.isEmpty, let dumps {
            var failed: ThreadfoldError?
            for p in 0..<(dumps.spill.count - 1) where failed == nil {
                try dumps.forEachImported(in: p, places: places) { (thread) throws(ThreadfoldError) in
                    guard failed == nil else { return }
                    var pages: [Page] = []
                    var found = thread.imported.skipped
                    for record in thread.imported.threads {
                        let page = try pipeline.page(record)
                        // A thread with nothing to show gets no page, and a warning.
                        if page.thread.showsNothing {
                            found += page.diagnostics.map(\.error)
                            found.append(page.thread.emptyThread(file: record.info.file, severity: .warning))
                            empty += 1
                            continue
                        }
                        pages.append(
                            Page(
                                id: record.info.id?.string, place: thread.order,
                                comments: page.thread.totals.comments, html: page.html))
                        found += page.diagnostics.map(\.error)
                    }
                    // Counted only once every record of the thread is rendered: a page is whole or not at all.
                    for (seq, warning) in found.enumerated() {
                        let located = thread.locate(warning)
                        warnings.add(located, key: places.key(located, thread: thread.order, seq: seq))
                    }
                    report.skippedComments += thread.imported.skipped.count
                    for page in pages {
                        report.threads += 1
                        report.comments += page.comments
                        guard errors.isEmpty, failed == nil else { continue }
                        do throws(ThreadfoldError) { try deliver(page) } catch { failed = error }
                    }
                } failed: { key, error in
                    errors.add(error, key: key, kind: "error")
                }
            }
            if let failed { throw failed }
        }
        (report.errors, report.moreErrors) = errors.sorted()
        (report.warnings, report.moreWarnings) = warnings.sorted()
        if report.errors.isEmpty, report.threads == 0, empty > 0 {
            report.errors.append(
                Problem(
                    file: files.first?.display ?? "-",
                    message: "no thread has anything to show (each is named in a warning); expected at least one thread with a comment or an opening post (nothing was written)"))
        }
        return report
    }
}
