import Foundation
import TestSupport
import Testing

@testable import ThreadfoldKit

/// One case from the official Mustache spec (`Tests/Data/mustache-spec/`), named for failures.
struct SpecCase: CustomTestStringConvertible, Sendable {
    let suite: String
    let name: String
    let template: String
    let expected: String
    let partials: [String: String]
    let dataJSON: [UInt8]

    var testDescription: String { "\(suite): \(name)" }

    /// The cases of one suite; throws when its file is missing, is not JSON or has no `tests`.
    static func load(_ suite: String) throws -> [SpecCase] {
        let path = "mustache-spec/\(suite).json"
        let bytes = try TestData.bytes(path)
        let document = try JSONDocument(bytes: bytes)
        guard let tests = document.member(document.root, "tests") else { throw NoTests(path: path) }
        var cases: [SpecCase] = []
        document.forEachElement(tests) { _, test in
            var partials: [String: String] = [:]
            if let list = document.member(test, "partials") {
                document.forEachMember(list) { key, value in partials[key] = document.string(value) }
            }
            let data = document.member(test, "data")!
            let start = document.offset(data)
            let end = document.next(data) < document.nodes.count ? document.offset(document.next(data)) : bytes.count
            cases.append(
                SpecCase(
                    suite: suite,
                    name: document.string(document.member(test, "name")!),
                    template: document.string(document.member(test, "template")!),
                    expected: document.string(document.member(test, "expected")!),
                    partials: partials,
                    dataJSON: Array(bytes[start..<end]).trimmingTrailingSeparators()))
        }
        return cases
    }

    struct NoTests: Error, CustomStringConvertible {
        let path: String
        var description: String { "Tests/Data/\(path) has no \"tests\" array" }
    }
}

private extension Array where Element == UInt8 {
    /// The raw slice between a value and the next node can end in `,`, `}` or whitespace.
    func trimmingTrailingSeparators() -> [UInt8] {
        var copy = self
        while let last = copy.last, [UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09].contains(last),
            (try? JSONDocument(bytes: copy)) == nil
        {
            copy.removeLast()
        }
        return copy
    }
}

@Suite("Mustache spec")
struct MustacheSpecTests {
    static let suites = ["comments", "interpolation", "sections", "inverted", "partials", "delimiters"]

    /// A missing or broken suite file fails here, while the arguments are read, rather than leaving no cases.
    @Test("spec case renders as expected", arguments: try suites.flatMap(SpecCase.load))
    func specCase(_ spec: SpecCase) throws {
        let document = try JSONDocument(bytes: spec.dataJSON)
        let data = TemplateData.value(json: document, at: document.root)
        var sources = spec.partials
        sources["__main__"] = spec.template
        let set = try TemplateSet(sources: sources)
        let output = String(decoding: try set.render("__main__", model: TemplateData(set), root: data), as: UTF8.self)
        #expect(output == spec.expected)
    }

    @Test("every required suite is vendored and has cases")
    func suitesPresent() throws {
        for suite in Self.suites {
            #expect(try !SpecCase.load(suite).isEmpty, "suite \(suite) has no cases")
        }
    }
}
