public import Foundation

extension Downloader {
    /// Registers a download without starting it (state ``DownloadState/notStarted``).
    ///
    /// In order: checks the id, the URL, the mirrors, the header fields and the SHA-256 with
    /// ``InputValidation/checkDownload(id:url:options:allowsOpaque:)`` (the rules every front end applies),
    /// checks that the id is unique and the URL's scheme registered, resolves the
    /// destination (the one given, else the configured directory plus the sanitised last path
    /// component of the URL; then the delegate's ``DownloaderDelegate/destination(forID:remoteURL:proposed:)``;
    /// symbolic links already in its directories below the downloads directory resolved, unless
    /// ``DownloaderConfiguration/followsExistingLinks`` is off),
    /// checks that neither the destination nor its staging file (destination plus
    /// ``DownloaderConfiguration/stagingSuffix``) is the destination or the staging file of another
    /// unfinished download (so `x` and `x.part` cannot overwrite each other's files), stores the
    /// download and announces ``DownloadEvent/stateChanged(id:state:)``.
    ///
    /// The download keeps `options` (`nil`: ``DownloadOptions/init(transfer:expectedSize:sha256:priority:retryPolicy:mirrors:usesSuggestedFileName:urlExpiresAt:maxConnections:maxFileSize:keepsRemoteTime:)``
    /// with no argument) resolved with ``DownloadOptions/resolved(with:)``: every transfer option
    /// it leaves unset takes ``DownloaderConfiguration/defaultTransferOptions``'s value.
    ///
    /// **Files already there.** The downloader does not rename around existing files (the front
    /// ends do, before they call this: see `DestinationPolicy`, which keeps a file at the
    /// destination and picks the first free `NAME.1.EXT`, `NAME.2.EXT`, ... unless the user asked
    /// to overwrite). Here, a file at the destination is left alone while the download runs and
    /// is replaced by the finished file when it completes (an atomic `rename`), unless
    /// ``DownloadOptions/usesSuggestedFileName`` is set, which never replaces anything. A file at
    /// the staging name (destination plus ``DownloaderConfiguration/stagingSuffix``) that no
    /// download of this downloader claims is removed when the first attempt starts (it is not
    /// continued: only resume data, ``start(id:resumeData:)-(_,Data)``, continues bytes on disk).
    ///
    /// - Parameters:
    ///   - id: the download's name, unique in this downloader (and its store): not empty, at
    ///     most 256 Unicode scalars, no control character or line break
    ///     (``InputValidation/checkIdentifier(_:)``).
    ///   - url: what to fetch; its scheme must be registered in the ``TransportRegistry`` given at
    ///     init. Credentials in it are used for the transfer and never stored.
    ///   - destination: the file URL the finished file gets; `nil` (default) for
    ///     ``DownloaderConfiguration/downloadsDirectory`` plus the URL's sanitised last path
    ///     component. The delegate may change either.
    ///   - options: per-download settings; `nil` (default) for `DownloadOptions()`. Its transfer
    ///     options are merged with ``DownloaderConfiguration/defaultTransferOptions`` (what it sets
    ///     wins), its ``DownloadOptions/retryPolicy`` (when set) replaces
    ///     ``DownloaderConfiguration/retryPolicy`` for this download.
    /// - Returns: the destination.
    /// - Throws: ``DownloadError`` with code ``DownloadError/Code/invalidIdentifier``,
    ///   ``DownloadError/Code/invalidHeader``, ``DownloadError/Code/invalidChecksum``,
    ///   ``DownloadError/Code/duplicateIdentifier``, ``DownloadError/Code/invalidURL``,
    ///   ``DownloadError/Code/unsupportedScheme`` or ``DownloadError/Code/invalidDestination``.
    ///   Nothing changes when it throws.
    @discardableResult
    public func add(id: String, url: URL, destination: URL? = nil, options: DownloadOptions? = nil) async throws -> URL {
        try checkAccepting()
        try InputValidation.checkDownload(id: id, url: url, options: options, allowsOpaque: true)
        try checkNew(id: id)
        try await checkNotInStore(id: id)
        await loadRememberedHosts()
        _ = try transports.transport(for: url)
        if url.host == nil, url.path.isEmpty {
            throw DownloadError(.invalidURL, "the URL \(url.redactingPassword) names no resource")
        }
        if let destination, !destination.isFileURL {
            throw DownloadError(.invalidDestination, "the destination \(destination) is not a file URL")
        }
        let proposed = destination
            ?? configuration.downloadsDirectory.appending(component: FileNameSanitizer.fileName(for: url),
                                                          directoryHint: .notDirectory)
        let chosen = await delegate?.destination(forID: id, remoteURL: url, proposed: proposed) ?? proposed
        let chosenPath = chosen.path
        guard chosen.isFileURL, !chosenPath.hasSuffix("/") else {
            throw DownloadError(.invalidDestination, "the destination \(chosen) is not a file URL")
        }
        try checkNew(id: id)  // the delegate call and the store let other calls in
        // A plain file URL whose path is standardized already is kept as it is
        // (`standardizedFileURL` costs microseconds, and would give the same URL).
        let kept = chosen.baseURL == nil && chosen.query == nil && chosen.fragment == nil
            && (chosen.host ?? "").isEmpty && DownloadPaths.isStandardized(chosenPath)
        var standardized = kept ? chosen : chosen.standardizedFileURL
        var path = kept ? chosenPath : standardized.path
        if configuration.followsExistingLinks,
           let resolved = DestinationParents.resolvingLinks(in: path, below: downloadsDirectoryPath) {
            path = resolved
            standardized = URL(fileURLWithPath: resolved, isDirectory: false)
        }
        let partPath = path + configuration.stagingSuffix
        if let problem = DownloadPaths.problem(destination: standardized, path: path, partPath: partPath,
                                               stagingSuffix: configuration.stagingSuffix) {
            throw DownloadError(.invalidDestination, problem)
        }
        try checkUnclaimed(destination: path, partPath: partPath)
        try await checkUnclaimedInStore(destination: path, partPath: partPath)
        try checkNew(id: id)  // the store let other calls in
        try checkUnclaimed(destination: path, partPath: partPath)
        var entry = DownloadEntry(
            id: id, url: url, destination: standardized, destinationPath: path, partPath: partPath,
            options: (options ?? DownloadOptions()).resolved(with: configuration),
            lifecycle: DownloadLifecycle(id: id), queueOrder: takeQueueOrder()
        )
        var events: [DownloadEvent] = []
        carryOut(entry.lifecycle.added(), on: &entry, events: &events, now: clock.now())
        entries[id] = entry
        claim(entry)
        persist(entry, flush: nil, events: events)
        return entry.destination
    }

