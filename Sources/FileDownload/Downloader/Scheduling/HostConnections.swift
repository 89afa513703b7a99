/// The host governor: how many connections the ``Downloader`` keeps open to each origin
/// (`URL.origin`: scheme, host and port), across all of its downloads. Pure logic on the
/// downloader's clock (``ClockBox``), owned by the actor; see docs/connections.md.
///
/// Per origin it keeps:
/// - the connections open now (``opened(origin:)``, ``closed(origin:)``), never more than the
///   cap: ``DownloaderConfiguration/maxConnectionsPerHost``, or the override for the origin's
///   host (``setCap(_:forHost:)``);
/// - an adaptive *target*, which starts at the count remembered for the origin
///   (``remember(_:)``, from the store, clamped) or ``initialTarget``, within the cap, and
///   doubles, as TCP's slow start
///   does, after a window of at least ``growthWindow`` in which the origin used all of its target
///   and its throughput grew by at least ``scalingEfficiency`` of the connections it added
///   (``record(origin:bytes:now:)``: from 4 to 8 connections, at least 1.5 times the rate). A
///   window that shows less growth settles the target at the count that reached the best rate
///   (backing off when the added connections brought nothing): it stops growing until the origin
///   throttles or goes idle. What the origin is remembered by (``takeLearned()``) is only what was
///   measured: the count of a window that scaled against the last one (not the doubled target it
///   heads for), the count a target settled at, both only while every connection open to the
///   origin is automatic and unlimited (``opened(origin:measured:)``), and a target halved by a
///   throttle when that lowers the remembered count;
/// - a hold: after a throttle (``throttled(origin:retryAfter:now:)``: HTTP 429 or 503, a
///   refused connection, or a lost one shortly after another, ``lost(origin:now:)``) the target
///   is halved (at most once per sample window, so connections refused together count once) and
///   no new connection opens until the server's `Retry-After` has passed (at most ``longestHold``).
///
/// A download's own (first) connection needs only the cap and no hold (``mayOpen(origin:now:)``),
/// so a few downloads to one server start at once as before; once the origin has throttled, the
/// target bounds those too, and grows back by one per ``sampleWindow`` without a throttle in
/// which the origin used all of it (``recover(now:)``), until it is back at the cap. Extra connections of one
/// download (segments) need the target, or only the cap for a download that asked for its
/// number of connections until the origin throttles (``extraAllowed(origin:now:adaptive:)``). An origin with nothing
/// open and no hold for ``idleReset`` is forgotten (``forgetIdle(now:)``): it starts afresh.
struct HostConnections: Sendable {
    /// The target of an origin seen for the first time (or again after ``idleReset``).
    static let initialTarget = 2
    /// How long a throttled origin waits before its target grows back by one, and between two
    /// halvings.
    static let sampleWindow: Duration = .seconds(2)
    /// How long throughput is measured, with an unchanged connection count, before the target may
    /// double: one progress tick at the default 250 ms (a window starts at the first tick after
    /// the count changed, so new connections are past their handshake), short enough that a
    /// transfer of a few seconds grows to its best count.
    static let growthWindow: Duration = .milliseconds(200)
    /// How much of the proportional gain added connections must bring for the target to double
    /// again: with `n` connections more than the last window that grew (which had `b`), the rate
    /// must reach `base × (1 + scalingEfficiency × n / b)`.
    static let scalingEfficiency = 0.5
    /// The longest hold a `Retry-After` can cause.
    static let longestHold: Duration = .seconds(3600)
    /// How long an origin with nothing open and no hold is remembered.
    static let idleReset: Duration = .seconds(60)
    /// A lost connection counts as a throttle only when another one to the origin was lost
    /// within this time before it (one drop is a blip or a clean close, not a server pushing back).
    static let lossWindow: Duration = .seconds(10)

