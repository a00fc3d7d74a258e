import Foundation
import Testing

@testable import ThreadfoldKit

/// The built-in stylesheet meets WCAG AA contrast in light and dark: 4.5:1 for text, 3:1 for
/// the focus ring (a non-text indicator), computed from the colours in Public/threadfold.css.
@Suite("Stylesheet")
struct StylesheetTests {
    static let css: String = {
        let assets = (try? ResourceStore().assets()) ?? []
        return assets.first { $0.name == "threadfold.css" }.map { String(decoding: $0.bytes, as: UTF8.self) } ?? ""
    }()

    /// `--name: #rrggbb;` declarations in `text`.
    static func variables(_ text: Substring) -> [String: String] {
        var result: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("--"), let colon = trimmed.firstIndex(of: ":") else { continue }
            let value = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " ;"))
            if value.hasPrefix("#") && value.count == 7 { result[String(trimmed[..<colon])] = value }
        }
        return result
    }

    static func luminance(_ hex: String) -> Double {
        let value = Int(hex.dropFirst(), radix: 16)!
        let channels = [(value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF].map { Double($0) / 255 }
        let linear = channels.map { $0 <= 0.04045 ? $0 / 12.92 : pow(($0 + 0.055) / 1.055, 2.4) }
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    }

    static func contrast(_ a: String, _ b: String) -> Double {
        let (l1, l2) = (luminance(a), luminance(b))
        return (max(l1, l2) + 0.05) / (min(l1, l2) + 0.05)
    }

    /// Text colours and the backgrounds they are drawn on.
    static let textPairs = [
        ("--fg", "--bg"), ("--fg", "--code-bg"), ("--fg", "--target"), ("--muted", "--bg"), ("--muted", "--target"),
        ("--accent", "--bg"), ("--accent", "--target"), ("--badge-fg", "--badge-bg"), ("--gone", "--bg"), ("--gone", "--target"),
    ]

    @Test("light and dark colours meet WCAG AA", arguments: ["light", "dark"])
    func contrast(_ scheme: String) throws {
        let css = Self.css
        let darkStart = try #require(css.range(of: "@media (prefers-color-scheme: dark)"))
        let light = Self.variables(css[..<darkStart.lowerBound])
        let darkVariables = Self.variables(css[darkStart.upperBound...].prefix { $0 != "}" })
        let colours = scheme == "light" ? light : light.merging(darkVariables) { $1 }
        #expect(colours.count >= 10)
        for (foreground, background) in Self.textPairs {
            let ratio = Self.contrast(try #require(colours[foreground]), try #require(colours[background]))
            #expect(ratio >= 4.5, "\(scheme): \(foreground) on \(background) is \(String(format: "%.2f", ratio)):1")
        }
        let focus = Self.contrast(try #require(colours["--focus"]), try #require(colours["--bg"]))
        #expect(focus >= 3, "\(scheme): the focus ring is \(String(format: "%.2f", focus)):1")
    }
}
