/// One thing the ``Downloader`` carries out for a transition of a download's
/// ``DownloadLifecycle``, in the order the trigger returned them.
enum DownloadAction: Sendable {
    /// Publish these events, in order, after the store holds the new state (the Downloader
    /// stores the download with them: `persist`).
    case send([DownloadEvent])
    /// Put the download in the scheduler's queue in its place (priority, then start order).
    case enqueue
    /// Run an attempt (the slot is taken).
    case startAttempt
    /// Stop the running attempt for this reason; its end is a trigger of its own
    /// (``DownloadLifecycle/attemptStopped(_:resumeData:)``).
    case stopAttempt(AttemptHandle.StopReason)
    /// Look at the download on every tick: a retry is due at a time, or a hold may end.
    case watch
    /// No longer look at it on every tick.
    case unwatch
    /// A wait for a retry or for the network ended: the time it took counts against the
    /// resource timeout.
    case endWait
    /// Make sure the downloader ticks: something is due at this time (a retry), or is looked at
    /// from then on (a hold).
    case wakeUp(at: Duration)
    /// Delete the staging file and forget the bytes on disk, their segments and validator.
    case discardBytes
    /// The caller continued the download: its retries and its restarts count anew (the
    /// lifecycle ended its stretch of waiting for the network itself).
    case countRetriesAnew
    /// Ask the delegate for a fresh URL (``DownloadEvent/needsFreshURL(id:reason:)``), the
    /// question in flight (``DownloadLifecycle/freshURLRequest``); a `nil` answer after a
    /// refusal ends the hold with `error`.
    case askForFreshURL(DownloadLifecycle.FreshURLRequest, error: DownloadError?)
    /// The trigger is not allowed in this state: the call throws this error and nothing changed.
    case reject(DownloadError)
}
