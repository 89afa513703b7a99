import FileDownload

extension GetSession {
    /// Redraws the live display (terminal mode) from the downloader's state, at the terminal's
    /// size as it is now: called 4 times a second and on SIGWINCH.
    ///
    /// The total line is honest about what it cannot know: with the size of every download that
    /// can still finish known, it has the bytes of those sizes, the bar, the percentage and the
    /// ETA; otherwise only the bytes received so far (and the speed, and the files done).
    func redrawDisplay() async {
        guard printer.mode == .terminal, let downloader, !interruptedBySignal else { return }
        let infos = await downloader.downloads().filter { outcomes.contains($0.id) }
        let speed = await downloader.totalProgress.bytesPerSecond
        let rows = infos.map { info in
            DisplayRow(name: info.id, state: info.waitReason?.words ?? info.state.rawValue, receivedBytes: info.progress.receivedBytes,
                       expectedBytes: info.progress.expectedBytes, bytesPerSecond: info.progress.bytesPerSecond,
                       estimatedTimeRemaining: info.progress.estimatedTimeRemaining)
        }
        let counted = infos.filter { ![.failed, .cancelled].contains($0.state) }
        let sizes = counted.compactMap(\.progress.expectedBytes)
        var total = DisplayRow(name: "total", state: "total",
                               receivedBytes: infos.reduce(0) { $0 + $1.progress.receivedBytes },
                               expectedBytes: nil, bytesPerSecond: speed)
        if !counted.isEmpty, sizes.count == counted.count {
            let expected = sizes.reduce(0, +)
            let received = counted.reduce(Int64(0)) { $0 + min($1.progress.receivedBytes, $1.progress.expectedBytes ?? 0) }
            total.receivedBytes = received
            total.expectedBytes = expected
            total.estimatedTimeRemaining = speed > 0 ? .seconds(Double(max(0, expected - received)) / speed) : nil
        }
        let finals = self.finals
        printer.redraw(DisplaySnapshot(
            rows: rows, total: total, completedCount: finals.count(where: { $0 == .completed }),
            failedCount: finals.count(where: \.isFailure), fileCount: ids.count))
    }
}