    /// One origin's connections and measurements.
    struct Host: Sendable {
        var open = 0
        var target: Int
        /// After a throttle, until forgotten: the target also bounds first connections.
        var throttled = false
        /// The target stopped growing (a window showed too little growth).
        var settled = false
        /// No new connection before this time.
        var holdUntil: Duration?
        /// When the target was last halved.
        var decreasedAt: Duration?
        /// When the throttled target last grew back by one.
        var recoveredAt: Duration?
        /// The origin used all of its throttled target (or a download waited for it) since the
        /// target last changed: the demand that lets ``recover(now:)`` grow it.
        var saturated = false
        /// When a connection to the origin was last lost (``lost(origin:now:)``).
        var lostAt: Duration?
        /// The last window's connection count and throughput (bytes per second) that grew.
        var baselineConnections = 0
        var baselineRate: Double?
        /// The window being measured: since when, with how many connections, how many bytes.
        var windowStart: Duration?
        var windowConnections = 0
        var windowBytes: Int64 = 0
        /// Since when nothing is open (for ``idleReset``).
        var idleSince: Duration?
        /// Of ``open``, the connections of downloads whose rate says nothing of what the origin
        /// gives (a number of connections asked for, or a rate limit): while any is open, no
        /// window teaches the origin's remembered count.
        var unmeasured = 0

        /// An origin seen for the first time (or again after ``idleReset``), starting at `target`.
        init(target: Int = HostConnections.initialTarget) {
            self.target = max(1, target)
        }
    }

    /// The cap of every origin without an override (at least 1).
    var defaultCap: Int
    /// Caps by lowercased host name (every scheme and port of that host).
    private(set) var overrides: [String: Int] = [:]
    private(set) var hosts: [String: Host] = [:]
    /// The counts remembered per origin (``remember(_:)``, and what this governor learned since):
    /// where an origin seen for the first time starts its target.
    private(set) var remembered: [String: Int] = [:]
    /// Counts learned since the last ``takeLearned()``: for the store.
    private var learned: [String: Int] = [:]
    /// Whether the store's remembered counts were read (``remember(_:)``).
    var loadedMemory = false

    init(cap: Int) {
        defaultCap = max(1, cap)
    }

    /// Adds counts remembered per origin (from the store); an origin already known keeps its
    /// target, a new one starts there (within its cap). Nothing read is trusted: a count below 1
    /// is ignored (the origin starts at ``initialTarget``), one above
    /// ``Downloader/automaticConnections`` counts as that.
    mutating func remember(_ counts: [String: Int]) {
        for (origin, count) in counts where count >= 1 && remembered[origin] == nil {
            remembered[origin] = min(count, Downloader.automaticConnections)
        }
    }

    /// The counts learned since the last call (each origin's latest), for the store to remember.
    mutating func takeLearned() -> [String: Int] {
        guard !learned.isEmpty else { return [:] }  // most ticks: nothing to write back
        defer { learned = [:] }
        return learned
    }

    /// Notes `count` as what `origin` is remembered by, when it changed.
    private mutating func learn(_ count: Int, for origin: String) {
        guard remembered[origin] != count else { return }
        remembered[origin] = count
        learned[origin] = count
    }

    /// The state of `origin`, or that of an origin seen for the first time: its target the
    /// remembered count, else ``initialTarget``, within the origin's cap.
    private func host(_ origin: String) -> Host {
        hosts[origin] ?? Host(target: min(remembered[origin] ?? Self.initialTarget, cap(of: origin)))
    }

    /// The cap of `origin` (`scheme://host:port`).
    func cap(of origin: String) -> Int {
        overrides.isEmpty ? defaultCap : cap(forHost: Self.host(of: origin))
    }

    /// The cap of every origin of `host` (any case).
    func cap(forHost host: String) -> Int {
        overrides[host.lowercased()] ?? defaultCap
    }

    /// Sets (`nil`: removes) the cap of every origin of `host`. Open connections above a lowered
    /// cap stay; no new one opens until the count is below it.
    mutating func setCap(_ cap: Int?, forHost host: String) {
        overrides[host.lowercased()] = cap.map { max(1, $0) }
    }

    /// Whether a connection to `origin` may open now: under the cap (and, after a throttle, under
    /// the target), and not held by a `Retry-After`.
    func mayOpen(origin: String, now: Duration) -> Bool {
        guard let host = hosts[origin] else { return true }
        if let until = host.holdUntil, now < until { return false }
        let ceiling = host.throttled ? min(host.target, cap(of: origin)) : cap(of: origin)
        return host.open < ceiling
    }

