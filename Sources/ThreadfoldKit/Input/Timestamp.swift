/// A point in time as milliseconds since 1970-01-01T00:00:00Z.
///
/// Parsing and formatting are done by hand on the proleptic Gregorian calendar in UTC, so
/// output never depends on the machine's time zone or locale.
package struct Timestamp: Comparable, Hashable, Sendable {
    package var milliseconds: Int64

    package init(milliseconds: Int64) { self.milliseconds = milliseconds }

    package static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// Unix time in seconds or milliseconds: values of 100 billion and more are taken as
    /// milliseconds (as seconds they would lie past the year 5000).
    package init?(unix value: Double) {
        guard value.isFinite, abs(value) < 1e16 else { return nil }
        let ms = abs(value) >= 1e11 ? value : value * 1000
        self.milliseconds = Int64(ms.rounded(.down))
    }

    /// ISO 8601 / RFC 3339: `2024-03-03`, `2024-03-03T10:04:05`, `…05.123Z`, `…05+01:00`,
    /// a space instead of `T`, `+0100` offsets. No offset means UTC.
    package init?(iso text: String) {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.number(4), scanner.skip("-"), let month = scanner.number(2), scanner.skip("-"),
            let day = scanner.number(2), (1...12).contains(month), (1...Timestamp.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var seconds = Timestamp.daysFromCivil(year: year, month: month, day: day) * 86_400
        var millis: Int64 = 0
        if scanner.skip("T") || scanner.skip("t") || scanner.skip(" ") {
            guard let hour = scanner.number(2), hour < 24, scanner.skip(":"), let minute = scanner.number(2), minute < 60 else { return nil }
            var second: Int64 = 0
            if scanner.skip(":") {
                guard let s = scanner.number(2), s <= 60 else { return nil }
                second = s
                if scanner.skip(".") || scanner.skip(",") {
                    var scale: Int64 = 100
                    var digits = 0
                    while let d = scanner.digit() {
                        millis += d * scale
                        scale /= 10
                        digits += 1
                    }
                    guard digits > 0 else { return nil }
                }
            }
            seconds += hour * 3600 + minute * 60 + second
            if scanner.skip("Z") || scanner.skip("z") {
            } else if let sign = scanner.sign() {
                guard let oh = scanner.number(2) else { return nil }
                _ = scanner.skip(":")
                let om = scanner.number(2) ?? 0
                guard oh < 24, om < 60 else { return nil }
                seconds -= sign * (oh * 3600 + om * 60)
            }
        }
        guard scanner.atEnd else { return nil }
        self.milliseconds = seconds * 1000 + millis
    }

    /// Days since 1970-01-01, rounded down: what names the time's civil date (not its day of
    /// the month, which is `components.day`).
    package var epochDay: Int64 { milliseconds.floorDivided(by: 86_400_000).0 }

    /// The civil date and time in UTC.
    package var components: (year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64, millisecond: Int64) {
        let (days, msOfDay) = milliseconds.floorDivided(by: 86_400_000)
        let (y, m, d) = Timestamp.civilFromDays(days)
        return (y, m, d, msOfDay / 3_600_000, msOfDay / 60_000 % 60, msOfDay / 1000 % 60, msOfDay % 1000)
    }

    /// `2024-03-03T10:04:05Z` (milliseconds only when present), for `<time datetime>` and feeds.
    package var iso8601: String {
        let c = components
        guard (0...9999).contains(c.year) else {
            var text = "\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2))T\(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2))"
            if c.millisecond != 0 { text += ".\(pad(c.millisecond, 3))" }
            return text + "Z"
        }
        // Written as bytes into the string's own storage: every comment's <time> asks for one.
        return String(unsafeUninitializedCapacity: 24) { Timestamp.write(c, into: $0) }
    }

    /// Appends `iso8601` to `out`, with no `String` in between (feeds write two a comment).
    package func writeISO8601(into out: inout [UInt8]) {
        _ = writeISO8601(into: &out, years: Int64.min...Int64.max)
    }

    /// Appends `iso8601` when the year lies in `years` and returns true; else writes nothing and
    /// returns false. The year is worked out once, for the test and the text.
    package func writeISO8601(into out: inout [UInt8], years: ClosedRange<Int64>) -> Bool {
        let c = components
        guard years.contains(c.year) else { return false }
        guard (0...9999).contains(c.year) else {
            out.append(contentsOf: iso8601.utf8)
            return true
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<Timestamp.write(c, into: buffer)]))
        }
        return true
    }

    /// `iso8601` for a year in 0...9999, into `b` (24 bytes at least); returns the bytes written.
    private static func write(
        _ c: (year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64, millisecond: Int64),
        into b: UnsafeMutableBufferPointer<UInt8>
    ) -> Int {
        let zero = UInt8(ascii: "0")
        @inline(__always) func two(_ value: Int64, _ at: Int) {
            b[at] = zero &+ UInt8(truncatingIfNeeded: value / 10)
            b[at + 1] = zero &+ UInt8(truncatingIfNeeded: value % 10)
        }
        two(c.year / 100, 0)
        two(c.year % 100, 2)
        b[4] = UInt8(ascii: "-")
        two(c.month, 5)
        b[7] = UInt8(ascii: "-")
        two(c.day, 8)
        b[10] = UInt8(ascii: "T")
        two(c.hour, 11)
        b[13] = UInt8(ascii: ":")
        two(c.minute, 14)
        b[16] = UInt8(ascii: ":")
        two(c.second, 17)
        var count = 19
        if c.millisecond != 0 {
            b[19] = UInt8(ascii: ".")
            b[20] = zero &+ UInt8(truncatingIfNeeded: c.millisecond / 100)
            two(c.millisecond % 100, 21)
            count = 23
        }
        b[count] = UInt8(ascii: "Z")
        return count + 1
    }

    // Howard Hinnant's days_from_civil / civil_from_days.
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

