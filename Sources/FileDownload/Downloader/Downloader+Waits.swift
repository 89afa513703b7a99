import Foundation

extension Downloader {
    /// `error` as ``FailurePolicy`` sees it for `e`: its class, and the error with its retryable
    /// flag set by the table (whatever the transport guessed) and, for a name that does not
    /// exist, a message that says so.
    func classified(_ error: DownloadError, of e: DownloadEntry) -> (DownloadError, FailureClass) {
        var error = error
        let (kind, failureClass) = FailurePolicy.classify(error) { networkMonitor.hasDefaultRoute() }
        error.isRetryable = failureClass != .failNow
        if kind == .nameDoesNotExist {
            let host = e.currentURL.host ?? e.currentURL.absoluteString
            error = error.adding(context: "no such host \(host): the name does not exist "
                                 + "(the machine has a network; not retried, check the URL)")
        }
        return (error, failureClass)
    }

    /// On every tick: a download waiting for a retry or for the network whose time ran out
    /// fails: the resource timeout (``TransferOptions/resourceTimeout``, which counts these waits)
    /// or, waiting for the network, ``DownloaderConfiguration/maxNetworkWait``.
    func endOverdueWaits(now: Duration) {
        for id in retrying {
            guard var e = entries[id], e.state == .interrupted, let since = e.waitingSince else { continue }
            let limit = e.options.transfer.resourceTimeout
            let error: DownloadError
            if e.activeTime + (now - since) >= limit {
                error = Self.resourceTimeoutError(limit)
            } else if e.waitReason == .waitingForNetwork, let start = e.lifecycle.networkWaitSince,
                      now - start >= configuration.maxNetworkWait {
                error = networkWaitError(e, e.lastError)
            } else {
                continue
            }
            var events: [DownloadEvent] = []
            failWait(&e, error, now: now, events: &events)
            entries[id] = e
            persist(e, flush: nil, events: events)
        }
    }

    /// Ends the wait of `e` (interrupted, or still in ``failure(_:_:now:events:)``) as `failed`
    /// with `error`; the bytes are kept for a resume.
    func failWait(_ e: inout DownloadEntry, _ error: DownloadError, now: Duration, events: inout [DownloadEvent]) {
        e.lastError = error
        logger.debug("download '\(e.id)': \(error.message)")
        let data: ResumeData? = e.bytesOnDisk > 0 ? e.resumeData() : nil
        // Leaving a wait counts its time against the resource timeout (DownloadAction.endWait).
        carryOut(e.lifecycle.failureClassified(.fail(error, resumeData: data)), on: &e, events: &events, now: now)
        e.waitingSince = nil
    }

    /// The failure of a download that waited ``DownloaderConfiguration/maxNetworkWait`` for the
    /// network: ``DownloadError/Code/networkUnavailable``, not retryable, with the last error's
    /// messages under "no network for N s: giving up".
    func networkWaitError(_ e: DownloadEntry, _ last: DownloadError?) -> DownloadError {
        var error = last ?? DownloadError(.connectionFailed, "there is no way to \(Self.hostKey(of: e))")
        error.code = .networkUnavailable
        error.isRetryable = false
        return error.adding(context: "no network for \(Self.words(configuration.maxNetworkWait)): giving up")
    }

    /// The failure of a download whose resource timeout ran out.
    static func resourceTimeoutError(_ limit: Duration) -> DownloadError {
        DownloadError(.resourceTimedOut,
                      "the download took longer than its time limit of \(words(limit)) (downloading and waiting to retry)")
    }

    /// A duration as a person reads it: "30 s", "2.5 s", "1.2 ms".
    static func words(_ d: Duration) -> String {
        let s = d.seconds
        if s >= 1 || s == 0 {
            return s == s.rounded() ? "\(Int64(s)) s" : String(format: "%.1f s", s)
        }
        return String(format: "%.0f ms", s * 1000)
    }
}