    /// Registers a download and starts it: ``add(id:url:destination:options:)`` then
    /// ``start(id:)``. The call returns once the download is waiting or downloading, not when it
    /// is done; follow it with ``events()``, ``observe(_:)``, the delegate, or wait with
    /// ``outcome(of:)``.
    ///
    /// A file already at the destination is replaced when the download completes, as
    /// ``add(id:url:destination:options:)`` says (a front end that must keep it picks a free name
    /// first with `DestinationPolicy`); nothing is written there before the file is complete and
    /// validated (``DownloadOptions/expectedSize``, ``DownloadOptions/sha256``): the bytes go to
    /// the staging file, which is moved into place at the end.
    ///
    /// Options combine: the download's ``DownloadOptions/transfer`` fields win over
    /// ``DownloaderConfiguration/defaultTransferOptions``; the delegate's
    /// ``DownloaderDelegate/customizeTransfer(_:id:url:)`` sees the merged options before every
    /// attempt; ``DownloadOptions/maxConnections`` is bounded by
    /// ``DownloaderConfiguration/maxConnectionsPerHost``; a download's rate limit
    /// (`TransferOptions.maxBytesPerSecond`) and the overall one (``setBandwidthLimit(_:)``) both
    /// apply, the lower wins.
    ///
    /// - Parameters:
    ///   - id: the download's name, unique in this downloader (see ``add(id:url:destination:options:)``).
    ///   - url: what to fetch, with a registered scheme.
    ///   - destination: the finished file's URL; `nil` (default) for the downloads directory plus
    ///     the URL's file name.
    ///   - options: per-download settings; `nil` (default) for `DownloadOptions()`.
    /// - Returns: the destination the file will have (with
    ///   ``DownloadOptions/usesSuggestedFileName``, the name may change when it completes: see
    ///   ``DownloadOutcome``).
    /// - Throws: what ``add(id:url:destination:options:)`` throws (nothing is stored then), and
    ///   ``DownloadError/Code/invalidState`` after ``shutdown()``. Failures of the transfer itself
    ///   are never thrown here: they arrive as events and as the outcome.
    @discardableResult
    public func start(id: String, url: URL, destination: URL? = nil, options: DownloadOptions? = nil) async throws -> URL {
        let destination = try await add(id: id, url: url, destination: destination, options: options)
        try await start(id: id)
        return destination
    }

