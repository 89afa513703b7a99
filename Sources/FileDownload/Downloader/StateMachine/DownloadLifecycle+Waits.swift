/// The triggers of time and of the world: a retry due, a hold that ended, `restore`
/// (rows 21, 33, 34, 36, 38 of docs/states.md; a wait whose time ran out is a failure
/// classified, rows 19, 41, 46).
extension DownloadLifecycle {
    /// Row 21: the tick at `now`; a retry due by then goes back to the queue.
    mutating func retryDue(now: Duration) -> [DownloadAction] {
        guard let due = retryDue, due <= now else { return [] }
        return move(to: .waiting) + [announce(), .enqueue]
    }

    /// Rows 36, 38, 40: the reason of the hold is gone (room on the disk, the network back, a
    /// fresh URL): back to the queue.
    mutating func holdEnded() -> [DownloadAction] {
        guard hold != nil else { return [] }
        return move(to: .waiting) + [announce(), .enqueue]
    }

    /// Row 42: the URL expires soon (once per URL; the Downloader judges when): a download that
    /// waits or runs asks for a fresh one, its state stays.
    mutating func urlExpiresSoon() -> [DownloadAction] {
        guard phase == .waiting || phase == .downloading else { return [] }
        return [.askForFreshURL(askForFreshURL(.expiresSoon), error: nil)]
    }

    /// Row 41: the hold for a fresh URL ends without one (the delegate gave none, or none within
    /// ``DownloaderConfiguration/freshURLTimeout``): a later answer is ignored. The refusal is
    /// then classified again (``failureClassified(_:)``).
    mutating func freshURLWithheld() {
        forgetFreshURLRequest()
    }

    /// Rows 37, 46: an attempt got an answer from its server: the way works, and a later wait
    /// for the network starts a new stretch.
    mutating func serverAnswered() {
        endNetworkWaitStretch()
    }

    /// Row 33: `restore()` found a download stored as downloading: the process stopped during
    /// the download.
    mutating func restoredAfterCrash() -> [DownloadAction] {
        guard phase == .downloading else { return [] }
        return move(to: .interrupted) + [announce()]
    }

    /// Row 33 (then), and a restored waiting download: back to the queue.
    mutating func requeued() -> [DownloadAction] {
        switch phase {
        case .waiting, .retrying, .held, .interrupted:
            return move(to: .waiting) + [announce(), .enqueue]
        default:
            return []
        }
    }

    /// Row 34, and a stored record refused (its paths, or paths another download claims): it
    /// is failed (the Downloader keeps the error as the last one; only `stateChanged` is sent).
    mutating func restoredAsFailed() -> [DownloadAction] {
        move(to: .failed) + [announce()]
    }
}
