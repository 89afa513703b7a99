import Foundation

/// The triggers of attempts: a slot freed, an attempt that ended, a failure classified
/// (rows 6, 10-18, 35, 37, 39, 45 of docs/states.md).
extension DownloadLifecycle {
    /// The error an attempt stopped by `shutdown()` ends with (row 20).
    static let shutdownError = DownloadError(.cancelled, "the downloader shut down during the download")

    /// What ``FailurePolicy`` and the configuration made of a failure (or of a check before an
    /// attempt): the Downloader decides, the lifecycle moves.
    enum Verdict: Sendable {
        /// Retry after `delay`, at `due` (rows 13, 18; the next mirror: `delay` zero).
        case retry(DownloadError, in: Duration, due: Duration)
        /// On hold until its reason is gone (rows 17, 35, 37, 39): `onHold` after `interrupted`;
        /// a refused URL asks for a fresh one.
        case hold(DownloadHold, DownloadError)
        /// Interrupted with no retry: it continues when resumed (a full disk without waiting for
        /// space, a file too large).
        case interrupt(DownloadError)
        /// Failed, with the resume data of the bytes kept (rows 14, 15, 19, 41, 46; `nil`
        /// without bytes, or for a download that never got an attempt).
        case fail(DownloadError, resumeData: ResumeData?)
    }

    /// Row 6: a slot is free for this waiting download: it starts an attempt
    /// (`activityCountChanged` with the attempts running then).
    mutating func slotFreed(activeCount: Int) -> [DownloadAction] {
        guard phase == .waiting else { return [] }
        return move(to: .downloading) + [.startAttempt, .send([
            .stateChanged(id: id, state: .downloading), .activityCountChanged(activeCount),
        ])]
    }

    /// Row 10: the transfer is done and the file valid and in place.
    mutating func attemptCompleted(file: URL) -> [DownloadAction] {
        guard phase == .downloading else { return [] }
        return move(to: .completed) + [announce(.completed(id: id, file: file))]
    }

    /// Rows 11, 12, 20, 43, 45: the attempt stopped for `reason` (the Downloader's stop, or the
    /// delegate that held the file back before the move: a pause). A stop that fails the
    /// download (`.fail`) is a failure to classify (``failureClassified(_:)``), not this.
    mutating func attemptStopped(_ reason: AttemptHandle.StopReason,
                                 resumeData: ResumeData) -> [DownloadAction] {
        guard phase == .downloading else { return [] }
        switch reason {
        case .cancel:
            return move(to: .cancelled) + [.discardBytes, announce(.cancelled(id: id))]
        case .pause:
            return move(to: .paused) + [announce(.paused(id: id, resumeData: resumeData))]
        case .shutdown:
            return move(to: .interrupted) + [announce(.interrupted(id: id, error: Self.shutdownError, retryIn: nil))]
        case .switchURL:
            return move(to: .waiting) + [announce(), .enqueue]
        case .fail:
            return []
        }
    }

    /// Row 16: the file failed validation (size, SHA-256, the delegate): its bytes are wrong.
    mutating func attemptInvalid(_ error: DownloadError) -> [DownloadAction] {
        guard phase == .downloading else { return [] }
        return move(to: .failed) + [.discardBytes, announce(.failed(id: id, error: error, resumeData: nil))]
    }

    /// The remote file changed under the download (or its segments disagreed): the bytes are
    /// discarded and it goes back to the queue at once (`restarted` before
    /// `stateChanged(waiting)`), or, when `allowed` is false (restarts ran out), fails with `error`.
    mutating func attemptRestarts(_ reason: RestartReason, allowed: Bool, error: DownloadError) -> [DownloadAction] {
        guard phase == .downloading else { return [] }
        guard allowed else {
            return move(to: .failed) + [.discardBytes, announce(.failed(id: id, error: error, resumeData: nil))]
        }
        return move(to: .waiting) + [.discardBytes, .send([.restarted(id: id, reason: reason)]), announce(), .enqueue]
    }

    /// Rows 13-15, 17-19, 35, 37, 39, 41, 46: a failure was classified (by ``FailurePolicy``, the
    /// configuration and the download's mirrors, refreshes and retries left), or a check before
    /// an attempt, or a wait whose time ran out. Ignored once the download completed or was
    /// cancelled.
    mutating func failureClassified(_ verdict: Verdict) -> [DownloadAction] {
        guard !state.isTerminal else { return [] }
        switch verdict {
        case .retry(let error, let delay, let due):
            return move(to: .retrying(due: due)) + [
                announce(.interrupted(id: id, error: error, retryIn: delay)), .wakeUp(at: due),
            ]
        case .hold(let hold, let error):
            var actions = move(to: .held(hold)) + [
                announce(.interrupted(id: id, error: error, retryIn: nil), .onHold(id: id, reason: hold.reason)),
            ]
            if hold.reason == .refreshingURL, let status = error.statusCode {
                actions.append(.askForFreshURL(askForFreshURL(.refused(statusCode: status)), error: error))
            }
            return actions + [.wakeUp(at: hold.since)]
        case .interrupt(let error):
            return move(to: .interrupted) + [announce(.interrupted(id: id, error: error, retryIn: nil))]
        case .fail(let error, let resumeData):
            return move(to: .failed) + [announce(.failed(id: id, error: error, resumeData: resumeData))]
        }
    }
}