    /// Starts a download that was added and not started (or restored as not started).
    ///
    /// - Throws: ``DownloadError/Code/unknownIdentifier``, or ``DownloadError/Code/invalidState``
    ///   when it is not ``DownloadState/notStarted``.
    public func start(id: String) async throws {
        try checkAccepting()
        try await pageIn(id)
        var e = try entry(id)
        var events: [DownloadEvent] = []
        let left = carryOut(e.lifecycle.start(), on: &e, events: &events, now: clock.now())
        if let rejection = left.rejection { throw rejection }
        enqueue(e, events: events)
        schedule()
    }

    /// Continues a download from resume data made by this or another process
    /// (``ResumeData/encoded()``), under the id `id`.
    ///
    /// The bytes to keep are the smaller of the resume data's count and the staging file's real
    /// length; when the staging file is gone the download starts from zero.
    ///
    /// - Throws: ``DownloadError/Code/invalidResumeData`` when `resumeData` cannot be read, its
    ///   destination is not an absolute, standardized file path, or it names a staging file that
    ///   is not its destination's plus ``DownloaderConfiguration/stagingSuffix`` (nothing changes);
    ///   ``DownloadError/Code/invalidDestination`` when another unfinished download claims the
    ///   destination or the staging file (as for ``add(id:url:destination:options:)``);
    ///   ``DownloadError/Code/duplicateIdentifier``, ``DownloadError/Code/unsupportedScheme``.
    public func start(id: String, resumeData: Data) async throws {
        try await start(id: id, resumeData: ResumeData(decoding: resumeData))
    }

    /// Continues a download from decoded resume data. See ``start(id:resumeData:)-(_,Data)``.
    public func start(id: String, resumeData: ResumeData) async throws {
        try checkAccepting()
        try checkNew(id: id)
        try await checkNotInStore(id: id)
        try checkNew(id: id)
        // The staging file must be the destination's, so resume data cannot aim writes elsewhere.
        if let problem = DownloadPaths.problem(destination: resumeData.destination, partPath: resumeData.partPath,
                                               stagingSuffix: configuration.stagingSuffix) {
            throw DownloadError(.invalidResumeData, "the resume data cannot be used: \(problem)")
        }
        _ = try transports.transport(for: resumeData.url)
        try checkUnclaimed(destination: resumeData.destination.path, partPath: resumeData.partPath)
        try await checkUnclaimedInStore(destination: resumeData.destination.path, partPath: resumeData.partPath)
        await loadRememberedHosts()
        try checkNew(id: id)  // the store let other calls in
        try checkUnclaimed(destination: resumeData.destination.path, partPath: resumeData.partPath)
        var entry = DownloadEntry(
            id: id, url: resumeData.url, destination: resumeData.destination, partPath: resumeData.partPath,
            options: resumeData.options.resolved(with: configuration), lifecycle: DownloadLifecycle(id: id),
            queueOrder: takeQueueOrder()
        )
        if RestoreRules.segmentsFit(resumeData.segments, validator: resumeData.validator, length: resumeData.expectedLength,
                            partPath: resumeData.partPath) {
            // Each segment continues from its own bytes.
            entry.segments = resumeData.segments
            entry.bytesOnDisk = resumeData.segments.bytesDone
            entry.validator = resumeData.validator
        } else {
            let onDisk = FileValidation.size(ofFileAt: resumeData.partPath) ?? 0
            entry.bytesOnDisk = min(onDisk, resumeData.bytesOnDisk)
            entry.validator = entry.bytesOnDisk > 0 ? resumeData.validator : nil
        }
        entry.expectedLength = resumeData.expectedLength
        var events: [DownloadEvent] = []
        carryOut(entry.lifecycle.start(), on: &entry, events: &events, now: clock.now())
        entries[id] = entry
        claim(entry)
        enqueue(entry, events: events)
        schedule()
    }

