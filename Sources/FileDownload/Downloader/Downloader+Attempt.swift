import Foundation

extension Downloader {
    /// What an attempt task needs, copied out of the entry so it runs without the actor.
    ///
    /// A class: the attempt's task, its closures and its async frames hold one reference instead
    /// of a 400-byte copy each (with a thousand downloads running, that is memory).
    final class AttemptContext: Sendable {
        let id: String
        let url: URL
        let partPath: String
        let destination: URL
        let options: DownloadOptions
        /// With ``DownloadOptions/usesSuggestedFileName``: the name a head suggested first, and the
        /// destinations of the downloader's other downloads in the same directory (taken names).
        let suggestedFileName: String?
        let takenNames: Set<String>
        /// ``DownloaderConfiguration/stagingSuffix``.
        let stagingSuffix: String
        let bytesOnDisk: Int64
        let validator: Validator?
        /// The total length known from earlier attempts (``DownloadEntry/expectedLength``).
        let expectedLength: Int64?
        let attempt: Int
        let capabilities: TransportCapabilities
        let synchronize: Bool
        /// Checks a head's announced length against the free space (``RoomCheck``); `nil` checks nothing.
        let roomCheck: RoomCheck?
        /// Whether ``url`` has the origin the secret header fields were given for (the download's
        /// first URL's, `URL.origin`; ``DownloadEntry/originOfSecrets``): only then does the
        /// attempt carry them.
        let isFirstOrigin: Bool
        /// What the attempt's sinks draw from: the download's rate budget inside the downloader's
        /// overall limit, or the overall limit alone (``rateBudget(for:)``); `nil` for a transport
        /// without ``TransportCapabilities/rateLimit``.
        let bandwidth: BandwidthLimiter?
        /// The segments to continue (``DownloadEntry/segments``), when the attempt continues a
        /// download fetched over several connections; empty otherwise.
        let segments: [SegmentCheckpoint]
        /// How the attempt asks for connections beyond the first; `nil` keeps it on one
        /// connection (a transport without ranges, ``DownloadOptions/maxConnections`` 1, a
        /// server that ignored a range before).
        let seam: SegmentSeam?
        /// ``DownloaderConfiguration/segmentThreshold`` and ``DownloaderConfiguration/minimumSegmentSize``.
        let segmentThreshold: Int64
        let minimumSegmentSize: Int64
        /// ``DownloaderConfiguration/downloadsDirectory``'s path: the directories of a destination
        /// below it are entered without following links (``DestinationParents``); empty: none.
        let downloadsDirectory: String

        init(id: String, url: URL, secretsOrigin: String, partPath: String, destination: URL, options: DownloadOptions,
             suggestedFileName: String?, takenNames: Set<String>, stagingSuffix: String,
             bytesOnDisk: Int64, validator: Validator?, expectedLength: Int64?, attempt: Int,
             capabilities: TransportCapabilities, synchronize: Bool, roomCheck: RoomCheck? = nil,
             bandwidth: BandwidthLimiter? = nil, segments: [SegmentCheckpoint] = [], seam: SegmentSeam? = nil,
             segmentThreshold: Int64 = .max, minimumSegmentSize: Int64 = 4 << 20, downloadsDirectory: String = "") {
            self.id = id
            self.url = url
            self.isFirstOrigin = url.origin == secretsOrigin
            self.partPath = partPath
            self.destination = destination
            self.options = options
            self.suggestedFileName = suggestedFileName
            self.takenNames = takenNames
            self.stagingSuffix = stagingSuffix
            self.bytesOnDisk = bytesOnDisk
            self.validator = validator
            self.expectedLength = expectedLength
            self.attempt = attempt
            self.capabilities = capabilities
            self.synchronize = synchronize
            self.roomCheck = roomCheck
            self.bandwidth = bandwidth
            self.segments = segments
            self.seam = seam
            self.segmentThreshold = segmentThreshold
            self.minimumSegmentSize = minimumSegmentSize
            self.downloadsDirectory = downloadsDirectory
        }
    }

