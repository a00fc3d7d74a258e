import Foundation
import Testing

@testable import ThreadfoldKit

@Suite("Timestamps")
struct TimestampTests {
    @Test(
        "ISO 8601 forms",
        arguments: [
            ("2024-03-03", "2024-03-03T00:00:00Z"),
            ("2024-03-03T10:04:05Z", "2024-03-03T10:04:05Z"),
            ("2024-03-03T10:04:05.123Z", "2024-03-03T10:04:05.123Z"),
            ("2024-03-03T10:04:05.1234567+00:00", "2024-03-03T10:04:05.123Z"),
            ("2024-03-03T10:04:05+01:00", "2024-03-03T09:04:05Z"),
            ("2024-03-03T01:04:05-0230", "2024-03-03T03:34:05Z"),
            ("2024-03-03 10:04", "2024-03-03T10:04:00Z"),
            ("2024-02-29T23:59:59Z", "2024-02-29T23:59:59Z"),
            ("1969-12-31T23:59:59Z", "1969-12-31T23:59:59Z"),
        ])
    func iso(_ text: String, _ expected: String) throws {
        #expect(try #require(Timestamp(iso: text)).iso8601 == expected)
    }

    @Test("not dates", arguments: ["2024-13-01", "2023-02-29", "2024-03-03T25:00", "yesterday", "2024-03-03T10:04:05Zjunk", "2024-3-3", ""])
    func invalid(_ text: String) {
        #expect(Timestamp(iso: text) == nil)
    }

    @Test("Unix seconds and milliseconds are told apart")
    func unix() {
        #expect(Timestamp(unix: 1_709_461_200)?.iso8601 == "2024-03-03T10:20:00Z")
        #expect(Timestamp(unix: 1_709_461_200_000)?.iso8601 == "2024-03-03T10:20:00Z")
        #expect(Timestamp(unix: 1_709_461_200.5)?.iso8601 == "2024-03-03T10:20:00.500Z")
        #expect(Timestamp(unix: .nan) == nil)
    }
}

@Suite("Timestamp formatting")
struct TimestampFormatTests {
    @Test("ISO 8601 text matches Foundation's for dates from 1970 to 9999, with and without milliseconds")
    func iso8601() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let seconds = Int64.random(in: 0...253_402_300_799, using: &rng)
            let time = Timestamp(milliseconds: seconds * 1000)
            #expect(time.iso8601 == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))))
            let millis = Int64.random(in: 1...999, using: &rng)
            #expect(Timestamp(milliseconds: seconds * 1000 + millis).iso8601 == String(time.iso8601.dropLast()) + String(format: ".%03dZ", Int(millis)))
        }
    }

    @Test("writeISO8601 appends exactly iso8601, inside and outside years 0 to 9999")
    func writtenAsBytes() {
        let year10000 = Timestamp.daysFromCivil(year: 10_000, month: 1, day: 1) * 86_400_000
        let year0 = Timestamp.daysFromCivil(year: 0, month: 1, day: 1) * 86_400_000
        for ms: Int64 in [0, 1, 999, 1_000, 1_709_461_200_500, year0, year0 - 1, year10000 - 1, year10000, year10000 + 7, -86_400_000_000_000] {
            let time = Timestamp(milliseconds: ms)
            var out: [UInt8] = [UInt8(ascii: "<")]
            time.writeISO8601(into: &out)
            #expect(out == [UInt8(ascii: "<")] + Array(time.iso8601.utf8), "\(ms)")
        }
        #expect(Timestamp(milliseconds: year10000).iso8601 == "10000-01-01T00:00:00Z")
        #expect(Timestamp(milliseconds: year0).iso8601 == "0000-01-01T00:00:00Z")
    }
}
