import Foundation
import Testing

/// The house rules that can be counted, counted on the sources as they are (ARCHITECTURE.md says
/// why each holds): functions short enough to read, one public face, stages that name only
/// earlier stages, three error types, file system calls in one place, and a README for users.
/// Each failure names the places that break the rule.
@Suite("House rules")
struct HouseTests {
    /// The longest a function, initializer or subscript body may run, its declaration included.
    static let longestFunction = 80

    @Test("no function runs over 80 lines")
    func functionLength() throws {
        var long: [String] = []
        for file in try SourceFile.all() {
            for function in file.functions() where function.lines > Self.longestFunction {
                long.append("\(file.path):\(function.line): \(function.name) runs \(function.lines) lines")
            }
        }
        #expect(long.isEmpty, "\(long.joined(separator: "\n"))")
    }

    /// The library's public face is API/ (ThreadfoldCLI's public names are the ones the executable
    /// calls, in a module of its own).
    @Test("the library writes `public` only in API/")
    func publicFace() throws {
        var outside: [String] = []
        for file in try SourceFile.all() where file.path.hasPrefix("ThreadfoldKit/") && !file.path.hasPrefix("ThreadfoldKit/API/") {
            for (index, line) in file.code.enumerated() where line.range(of: #"(^|[\s(])public\s"#, options: .regularExpression) != nil {
                outside.append("\(file.path):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(outside.isEmpty, "\(outside.joined(separator: "\n"))")
        #expect(try SourceFile.all().contains { $0.path.hasPrefix("ThreadfoldKit/API/") && $0.text.contains("public ") })
    }

    /// Where each folder of ThreadfoldKit sits in the pipeline: a file may name the types of its
    /// own stage and of earlier ones. API/ is the vocabulary every stage shares (options, results,
    /// `Problem`, `ThreadfoldError`), except the door, `Threadfold`, which comes last with the
    /// files that hold its bodies.
    static let stages: [String: Int] = [
        "API": 0, "Support": 1, "Input": 2, "Thread": 3, "Layout": 4, "Render": 5, "Pipeline": 6, "Site": 7,
        "Dumps": 8, "Archive": 9,
    ]
    static let door = ("Threadfold", 10)

    @Test("no stage names a type of a later stage")
    func stageOrder() throws {
        let files = try SourceFile.all().filter { $0.path.hasPrefix("ThreadfoldKit/") }
        var declared: [String: Int] = [:]
        for file in files {
            for name in file.declaredTypes(topLevel: true) {
                let stage = name == Self.door.0 ? Self.door.1 : try #require(Self.stage(of: file), "\(file.path) is in no stage")
                declared[name] = min(declared[name] ?? .max, stage)
            }
        }
        var backwards: [String] = []
        for file in files {
            let stage = try #require(Self.stage(of: file))
            let own = Set(file.declaredTypes())
            for name in file.identifiers() where !own.contains(name) {
                if let later = declared[name], later > stage {
                    backwards.append("\(file.path) names \(name)")
                }
            }
        }
        #expect(backwards.isEmpty, "\(Set(backwards).sorted().joined(separator: "\n"))")
    }

    /// A file's stage: its folder's, or the door's for a file of ThreadfoldKit/ itself (the
    /// door's bodies, which drive Archive).
    static func stage(of file: SourceFile) -> Int? {
        let parts = file.path.split(separator: "/")
        guard parts.count > 2 else { return door.1 }
        return stages[String(parts[1])]
    }

    @Test("at most three error types: the library's, the JSON layer's and the system call's")
    func errorTypes() throws {
        var errors: [String] = []
        for file in try SourceFile.all() {
            for (index, line) in file.code.enumerated() {
                if let range = line.range(of: #"\b(struct|enum|class|actor)\s+\w+[^{]*:[^{]*\bError\b"#, options: .regularExpression) {
                    errors.append("\(file.path):\(index + 1): \(line[range])")
                }
            }
        }
        #expect(errors.count <= 3, "\(errors.joined(separator: "\n"))")
    }

    @Test("files are opened and examined only in Support/IO/ and Site/")
    func systemCalls() throws {
        var calls: [String] = []
        for file in try SourceFile.all()
        where !file.path.hasPrefix("ThreadfoldKit/Support/IO/") && !file.path.hasPrefix("ThreadfoldKit/Site/") {
            for (index, line) in file.code.enumerated()
            where line.range(of: #"(?<![.\w])(openat|fstatat|fstat|lstat|stat)\(|(?<![.\w])open\([^)]*O_[A-Z]"#, options: .regularExpression) != nil
                && !line.contains("func ")
            {
                calls.append("\(file.path):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(calls.isEmpty, "\(calls.joined(separator: "\n"))")
    }

    @Test("the README is at most 300 lines, and neither it nor ARCHITECTURE.md names a commit")
    func documents() throws {
        let readme = try String(contentsOf: TestPaths.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lines <= 300, "README.md has \(lines) lines")
        for name in ["README.md", "ARCHITECTURE.md"] {
            let text = try String(contentsOf: TestPaths.repository.appendingPathComponent(name), encoding: .utf8)
            let hashes = text.matches(of: /\b[0-9a-f]{7,40}\b/).map { String($0.output) }
                .filter { $0.contains(where: \.isLetter) && $0.contains(where: \.isNumber) }
            #expect(hashes.isEmpty, "\(name) names commits: \(hashes)")
        }
    }

    @Test(
        "the reader of the rules above finds what it should",
        arguments: [
            ("func a() {\n  let s = \"}\" // }\n}\n", ["a": 3]),
            ("init(x: Int) {\n /* { */\n}\nfunc b() -> Int { 1 }\n", ["init": 3, "b": 1]),
            ("protocol P {\n  func c()\n  func d() -> Int\n}\nfunc e() {\n  \"\"\"\n  }\n  \"\"\"\n}\n", ["e": 5]),
        ])
    func reader(source: String, expected: [String: Int]) {
        let file = SourceFile(path: "x.swift", text: source)
        let found = Dictionary(file.functions().map { ($0.name, $0.lines) }, uniquingKeysWith: max)
        #expect(found == expected)
    }
}

/// A Swift file of Sources/, with its code apart from its comments and string literals (each
/// blanked out, lines kept), which is what the rules count.
struct SourceFile {
    /// The path below Sources/.
    let path: String
    let text: String
    /// The lines of `text` with comments and the contents of string literals replaced by spaces.
    let code: [String]

    init(path: String, text: String) {
        self.path = path
        self.text = text
        self.code = Self.blankCommentsAndStrings(text).components(separatedBy: "\n")
    }

    static func all() throws -> [SourceFile] {
        let root = TestPaths.repository.appendingPathComponent("Sources")
        let paths = try #require(FileManager.default.subpathsOfDirectory(atPath: root.path) as [String]?)
        return try paths.filter { $0.hasSuffix(".swift") }.sorted().map {
            SourceFile(path: $0, text: try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8))
        }
    }

    /// Comments (nested block comments too) and the insides of string literals (plain, multi-line
    /// and raw) turned to spaces; newlines kept so that line numbers stay.
    static func blankCommentsAndStrings(_ text: String) -> String {
        var out: [Character] = []
        let chars = Array(text)
        var i = 0
        func blank(_ c: Character) { out.append(c == "\n" ? "\n" : " ") }
        while i < chars.count {
            let c = chars[i]
            let next: Character? = i + 1 < chars.count ? chars[i + 1] : nil
            if c == "/" && next == "/" {
                while i < chars.count && chars[i] != "\n" {
                    blank(chars[i])
                    i += 1
                }
            } else if c == "/" && next == "*" {
                var depth = 0
                repeat {
                    if chars[i] == "/" && i + 1 < chars.count && chars[i + 1] == "*" {
                        depth += 1
                        blank(" ")
                        blank(" ")
                        i += 2
                        continue
                    }
                    if chars[i] == "*" && i + 1 < chars.count && chars[i + 1] == "/" {
                        depth -= 1
                        blank(" ")
                        blank(" ")
                        i += 2
                        continue
                    }
                    blank(chars[i])
                    i += 1
                } while i < chars.count && depth > 0
            } else if c == "\"" || (c == "#" && next == "\"") {
                var hashes = 0
                while i < chars.count && chars[i] == "#" {
                    hashes += 1
                    out.append("#")
                    i += 1
                }
                let multiline = i + 2 < chars.count && chars[i + 1] == "\"" && chars[i + 2] == "\""
                let quotes = multiline ? 3 : 1
                for _ in 0..<quotes {
                    out.append("\"")
                    i += 1
                }
                while i < chars.count {
                    if chars[i] == "\\" && hashes == 0 {
                        blank(" ")
                        i += 1
                        if i < chars.count {
                            blank(chars[i])
                            i += 1
                        }
                        continue
                    }
                    if chars[i] == "\"" {
                        let closes =
                            (0..<quotes).allSatisfy { i + $0 < chars.count && chars[i + $0] == "\"" }
                            && (0..<hashes).allSatisfy { i + quotes + $0 < chars.count && chars[i + quotes + $0] == "#" }
                        if closes {
                            for _ in 0..<(quotes + hashes) {
                                out.append(chars[i])
                                i += 1
                            }
                            break
                        }
                    }
                    if !multiline && chars[i] == "\n" { break }
                    blank(chars[i])
                    i += 1
                }
            } else {
                out.append(c)
                i += 1
            }
        }
        return String(out)
    }

    static var declaration: Regex<AnyRegexOutput> {
        try! Regex(
            #"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|static|class|final|override|mutating|nonmutating|nonisolated|convenience|required|dynamic)(?:\(set\))?\s+)*(func\s+[^\s(<]+|init[?!]?|deinit|subscript)\s*[(<{]?"#
        )
    }

    /// Every function, initializer, deinitializer and subscript with a body: its name, the line it
    /// starts on and how many lines it runs, from its declaration to the brace that closes it.
    func functions() -> [(name: String, line: Int, lines: Int)] {
        var found: [(String, Int, Int)] = []
        let declaration = Self.declaration
        for (start, line) in code.enumerated() {
            guard let match = try? declaration.firstMatch(in: line), let name = match.output[1].substring else { continue }
            var depth = 0, opened = false, end: Int?
            scan: for index in start..<code.count {
                if index > start, !opened, (try? declaration.firstMatch(in: code[index])) != nil { break }
                for c in code[index] {
                    if c == "{" {
                        depth += 1
                        opened = true
                    } else if c == "}" {
                        depth -= 1
                    }
                    if opened && depth == 0 {
                        end = index
                        break scan
                    }
                    if !opened && depth < 0 { break scan }
                }
            }
            guard let end else { continue }
            let word = name.hasPrefix("func") ? String(name.dropFirst(4).trimmingCharacters(in: .whitespaces)) : String(name)
            found.append((word, start + 1, end - start + 1))
        }
        return found
    }

    /// The types this file declares: all of them, or only those outside any other (which are the
    /// ones other files can name without a qualifier).
    func declaredTypes(topLevel: Bool = false) -> [String] {
        var names: [String] = []
        var depth = 0
        for line in code {
            if !topLevel || depth == 0 {
                names += line.matches(of: /\b(?:struct|enum|class|protocol|actor|typealias)\s+([A-Z]\w*)/).map { String($0.output.1) }
            }
            depth += line.filter { $0 == "{" }.count - line.filter { $0 == "}" }.count
        }
        return names
    }

    /// The capitalised identifiers this file's code uses.
    func identifiers() -> Set<String> {
        let text = code.joined(separator: "\n")
        let words = try! NSRegularExpression(pattern: #"(?<![\w.])[A-Z]\w*"#)
        return Set(words.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { Range($0.range, in: text).map { String(text[$0]) } })
    }
}
