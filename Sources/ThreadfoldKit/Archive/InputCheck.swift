/// `check`: the inputs read and every thread built and counted as a build takes them, with
/// nothing written. The one driver every check uses: the command's (`threadfold check`, which
/// only prints what it is handed) and a build's that cannot write its output (`units`). Dumps
/// among the inputs are checked together, as a build reads them (`DumpCheck`); every other
/// input is read whole and each of its threads checked (`ThreadCheck`).
package struct InputCheck: Sendable {
    package var importing: ImportOptions
    package var thread: ThreadOptions
    package var jobs: Int

    package init(importing: ImportOptions, thread: ThreadOptions = ThreadOptions(), jobs: Int) {
        self.importing = importing
        self.thread = thread
        self.jobs = jobs
    }

    /// Which of `inputs` are dumps, and of what form: the rule a build lists its inputs by, from
    /// each file's first line. Standard input (`-`), folders and missing files are not.
    package func dumpForms(_ inputs: [String]) -> [DumpForm?] {
        let detect = ArchiveInput.dumps(importing)
        let linesAreThreads: Bool? = importing.mapping != nil ? false : nil
        return inputs.map { input -> DumpForm? in
            guard input != "-", (try? InputFile.kind(input, missing: "")) == .regular else { return nil }
            return ArchiveInput.dumpForm(ofFile: input, linesAreThreads: linesAreThreads, dumpForm: detect)
        }
    }

    /// The check of the dumps among `inputs` (where `forms` names a form), together.
    package func dumps(_ inputs: [String], forms: [DumpForm?]) -> DumpCheck {
        let units = zip(inputs, forms).compactMap { input, form in
            form.map { ArchiveUnit(source: .dump(path: input, form: $0), display: input) }
        }
        return DumpCheck(units: units, importing: importing, thread: thread, jobs: jobs)
    }

    /// A file read whole, its threads still to be checked (`forEachThread`).
    package struct File {
        package let display: String
        /// What the importer read: the threads, the form and what it left out.
        package let result: ImportResult
        let thread: ThreadOptions

        /// Checks each thread in the file's order and hands it to `body` with its record as it
        /// is done, so what a caller shows of the threads before one that fails stays shown.
        /// Returns the sum of their counts and all their diagnostics in thread order.
        package func forEachThread(
            _ body: (ThreadRecord, ThreadCheck) -> Void
        ) throws(ThreadfoldError) -> (sum: ThreadCounts, diagnostics: [Diagnostic]) {
            var sum = ThreadCounts()
            var diagnostics: [Diagnostic] = []
            for record in result.threads {
                let checked = try ThreadCheck(record, options: thread)
                sum.add(checked.counts)
                diagnostics += checked.diagnostics
                body(record, checked)
            }
            return (sum, diagnostics)
        }
    }

    /// Reads the bytes of one input, named `display` in messages, in any supported form.
    package func file(_ bytes: [UInt8], display: String) throws(ThreadfoldError) -> File {
        File(display: display, result: try Importer.read(bytes: bytes, file: display, options: importing), thread: thread)
    }

    /// A build's check of its units when it cannot write its output: each unit read and imported
    /// on `jobs` workers (a dump: its lines' keys read), so its input errors are reported with
    /// the output's.
    package func units(_ units: [ArchiveUnit]) -> [Problem] {
        let found = Parallel.map(count: units.count, jobs: jobs) { [self] i -> [Problem] in
            InputBudget.scope { errors(units[i]) }
        }
        return found.flatMap { $0 }
    }

    /// One unit read and imported without writing anything (a dump: its lines' keys read).
    func errors(_ unit: ArchiveUnit) -> [Problem] {
        if case .dump(let path, let form) = unit.source {
            var errors: [Problem] = []
            do throws(ThreadfoldError) {
                try LineStream(path: path, display: unit.display).forEachLine { (line) throws(ThreadfoldError) -> Bool in
                    do throws(ThreadfoldError) {
                        _ = try DumpPartition.key(of: line, form: form, display: unit.display, mapping: importing.mapping)
                    } catch {
                        if !importing.lenient { errors += error.problems }
                    }
                    return errors.count < ThreadDecoder.errorLimit
                }
            } catch {
                errors += error.problems
            }
            return errors
        }
        do {
            _ = try Importer.read(bytes: try unit.read(), file: unit.display, options: importing)
            return []
        } catch {
            return unit.errors(error)
        }
    }
}