    /// How an attempt task ended.
    enum AttemptOutcome: Sendable {
        /// The file was validated (by the checks given) and moved to its destination.
        case completed(URL, CompletionChecks)
        /// The transfer or the validation failed.
        case failed(DownloadError)
        /// The file was complete but failed validation; its bytes were discarded.
        case invalid(DownloadError)
        /// The downloader stopped the attempt (see the handle's stop reason).
        case stopped
        /// The delegate held the finished file back before the move
        /// (``DownloaderDelegate/download(_:willMoveTo:)`` threw this): the download pauses with
        /// its file whole in staging.
        case held(DownloadError)
        /// A segment saw another version of the remote file (or was answered with the whole
        /// file): every connection was stopped; the download starts over from zero, or fails once
        /// it restarted the retry policy's `maxRetries` times (``changedFileError(_:restarts:)``).
        case restart(RestartReason)

        /// A few words for a debug log (error messages never hold a secret).
        var summary: String {
            switch self {
            case .completed(let file, _): "completed at \(file.path)"
            case .failed(let error): "failed (\(error.code)): \(error.messages.joined(separator: ": "))"
            case .invalid(let error): "invalid (\(error.code)): \(error.messages.joined(separator: ": "))"
            case .stopped: "stopped"
            case .held(let error): "held back before the move (\(error.code)): \(error.messages.joined(separator: ": "))"
            case .restart(let reason): "restarts from zero (\(reason))"
            }
        }
    }

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
        guard carryOut(e.lifecycle.slotFreed(activeCount: running.count + 1), on: &e, events: &events, now: now).startAttempt else {
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
        let context = AttemptContext(
            id: id, url: e.currentURL, secretsOrigin: e.originOfSecrets, partPath: e.partPath, destination: e.destination, options: e.options,
            suggestedFileName: e.suggestedFileName, takenNames: takenNames(besides: e),
            stagingSuffix: configuration.stagingSuffix, bytesOnDisk: e.continuationOffset, validator: e.validator, expectedLength: e.expectedLength,
            attempt: e.attempts, capabilities: transport.capabilities,
            synchronize: configuration.synchronizesFiles, roomCheck: roomCheck(for: e),
            bandwidth: transport.capabilities.contains(.rateLimit) ? rateBudget(for: e) : nil,
            segments: e.segments, seam: segmentable ? segmentSeam(for: id, handle: handle) : nil,
            segmentThreshold: configuration.segmentThreshold, minimumSegmentSize: configuration.minimumSegmentSize,
            downloadsDirectory: configuration.downloadsDirectory.path
        )
        entries[id] = e
        scheduler.started(id)
        persist(e, flush: nil, events: events)
        let delegate = self.delegate
        let task = Task.detached { [weak self] in
            let outcome = await Downloader.runAttempt(context, handle: handle, transport: transport, delegate: delegate)
            await self?.attemptEnded(id, handle: handle, outcome: outcome)
        }
        handle.task.withLock { $0 = task }
        ensureTicking()
    }

    /// One attempt, away from the actor: options, staging file, transfer, validation, move.
    ///
    /// Three stages in three functions on purpose: an async function's frame lives until it
    /// returns, so keeping the preparation's and the validation's locals out of the function that
    /// waits on the transfer keeps what each of a thousand slow downloads pins small.
    static func runAttempt(
        _ ctx: AttemptContext, handle: AttemptHandle, transport: any Transport, delegate: (any DownloaderDelegate)?
    ) async -> AttemptOutcome {
        let prepared: (TransferSink, TransferRequest)
        var options = ctx.options.transfer
        if let delegate { options = await delegate.customizeTransfer(options, id: ctx.id, url: ctx.url) }
        // A mirror of another origin never gets the secrets given for the first URL's.
        if !ctx.isFirstOrigin { options.headers.removeAll(where: \.isSensitive) }
        applyRateBudget(ctx, options: &options)
        if let seam = ctx.seam,
           segmentsFit(ctx.segments, validator: ctx.validator, length: ctx.expectedLength, partPath: ctx.partPath) {
            if handle.stopReason.withLock({ $0 }) != nil { return .stopped }
            let result = await runSegments(ctx, handle: handle, transport: transport, delegate: delegate, options: options,
                                           seam: seam, primary: nil)
            if case .finished(let outcome) = result { return outcome }
            return .failed(DownloadError(.invalidState, "segments ended without an outcome"))
        }
        do {
            guard let ready = try prepareAttempt(ctx, options: options, handle: handle, delegate: delegate) else {
                return .stopped
            }
            prepared = ready
        } catch {
            if handle.stopReason.withLock({ $0 }) != nil { return .stopped }
            return .failed(DownloadError.wrapping(error))
        }
        let sink = prepared.0
        do {
            if let seam = ctx.seam {
                let result = await runSegments(ctx, handle: handle, transport: transport, delegate: delegate, options: options,
                                               seam: seam, primary: prepared)
                switch result {
                case .finished(let outcome): return outcome
                case .single(let error?): throw error
                case .single(nil): break
                }
            } else {
                try await transport.transfer(prepared.1, into: sink)
            }
        } catch {
            sink.seal()  // nothing of this attempt is written from here on
            sink.releaseReservation()
            if handle.stopReason.withLock({ $0 }) != nil { return .stopped }
            let failure = DownloadError.wrapping(error)
            // Larger than allowed: its bytes are discarded, never retried (DownloadOptions.maxFileSize).
            return failure.code == .maxFileSizeExceeded ? .invalid(failure) : .failed(failure)
        }
        sink.seal()
        let outcome = await finishAttempt(ctx, sink: sink, handle: handle, delegate: delegate)
        if case .completed = outcome {} else { sink.releaseReservation() }
        return outcome
    }

