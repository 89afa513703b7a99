extension Downloader {
    /// What ``carryOut(_:on:events:now:)`` leaves to its caller: the actions that depend on
    /// where the transition happened (the queue, an attempt to start or stop, an error to throw).
    struct ActionsLeft {
        var enqueue = false
        var startAttempt = false
        var stop: AttemptHandle.StopReason?
        var rejection: DownloadError?
    }

    /// Carries out the `actions` a trigger of `e.lifecycle` returned, in order: the events are
    /// appended to `events` (the caller stores `e` with them), the tick's list, the wake-up, the
    /// bytes discarded, the retries counted anew, a fresh URL asked for. The queue, the attempt
    /// and a refusal are left to the caller.
    @discardableResult
    func carryOut(_ actions: [DownloadAction], on e: inout DownloadEntry, events: inout [DownloadEvent],
                  now: Duration) -> ActionsLeft {
        var left = ActionsLeft()
        for action in actions {
            switch action {
            case .send(let more):
                if events.isEmpty { events = more } else { events += more }  // no copy into a new buffer
            case .watch:
                retrying.insert(e.id)
            case .unwatch:
                retrying.remove(e.id)
            case .endWait:
                if let since = e.waitingSince { e.activeTime += now - since }  // a wait for a retry or the network counts
                e.waitingSince = nil
            case .wakeUp:
                ensureTicking()
            case .discardBytes:
                discardStagingFile(of: e)
                e.forgetBytes()
            case .countRetriesAnew:
                e.retriesUsed = 0
                e.changedFileRestarts = 0
            case .askForFreshURL(let request, let error):
                ask(e, request, error: error, events: &events)
            case .enqueue:
                left.enqueue = true
            case .startAttempt:
                left.startAttempt = true
            case .stopAttempt(let reason):
                left.stop = reason
            case .reject(let error):
                left.rejection = error
            }
        }
        return left
    }
}
