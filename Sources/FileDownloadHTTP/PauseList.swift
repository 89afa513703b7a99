/// The transfers of one I/O thread that paused themselves for the downloader's overall limit
/// (`TransferWriter.pacingDelay`), each with the instant it may go on. Used on that thread only.
final class PauseList {
    private var entries: [(until: ContinuousClock.Instant, transfer: CurlTransfer)] = []

    /// Adds `transfer`, to be resumed at `until`.
    func add(_ transfer: CurlTransfer, until: ContinuousClock.Instant) {
        entries.append((until, transfer))
    }

    /// Removes and returns the transfers whose instant has come, in the order they paused.
    func takeDue(at now: ContinuousClock.Instant) -> [CurlTransfer] {
        guard !entries.isEmpty else { return [] }
        var due: [CurlTransfer] = []
        entries.removeAll { entry in
            guard entry.until <= now else { return false }
            due.append(entry.transfer)
            return true
        }
        return due
    }

    /// How long the thread may wait in `poll` before a paused transfer is due, in whole
    /// milliseconds rounded up, at most `limit`.
    func milliseconds(untilNextAfter now: ContinuousClock.Instant, atMost limit: Int32) -> Int32 {
        guard let next = entries.map(\.until).min() else { return limit }
        let (seconds, attoseconds) = (next - now).components
        let ms = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: max(0, min(Int64(limit), ms)))
    }
}
