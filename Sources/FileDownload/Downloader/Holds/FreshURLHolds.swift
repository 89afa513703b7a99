/// The part of the ``Downloader`` that asks for fresh URLs, with the state it owns: the
/// downloads whose URL expires (``DownloadOptions/urlExpiresAt``), looked at on every tick. It
/// decides when an expiring URL is asked for again, when a hold for a fresh URL has waited long
/// enough, and whether a refusal may ask once more (``Refusals``); the question in flight is
/// data of the download's ``DownloadLifecycle`` (``DownloadLifecycle/freshURLRequest``). The
/// Downloader asks the delegate and carries the answers out. No I/O, no clock: times come as
/// arguments.
struct FreshURLHolds: Sendable {
    /// How many fresh URLs a download asks for after refusals in a row without a byte gained in
    /// between: a delegate that keeps giving URLs the server refuses cannot make a loop.
    static let refreshesWithoutBytes = 3

    /// The fresh URLs one download asked for after refusals since its bytes last grew, and its
    /// bytes then.
    struct Refusals: Sendable, Equatable {
        private(set) var inARow = 0
        private(set) var bytesAtLast: Int64 = 0

        /// A refusal with `bytesOnDisk` on disk: whether a fresh URL may be asked for (not a
        /// fourth time in a row without a byte gained); counts the question when it may.
        mutating func mayAsk(bytesOnDisk: Int64) -> Bool {
            if bytesOnDisk > bytesAtLast { inARow = 0 }
            guard inARow < FreshURLHolds.refreshesWithoutBytes else { return false }
            inARow += 1
            bytesAtLast = bytesOnDisk
            return true
        }
    }

    /// The downloads whose URL expires.
    private(set) var expiring: Set<String> = []

    /// Looks at the expiry of `id`'s URL on every tick from now on.
    mutating func watchExpiry(of id: String) {
        expiring.insert(id)
    }

    /// No longer looks at `id` (its URL does not expire, or it finished).
    mutating func forget(_ id: String) {
        expiring.remove(id)
    }

    /// Whether a URL that expires at `expiry`, having lived `lifetime` from when that was set,
    /// is asked for again at `now`: within `lead` of the expiry or in the last quarter of its
    /// life, whichever is shorter.
    static func asksBeforeExpiry(_ expiry: Duration, lifetime: Duration?, lead: Duration, now: Duration) -> Bool {
        now >= expiry - min(lead, (lifetime ?? .zero) / 4)
    }

    /// Whether a hold for a fresh URL since `since` has waited `timeout` at `now`
    /// (``DownloaderConfiguration/freshURLTimeout``): the download goes on without one.
    static func isOverdue(since: Duration?, now: Duration, timeout: Duration) -> Bool {
        since.map { now - $0 >= timeout } ?? false
    }
}
