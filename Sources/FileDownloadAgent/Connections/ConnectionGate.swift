import Logging
import Synchronization

/// The connection caps of one listener: at most `total` connections open at once, and at most
/// `perPeer` of one ``ConnectionPeer``. ``admit(_:)`` is asked once per accepted connection;
/// an admitted one is counted until ``release(_:)``.
///
/// Refusals are logged at most once a minute: the first one at once, the ones after it counted
/// per peer and logged with the next refusal a minute or more later, so a flood of connections
/// costs one log line a minute, not one per connection.
final class ConnectionGate: Sendable {
    let listener: String
    let total: Int
    let perPeer: Int
    private let logger: Logger
    private let reportInterval: Duration
    private let state = Mutex(State())

    private struct State {
        var open = 0
        var byPeer: [ConnectionPeer: Int] = [:]
        /// Refusals not logged yet, per peer, and how many of them were over the total cap.
        var unreported: [ConnectionPeer: Int] = [:]
        var unreportedOverTotal = 0
        var lastReport: ContinuousClock.Instant?
    }

    init(listener: String, total: Int, perPeer: Int, logger: Logger, reportInterval: Duration = .seconds(60)) {
        self.listener = listener
        self.total = total
        self.perPeer = perPeer
        self.logger = logger
        self.reportInterval = reportInterval
    }

    /// Counts a connection of `peer` and returns `true`, or returns `false` (counting the
    /// refusal) when the listener or the peer is at its cap.
    func admit(_ peer: ConnectionPeer) -> Bool {
        let (admitted, report) = state.withLock { state -> (Bool, String?) in
            let ofPeer = state.byPeer[peer, default: 0]
            if state.open < total, ofPeer < perPeer {
                state.open += 1
                state.byPeer[peer] = ofPeer + 1
                return (true, nil)
            }
            state.unreported[peer, default: 0] += 1
            if state.open >= total { state.unreportedOverTotal += 1 }
            let now = ContinuousClock.now
            if let last = state.lastReport, now - last < reportInterval { return (false, nil) }
            let text = Self.describe(state.unreported, overTotal: state.unreportedOverTotal)
            state.unreported.removeAll()
            state.unreportedOverTotal = 0
            state.lastReport = now
            return (false, text)
        }
        if let report {
            logger.warning("\(listener): refused \(report) (caps: \(total) connections, \(perPeer) per peer; further refusals are logged at most once a minute)")
        }
        return admitted
    }

    /// Stops counting a connection that ``admit(_:)`` admitted.
    func release(_ peer: ConnectionPeer) {
        state.withLock { state in
            state.open -= 1
            let left = state.byPeer[peer, default: 1] - 1
            state.byPeer[peer] = left > 0 ? left : nil
        }
    }

    /// Connections counted now.
    var openConnections: Int { state.withLock { $0.open } }

    private static func describe(_ refused: [ConnectionPeer: Int], overTotal: Int) -> String {
        let count = refused.values.reduce(0, +)
        let peers = refused.sorted { $0.value > $1.value }.prefix(5).map { "\($0.value) from \($0.key)" }.joined(separator: ", ")
        let more = refused.count > 5 ? " and \(refused.count - 5) more peers" : ""
        let total = overTotal > 0 ? ", \(overTotal) of them over the total cap" : ""
        return "\(count) connection\(count == 1 ? "" : "s") (\(peers)\(more)\(total))"
    }
}
