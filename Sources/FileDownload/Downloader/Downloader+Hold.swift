import Foundation

extension Downloader {
    /// Puts `e` on hold: interrupted, with no retry at a time, until `reason` is gone
    /// (``releaseHeld(now:)``). No retry is used. Events: `stateChanged(interrupted)`,
    /// `interrupted(error, nil)`, `onHold(reason)`.
    func hold(_ e: inout DownloadEntry, _ reason: WaitReason, error: DownloadError, now: Duration,
              events: inout [DownloadEvent]) {
        e.lastError = error
        // Only a failed write remembers the free space: a shortfall the free space explains
        // (RoomCheck, the check before an attempt) ends as soon as what is needed fits.
        let shortfall = error.underlying as? RoomCheck.Shortfall
        let hold = DownloadHold(
            reason: reason, since: now,
            freeAtHold: reason == .insufficientSpace && shortfall == nil ? freeSpaceAtHold(of: e) : nil,
            neededAtHold: shortfall?.need)
        carryOut(e.lifecycle.failureClassified(.hold(hold, error)), on: &e, events: &events, now: now)
        logger.debug("download '\(e.id)': \(reason.words): \(error.messages.joined(separator: ": "))")
        if reason == .waitingForNetwork { listenToNetwork() }
    }

    /// The hook of ``failure(_:_:now:events:)`` for a full disk: holds for space when the
    /// configuration says so.
    func holds(_ e: inout DownloadEntry, after error: DownloadError, now: Duration,
               events: inout [DownloadEvent]) -> Bool {
        guard configuration.waitsForSpace, error.code == .diskFull else { return false }
        hold(&e, .insufficientSpace, error: error, now: now, events: &events)
        return true
    }

    /// The downloads on hold whose reason is gone go back to the queue, in queue order (priority,
    /// then start order): space ones when their file system has room for what they still need
    /// (after the running downloads on it and the ones let go before them), network ones a
    /// probe after the network changed or when the slow probe is due, and the others of a server
    /// once it answers (``networkReleases(_:now:)``). Called on every tick.
    func releaseHeld(now: Duration) {
        let held = retrying.compactMap { entries[$0] }
            .filter { $0.state == .interrupted && $0.waitReason != nil }
            .sorted { $0.options.priority != $1.options.priority
                ? $0.options.priority > $1.options.priority : $0.queueOrder < $1.queueOrder }
        endOverdueRefreshes(held, now: now)
        let network = Set(networkReleases(held.filter { $0.waitReason == .waitingForNetwork }, now: now))
        let space = Set(spaceReleases(held.filter { $0.waitReason == .insufficientSpace }))
        for e in held {
            switch e.waitReason {
            case .insufficientSpace?:
                guard space.contains(e.id) else { continue }
            case .waitingForNetwork?:
                guard network.contains(e.id) else { continue }
            case .refreshingURL?, nil:  // a fresh URL ends that wait (Downloader+Refresh)
                continue
            }
            logger.debug("download '\(e.id)': no longer \(e.waitReason?.words ?? "on hold")")
            endHold(e.id, now: now)
        }
    }

    /// The hold of `id` ended (its reason is gone): back to the queue.
    func endHold(_ id: String, now: Duration) {
        guard var e = entries[id] else { return }
        var events: [DownloadEvent] = []
        guard carryOut(e.lifecycle.holdEnded(), on: &e, events: &events, now: now).enqueue else { return }
        enqueue(e, events: events)
    }

    /// The free space of `e`'s file system as it is put on hold for space; `Int64.max` when its
    /// size is known and that free space already holds what it still needs (a full disk `statvfs`
    /// does not show, such as a quota: the free space says nothing, so it waits for `resume`
    /// instead of trying whenever some space is freed).
    func freeSpaceAtHold(of e: DownloadEntry) -> Int64? {
        guard let fs = fileSystem(of: e) else { return nil }
        guard let need = stillNeeded(e) else { return fs.free }
        return need.addingSaturating(neededByRunning(on: fs.id, besides: e.id)) <= fs.free ? .max : fs.free
    }
}