    /// How many more connections `origin` takes now for extra connections of one download
    /// (segments): 0 while held; what the adaptive target leaves (`adaptive`: a download with
    /// an automatic number of connections), or, for a download that asked for its number, what
    /// the cap leaves, and the target after a throttle.
    func extraAllowed(origin: String, now: Duration, adaptive: Bool = true) -> Int {
        let host = host(origin)
        if let until = host.holdUntil, now < until { return 0 }
        let ceiling = adaptive || host.throttled ? min(host.target, cap(of: origin)) : cap(of: origin)
        return max(0, ceiling - host.open)
    }

    /// When the hold of `origin` ends, if it is held at `now`.
    func holdEnd(of origin: String, now: Duration) -> Duration? {
        hosts[origin]?.holdUntil.flatMap { $0 > now ? $0 : nil }
    }

    /// Whether any origin is held at `now`.
    func holdsAny(now: Duration) -> Bool {
        hosts.values.contains { ($0.holdUntil ?? .zero) > now }
    }

    /// The connections open to `origin`.
    func openCount(of origin: String) -> Int { hosts[origin]?.open ?? 0 }

    /// The adaptive target of `origin`.
    func target(of origin: String) -> Int { min(host(origin).target, cap(of: origin)) }

    /// A connection to `origin` opens; `measured` `false` for one of a download whose rate says
    /// nothing of what the origin gives (a number of connections asked for, or a rate limit).
    mutating func opened(origin: String, measured: Bool = true) {
        var host = host(origin)
        host.open += 1
        if !measured { host.unmeasured += 1 }
        host.idleSince = nil
        if host.throttled, host.open >= min(host.target, cap(of: origin)) { host.saturated = true }
        hosts[origin] = host
    }

    /// A download waits because `origin` is at its cap or throttled target (not for a hold):
    /// the origin could use more connections.
    mutating func wanted(origin: String) {
        guard hosts[origin]?.throttled == true else { return }
        hosts[origin]?.saturated = true
    }

    /// A connection to `origin` closed (`measured` as it was opened with).
    mutating func closed(origin: String, measured: Bool = true) {
        guard var host = hosts[origin], host.open > 0 else { return }
        host.open -= 1
        if !measured { host.unmeasured = max(0, host.unmeasured - 1) }
        hosts[origin] = host
    }

    /// Counts `bytes` received from `origin` (by any of its connections) by `now`. A window of
    /// ``growthWindow`` with an unchanged connection count ends in a decision: with as many
    /// connections as the target (or more), and more than the last window that grew, the target
    /// doubles (within the cap) when the throughput grew by ``scalingEfficiency`` of the
    /// connections added, and settles otherwise, at the count with the better rate of the two. The
    /// first window measured only sets the base, and doubles. The count of a window that scaled,
    /// and a settled target, are learned (``takeLearned()``) when no connection open to the origin
    /// is unmeasured; a doubled target is not. A change of the connection count
    /// starts a new window.
    mutating func record(origin: String, bytes: Int64, now: Duration) {
        guard var host = hosts[origin], host.open > 0 else { return }
        defer { hosts[origin] = host }
        guard let start = host.windowStart, host.windowConnections == host.open else {
            host.windowStart = now  // the bytes of this sample came before the window
            host.windowConnections = host.open
            host.windowBytes = 0
            return
        }
        host.windowBytes = host.windowBytes.addingSaturating(max(0, bytes))
        let elapsed = now - start
        guard elapsed >= Self.growthWindow else { return }
        let rate = Double(host.windowBytes) / elapsed.seconds
        let n = host.open
        host.windowStart = now
        host.windowBytes = 0
        guard n >= min(host.target, cap(of: origin)), !host.settled else { return }
        // Only a rate of automatic connections alone says what the origin gives.
        let teaches = host.unmeasured == 0
        if let base = host.baselineRate, n > host.baselineConnections {
            let added = Double(n - host.baselineConnections) / Double(max(1, host.baselineConnections))
            guard rate >= base * (1 + Self.scalingEfficiency * added) else {
                // Flat: settle at the count that reached the better rate (back off when the
                // added connections brought nothing), also below where this download started.
                host.settled = true
                let best = rate > base * 1.1 ? n : host.baselineConnections
                host.target = min(max(1, best), cap(of: origin))
                if teaches { learn(host.target, for: origin) }
                return
            }
            // n connections scaled against the base: a count measured to be worth it.
            if teaches { learn(n, for: origin) }
        } else if host.baselineRate != nil {
            // No more connections than the last growth (the cap, or the target shrank): measure anew.
            host.baselineRate = rate
            host.baselineConnections = n
            return
        }
        host.baselineRate = rate
        host.baselineConnections = n
        if host.throttled {
            host.target = min(host.target, cap(of: origin))  // after a throttle, recover() grows it by one
        } else {
            host.target = min(n * 2, cap(of: origin))
        }
        // The doubled target is not remembered: it is unmeasured (and a first window, which only
        // set the base, measured nothing), so a count remembered is never more than a window
        // showed to scale, and the next download's first window cannot ratchet it upward.
    }

