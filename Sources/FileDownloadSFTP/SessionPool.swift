import FileDownload
import Foundation
import Synchronization

/// Reuses SSH sessions per ``SessionKey`` with a bound on the sessions open per host and port.
///
/// The bound is the configuration's `maxSessionsPerHost`; a transfer of a download fetched in
/// segments (`TransferRequest.connections` above it) raises it for its own checkout to that
/// many, at most ``segmentSessionLimit``, so each segment gets a session of its own.
///
/// `checkout` returns an idle session of the same key, or a new (not yet connected) one while the
/// host is under its bound, or replaces an idle session of another key of that host; otherwise
/// the caller waits, first come first served, until a session is handed back. Waiting is
/// cancellable. Every session handed out is used by one transfer at a time.
final class SessionPool: Sendable {
    private struct Waiter {
        var id: UInt64
        var key: SessionKey
        var continuation: CheckedContinuation<SSHConnection, any Error>
    }

    private struct State {
        var idle: [SessionKey: [SSHConnection]] = [:]
        var open: [SessionKey.Endpoint: Int] = [:]
        var waiters: [SessionKey.Endpoint: [Waiter]] = [:]
        var nextWaiterID: UInt64 = 0
        var generation = 0
        var configuration: SFTPTransport.Configuration
        var connectionsMade = 0
        var peakOpen = 0
        var isShutDown = false
    }

    private let state: Mutex<State>
    /// Sessions being closed on their threads, and who waits for none to be left.
    private let closing = Mutex<(count: Int, waiters: [CheckedContinuation<Void, Never>])>((0, []))

    init(configuration: SFTPTransport.Configuration) {
        state = Mutex(State(configuration: configuration))
    }

    var configuration: SFTPTransport.Configuration {
        state.withLock { $0.configuration }
    }

    /// How many SSH sessions this pool has created (connected or not) since it was made.
    var connectionsMade: Int { state.withLock { $0.connectionsMade } }

    /// The most sessions that were open at once to one host and port since the pool was made.
    var peakOpen: Int { state.withLock { $0.peakOpen } }

    /// Replaces the configuration. When it changes (host key policy, known hosts file,
    /// identities, ...), every idle session is closed and busy ones are closed when handed back:
    /// no transfer runs on a session verified or authenticated under the old rules.
    func update(_ configuration: SFTPTransport.Configuration) {
        let stale: [SSHConnection] = state.withLock { s in
            let old = s.configuration
            s.configuration = configuration
            guard old != configuration else { return [] }
            s.generation += 1
            let all = s.idle.values.flatMap { $0 }
            s.idle = [:]
            for connection in all { s.open[connection.key.endpoint, default: 1] -= 1 }
            return all
        }
        for connection in stale { close(connection) }
    }

    /// The most sessions per host a segmented download's transfers open together, whatever
    /// connections it asks for (each costs the server a process and a key exchange).
    static let segmentSessionLimit = 16

    /// The sessions a checkout for a transfer that may use `connections` connections may find
    /// open to its host before it waits.
    private static func bound(_ s: State, connections: Int) -> Int {
        max(s.configuration.maxSessionsPerHost, min(connections, segmentSessionLimit))
    }