    /// Pauses download `id`, keeping its bytes.
    ///
    /// A downloading download's attempt is cancelled and the call returns when it has stopped
    /// (the transport's cancellation is prompt; one that ignores it is abandoned after
    /// ``stopTimeout`` on the downloader's clock), with the bytes on disk counted in the resume data.
    /// A waiting or interrupted download leaves the queue (or its retry is called off) but keeps its
    /// place: ``resume(_:)`` puts it back in start order. Pausing a paused download changes nothing.
    /// If the download completes before it could be stopped it stays completed and `nil` is
    /// returned. Events: ``DownloadEvent/stateChanged(id:state:)`` then ``DownloadEvent/paused(id:resumeData:)``.
    ///
    /// - Returns: resume data, also usable in another process with ``start(id:resumeData:)-(_,Data)``.
    /// - Throws: ``DownloadError/Code/unknownIdentifier``; ``DownloadError/Code/invalidState`` for a
    ///   download that is not started, completed, cancelled or failed.
    @discardableResult
    public func pause(_ id: String) async throws -> ResumeData? {
        try await pageIn(id)
        var e = try entry(id)
        var events: [DownloadEvent] = []
        let data = e.resumeData()
        let left = carryOut(e.lifecycle.pause(resumeData: data), on: &e, events: &events, now: clock.now())
        if let rejection = left.rejection { throw rejection }
        if let reason = left.stop {
            guard let handle = e.attempt else { return nil }
            await stopAttempt(id, handle, reason)
            guard let after = entries[id], after.state == .paused else { return nil }
            return after.resumeData()
        }
        if !events.isEmpty {
            entries[id] = e
            persist(e, flush: nil, events: events)
        }
        return data
    }

    /// Continues a paused, interrupted or failed download from the bytes on disk: it goes back to
    /// the queue in its original start order (retries count anew). A not-started download starts.
    /// A waiting or downloading download is left alone. Events: ``DownloadEvent/resumed(id:)``,
    /// then ``DownloadEvent/stateChanged(id:state:)``.
    ///
    /// - Throws: ``DownloadError/Code/unknownIdentifier``; ``DownloadError/Code/invalidState`` for a
    ///   completed or cancelled download.
    public func resume(_ id: String) async throws {
        try checkAccepting()
        try await pageIn(id)
        var e = try entry(id)
        var events: [DownloadEvent] = []
        let left = carryOut(e.lifecycle.resume(), on: &e, events: &events, now: clock.now())
        if let rejection = left.rejection { throw rejection }
        guard left.enqueue else { return }  // waiting or downloading: left alone
        enqueue(e, events: events)
        schedule()
    }

