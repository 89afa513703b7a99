extension Downloader {
    /// Waits until download `id` stops in a state that nothing but the caller will change, and
    /// returns how it stopped: completed, failed, cancelled, paused, or interrupted with no
    /// automatic retry due (see ``DownloadOutcome``).
    ///
    /// ```swift
    /// try await downloader.start(id: "iso", url: url)
    /// switch try await downloader.outcome(of: "iso") {
    /// case .completed(let file): print("saved to", file.path)
    /// case let other: print("not downloaded:", other)
    /// }
    /// ```
    ///
    /// What the caller may rely on:
    /// - Nothing is missed: a download that already has an outcome when the call is made (it
    ///   finished between `start` and this call, or long before) answers at once from its state.
    ///   A download that is waiting, downloading, or interrupted with a retry due is waited for;
    ///   automatic retries are not outcomes, the wait goes on through them.
    /// - Order: the call returns after the events of the transition that made the outcome
    ///   (``DownloadEvent/stateChanged(id:state:)`` then ``DownloadEvent/completed(id:file:)``,
    ///   ``DownloadEvent/failed(id:error:resumeData:)`` and so on) reached every observer and every
    ///   ``events()`` sequence, and after the store holds the state. A sequence read after this
    ///   call returns therefore holds those events.
    /// - ``shutdown()`` ends every wait: downloads it stopped, and those still queued, answer
    ///   ``DownloadOutcome/interrupted(_:resumeData:)`` (``restore()`` continues them in a later
    ///   process).
    /// - Cancelling the waiting task ends the wait with `CancellationError`; the download goes on.
    /// - A paused, interrupted or failed download that is resumed afterwards gets a new outcome;
    ///   call again to wait for it.
    ///
    /// - Throws: ``DownloadError/Code/unknownIdentifier`` when no download has the id, or when it
    ///   is removed (``remove(_:)``) during the wait; ``DownloadError/Code/invalidState`` when it
    ///   was added and never started (it would never end by itself); `CancellationError` when the
    ///   waiting task is cancelled.
    public func outcome(of id: String) async throws -> DownloadOutcome {
        try await pageIn(id)
        let e = try awaitableEntry(id)
        if let outcome = settledOutcome(of: e) {
            await persistence.drain()  // its events are out, as for an outcome that is waited for
            return outcome
        }
        try Task.checkCancellation()
        let waiters = outcomeWaiters
        let token = waiters.makeToken()
        defer { waiters.forget(token) }
        // Registered on the actor, with no suspension since the state was read: a transition
        // cannot slip in between.
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiters.add(token, id: id, continuation)
            }
        } onCancel: {
            waiters.cancel(token, id: id)
        }
    }

    /// Waits for the outcome of each download in `ids` (see ``outcome(of:)``) and returns them by
    /// id, once every one has an outcome.
    ///
    /// Every id is checked before any wait starts: an unknown or not-started id throws at once
    /// and nothing is awaited.
    ///
    /// - Throws: as ``outcome(of:)``.
    public func outcomes(of ids: some Sequence<String>) async throws -> [String: DownloadOutcome] {
        let ids = Array(ids)
        for id in ids { try await pageIn(id) }
        for id in ids { _ = try awaitableEntry(id) }
        var result: [String: DownloadOutcome] = [:]
        for id in ids where result[id] == nil {
            result[id] = try await outcome(of: id)
        }
        return result
    }

    /// The entry of `id` when its outcome can be awaited: known, and started (a download that was
    /// added and never started would never end by itself).
    private func awaitableEntry(_ id: String) throws -> DownloadEntry {
        let e = try entry(id)
        if e.state == .notStarted {
            throw DownloadError(.invalidState, "the download '\(id)' was added but not started; start it before awaiting its outcome")
        }
        return e
    }

    /// How many ``outcome(of:)`` calls wait for `id` (for tests that must know a wait is
    /// registered before they act).
    package nonisolated func outcomeWaitCount(for id: String) -> Int {
        outcomeWaiters.count(for: id)
    }

    /// The outcome of `e` when it has one: a state nothing but the caller changes. After
    /// ``shutdown()`` every download that no attempt runs has one.
    func settledOutcome(of e: DownloadEntry) -> DownloadOutcome? {
        var kept: ResumeData? { e.bytesOnDisk > 0 ? e.resumeData() : nil }  // built only for the cases that carry it
        switch e.state {
        case .completed:
            return .completed(file: e.destination)
        case .cancelled:
            return .cancelled
        case .failed:
            return .failed(e.lastError ?? DownloadError(.transport, "the download failed"), resumeData: kept)
        case .paused:
            return .paused(resumeData: e.resumeData())
        case .interrupted where !retrying.contains(e.id) || isShutDown:
            return .interrupted(e.lastError ?? Self.shutDownError, resumeData: kept)
        case .notStarted, .waiting, .interrupted, .downloading:
            guard isShutDown, e.attempt == nil else { return nil }
            return .interrupted(Self.shutDownError, resumeData: kept)
        }
    }

    static var shutDownError: DownloadError {
        DownloadError(.cancelled, "the downloader shut down before the download ended")
    }

    /// Answers the waits for `e` when it now has an outcome, after the store writes and events
    /// posted so far (called after every transition is posted).
    func answerWaiters(for e: DownloadEntry) {
        guard outcomeWaiters.hasWaiters(for: e.id), let outcome = settledOutcome(of: e) else { return }
        let waiters = outcomeWaiters.take(e.id)
        persistence.afterWrites { for waiter in waiters { waiter.resume(returning: outcome) } }
    }

    /// Ends the waits for `id`, which was removed.
    func answerWaitersOfRemoved(_ id: String) {
        let waiters = outcomeWaiters.take(id)
        guard !waiters.isEmpty else { return }
        let error = DownloadError(.unknownIdentifier, "the download '\(id)' was removed before it ended")
        persistence.afterWrites { for waiter in waiters { waiter.resume(throwing: error) } }
    }

    /// After ``shutdown()`` stopped everything: answers every wait still open.
    func answerAllWaiters() {
        for id in outcomeWaiters.ids {
            if let e = entries[id] { answerWaiters(for: e) } else { answerWaitersOfRemoved(id) }
        }
    }
}
