@testable import FileDownload
import FileDownloadCLI
import Testing

@Suite struct ProgressRendererTests {
    let mib: Int64 = 1024 * 1024

    func snapshot() -> DisplaySnapshot {
        DisplaySnapshot(
            rows: [
                DisplayRow(name: "big.iso", state: "downloading", receivedBytes: 8 * mib + mib / 5,
                           expectedBytes: 20 * mib, bytesPerSecond: Double(2 * mib),
                           estimatedTimeRemaining: .milliseconds(5_900)),
                DisplayRow(name: "small.bin", state: "waiting", receivedBytes: 0, expectedBytes: nil),
            ],
            total: DisplayRow(name: "total", state: "total", receivedBytes: 9 * mib, expectedBytes: 24 * mib,
                              bytesPerSecond: Double(2 * mib), estimatedTimeRemaining: .seconds(7)),
            completedCount: 1, failedCount: 0, fileCount: 3)
    }

    @Test func aFrameHasALinePerActiveDownloadAWaitingLineAndATotalLine() {
        let lines = ProgressRenderer.lines(for: snapshot(), width: 120, height: 30)
        #expect(lines == [
            "big.iso  [########............]  40%  8.2 MiB/20.0 MiB  2.0 MiB/s  ETA 0:06",
            "+1 waiting",
            "total    [#######.............]  37%  9.0 MiB/24.0 MiB  2.0 MiB/s  ETA 0:07  1/3 files done",
        ])
    }

    @Test func withAnUnknownSizeTheTotalHasNoBarPercentageOrETA() {
        var s = snapshot()
        s.total.expectedBytes = nil
        s.total.estimatedTimeRemaining = nil
        let total = ProgressRenderer.lines(for: s, width: 120, height: 30).last ?? ""
        #expect(total.hasPrefix("total  "))
        #expect(!total.contains("%"))
        #expect(!total.contains("ETA"))
        #expect(!total.contains("["))
        #expect(total.contains("9.0 MiB  2.0 MiB/s"))
        #expect(total.hasSuffix("1/3 files done"))
    }

    @Test func columnsGoInOrderAsTheTerminalNarrows() {
        let s = snapshot()
        func first(_ width: Int) -> String { ProgressRenderer.lines(for: s, width: width, height: 30)[0] }
        #expect(first(80).contains("[#"))
        #expect(first(68).contains("[#"), "the bar shrinks before it goes")
        #expect(!first(56).contains("["), "the bar goes first")
        #expect(first(56).contains("ETA"))
        #expect(first(46) == "big.iso  40%  8.2 MiB/20.0 MiB  2.0 MiB/s", "then the ETA")
        #expect(first(36) == "big.iso  40%  8.2 MiB  2.0 MiB/s", "then the expected size")
        #expect(first(25) == "big.iso  40%  8.2 MiB", "then the speed")
        #expect(first(20) == "big.iso  40%", "then the bytes; the percentage last")
        #expect(ProgressRenderer.lines(for: s, width: 20, height: 30).last == "total    37%  1/3", "aligned with the rows")
    }

    @Test func longNamesAreShortenedInTheMiddle() {
        var s = snapshot()
        s.rows[0].name = "debian-" + String(repeating: "n", count: 60) + "-netinst.iso"
        let first = ProgressRenderer.lines(for: s, width: 200, height: 30)[0]
        #expect(first.hasPrefix("debian-" + String(repeating: "n", count: 13) + "…" + String(repeating: "n", count: 7) + "-netinst.iso  ["))
    }

    @Test func wideCharactersTakeTwoColumns() {
        #expect(Formatting.columns("日本語.txt") == 10)
        #expect(Formatting.fitMiddle("日本語のファイル.txt", width: 10) == "日本….txt ", "9 columns and a space")
        var s = snapshot()
        s.rows[0].name = String(repeating: "語", count: 40)
        for width in 20...120 {
            #expect(ProgressRenderer.lines(for: s, width: width, height: 30).allSatisfy { Formatting.columns($0) <= width })
        }
    }

    @Test func aShortTerminalSumsUpWhatDoesNotFit() {
        let rows = (0..<10).map { DisplayRow(name: "f\($0).bin", state: "downloading", receivedBytes: 10, expectedBytes: 100) }
            + (10..<40).map { DisplayRow(name: "f\($0).bin", state: "waiting", receivedBytes: 0, expectedBytes: nil) }
        let s = DisplaySnapshot(rows: rows, total: snapshot().total, fileCount: 40)
        let lines = ProgressRenderer.lines(for: s, width: 80, height: 8)
        #expect(lines.count == 7)
        #expect(lines[0].hasPrefix("f0.bin "))
        #expect(lines[4].hasPrefix("f4.bin "))
        #expect(lines[5] == "+5 more active, +30 waiting")
        #expect(lines[6].hasPrefix("total "))
    }

    @Test func pausedDownloadsAreListedWithANoteOnHowToContinue() {
        var s = snapshot()
        s.rows[1].state = "paused"
        let lines = ProgressRenderer.lines(for: s, width: 120, height: 30)
        #expect(lines[1].hasPrefix("small.bin  [????"))
        #expect(lines[1].hasSuffix("paused"))
        #expect(lines[2] == "1 paused — `fdl resume small.bin` from another terminal continues it; Ctrl-C ends")
        let narrow = ProgressRenderer.lines(for: s, width: 40, height: 30)
        #expect(narrow[2] == "1 paused — `fdl resume small.bin` from…")
    }

    /// Every frame fits the terminal, whatever the downloads and the size.
    @Test(arguments: 0...60) func everyFrameFitsTheTerminal(rowCount: Int) {
        var generator = SplitMix64(seed: UInt64(rowCount))
        let states = ["downloading", "downloading", "waiting", "interrupted", "paused", "completed", "failed"]
        let rows = (0..<rowCount).map { i in
            let expected: Int64? = Bool.random(using: &generator) ? nil : Int64.random(in: 0...(1 << 50), using: &generator)
            let letter = ["n", "é", "語", "🎉", "e\u{301}"].randomElement(using: &generator)!
            let name = String(repeating: letter, count: Int.random(in: 1...90, using: &generator)) + "\(i)"
            return DisplayRow(name: name, state: states.randomElement(using: &generator)!,
                              receivedBytes: Int64.random(in: 0...(expected ?? (1 << 45)), using: &generator),
                              expectedBytes: expected, bytesPerSecond: Double.random(in: 0...1e12, using: &generator),
                              estimatedTimeRemaining: .seconds(Int64.random(in: 0...10_000_000, using: &generator)))
        }
        let total = DisplayRow(name: "total", state: "total", receivedBytes: 1 << 52,
                               expectedBytes: rowCount.isMultiple(of: 2) ? nil : 1 << 53,
                               bytesPerSecond: 3e9, estimatedTimeRemaining: .seconds(99_999))
        let s = DisplaySnapshot(rows: rows, total: total, completedCount: rowCount * 100, failedCount: rowCount,
                                fileCount: rowCount * 1000)
        for width in 20...200 {
            let height = 2 + (width * 7 + rowCount * 13) % 60
            let lines = ProgressRenderer.lines(for: s, width: width, height: height)
            #expect(lines.count < height, "\(lines.count) lines at \(width)x\(height)")
            #expect(lines.last?.hasPrefix("total") == true)
            for line in lines where Formatting.columns(line) > width {
                Issue.record("a line of \(Formatting.columns(line)) columns at width \(width): \(line)")
            }
        }
    }

    @Test func redrawMovesUpOverThePreviousFrameAndClearsEachLine() {
        let text = ProgressRenderer.redraw(previousLineCount: 3, lines: ["a", "b"])
        #expect(text == "\u{1B}[3A\r\u{1B}[2Ka\n\r\u{1B}[2Kb\n\u{1B}[J")
        #expect(ProgressRenderer.redraw(previousLineCount: 0, lines: ["a"]) == "\r\u{1B}[2Ka\n")
        #expect(ProgressRenderer.clear(lineCount: 2) == "\u{1B}[2A\r\u{1B}[J")
        #expect(ProgressRenderer.clear(lineCount: 0) == "")
    }
}