    /// A session for `key`: idle, new, or after a wait. `connections` is what the transfer's
    /// download may use at once (`TransferRequest.connections`): above the configuration's bound
    /// it raises that bound for this checkout (at most ``segmentSessionLimit``).
    func checkout(_ key: SessionKey, connections: Int) async throws -> SSHConnection {
        enum Outcome { case ready(SSHConnection), replace(SSHConnection, SSHConnection), queued, cancelled, shutDown }
        let id: UInt64 = state.withLock { s in s.nextWaiterID += 1; return s.nextWaiterID }
        let knownHosts = currentKnownHostsStamp()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SSHConnection, any Error>) in
                let outcome: Outcome = state.withLock { s in
                    if s.isShutDown { return .shutDown }
                    if let reused = takeIdle(key, knownHosts: knownHosts, &s) { return .ready(reused) }
                    let endpoint = key.endpoint
                    if s.open[endpoint, default: 0] < Self.bound(s, connections: connections) {
                        s.open[endpoint, default: 0] += 1
                        return .ready(makeConnection(key, &s))
                    }
                    if let victimKey = s.idle.first(where: { $0.key.endpoint == endpoint && !$0.value.isEmpty })?.key {
                        let victim = s.idle[victimKey]!.removeFirst()
                        return .replace(victim, makeConnection(key, &s))
                    }
                    // The cancellation flag is set before the handler runs: a waiter queued here
                    // is either removed by the handler or never queued.
                    if Task.isCancelled { return .cancelled }
                    s.waiters[endpoint, default: []].append(Waiter(id: id, key: key, continuation: continuation))
                    return .queued
                }
                switch outcome {
                case .ready(let connection):
                    continuation.resume(returning: connection)
                case .replace(let victim, let connection):
                    close(victim)
                    continuation.resume(returning: connection)
                case .queued:
                    break
                case .cancelled:
                    continuation.resume(throwing: CancellationError())
                case .shutDown:
                    continuation.resume(throwing: DownloadError(.cancelled, "the SFTP transport was shut down"))
                }
            }
        } onCancel: {
            removeWaiter(id, endpoint: key.endpoint)?.continuation.resume(throwing: CancellationError())
        }
    }

    /// A session for `key` only if one is free now (idle, or new under the bound) and nobody
    /// waits for this host; never waits. Used for a second session on one large file.
    func checkoutIfFree(_ key: SessionKey) -> SSHConnection? {
        let knownHosts = currentKnownHostsStamp()
        return state.withLock { s in
            guard !s.isShutDown, s.waiters[key.endpoint, default: []].isEmpty else { return nil }
            if let reused = takeIdle(key, knownHosts: knownHosts, &s) { return reused }
            guard s.open[key.endpoint, default: 0] < s.configuration.maxSessionsPerHost else { return nil }
            s.open[key.endpoint, default: 0] += 1
            return makeConnection(key, &s)
        }
    }

    /// Hands a healthy session back for reuse (or to the first waiter).
    func checkin(_ connection: SSHConnection) {
        connection.lastUsed = .now
        enum Outcome { case none, close, give(Waiter, SSHConnection), closeAndGive(Waiter, SSHConnection) }
        let outcome: Outcome = state.withLock { s in
            let endpoint = connection.key.endpoint
            let stale = connection.generation != s.generation || s.isShutDown
            if var queue = s.waiters[endpoint], !queue.isEmpty {
                let waiter = queue.removeFirst()
                s.waiters[endpoint] = queue
                if !stale && waiter.key == connection.key { return .give(waiter, connection) }
                return .closeAndGive(waiter, makeConnection(waiter.key, &s))
            }
            if stale {
                s.open[endpoint, default: 1] -= 1
                return .close
            }
            s.idle[connection.key, default: []].append(connection)
            return .none
        }
        switch outcome {
        case .none: break
        case .close: close(connection)
        case .give(let waiter, let next): waiter.continuation.resume(returning: next)
        case .closeAndGive(let waiter, let next):
            close(connection)
            waiter.continuation.resume(returning: next)
        }
    }

    /// Closes a broken or abandoned session and lets the first waiter open a new one.
    func discard(_ connection: SSHConnection) {
        close(connection)
        let next: (Waiter, SSHConnection)? = state.withLock { s in
            let endpoint = connection.key.endpoint
            if var queue = s.waiters[endpoint], !queue.isEmpty {
                let waiter = queue.removeFirst()
                s.waiters[endpoint] = queue
                return (waiter, makeConnection(waiter.key, &s))
            }
            s.open[endpoint, default: 1] -= 1
            return nil
        }
        if let (waiter, connection) = next { waiter.continuation.resume(returning: connection) }
    }

    /// Closes every idle session, fails every waiter, waits until every session closed so far
    /// has released libssh2 and its thread, and closes busy sessions when handed back.
    func shutdown() async {
        let (idle, waiters): ([SSHConnection], [Waiter]) = state.withLock { s in
            s.isShutDown = true
            let idle = s.idle.values.flatMap { $0 }
            let waiters = s.waiters.values.flatMap { $0 }
            s.idle = [:]
            s.waiters = [:]
            for connection in idle { s.open[connection.key.endpoint, default: 1] -= 1 }
            return (idle, waiters)
        }
        for connection in idle { close(connection) }
        for waiter in waiters { waiter.continuation.resume(throwing: DownloadError(.cancelled, "the SFTP transport was shut down")) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done: Bool = closing.withLock { c in
                if c.count == 0 { return true }
                c.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Closes `connection` on its thread, counted until it is done.
    private func close(_ connection: SSHConnection) {
        closing.withLock { $0.count += 1 }
        connection.close { [self] in
            let waiters: [CheckedContinuation<Void, Never>] = self.closing.withLock { c in
                c.count -= 1
                guard c.count == 0 else { return [] }
                defer { c.waiters = [] }
                return c.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// The known hosts file as it is now, taken outside the lock. Should the configuration name
    /// another file before the lock is taken, idle sessions are closed by the generation change,
    /// and a session verified under the new file matches this stamp only if both are the same.
    private func currentKnownHostsStamp() -> KnownHosts.Stamp {
        KnownHosts.Stamp(path: configuration.knownHostsFile)
    }

    /// An idle session of `key` that is still good: same configuration generation, verified
    /// against the known hosts file as it is now (`knownHosts`), not idle for too long. Closes
    /// the ones that are not.
    private func takeIdle(_ key: SessionKey, knownHosts: KnownHosts.Stamp, _ s: inout State) -> SSHConnection? {
        let now = ContinuousClock.now
        while var list = s.idle[key], let candidate = list.popLast() {
            s.idle[key] = list
            if candidate.generation == s.generation, candidate.verifiedStamp == knownHosts,
               now - candidate.lastUsed < s.configuration.idleSessionTimeout {
                return candidate
            }
            s.open[key.endpoint, default: 1] -= 1
            close(candidate)
        }
        return nil
    }

    private func makeConnection(_ key: SessionKey, _ s: inout State) -> SSHConnection {
        s.connectionsMade += 1
        s.peakOpen = max(s.peakOpen, s.open[key.endpoint, default: 0])
        return SSHConnection(key: key, configuration: s.configuration, generation: s.generation)
    }

    private func removeWaiter(_ id: UInt64, endpoint: SessionKey.Endpoint) -> Waiter? {
        state.withLock { s in
            guard let index = s.waiters[endpoint]?.firstIndex(where: { $0.id == id }) else { return nil }
            return s.waiters[endpoint]!.remove(at: index)
        }
    }
}