    /// Staging directory, offset, sink and request of an attempt; `nil` when it was stopped
    /// meanwhile. Synchronous, so its locals live on the thread's stack, not in the task's.
    private static func prepareAttempt(
        _ ctx: AttemptContext, options: TransferOptions, handle: AttemptHandle, delegate: (any DownloaderDelegate)?
    ) throws -> (TransferSink, TransferRequest)? {
        try DestinationParents.prepare(directory: DownloadPaths.directory(of: ctx.partPath), below: ctx.downloadsDirectory)
        var offset = ctx.capabilities.contains(.resume) ? ctx.bytesOnDisk : 0
        // Never resume without a strong validator from a transport that has them: the remote file
        // could have changed and its bytes would be spliced onto old ones.
        if offset > 0, ctx.capabilities.contains(.validators), !(ctx.validator?.isStrong ?? false) { offset = 0 }
        // Only a resume looks at the file (a first attempt costs no stat): never past its end.
        if offset > 0 { offset = min(offset, FileValidation.size(ofFileAt: ctx.partPath) ?? 0) }
        // An attempt stopped (or abandoned) meanwhile must not open the file another may own now.
        if handle.stopReason.withLock({ $0 }) != nil { return nil }
        let id = ctx.id
        let expectedSize = ctx.options.expectedSize
        let roomCheck = ctx.roomCheck, requested = offset
        let sink = try TransferSink(path: ctx.partPath, requestedOffset: offset, startsWriteback: ctx.synchronize,
                                    pacing: ctx.bandwidth) { head in
            try Downloader.checkHead(head, id: id, expectedSize: expectedSize, delegate: delegate)
            try roomCheck?.check(head, requestedOffset: requested)
        }
        offset = sink.requestedOffset  // 0 when the staging file could not be continued safely
        sink.limitLength(to: ctx.options.maxFileSize)
        handle.sink.withLock { $0 = sink }
        if handle.stopReason.withLock({ $0 }) != nil {
            sink.seal()
            return nil
        }
        let request = TransferRequest(
            downloadID: id, url: ctx.url, offset: offset, validator: offset > 0 ? ctx.validator : nil,
            expectedLength: offset > 0 ? ctx.expectedLength ?? expectedSize : nil, options: options, attempt: ctx.attempt,
            authenticate: authenticator(handle: handle, id: id, delegate: delegate)
        )
        return (sink, request)
    }

    /// How an attempt's requests answer challenges: through the delegate, counted in the handle
    /// (the idle timeout does not run meanwhile).
    static func authenticator(
        handle: AttemptHandle, id: String, delegate: (any DownloaderDelegate)?
    ) -> @Sendable (AuthChallenge) async -> AuthDisposition {
        { challenge in
            handle.challengesInFlight.add(1, ordering: .relaxed)
            defer { handle.challengesInFlight.subtract(1, ordering: .relaxed) }
            return await delegate?.download(id, didReceive: challenge) ?? .performDefaultHandling
        }
    }