    /// A throttle from `origin` (429, 503, a refused connection, repeated losses): halves the target (once
    /// per ``sampleWindow``), makes it bound first connections, starts growth over, and holds new
    /// connections until `retryAfter` (at most ``longestHold``) has passed.
    mutating func throttled(origin: String, retryAfter: Duration?, now: Duration) {
        var host = host(origin)
        if host.decreasedAt.map({ now - $0 >= Self.sampleWindow }) ?? true {
            host.target = max(1, min(max(host.target, host.open), cap(of: origin)) / 2)
            host.decreasedAt = now
            // Remembered when it lowers the remembered count, or for an origin without one when
            // only automatic connections were open: halving the `-x 16` of a download that asked
            // for them, to 8, says nothing of a server remembered at 4 (or not at all).
            if remembered[origin].map({ host.target < $0 }) ?? (host.unmeasured == 0) {
                learn(host.target, for: origin)
            }
        }
        host.throttled = true
        host.saturated = false
        host.settled = false
        host.baselineRate = nil
        host.baselineConnections = 0
        host.windowStart = nil
        if let retryAfter, retryAfter > .zero {
            let until = now + min(retryAfter, Self.longestHold)
            host.holdUntil = max(host.holdUntil ?? until, until)
        }
        if host.open == 0, host.idleSince == nil { host.idleSince = now }
        hosts[origin] = host
    }

    /// A connection to `origin` was lost during a transfer: returns whether that counts as a
    /// throttle, which it does when another connection to it was lost within ``lossWindow``
    /// (the transports cannot tell a reset from a clean close, so one loss alone is a blip).
    mutating func lost(origin: String, now: Duration) -> Bool {
        var host = host(origin)
        defer { hosts[origin] = host }
        let repeated = host.lostAt.map { now - $0 < Self.lossWindow } ?? false
        host.lostAt = now
        if host.open == 0, host.idleSince == nil { host.idleSince = now }
        return repeated
    }

    /// Grows the target of every throttled origin by one when a ``sampleWindow`` has passed
    /// since its last throttle or growth, no hold lasts, and it used all of its target meanwhile
    /// (``saturated``). Back at the cap, the origin is no longer throttled: first connections
    /// need only the cap again.
    mutating func recover(now: Duration) {
        for (origin, host) in hosts where host.throttled && host.saturated {
            if let until = host.holdUntil, until > now { continue }
            let since = max(host.decreasedAt ?? .zero, host.recoveredAt ?? .zero)
            guard now - since >= Self.sampleWindow else { continue }
            var grown = host
            grown.target = min(host.target + 1, cap(of: origin))
            grown.recoveredAt = now
            grown.saturated = false
            if grown.target >= cap(of: origin) { grown.throttled = false }
            hosts[origin] = grown
        }
    }

    /// Forgets origins with nothing open and no hold for ``idleReset``; notes when others went idle.
    mutating func forgetIdle(now: Duration) {
        for (origin, host) in hosts where host.open == 0 {
            if let until = host.holdUntil, until > now { continue }
            if let since = host.idleSince, now - max(since, host.holdUntil ?? since) >= Self.idleReset {
                hosts[origin] = nil
            } else if host.idleSince == nil {
                hosts[origin]?.idleSince = now
            }
        }
    }

    /// The host name of an origin `scheme://host:port`.
    static func host(of origin: String) -> String {
        var rest = Substring(origin)
        if let range = rest.range(of: "://") { rest = rest[range.upperBound...] }
        if let colon = rest.lastIndex(of: ":") { rest = rest[..<colon] }
        return String(rest)
    }
}