extension JSONDocument {
    /// The value at `index` as a time, the way every importer reads one: ISO 8601 text, Unix
    /// seconds or milliseconds as a number, or as text of digits (with an optional fraction).
    /// Integers stay exact for milliseconds. Nil for anything else.
    package func timestamp(_ index: Int) -> Timestamp? {
        switch kind(index) {
        case .string:
            let text = string(index)
            if let iso = Timestamp(iso: text) { return iso }
            let digits = text.utf8
            guard !digits.isEmpty, digits.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 46 }),
                digits.filter({ $0 == 46 }).count <= 1, let value = Double(text)
            else { return nil }
            return Timestamp(unix: value)
        case .number:
            if let exact = int64(index) {
                return exact.magnitude >= 100_000_000_000 ? Timestamp(milliseconds: exact) : Timestamp(unix: Double(exact))
            }
            return double(index).flatMap { Timestamp(unix: $0) }
        default:
            return nil
        }
    }
}

private func pad(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}

private extension Int64 {
    func floorDivided(by divisor: Int64) -> (Int64, Int64) {
        var q = self / divisor
        var r = self % divisor
        if r < 0 {
            q -= 1
            r += divisor
        }
        return (q, r)
    }
}

private struct DigitScanner {
    let bytes: [UInt8]
    var i = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var atEnd: Bool { i == bytes.count }

    mutating func digit() -> Int64? {
        guard i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 else { return nil }
        defer { i += 1 }
        return Int64(bytes[i] - 48)
    }

    mutating func number(_ width: Int) -> Int64? {
        var value: Int64 = 0
        for _ in 0..<width {
            guard let d = digit() else { return nil }
            value = value * 10 + d
        }
        return value
    }

    mutating func skip(_ char: Unicode.Scalar) -> Bool {
        guard i < bytes.count, bytes[i] == UInt8(char.value) else { return false }
        i += 1
        return true
    }

    mutating func sign() -> Int64? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}