    /// After a transfer returned: length, validation, flush and the move to the destination.
    ///
    /// With `segmentedLength` (several connections wrote the file) the file's size on disk is
    /// what must equal the announced length.
    static func finishAttempt(
        _ ctx: AttemptContext, sink: TransferSink, handle: AttemptHandle, delegate: (any DownloaderDelegate)?,
        segmentedLength: Int64? = nil
    ) async -> AttemptOutcome {
        do {
            if handle.stopReason.withLock({ $0 }) != nil { return .stopped }
            guard let head = sink.head else {
                return .failed(DownloadError(.protocolViolation, "the transport finished without reporting a head"))
            }
            let length = segmentedLength == nil ? sink.fileLength : sink.sizeOnDisk ?? -1
            if let total = head.expectedLength, length != total {
                return .failed(DownloadError(.protocolViolation,
                                             "the transfer ended after \(length) of \(total) bytes", isRetryable: true))
            }
            var checks: CompletionChecks = head.expectedLength == nil ? [] : .announcedLength
            if ctx.options.expectedSize != nil { checks.insert(.expectedSize) }
            if ctx.options.sha256 != nil { checks.insert(.sha256) }
            if head.announcedSHA256 != nil { checks.insert(.serverDigest) }
            if let error = await validate(ctx, sink: sink, delegate: delegate) {
                if handle.stopReason.withLock({ $0 }) != nil { return .stopped }
                StagingFile.remove(ctx.partPath)
                return .invalid(error)
            }
            if handle.stopReason.withLock({ $0 }) != nil { return .stopped }
            let final: URL
            if ctx.synchronize {
                // Flush (through the sink's descriptor), move, flush the directory: on a thread of
                // its own, so that concurrent completions flush together and the cooperative pool
                // keeps running. With a delegate, its last word comes between the flush and the
                // move (one more hop), so that nothing slow separates its answer from the rename.
                if delegate != nil { try await BlockingFileWork.shared.run { try sink.synchronize() } }
                if let held = await askBeforeMove(ctx, delegate: delegate, handle: handle) { return held }
                final = try await BlockingFileWork.shared.run {
                    if delegate == nil { try sink.synchronize() }
                    return try moveIntoPlace(ctx, head: head, sink: sink, handle: handle, synchronize: true)
                }
            } else {
                if let held = await askBeforeMove(ctx, delegate: delegate, handle: handle) { return held }
                final = try moveIntoPlace(ctx, head: head, sink: sink, handle: handle, synchronize: false)
            }
            return .completed(final, checks)
        } catch {
            if handle.stopReason.withLock({ $0 }) != nil { return .stopped }
            return .failed(DownloadError.wrapping(error))
        }
    }

    /// The delegate's last word before the move (``DownloaderDelegate/download(_:willMoveTo:)``):
    /// `nil` to move on; ``AttemptOutcome/held(_:)`` with the error it threw (the download then
    /// pauses, unless the downloader stops the attempt for another reason before it books the end:
    /// that reason wins); ``AttemptOutcome/stopped`` when it was stopped meanwhile.
    private static func askBeforeMove(
        _ ctx: AttemptContext, delegate: (any DownloaderDelegate)?, handle: AttemptHandle
    ) async -> AttemptOutcome? {
        guard let delegate else { return nil }
        do {
            try await delegate.download(ctx.id, willMoveTo: ctx.destination)
        } catch {
            if handle.stopReason.withLock({ $0 }) != nil { return .stopped }
            return .held(DownloadError.wrapping(error))
        }
        return handle.stopReason.withLock({ $0 }) != nil ? .stopped : nil
    }

    /// Moves the staging file to its destination, after checking that the attempt was not stopped
    /// meanwhile (a flush can outlast ``Downloader/stopTimeout``, and an abandoned attempt must
    /// not complete behind the downloader's back) and that its name still names the file the sink
    /// wrote and validation read (same device and inode): a file put in its place meanwhile is
    /// never moved into place. With ``DownloadOptions/usesSuggestedFileName`` the name is chosen
    /// here, and never replaces a file (``moveToServerName(_:head:synchronize:)``). Returns where
    /// the file went.
    private static func moveIntoPlace(
        _ ctx: AttemptContext, head: TransferHead, sink: TransferSink, handle: AttemptHandle, synchronize: Bool
    ) throws -> URL {
        let part = ctx.partPath, destination = ctx.destination.path
        if handle.stopReason.withLock({ $0 }) != nil {
            throw DownloadError(.cancelled, "the attempt was stopped before its file was moved into place")
        }
        guard sink.isNamed(by: part) else {
            throw DownloadError(.validationFailed,
                                "the staging file \(part) was replaced after it was written; the file put there is not moved to \(destination)")
        }
        // Checked again: a directory swapped for a link while the file downloaded is not followed.
        try DestinationParents.prepare(directory: DownloadPaths.directory(of: destination), below: ctx.downloadsDirectory,
                                       making: false)
        if ctx.options.usesSuggestedFileName { return try moveToServerName(ctx, head: head, synchronize: synchronize) }
        try FileValidation.moveAtomically(from: part, to: destination, synchronize: synchronize)
        return ctx.destination
    }

