import TestSupport
import Testing

@testable import ThreadfoldKit

@Suite("Strings table")
struct StringsTableTests {
    @Test("English plurals, grouping and dates")
    func english() throws {
        let strings = try ResourceStore().strings(locale: "en")
        #expect(strings.text("replies", count: 1) == "1 reply")
        #expect(strings.text("replies", count: 0) == "0 replies")
        #expect(strings.text("replies", count: 12345) == "12,345 replies")
        #expect(strings.number(1000) == "1,000" && strings.number(999) == "999" && strings.number(-1234567) == "-1,234,567")
        #expect(strings.date(Timestamp(iso: "2024-03-03T23:59:59Z")!) == "3 Mar 2024")
        #expect(strings.text("no such key") == "no such key")
    }

    @Test("a counted message looked up once says what text(_:count:) says, for every count and a missing key")
    func countedMessages() throws {
        for locale in ["en", "zh-Hans"] {
            let strings = try ResourceStore().strings(locale: locale)
            for key in ["fold_hidden", "points", "replies", "people", "more_replies", "no such key"] {
                let message = strings.counted(key)
                for count in [-1, 0, 1, 2, 5, 127, 128, 1_000, 12_345] {
                    #expect(message(count) == strings.text(key, count: count), "\(locale) \(key) \(count)")
                }
            }
        }
    }

    @Test("a message with one field looked up once says what text(_:_:) says: constant, filled, plural without other, missing")
    func fieldMessages() throws {
        let locale =
            #"{"locale": "xx", "months": ["J","F","M","A","M","J","J","A","S","O","N","D"], "messages": {"#
            + #""plain": "no field", "latest": "latest {date} {other}", "forms": {"one": "one {date}", "few": "few {date}", "many": "many {date}"}}}"#
        let strings = try StringsTable(json: Array(locale.utf8), file: "xx.json")
        for key in ["plain", "latest", "forms", "missing"] {
            #expect(strings.withField(key)(field: "date", "3 Mar") == strings.text(key, ["date": "3 Mar"]), "\(key)")
        }
        #expect(strings.withField("latest")(field: "date", "3 Mar") == "latest 3 Mar {other}")
        // No `other` form: `many`, in every run (not whichever form a dictionary lists first).
        #expect(strings.text("forms", ["date": "d"]) == "many d")
        #expect(strings.withField("missing")(field: "date", "d") == "missing")
        let english = try ResourceStore().strings(locale: "en")
        #expect(english.withField("latest")(field: "date", "3 Mar 2024") == english.text("latest", ["date": "3 Mar 2024"]))
    }

    @Test("a date pattern fills its fields and shows a field it does not know as written")
    func datePatterns() throws {
        let locale =
            #"{"locale": "xx", "months": ["J","F","M","A","M","J","J","A","S","O","N","D"], "date": "{day}.{month_number}.{year} {month} {weekday}", "month": "{month}/{year}", "messages": {}}"#
        let strings = try StringsTable(json: Array(locale.utf8), file: "xx.json")
        #expect(strings.date(Timestamp(iso: "2024-03-03T23:59:59Z")!) == "3.3.2024 M {weekday}")
        #expect(strings.month(Timestamp(iso: "2024-12-31")!) == "D/2024")
        // Every field, across years before 1 and past 9999, and long patterns past a short string's room.
        let long =
            #"{"locale": "xx", "months": ["Janvier","Février","Mars","Avril","Mai","Juin","Juillet","Août","Septembre","Octobre","Novembre","Décembre"], "date": "le {day} {month} de l'an {year} ({month_number}/{year}) {era}", "messages": {}}"#
        let french = try StringsTable(json: Array(long.utf8), file: "xx.json")
        let names = ["Janvier", "Février", "Mars", "Avril", "Mai", "Juin", "Juillet", "Août", "Septembre", "Octobre", "Novembre", "Décembre"]
        var random = SplitMix64(seed: 3)
        for milliseconds in [0, -1, Int64(-62_135_596_800_000) - 1, 253_402_300_800_000, 1_709_424_000_000] + (0..<200).map({ _ in Int64(bitPattern: random.next()) % 400_000_000_000_000 }) {
            let time = Timestamp(milliseconds: milliseconds)
            let c = time.components
            #expect(french.date(time) == "le \(c.day) \(names[Int(c.month) - 1]) de l'an \(c.year) (\(c.month)/\(c.year)) {era}", "\(milliseconds)")
            #expect(strings.date(time) == "\(c.day).\(c.month).\(c.year) \(["J","F","M","A","M","J","J","A","S","O","N","D"][Int(c.month) - 1]) {weekday}")
            // A date names its day alone: pages keep their last date by its day.
            let dayStart = time.epochDay * 86_400_000
            for other in [dayStart, dayStart + 86_399_999] {
                #expect(french.date(Timestamp(milliseconds: other)) == french.date(time), "\(milliseconds)")
            }
        }
    }

    @Test(
        "plural rules pick CLDR categories",
        arguments: [
            (StringsTable.PluralRule.slavic, [1: "one", 2: "few", 5: "many", 11: "many", 21: "one", 22: "few", 112: "many"]),
            (.polish, [1: "one", 3: "few", 21: "many", 22: "few"]),
            (.zeroOneOther, [0: "one", 1: "one", 2: "other"]),
            (.other, [1: "other"]),
            (.arabic, [0: "zero", 1: "one", 2: "two", 3: "few", 11: "many", 100: "other"]),
        ])
    func rules(_ rule: StringsTable.PluralRule, _ cases: [Int: String]) {
        for (n, category) in cases { #expect(rule.category(n) == category, "\(rule) \(n)") }
    }

    @Test("Simplified Chinese: no plural forms, its own dates, every English key translated")
    func chinese() throws {
        let zh = try ResourceStore().strings(locale: "zh-Hans")
        let en = try ResourceStore().strings(locale: "en")
        #expect(zh.text("replies", count: 1) == "1 条回复" && zh.text("replies", count: 12345) == "12,345 条回复")
        #expect(zh.date(Timestamp(iso: "2024-03-03")!) == "2024年3月3日")
        #expect(Set(zh.messages.keys) == Set(en.messages.keys))
        var options = RenderOptions()
        options.locale = "zh-Hans"
        let page = String(decoding: try ThreadPipeline(options: ArchiveOptions(render: options)).page(bytes: ResourceStore.exampleThread, file: "e.json").html, as: UTF8.self)
        #expect(page.contains("条回复") && page.contains("<html lang=\"zh-Hans\""))
        // A thread whose lang has a locale gets it without --locale.
        let zhThread = #"{"lang": "zh-Hans", "comments": [{"id": 1, "body": "你好"}, {"id": 2, "parent_id": 1, "body": "好"}]}"#
        let auto = String(decoding: try ThreadPipeline(options: ArchiveOptions()).page(bytes: Array(zhThread.utf8), file: "z.json").html, as: UTF8.self)
        #expect(auto.contains("<html lang=\"zh-Hans\"") && auto.contains("1 条回复"))
    }

    @Test("a broken locale file is an error naming the field")
    func brokenLocale() throws {
        let errors = try #require(throws: ThreadfoldError.self) {
            try StringsTable(json: Array(#"{"locale": "x", "months": [], "messages": {}}"#.utf8), file: "x.json")
        }
        #expect(errors.description == "x.json:1:27: error: $.months: expected an array of 12 month names, found an array of 0")
    }
}
