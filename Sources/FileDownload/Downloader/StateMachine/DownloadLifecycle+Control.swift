/// The caller's triggers: `add`, `start`, `resume`, `pause`, `cancel`, `updateURL`, `shutdown`
/// (rows 1-5, 7-9, 11-12, 20, 22-32, 43-44 of docs/states.md).
extension DownloadLifecycle {
    /// Row 1: the download was added (it is ``DownloadState/notStarted``).
    func added() -> [DownloadAction] {
        [announce()]
    }

    /// Rows 2, 5 (and every state but not started): `start(id:)` queues a not-started download.
    mutating func start() -> [DownloadAction] {
        guard phase == .notStarted else { return reject(", not notStarted; use resume") }
        return move(to: .waiting) + [announce(), .enqueue]
    }

    /// Rows 3, 9, 22, 25, 28, 31, 32: `resume(_:)`. A not-started download starts; a paused,
    /// interrupted or failed one goes back to the queue with its retries counted anew
    /// (`resumed` before `stateChanged(waiting)`); a waiting or downloading one stays.
    mutating func resume() -> [DownloadAction] {
        switch phase {
        case .notStarted:
            return move(to: .waiting) + [announce(), .enqueue]
        case .paused, .retrying, .held, .interrupted, .failed:
            let resumed = DownloadEvent.resumed(id: id)
            endNetworkWaitStretch()
            return move(to: .waiting) + [.countRetriesAnew, .send([resumed]), announce(), .enqueue]
        case .waiting, .downloading:
            return []
        case .completed, .cancelled:
            return reject(" and cannot be resumed")
        }
    }

    /// Rows 5, 7, 11, 23, 27, 30, 31, 32: `pause(_:)`. A running attempt is stopped (its end is
    /// ``attemptStopped(_:resumeData:)``); a waiting or interrupted download is paused at once
    /// (a retry due is called off); a paused one stays (the caller returns its resume data again).
    mutating func pause(resumeData: ResumeData) -> [DownloadAction] {
        switch phase {
        case .downloading:
            return [.stopAttempt(.pause)]
        case .waiting, .retrying, .held, .interrupted:
            return move(to: .paused) + [announce(.paused(id: id, resumeData: resumeData))]
        case .paused:
            return []
        case .notStarted, .completed, .cancelled, .failed:
            return reject(" and cannot be paused")
        }
    }

    /// Rows 4, 8, 12, 24, 26, 29, 31, 32: `cancel(_:)`. A running attempt is stopped (its end is
    /// ``attemptStopped(_:resumeData:)``); any other unfinished download is cancelled at once,
    /// its staging file deleted.
    mutating func cancel() -> [DownloadAction] {
        switch phase {
        case .downloading:
            return [.stopAttempt(.cancel)]
        case .notStarted, .waiting, .paused, .retrying, .held, .interrupted, .failed:
            return move(to: .cancelled) + [.discardBytes, announce(.cancelled(id: id))]
        case .completed, .cancelled:
            return [.reject(DownloadError(.invalidState, "the download '\(id)' is already \(state)"))]
        }
    }

    /// Rows 40, 43, 44: the URL was replaced (`updateURL(id:to:expiresAt:)`, or a fresh URL from
    /// the delegate; the Downloader sends `urlChanged` first). A running attempt stops and the
    /// download goes back to the queue at once, no retry used; an interrupted one goes back to
    /// the queue; the others keep their state.
    /// An answer to an earlier question for a fresh URL is ignored from then on.
    mutating func updateURL() -> [DownloadAction] {
        if !state.isTerminal { forgetFreshURLRequest() }
        switch phase {
        case .downloading:
            return [.stopAttempt(.switchURL)]
        case .retrying, .held, .interrupted:
            return move(to: .waiting) + [announce(), .enqueue]
        case .notStarted, .waiting, .paused, .failed:
            return []
        case .completed, .cancelled:
            return reject("; its URL cannot change")
        }
    }

    /// Row 20: `shutdown()` stops a running attempt (its end is ``attemptStopped(_:resumeData:)``).
    mutating func shutdown() -> [DownloadAction] {
        phase == .downloading ? [.stopAttempt(.shutdown)] : []
    }
}