    /// The head check the sink runs before the first body byte: status (delegate or 2xx) and size.
    /// The conformance suite runs the same check (no delegate, no expected size).
    package static func checkHead(_ head: TransferHead, id: String, expectedSize: Int64?, delegate: (any DownloaderDelegate)?) throws {
        try checkStatus(head, id: id, delegate: delegate)
        try checkSize(head, expectedSize: expectedSize)
    }

    /// The size part of ``checkHead(_:id:expectedSize:delegate:)``: the length the head
    /// announces must be `expectedSize`, when both are known.
    static func checkSize(_ head: TransferHead, expectedSize: Int64?) throws {
        if let want = expectedSize, let total = head.expectedLength, want != total {
            throw DownloadError(.validationFailed, "the server announced \(total) bytes but \(want) were expected")
        }
    }

    /// The status part of ``checkHead(_:id:expectedSize:delegate:)``: a head that is not
    /// ``ResumeDisposition/complete`` must carry a status the delegate (or, without one, 2xx)
    /// accepts; otherwise the status's error (429 and 503 transient, with their `Retry-After`).
    static func checkStatus(_ head: TransferHead, id: String, delegate: (any DownloaderDelegate)?) throws {
        guard head.disposition != .complete else { return }
        let status = head.statusCode
        guard !(delegate?.isValidStatus(status, id: id) ?? acceptsByDefault(status)) else { return }
        let code = status ?? 0
        throw DownloadError.forStatus(code, retryAfter: head.retryAfter)
            ?? DownloadError(.badStatus, "the status \(code) was not accepted", statusCode: code)
    }

    /// The status check without a delegate (and ``DownloaderDelegate``'s default): 2xx, or no
    /// status at all (protocols without one).
    static func acceptsByDefault(_ status: Int?) -> Bool {
        status.map { (200..<300).contains($0) } ?? true
    }

    /// Size, SHA-256 (the caller's ``DownloadOptions/sha256`` and the server's digest,
    /// ``TransferHead/announcedSHA256``, from one reading) and delegate checks of a finished
    /// staging file; `nil` when it passes. Size
    /// and hash are read through the sink's own descriptor (`fstat`, `pread`), so they are the
    /// checks of the file the sink wrote, whatever its name points to now.
    static func validate(_ ctx: AttemptContext, sink: TransferSink, delegate: (any DownloaderDelegate)?) async -> DownloadError? {
        if let want = ctx.options.expectedSize {
            guard let length = sink.sizeOnDisk else {
                return DownloadError(.fileSystem, "cannot read the size of the staging file \(ctx.partPath)")
            }
            if want != length {
                return DownloadError(.validationFailed, "the file has \(length) bytes but \(want) were expected")
            }
        }
        let want = ctx.options.sha256?.lowercased(), announced = sink.head?.announcedSHA256
        if want != nil || announced != nil {
            do {
                let got = try await BlockingFileWork.shared.run { try sink.sha256() }
                if let want, got != want {
                    return DownloadError(.validationFailed, "the SHA-256 of the file is \(got) but \(want) was expected")
                }
                if let announced, got != announced {
                    return DownloadError(.validationFailed,
                                         "the SHA-256 of the file is \(got) but the server announced \(announced) (its digest header)")
                }
            } catch {
                return DownloadError.wrapping(error)
            }
        }
        if let delegate, await !delegate.validateFile(at: URL(fileURLWithPath: ctx.partPath), id: ctx.id) {
            return DownloadError(.validationFailed, "the delegate rejected the downloaded file")
        }
        return nil
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
        var events: [DownloadEvent] = []
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
            let last = running.isEmpty && queue.isEmpty
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
                queue.push(id: id, priority: e.options.priority, order: e.queueOrder)
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
                queue.push(id: id, priority: e.options.priority, order: e.queueOrder)
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
        persist(e, flush: flush, events: events + [.activityCountChanged(running.count)])
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
