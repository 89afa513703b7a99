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
            completedCount: 1, failedCount: 0)
    }

    @Test func aFrameHasALinePerDownloadAndATotalLine() {
        let lines = ProgressRenderer.lines(for: snapshot(), width: 120)
        #expect(lines == [
            "big.iso    [########............]  40%   8.2 MiB/20.0 MiB  2.0 MiB/s  ETA 0:06",
            "small.bin  [????????????????????]    ?   0 B  waiting",
            "total      [#######.............]  37%   9.0 MiB/24.0 MiB  2.0 MiB/s  ETA 0:07  1 active, 1 done",
        ])
    }

    @Test func noLineIsWiderThanTheTerminal() {
        for width in [20, 40, 60] {
            for line in ProgressRenderer.lines(for: snapshot(), width: width) {
                #expect(line.count <= width)
            }
        }
    }

    @Test func longNamesAreCutWithAnEllipsis() {
        var s = snapshot()
        s.rows[0].name = String(repeating: "n", count: 60)
        let first = ProgressRenderer.lines(for: s, width: 200)[0]
        #expect(first.hasPrefix(String(repeating: "n", count: 23) + "… "))
    }

    @Test func redrawMovesUpOverThePreviousFrameAndClearsEachLine() {
        let text = ProgressRenderer.redraw(previousLineCount: 3, lines: ["a", "b"])
        #expect(text == "\u{1B}[3A\r\u{1B}[2Ka\n\r\u{1B}[2Kb\n\u{1B}[J")
        #expect(ProgressRenderer.redraw(previousLineCount: 0, lines: ["a"]) == "\r\u{1B}[2Ka\n")
        #expect(ProgressRenderer.clear(lineCount: 2) == "\u{1B}[2A\r\u{1B}[J")
        #expect(ProgressRenderer.clear(lineCount: 0) == "")
    }
}
