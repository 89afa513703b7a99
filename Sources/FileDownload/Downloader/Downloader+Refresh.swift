public import Foundation

extension Downloader {
    /// Points download `id` at `url` from now on, keeping its bytes when `url` serves the same
    /// resource.
    ///
    /// In order: checks the id and that a transport is registered for the scheme, replaces the
    /// URL the download fetches (its URL, or the mirror it is at), sets when the new URL expires
    /// (`expiresAt`, as ``DownloadOptions/urlExpiresAt``; `nil`: it does not), stores the
    /// download and announces ``DownloadEvent/urlChanged(id:url:)``. Then, by state:
    /// - downloading: the running attempt is stopped and the download goes back to the queue at
    ///   once, in its place (waiting, then downloading at `url`; no retry is used);
    /// - interrupted (a retry due, on hold, or waiting for a fresh URL): it goes back to the
    ///   queue at once;
    /// - not started, waiting, paused, failed: the state stays; the next attempt uses `url`.
    ///
    /// The next attempt continues the bytes on disk only when `url` serves the same resource: the
    /// transport's resume check (the same strong validator under HTTP `If-Range`, or the same size
    /// where the protocol has no validator); otherwise it starts from zero
    /// (``DownloadEvent/restarted(id:reason:)``), never splicing two files. A URL of another
    /// protocol family (HTTP and SFTP) starts from zero. Secret header fields
    /// (``HeaderField/isSensitive``) keep going to the origin they were given for, not to a new
    /// URL of another origin.
    ///
    /// - Throws: ``DownloadError/Code/unknownIdentifier``, ``DownloadError/Code/unsupportedScheme``,
    ///   ``DownloadError/Code/invalidURL`` (no resource named), ``DownloadError/Code/invalidState``
    ///   for a completed or cancelled download. Nothing changes when it throws.
    public func updateURL(id: String, to url: URL, expiresAt: Date? = nil) async throws {
        try checkAccepting()
        try await pageIn(id)
        var e = try entry(id)
        _ = try transports.transport(for: url)
        if url.host == nil, url.path.isEmpty {
            throw DownloadError(.invalidURL, "the URL \(url.redactingPassword) names no resource")
        }
        let transition = e.lifecycle.updateURL()
        if case .reject(let error)? = transition.first { throw error }  // nothing changed
        let now = clock.now()
        var events: [DownloadEvent] = []
        point(&e, at: url, expiry: .at(expiresAt), now: now, events: &events)
        let left = carryOut(transition, on: &e, events: &events, now: now)
        continueAtNewURL(&e, left, events: &events)
    }

    /// How the expiry of a new URL is set.
    enum NewURLExpiry {
        /// At this time (`nil`: never).
        case at(Date?)
        /// As long after now as the replaced URL lived (a fresh URL from the delegate).
        case sameLifetime
    }

    /// Replaces the URL the next attempt of `e` fetches and announces it; the bytes are dropped
    /// when the protocol family changes (validators of one cannot vouch for the other).
    func point(_ e: inout DownloadEntry, at url: URL, expiry: NewURLExpiry, now: Duration, events: inout [DownloadEvent]) {
        let from = e.currentURL
        if e.urlIndex > 0, e.urlIndex <= e.options.mirrors.count {
            e.options.mirrors[e.urlIndex - 1] = url
        } else {
            e.secretsOrigin = e.originOfSecrets  // a fresh URL elsewhere does not get the secrets
            e.url = url
        }
        if Self.protocolFamily(of: from) != Self.protocolFamily(of: url) {
            e.forgetBytes()
            e.expectedLength = nil
        }
        switch expiry {
        case .at(let date):
            e.options.urlExpiresAt = date
            e.urlExpiry = nil
            armExpiry(&e, now: now)
        case .sameLifetime:
            if let lifetime = e.urlLifetime {
                e.urlExpiry = now + lifetime
                freshURLs.watchExpiry(of: e.id)
                e.options.urlExpiresAt = Date().addingTimeInterval(lifetime.seconds)
            }
        }
        e.expiryAsked = false
        events.append(.urlChanged(id: e.id, url: url.removingCredentials))
        logger.debug("download '\(e.id)': now fetches \(url.redactingPassword)")
    }

    /// After ``point(_:at:expiry:now:events:)`` and the carried out transition
    /// (``DownloadLifecycle/updateURL()``), what it `left`: a running attempt stops and the
    /// download goes on at once at the new URL; an interrupted one goes back to the queue; others
    /// stay. Stores the entry and publishes `events`.
    func continueAtNewURL(_ e: inout DownloadEntry, _ left: ActionsLeft, events: inout [DownloadEvent]) {
        let id = e.id
        if left.enqueue {
            enqueue(e, events: events)
            schedule()
            return
        }
        entries[id] = e
        persist(e, flush: nil, events: events)
        if let stop = left.stop, let handle = e.attempt { requestStop(id, handle, stop) }
    }

    /// The longest time until a URL expires that is taken as it is, in seconds (about 31 years).
    static let longestExpiry: Double = 1e9

    /// Sets when `e`'s URL expires on the downloader's clock from ``DownloadOptions/urlExpiresAt``
    /// (once per URL: when the download is first queued, or re-pointed).
    func armExpiry(_ e: inout DownloadEntry, now: Duration) {
        guard e.urlExpiry == nil, let date = e.options.urlExpiresAt else { return }
        // At most ~31 years: an absurd date (a damaged record) means "not soon", and a larger
        // number of seconds would trap when made a Duration.
        let seconds = date.timeIntervalSinceNow
        let left = Duration.seconds(seconds.isNaN ? 0 : min(max(0, seconds), Self.longestExpiry))
        e.urlExpiry = now + left
        e.urlLifetime = left
        freshURLs.watchExpiry(of: e.id)
    }

