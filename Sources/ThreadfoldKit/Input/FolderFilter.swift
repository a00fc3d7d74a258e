#if canImport(Glibc)
    import Glibc
#endif

/// What a folder walk (`ArchiveInput.listFolder`) leaves out besides hidden names: folders that
/// hold a marker file (Site's `SiteWriter.markerName`, given by the caller: a site, a shard or a
/// preview is Threadfold's output, never its input), the build's own output folder, and the
/// `--exclude` globs.
///
/// Globs follow .gitignore's rules: a pattern without a `/` (a trailing one aside) matches a
/// file's or folder's name at any depth; a pattern with one matches the path relative to the
/// folder given on the command line (a leading `/` changes nothing). `*` and `?` never match a
/// `/`, `[…]` is a set, `\` escapes, and a `**` segment matches any number of folders. A trailing
/// `/` matches folders only. A folder that matches is not walked at all. Files and folders named
/// on the command line are read whatever the globs say, as ripgrep reads them.
package struct FolderFilter: Sendable {
    package var excludes: [Glob] = []
    /// The output folder's identity, when it exists before the walk: skipped wherever it is met,
    /// under any name or link.
    package var output: (device: UInt64, inode: UInt64)?
    /// The name of the file that marks a folder as Threadfold's output.
    package var marker: String?

    package init(excludes: [Glob] = [], output: String? = nil, marker: String? = nil) {
        self.excludes = excludes
        self.marker = marker
        if let output, let status = try? FileStatus.of(output), status.kind == .folder {
            self.output = (status.device, status.inode)
        }
    }

    /// Whether the entry at `relative` (its names below the folder given) is excluded by a glob.
    func excludes(_ relative: [String], isFolder: Bool) -> Bool {
        excludes.contains { $0.matches(relative, isFolder: isFolder) }
    }

    func isOutput(device: UInt64, inode: UInt64) -> Bool {
        output.map { $0.device == device && $0.inode == inode } ?? false
    }

    /// One `--exclude` pattern, split into its segments.
    package struct Glob: Sendable, Equatable {
        package let pattern: String
        let segments: [String]
        /// Matched against the whole relative path, not a name at any depth.
        let anchored: Bool
        let foldersOnly: Bool

        /// Nil when the pattern matches nothing: it is empty, or only slashes.
        package init?(_ pattern: String) {
            self.pattern = pattern
            var body = Substring(pattern)
            foldersOnly = body.hasSuffix("/")
            while body.hasSuffix("/") { body = body.dropLast() }
            anchored = body.contains("/")
            while body.hasPrefix("/") { body = body.dropFirst() }
            var segments: [String] = []
            for segment in body.split(separator: "/") where segment != "**" || segments.last != "**" {
                segments.append(String(segment))
            }
            guard !segments.isEmpty else { return nil }
            self.segments = segments
        }

        func matches(_ relative: [String], isFolder: Bool) -> Bool {
            guard isFolder || !foldersOnly, let name = relative.last else { return false }
            guard anchored else { return segments == ["**"] || Self.matches(segments[0], name) }
            return matches(from: 0, relative[...])
        }

        /// Segments `index...` against `names`; a `**` segment takes none of the names or more.
        private func matches(from index: Int, _ names: ArraySlice<String>) -> Bool {
            guard index < segments.count else { return names.isEmpty }
            if segments[index] == "**" {
                return (names.startIndex...names.endIndex).contains { matches(from: index + 1, names[$0...]) }
            }
            guard let first = names.first, Self.matches(segments[index], first) else { return false }
            return matches(from: index + 1, names.dropFirst())
        }

        /// fnmatch(3) on one name, which holds no `/`.
        private static func matches(_ pattern: String, _ name: String) -> Bool {
            fnmatch(pattern, name, 0) == 0
        }
    }
}