    /// Cancels download `id` and discards its partial bytes. The destination is left as it was.
    ///
    /// A downloading download's attempt is stopped first; the call returns when it has (at the
    /// latest ``stopTimeout`` later, on the downloader's clock). Events:
    /// ``DownloadEvent/stateChanged(id:state:)`` then ``DownloadEvent/cancelled(id:)``; nothing more
    /// is said of the id afterwards.
    ///
    /// - Throws: ``DownloadError/Code/unknownIdentifier`` (and nothing changes: no other download
    ///   is touched); ``DownloadError/Code/invalidState`` for a completed or cancelled download.
    public func cancel(_ id: String) async throws {
        try await pageIn(id)
        var e = try entry(id)
        var events: [DownloadEvent] = []
        let left = carryOut(e.lifecycle.cancel(), on: &e, events: &events, now: clock.now())
        if let rejection = left.rejection { throw rejection }
        if let reason = left.stop {
            guard let handle = e.attempt else { return }
            await stopAttempt(id, handle, reason)
            return
        }
        entries[id] = e
        persist(e, flush: nil, events: events)
        updateProgress(of: id)
    }

    /// Forgets download `id` (also in the store), so its id can be used again, and announces it
    /// with ``DownloadEvent/removed(id:)`` once the store has forgotten it. A completed file
    /// stays where it is; the staging file of an unfinished download is deleted (that of a
    /// cancelled one was deleted when it was cancelled, and is not touched: a newer download may
    /// write there now).
    ///
    /// - Throws: ``DownloadError/Code/unknownIdentifier``; ``DownloadError/Code/invalidState`` while
    ///   it is waiting or downloading (pause or cancel it first).
    public func remove(_ id: String) async throws {
        try await remove(id, keepingStagingFile: false)
    }

    /// ``remove(_:)``, and with `keepingStagingFile` the staging file of an unfinished download
    /// stays on disk: for a caller that continues it under another download (a fleet worker that
    /// claims the same queued download again).
    package func remove(_ id: String, keepingStagingFile: Bool) async throws {
        try await pageIn(id)
        let e = try entry(id)
        guard !e.state.isActive else {
            throw DownloadError(.invalidState, "the download '\(id)' is \(e.state); pause or cancel it first")
        }
        retrying.remove(id)
        if !e.state.isTerminal, !keepingStagingFile { discardStagingFile(of: e) }  // cancel deleted it; a newer download may own it now
        entries[id] = nil
        persistence.remove(id)  // the store forgets it, then `removed` is published
        removedFromMemory(id)
        answerWaitersOfRemoved(id)
        refreshRootProgress(force: true)
    }

    // MARK: helpers

    func entry(_ id: String) throws -> DownloadEntry {
        guard let e = entries[id] else {
            throw DownloadError(.unknownIdentifier, "no download has the id '\(id)'")
        }
        return e
    }

    /// Throws ``DownloadError/Code/invalidDestination`` when an unfinished download claims
    /// `destination` or `partPath` (as its destination or its staging file).
    func checkUnclaimed(destination: String, partPath: String) throws {
        for path in [destination, partPath] {
            if let id = claimedPaths[path], let other = entries[id], !other.state.isTerminal {
                throw DownloadError(.invalidDestination,
                                    "the download '\(id)' already writes to \(path) (its destination or its staging file)")
            }
        }
    }

    /// Why the paths of `e` cannot be trusted (see ``DownloadPaths``), or `nil` when they can.
    func pathProblem(of e: DownloadEntry) -> String? {
        DownloadPaths.problem(destination: e.destination, path: e.destinationPath, partPath: e.partPath,
                              stagingSuffix: configuration.stagingSuffix)
    }

    /// Deletes the staging file of `e` (a file or a link, never a directory), unless its paths
    /// fail the check (a refused store record) or another unfinished download claims the staging
    /// file (`e` failed paging in because of it): then nothing is touched.
    func discardStagingFile(of e: DownloadEntry) {
        guard pathProblem(of: e) == nil else { return }
        if let owner = claimedPaths[e.partPath], owner != e.id, let other = entries[owner], !other.state.isTerminal { return }
        StagingFile.remove(e.partPath)
    }

