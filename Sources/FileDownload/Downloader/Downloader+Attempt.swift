import Foundation

extension Downloader {
    /// Takes a slot and starts an attempt of `id` (which must be waiting).
    func startAttempt(_ id: String) {
        guard var e = entries[id] else { return }
        if let problem = pathProblem(of: e) {
            fail(id, DownloadError(.invalidDestination, problem))
            return
        }
        if holdsForSpace(id) { return }
        let transport: any Transport
        do {
            transport = try transports.transport(for: e.currentURL)
        } catch {
            fail(id, DownloadError.wrapping(error))
            return
        }
        let now = clock.now()
        let segmentable = transport.capabilities.contains(.ranges) && !e.segmentsDisabled && segmentSlots(for: id) > 1
        if !e.segments.isEmpty, !(segmentable && e.validator?.isStrong == true
                                   && e.expectedLength == e.segments.map(\.end).max()) {
            // The segments cannot be continued here (another transport, no strong validator, one
            // connection only): the attempt continues after the bytes on disk from the start on.
            e.bytesOnDisk = e.segments.contiguousPrefix
            e.segments = []
        }
        e.attempts = e.attempts.successorSaturating
        logger.debug("download '\(id)': attempt \(e.attempts) starts at byte \(e.bytesOnDisk)",
                     metadata: ["url": "\(e.currentURL.redactingPassword)"])
        let handle = AttemptHandle(startedAt: now)
        var events: [DownloadEvent] = []
        guard carryOut(e.lifecycle.slotFreed(activeCount: scheduler.running.count + 1), on: &e, events: &events, now: now).startAttempt else {
            return
        }
        e.attempt = handle
        e.headSeen = false
        e.checks = nil
        e.lastActivityCount = 0
        e.lastActivityAt = now
        e.lastCheckpointAt = now
        e.speed.reset()
        if let last = e.lastEmitted, e.bytesOnDisk < last.receivedBytes {
            // The bytes were discarded (validation failure, cancelled staging file): count anew.
            e.lastEmitted = nil
        }
        // Counted before the seam is made: the slots it carries are those of a running attempt.
        hostOpened(id, url: e.currentURL, bytesOnDisk: e.bytesOnDisk)
        let attempt = makeAttempt(of: e, handle: handle, transport: transport, segmentable: segmentable)
        entries[id] = e
        scheduler.started(id)
        persist(e, flush: nil, events: events)
        let task = Task.detached { [weak self] in
            let outcome = await attempt.run()
            await self?.attemptEnded(id, handle: handle, outcome: outcome)
        }
        handle.task.withLock { $0 = task }
        ensureTicking()
    }

    /// The attempt of `e` (its next, numbered ``DownloadEntry/attempts``) as the downloader
    /// prepares it: the download's paths, options, validator and bytes on disk, the
    /// configuration's staging suffix, segment sizes and flushing, the room check, the rate
    /// budget (for a transport with ``TransportCapabilities/rateLimit``) and, when `segmentable`,
    /// the seam to the host governor. Made after the attempt's own connection was counted.
    func makeAttempt(of e: DownloadEntry, handle: AttemptHandle, transport: any Transport, segmentable: Bool) -> Attempt {
        Attempt(
            id: e.id, url: e.currentURL, secretsOrigin: e.isFirstURLWithItsSecrets ? nil : e.originOfSecrets, partPath: e.partPath, destination: e.destination, options: e.options,
            suggestedFileName: e.suggestedFileName, takenNames: takenNames(besides: e),
            stagingSuffix: configuration.stagingSuffix, bytesOnDisk: e.continuationOffset, validator: e.validator, expectedLength: e.expectedLength,
            number: e.attempts, synchronize: configuration.synchronizesFiles, flusher: configuration.completionFlusher, roomCheck: roomCheck(for: e),
            bandwidth: transport.capabilities.contains(.rateLimit) ? rateBudget(for: e) : nil,
            segments: e.segments, seam: segmentable ? segmentSeam(for: e.id, handle: handle) : nil,
            segmentThreshold: configuration.segmentThreshold, minimumSegmentSize: configuration.minimumSegmentSize,
            downloadsDirectory: downloadsDirectoryPath,
            handle: handle, transport: transport, delegate: delegate, logger: logger
        )
    }

    /// The head check an attempt's sink runs before the first body byte (``HeadCheck``): status
    /// (the delegate's answer, else 2xx), then size. The conformance suite and `fdl`'s standard
    /// output run the same check (no delegate, no expected size).
    package static func checkHead(_ head: TransferHead, id: String, expectedSize: Int64?, delegate: (any DownloaderDelegate)?) throws {
        try HeadCheck.check(head, id: id, expectedSize: expectedSize, delegate: delegate)
    }

