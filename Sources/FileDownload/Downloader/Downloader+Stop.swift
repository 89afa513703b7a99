extension Downloader {
    /// How long an attempt the downloader stopped (pause, cancel, shutdown, a timeout) may take to
    /// end, on the downloader's clock. A transport must stop within tens of milliseconds of its
    /// cancellation; one that does not (or a delegate call that never returns) is abandoned after
    /// this: its sink is sealed and the attempt ends as if it had stopped. When the transport
    /// itself is stuck, its staging file is also taken from its name, so whatever the transport
    /// still does with the open file (a late write, the release of a reservation) lands in a file
    /// no download uses, and the download continues from zero. No wait on an attempt is longer.
    public static let stopTimeout: Duration = .seconds(10)

    /// Stops the running attempt `handle` of `id` for `reason` and returns once its end is booked:
    /// when its task ended, or at the latest ``stopTimeout`` later.
    func stopAttempt(_ id: String, _ handle: AttemptHandle, _ reason: AttemptHandle.StopReason) async {
        requestStop(id, handle, reason)
        await handle.waitUntilEnded()
    }

    /// Asks the attempt to stop (the first reason wins) and, the first time, arms the deadline
    /// after which it is abandoned.
    func requestStop(_ id: String, _ handle: AttemptHandle, _ reason: AttemptHandle.StopReason) {
        handle.stop(reason)
        let clock = self.clock
        let deadline = clock.now() + Self.stopTimeout
        handle.armDeadline {
            Task { [weak self] in
                do { try await clock.sleepUntil(deadline) } catch { return }
                await self?.abandon(id, handle)
            }
        }
    }

    /// Ends an attempt that did not stop within ``stopTimeout``: seals its sink and books its end.
    /// When the transport is what is stuck (its sink was not sealed yet), the staging file is also
    /// unlinked and its bytes forgotten: the stuck transport keeps the file open and may still
    /// write to it or cut it, so the next attempt starts from zero in a new file. An attempt stuck
    /// after its transport returned (the final flush of a large file on a slow disk) keeps its
    /// bytes: nothing but the library touches that file any more.
    func abandon(_ id: String, _ handle: AttemptHandle) {
        guard entries[id]?.attempt === handle, let partPath = entries[id]?.partPath else { return }
        logger.warning("download '\(id)': the attempt did not stop within \(Self.stopTimeout) of being asked; abandoned")
        let sink = handle.currentSink
        let transportStuck = sink.map { !$0.isSealed } ?? false
        sink?.seal()
        if transportStuck { StagingFile.remove(partPath) }
        attemptEnded(id, handle: handle, outcome: .stopped)
        guard transportStuck, var e = entries[id], e.bytesOnDisk > 0 else { return }
        e.forgetBytes()
        entries[id] = e
        persist(e, flush: nil, events: [])
    }
}
