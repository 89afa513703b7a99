import FileDownloadCLI
import Testing

@Suite struct FormattingTests {
    @Test func bytesUseBinaryUnitsWithOneDecimal() {
        #expect(Formatting.bytes(0) == "0 B")
        #expect(Formatting.bytes(1023) == "1023 B")
        #expect(Formatting.bytes(1536) == "1.5 KiB")
        #expect(Formatting.bytes(20 * 1024 * 1024) == "20.0 MiB")
        #expect(Formatting.bytes(3 * 1024 * 1024 * 1024 + 512 * 1024 * 1024) == "3.5 GiB")
    }

    @Test func rateIsADashWhenUnknown() {
        #expect(Formatting.rate(0) == "-")
        #expect(Formatting.rate(.nan) == "-")
        #expect(Formatting.rate(2 * 1024 * 1024) == "2.0 MiB/s")
    }

    @Test func etaRoundsUpToWholeSecondsAndShowsHoursOnlyWhenNeeded() {
        #expect(Formatting.eta(nil) == "--:--")
        #expect(Formatting.eta(.milliseconds(5_200)) == "0:06")
        #expect(Formatting.eta(.seconds(125)) == "2:05")
        #expect(Formatting.eta(.seconds(3 * 3600 + 7)) == "3:00:07")
    }

    @Test func barFillsInProportionAndNeverOverflows() {
        #expect(Formatting.bar(0, width: 10) == "[..........]")
        #expect(Formatting.bar(0.55, width: 10) == "[#####.....]")
        #expect(Formatting.bar(1.7, width: 10) == "[##########]")
        #expect(Formatting.bar(nil, width: 4) == "[????]")
    }

    @Test func fitCutsWithAnEllipsisOrPads() {
        #expect(Formatting.fit("abc", width: 5) == "abc  ")
        #expect(Formatting.fit("abcdefgh", width: 5) == "abcd…")
        #expect(Formatting.percent(0.999) == "99%")
        #expect(Formatting.percent(1) == "100%")
    }
}