    /// The status check without a delegate (``HeadCheck/acceptsByDefault(_:)``), as
    /// ``RemoteFileCheck`` asks it.
    static func acceptsByDefault(_ status: Int?) -> Bool {
        HeadCheck.acceptsByDefault(status)
    }

    /// Books the end of an attempt: state, events, store, next attempt.
    func attemptEnded(_ id: String, handle: AttemptHandle, outcome: AttemptOutcome) {
        defer { handle.markEnded() }
        guard var e = entries[id], e.attempt === handle else { return }
        logger.debug("download '\(id)': attempt \(e.attempts) ended: \(outcome.summary)")
        let now = clock.now()
        e.attempt = nil
        scheduler.ended(id)
        hostClosed(id, error: Self.failureError(outcome, handle), policy: e.options.retryPolicy ?? configuration.retryPolicy, now: now)
        e.activeTime += now - handle.startedAt
        let sink = handle.currentSink
        // One buffer for what a completion announces (progress, the total, the state, the
        // completion, the activity count) instead of growing it step by step.
        var events: [DownloadEvent] = []
        events.reserveCapacity(6)
        if let sink {
            absorbHead(&e, sink: sink, events: &events)
            e.bytesOnDisk = sink.fileLength
        }
        if handle.segments.isActive {
            // Each segment continues from its own bytes; the sum is what is on disk.
            e.segments = handle.segments.checkpoints()
            e.bytesOnDisk = handle.segments.received
        }
        if handle.segments.isRefused { e.segmentsDisabled = true }
        let reason = handle.stopReason.withLock { $0 }
        var flush: TransferSink? = sink
        switch (outcome, reason) {
        case (.completed(let file, let checks), _):
            if file != e.destination {
                // Saved under the server's name: the record names that file, and its staging
                // name follows (the staging file itself is gone, moved into place).
                e.destination = file
                e.partPath = file.path + configuration.stagingSuffix
                claim(e)
            }
            if e.expectedLength == nil { e.expectedLength = e.bytesOnDisk }
            e.segments = []
            e.checks = checks
            emitProgress(&e, now: now, force: true, events: &events)
            var transition: [DownloadEvent] = []
            carryOut(e.lifecycle.attemptCompleted(file: file), on: &e, events: &transition, now: now)
            e.lastError = nil
            entries[id] = e
            // The total that counts this file goes out before the file's completion: the last
            // download to complete is announced after a total at 100 %, not one interval later.
            // (A pass over every download: only when due, or when nothing runs or waits any more,
            // so a long queue run one at a time does not pay one pass per completion.)
            let last = scheduler.running.isEmpty && scheduler.queue.isEmpty
            if last || totalIsDue(at: now) {
                emitTotal(now: now, force: last, events: &events)
            }
            events += transition
            flush = nil
        case (_, .cancel?):
            carryOut(e.lifecycle.attemptStopped(.cancel, resumeData: e.resumeData()), on: &e, events: &events, now: now)
            flush = nil
        case (_, .pause?), (.held, nil):
            emitProgress(&e, now: now, force: false, events: &events)
            // Held back by the delegate before the move (no stop reason came): why is the last
            // error; no retry counted.
            if case .held(let error) = outcome { e.lastError = error }
            carryOut(e.lifecycle.attemptStopped(.pause, resumeData: e.resumeData()), on: &e, events: &events, now: now)
        case (_, .shutdown?):
            e.lastError = DownloadLifecycle.shutdownError
            carryOut(e.lifecycle.attemptStopped(.shutdown, resumeData: e.resumeData()), on: &e, events: &events, now: now)
        case (_, .switchURL?):
            // Back to the queue at once, in its place: the next attempt fetches the new URL.
            emitProgress(&e, now: now, force: false, events: &events)
            if carryOut(e.lifecycle.attemptStopped(.switchURL, resumeData: e.resumeData()), on: &e, events: &events, now: now).enqueue {
                scheduler.queue.push(id: id, priority: e.options.priority, order: e.queueOrder)
            }
        case (_, .fail(let error)?):
            emitProgress(&e, now: now, force: false, events: &events)
            failure(&e, error, now: now, events: &events)
        case (.failed(let error), nil):
            emitProgress(&e, now: now, force: false, events: &events)
            failure(&e, error, now: now, events: &events)
        case (.invalid(let error), nil):
            e.lastError = error
            carryOut(e.lifecycle.attemptInvalid(error), on: &e, events: &events, now: now)
            flush = nil
        case (.restart(let reason), nil):
            // Never bytes of two versions in one file: everything starts over, at once. Segments
            // that disagreed under one validator: one connection from then on (it gets one
            // version, whatever the server mixes between requests).
            if reason == .segmentsDisagree { e.segmentsDisabled = true }
            e.lastEmitted = nil
            e.speed.reset()
            flush = nil
            // A server whose file changes under every attempt would restart it for ever.
            let limit = max(1, (e.options.retryPolicy ?? configuration.retryPolicy).maxRetries)
            let allowed = e.changedFileRestarts < limit
            let error = Self.changedFileError(e, restarts: e.changedFileRestarts)
            if allowed { e.changedFileRestarts += 1 } else { e.lastError = error }
            if carryOut(e.lifecycle.attemptRestarts(reason, allowed: allowed, error: error), on: &e, events: &events, now: now).enqueue {
                scheduler.queue.push(id: id, priority: e.options.priority, order: e.queueOrder)
            }
        case (.stopped, nil):
            failure(&e, DownloadError(.transport, "the attempt stopped without a reason", isRetryable: true),
                    now: now, events: &events)
        }
        if sink != nil, e.state != .completed, e.bytesOnDisk == 0 {
            // An attempt that ends with no bytes (refused, failed before the body, paused at
            // once) leaves no empty staging file behind; the next attempt starts from zero anyway.
            discardStagingFile(of: e)
            flush = nil
        }
        entries[id] = e
        events.append(.activityCountChanged(scheduler.running.count))
        persist(e, flush: flush, events: events)
        updateProgress(of: id)
        schedule()
    }