    /// Records that `e` claims its destination and its staging file.
    func claim(_ e: DownloadEntry) {
        claimedPaths[e.destinationPath] = e.id
        claimedPaths[e.partPath] = e.id
    }

    /// Stores the entry (with a store) and publishes `events` after it, in order; then answers
    /// the ``outcome(of:)`` waits the new state settles.
    func persist(_ e: DownloadEntry, flush: TransferSink?, events: [DownloadEvent]) {
        if persistence.save(e, flush: flush, events: events), scheduler.pages.isActive,
           e.state == .completed || e.state == .cancelled {
            scheduler.pages.finished.append(e.id)
        }
        answerWaiters(for: e)
    }

    func checkNew(id: String) throws {
        guard !id.isEmpty else { throw DownloadError(.invalidState, "a download id cannot be empty") }
        if let existing = entries[id] {
            throw DownloadError(.duplicateIdentifier,
                                "a download with the id '\(id)' already exists (\(existing.state)); remove it first to reuse the id")
        }
    }

    func checkAccepting() throws {
        if isShutDown { throw DownloadError(.invalidState, "the downloader was shut down") }
    }

    /// The next queue order; it stays at the largest value instead of overflowing (a stored record
    /// can carry any value), and ties are broken by id.
    func takeQueueOrder() -> Int64 {
        scheduler.takeQueueOrder()
    }

    /// Carries out ``DownloadAction/enqueue`` of a transition of `e` to waiting (outside an
    /// attempt's end): stores `e` with `events` and puts it in the queue (or, paging, leaves it
    /// in the store).
    func enqueue(_ e: DownloadEntry, events: [DownloadEvent]) {
        var e = e
        let id = e.id
        e.waitingSince = nil
        if mayLeaveInStore(e) {
            persist(e, flush: nil, events: events)
            leaveInStore(e)
            return
        }
        armExpiry(&e, now: clock.now())
        entries[id] = e
        scheduler.queue.push(id: id, priority: e.options.priority, order: e.queueOrder)
        persist(e, flush: nil, events: events)
    }

    /// Puts `id` back in the queue when its lifecycle allows (``DownloadLifecycle/requeued()``:
    /// a restored download).
    func requeue(_ id: String) {
        guard var e = entries[id] else { return }
        var events: [DownloadEvent] = []
        guard carryOut(e.lifecycle.requeued(), on: &e, events: &events, now: clock.now()).enqueue else { return }
        enqueue(e, events: events)
    }

    /// Starts waiting downloads while slots are free, in queue order; a download whose origin is
    /// at its connection cap or held (``blockedOrigin(of:now:)``) stays waiting in its place
    /// and the ones behind it may start. It is parked in its origin's list of the queue, so the
    /// next passes skip it, and the whole list, while the origin still cannot open a connection.
    func schedule() {
        guard !isShutDown else { return }
        var pass = scheduler.beginPass(now: clock.now())
        while let id = scheduler.next(in: &pass, slots: configuration.maxConcurrentDownloads, waiting: { id, order in
            self.entries.peek(id) { e in
                guard e.state == .waiting, e.queueOrder == order else { return nil }
                return Scheduler.Candidate(priority: e.options.priority, origin: Self.connectionOrigin(of: e.currentURL))
            } ?? nil
        }) {
            startAttempt(id)
        }
        if scheduler.queue.hasParked { ensureTicking() }
        refillIfLow()
        forgetFinished()
    }

    func makeNativeProgress(id: String) -> Progress {
        let progress = Progress(totalUnitCount: -1)
        progress.isCancellable = true
        progress.isPausable = true
        progress.cancellationHandler = { [weak self] in Task { try? await self?.cancel(id) } }
        progress.pausingHandler = { [weak self] in Task { try? await self?.pause(id) } }
        progress.resumingHandler = { [weak self] in Task { try? await self?.resume(id) } }
        return progress
    }
}