    /// The hook of ``failure(_:_:now:events:)`` for a refusal (401, 403, 410) after the download
    /// began (bytes or a validator): interrupted on hold (``WaitReason/refreshingURL``), and a
    /// fresh URL is asked for. Not when the download has asked three times in a row without a
    /// byte gained, nor when the caller declined (the answer was `nil`).
    func refreshesURL(_ e: inout DownloadEntry, after error: DownloadError, now: Duration,
                      events: inout [DownloadEvent]) -> Bool {
        guard error.statusCode.map(URLRefreshReason.refreshStatuses.contains) == true,
              !e.declinedRefresh, e.bytesOnDisk > 0 || e.validator != nil else { return false }
        guard e.refusals.mayAsk(bytesOnDisk: e.bytesOnDisk) else { return false }
        hold(&e, .refreshingURL, error: error, now: now, events: &events)  // which asks (DownloadAction.askForFreshURL)
        return true
    }

    /// Announces the question (the lifecycle's ``DownloadLifecycle/freshURLRequest``) and asks
    /// the delegate on a task of its own; the answer comes back to
    /// ``freshURLArrived(_:url:request:error:)``.
    func ask(_ e: DownloadEntry, _ request: DownloadLifecycle.FreshURLRequest, error: DownloadError?,
             events: inout [DownloadEvent]) {
        let id = e.id, current = e.currentURL, reason = request.reason, delegate = self.delegate
        events.append(.needsFreshURL(id: id, reason: reason))
        logger.debug("download '\(id)': asks for a fresh URL (\(reason))")
        Task { [weak self] in
            let url = await delegate?.freshURL(forID: id, current: current, reason: reason)
            await self?.freshURLArrived(id, url: url, request: request, error: error)
        }
    }

    /// The delegate's answer. Ignored when the download moved on meanwhile (paused, cancelled,
    /// re-pointed, asked again). A URL re-points the download (``continueAtNewURL(_:now:events:)``);
    /// `nil` after a refusal fails it as the refusal would have.
    func freshURLArrived(_ id: String, url: URL?, request: DownloadLifecycle.FreshURLRequest, error: DownloadError?) {
        guard var e = entries[id], e.lifecycle.awaitsAnswer(to: request) else { return }
        let now = clock.now()
        var events: [DownloadEvent] = []
        if let url, (try? transports.transport(for: url)) != nil {
            let transition = e.lifecycle.updateURL()
            point(&e, at: url, expiry: .sameLifetime, now: now, events: &events)
            let left = carryOut(transition, on: &e, events: &events, now: now)
            continueAtNewURL(&e, left, events: &events)
            return
        }
        guard let error else { return }  // an expiring URL goes on as it is
        goOnWithoutFreshURL(&e, error, now: now, events: &events)
    }

    /// A download on hold for a fresh URL gets none (the delegate answered `nil`, or not within
    /// ``DownloaderConfiguration/freshURLTimeout``): it goes on as the refusal `error` would
    /// have made it, without asking again; a later answer is ignored.
    func goOnWithoutFreshURL(_ e: inout DownloadEntry, _ error: DownloadError, now: Duration, events: inout [DownloadEvent]) {
        e.lifecycle.freshURLWithheld()
        e.declinedRefresh = true
        failure(&e, error, now: now, events: &events)
        e.declinedRefresh = false
        entries[e.id] = e
        persist(e, flush: nil, events: events)
        schedule()
    }

    /// On every tick: the downloads on hold for a fresh URL that have waited
    /// ``DownloaderConfiguration/freshURLTimeout`` for the delegate go on without one.
    func endOverdueRefreshes(_ held: [DownloadEntry], now: Duration) {
        for var e in held where e.waitReason == .refreshingURL {
            guard FreshURLHolds.isOverdue(since: e.heldAt, now: now, timeout: configuration.freshURLTimeout) else { continue }
            let refusal = e.lastError ?? DownloadError(.transport, "the server refused the URL")
            logger.debug("download '\(e.id)': no fresh URL within \(configuration.freshURLTimeout)")
            var events: [DownloadEvent] = []
            goOnWithoutFreshURL(&e, refusal.adding(context: "no fresh URL came within \(configuration.freshURLTimeout)"),
                                now: now, events: &events)
        }
    }

    /// On every tick: downloads whose URL expires soon ask for a fresh one (once per URL), within
    /// ``DownloaderConfiguration/urlRefreshLead`` of the expiry or in the last quarter of the
    /// URL's life, whichever is shorter. Only downloads that wait or run ask.
    func askForExpiringURLs(now: Duration) {
        for id in freshURLs.expiring {
            guard var e = entries[id], let expiry = e.urlExpiry, !e.state.isTerminal else {
                freshURLs.forget(id)
                continue
            }
            guard !e.expiryAsked, e.state == .downloading || e.state == .waiting,
                  FreshURLHolds.asksBeforeExpiry(expiry, lifetime: e.urlLifetime, lead: configuration.urlRefreshLead,
                                                 now: now) else { continue }
            e.expiryAsked = true
            var events: [DownloadEvent] = []
            carryOut(e.lifecycle.urlExpiresSoon(), on: &e, events: &events, now: now)
            entries[id] = e
            persistence.publish(events)
        }
    }
}