    /// The failure of a segmented download whose remote file changed again after `restarts`
    /// restarts from zero: not retryable (a retry would only restart once more); the message
    /// names the file by its URL without credentials.
    static func changedFileError(_ e: DownloadEntry, restarts: Int) -> DownloadError {
        DownloadError(
            .protocolViolation,
            "the remote file \(e.url.removingCredentials.absoluteString) changed during the download again after "
                + "\(restarts) restart\(restarts == 1 ? "" : "s") from zero (its validator differs between requests); "
                + "resume it to try again, or use one connection (maxConnections 1)",
            isRetryable: false)
    }

    /// Decides between a retry (interrupted), a wait and failure for `error`: space, a fresh
    /// URL, the next mirror, then ``FailurePolicy``'s table (retry and count, wait for the
    /// network, fail now).
    func failure(_ e: inout DownloadEntry, _ error: DownloadError, now: Duration, events: inout [DownloadEvent]) {
        let (error, failureClass) = classified(error, of: e)
        e.lastError = error
        let policy = e.options.retryPolicy ?? configuration.retryPolicy
        if holds(&e, after: error, now: now, events: &events) { return }
        if refreshesURL(&e, after: error, now: now, events: &events) { return }
        if switchesToNextURL(&e, after: error, now: now, events: &events) {
            return
        }
        if holdsForNetwork(&e, after: error, failureClass: failureClass, now: now, events: &events) { return }
        if error.code == .diskFull || error.code == .fileTooLarge {
            carryOut(e.lifecycle.failureClassified(.interrupt(error)), on: &e, events: &events, now: now)
        } else if error.isRetryable || e.passHadRetryableFailure, e.retriesUsed < policy.maxRetries {
            e.passHadRetryableFailure = false
            e.retriesUsed += 1
            var delay = policy.delay(beforeRetry: e.retriesUsed, unit: rng.nextUnit())
            // A server's Retry-After wins when longer, up to the policy's longest delay: a server
            // cannot park a download for years.
            if let asked = error.retryAfter { delay = max(delay, min(asked, policy.maxDelay)) }
            e.waitingSince = now  // the backoff counts against the resource timeout
            carryOut(e.lifecycle.failureClassified(.retry(error, in: delay, due: now + delay)), on: &e, events: &events, now: now)
        } else {
            let data: ResumeData? = e.bytesOnDisk > 0 ? e.resumeData() : nil
            carryOut(e.lifecycle.failureClassified(.fail(error, resumeData: data)), on: &e, events: &events, now: now)
        }
    }

    /// Fails a download that never got an attempt running.
    func fail(_ id: String, _ error: DownloadError) {
        guard var e = entries[id] else { return }
        e.lastError = error
        var events: [DownloadEvent] = []
        carryOut(e.lifecycle.failureClassified(.fail(error, resumeData: nil)), on: &e, events: &events, now: clock.now())
        entries[id] = e
        persist(e, flush: nil, events: events)
    }
}
