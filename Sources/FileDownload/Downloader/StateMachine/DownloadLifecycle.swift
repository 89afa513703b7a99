/// Where one download is in its life, with the data each state carries, and the rules of its
/// transitions: the table of `docs/states.md` as a value type.
///
/// A trigger is a `mutating` function (the caller's `start`, `pause`, `resume`, `cancel`,
/// `updateURL`, `shutdown`; a slot freed; an attempt that ended; a failure classified; a retry
/// due; a hold that ended; `restore`). It changes the phase and returns the ``DownloadAction``s
/// the ``Downloader`` carries out, in order: events to send, the queue, the list of downloads
/// looked at on every tick, an attempt to start or stop, bytes to discard, or the
/// `invalidState` error to throw (then nothing changed). It does no I/O and reads no clock: the
/// times it keeps come in as arguments. The Downloader assigns no state itself; it reads the
/// projection ``state`` (what the API reports) and the data of the phase.
///
/// Progress and total events are not transitions: the Downloader puts them before a
/// transition's events (a final progress before `stateChanged(completed)`), and
/// `activityCountChanged` after an attempt's end.
struct DownloadLifecycle: Sendable, Equatable {
    /// The phases of a download. `interrupted` (``DownloadState/interrupted``) is three of
    /// them, by what it waits for: a retry at a time, the end of a hold, or the caller.
    enum Phase: Sendable, Equatable {
        case notStarted
        /// In the queue, waiting for a slot.
        case waiting
        /// An attempt runs (or is being set up).
        case downloading
        case paused
        /// Interrupted, a retry due at this time on the downloader's clock (the next mirror:
        /// now).
        case retrying(due: Duration)
        /// Interrupted, on hold until its reason is gone.
        case held(DownloadHold)
        /// Interrupted with no retry due: it continues when resumed (or restored). A shutdown,
        /// a crash found by `restore`, a full disk without waiting for space, a file too large.
        case interrupted
        case failed
        case completed
        case cancelled
    }

    /// A question for a fresh URL the delegate has not answered yet: its number (an answer to
    /// an earlier question is ignored) and why it was asked.
    struct FreshURLRequest: Sendable, Equatable {
        let number: UInt64
        let reason: URLRefreshReason
    }

    /// The download's id, which its events name.
    let id: String
    private(set) var phase: Phase
    /// The question for a fresh URL in flight, if any: asked on hold after a refusal (row 39)
    /// or because the URL expires soon (row 42); gone once the URL changed (rows 40, 43, 44) or
    /// the hold ended without one (row 41).
    private(set) var freshURLRequest: FreshURLRequest?
    /// How many questions for a fresh URL were asked: the number of the next one.
    private var freshURLQuestions: UInt64 = 0
    /// When the current stretch of waiting for the network began (rows 37, 46: bounded by
    /// ``DownloaderConfiguration/maxNetworkWait``). It outlives the hold: a download let go to
    /// probe the server that fails again continues the stretch; it ends when the server
    /// answered, the download failed, or the caller resumed it.
    private(set) var networkWaitSince: Duration?

    /// A download in the state `state` (added: ``DownloadState/notStarted``; or as a stored
    /// record says: an interrupted one waits for the caller, and a downloading one for
    /// ``restoredAfterCrash()``).
    init(id: String, state: DownloadState = .notStarted) {
        self.id = id
        switch state {
        case .notStarted: phase = .notStarted
        case .waiting: phase = .waiting
        case .downloading: phase = .downloading
        case .paused: phase = .paused
        case .interrupted: phase = .interrupted
        case .failed: phase = .failed
        case .completed: phase = .completed
        case .cancelled: phase = .cancelled
        }
    }

    /// The state the API reports (``DownloadInfo/state``, ``DownloadEvent/stateChanged(id:state:)``).
    var state: DownloadState {
        switch phase {
        case .notStarted: .notStarted
        case .waiting: .waiting
        case .downloading: .downloading
        case .paused: .paused
        case .retrying, .held, .interrupted: .interrupted
        case .failed: .failed
        case .completed: .completed
        case .cancelled: .cancelled
        }
    }

    /// When the retry is due, while one is.
    var retryDue: Duration? {
        if case .retrying(let due) = phase { return due }
        return nil
    }

    /// The hold, while the download is on one.
    var hold: DownloadHold? {
        if case .held(let hold) = phase { return hold }
        return nil
    }

    /// Asks a new question for a fresh URL (an earlier one is no longer answered).
    mutating func askForFreshURL(_ reason: URLRefreshReason) -> FreshURLRequest {
        freshURLQuestions &+= 1
        let request = FreshURLRequest(number: freshURLQuestions, reason: reason)
        freshURLRequest = request
        return request
    }

    /// No question for a fresh URL is in flight any more: an answer to it is ignored.
    mutating func forgetFreshURLRequest() {
        freshURLRequest = nil
    }

    /// The stretch of waiting for the network ends: a later wait starts a new one.
    mutating func endNetworkWaitStretch() {
        networkWaitSince = nil
    }

    /// Whether the delegate's answer to `request` still counts: it is the question in flight,
    /// the download is not finished, and an answer to a refusal finds it still on hold for it
    /// (paused, resumed or re-pointed meanwhile, it moved on).
    func awaitsAnswer(to request: FreshURLRequest) -> Bool {
        guard freshURLRequest == request, !state.isTerminal else { return false }
        if case .refused = request.reason { return hold?.reason == .refreshingURL }
        return true
    }

    /// Whether the phase is looked at on every tick (a retry due, a hold).
    private static func isWatched(_ phase: Phase) -> Bool {
        switch phase {
        case .retrying, .held: true
        default: false
        }
    }

    /// Moves to `next`; returns the bookkeeping that goes with leaving and entering: the tick's
    /// list, and the end of a wait (a wait for a retry or the network that ends in the queue or
    /// in failure counts against the resource timeout). A hold for the network begins a stretch
    /// of waiting for it (or continues the one under way); a failure ends it (a resume starts a
    /// new one).
    mutating func move(to next: Phase) -> [DownloadAction] {
        let before = phase
        phase = next
        switch next {
        case .held(let hold) where hold.reason == .waitingForNetwork:
            if networkWaitSince == nil { networkWaitSince = hold.since }
        case .failed:
            networkWaitSince = nil
        default:
            break
        }
        var actions: [DownloadAction] = []
        let wasWatched = Self.isWatched(before), isWatched = Self.isWatched(next)
        if wasWatched, !isWatched { actions.append(.unwatch) }
        if !wasWatched, isWatched { actions.append(.watch) }
        if before.isInterrupted, next == .waiting || next == .failed { actions.append(.endWait) }
        return actions
    }

    /// The events that announce the state `state`, then `describing` (docs/states.md: the
    /// `stateChanged` first, then the event that describes the transition).
    func announce(_ describing: DownloadEvent...) -> DownloadAction {
        var events: [DownloadEvent] = []
        events.reserveCapacity(1 + describing.count)  // one buffer, not two (every download passes here 3 times)
        events.append(.stateChanged(id: id, state: state))
        events.append(contentsOf: describing)
        return .send(events)
    }

    /// The refusal of a trigger the state does not allow.
    func reject(_ words: String) -> [DownloadAction] {
        [.reject(DownloadError(.invalidState, "the download '\(id)' is \(state)\(words)"))]
    }
}

extension DownloadLifecycle.Phase {
    /// Whether the API reports it as ``DownloadState/interrupted``.
    var isInterrupted: Bool {
        switch self {
        case .retrying, .held, .interrupted: true
        default: false
        }
    }
}
