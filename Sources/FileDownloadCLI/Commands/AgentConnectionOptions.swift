public import ArgumentParser
public import FileDownloadAgent

/// The timeouts and connection caps of `fdl agent`'s listeners (`AgentConnectionLimits`; the
/// numbers and why they are what they are: docs/security.md, "Connections").
public struct AgentConnectionOptions: ParsableArguments {
    @Option(name: .customLong("header-timeout"), help: ArgumentHelp(
        "Close a connection that has not sent a whole request head S seconds after it opened (default 10).", valueName: "S"))
    public var headerTimeout: Double = 10

    @Option(name: .customLong("body-timeout"), help: ArgumentHelp(
        "Close a connection whose request body pauses for S seconds (default 10).", valueName: "S"))
    public var bodyTimeout: Double = 10

    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp(
        "Close a connection that sends no whole request head S seconds after its last answer (default 30).", valueName: "S"))
    public var idleTimeout: Double = 30

    @Option(name: .customLong("max-socket-connections"), help: ArgumentHelp(
        "Connections open at once on the Unix socket, kept out of the TCP budget (default 512).", valueName: "N"))
    public var socketConnections: Int = 512

    @Option(name: .customLong("max-tcp-connections"), help: ArgumentHelp(
        "With --tcp: connections open at once on TCP (default: the descriptor limit minus the socket's and 256 more, at most 1024).",
        valueName: "N"))
    public var tcpConnections: Int?

    @Option(name: .customLong("max-tcp-connections-per-peer"), help: ArgumentHelp(
        "With --tcp: connections one local user (else one address) may have open on TCP (default 16).", valueName: "N"))
    public var tcpConnectionsPerPeer: Int = 16

    public init() {}

    /// The seconds the three timeouts accept: one millisecond to an hour.
    static let timeoutRange = 0.001...3600.0
    /// The connections the caps accept.
    static let connectionsRange = 1...1_000_000

    public func validate() throws {
        _ = try limits()
    }

    /// The limits these options give.
    public func limits() throws -> AgentConnectionLimits {
        var limits = AgentConnectionLimits()
        limits.headerTimeout = try GetCommand.duration(headerTimeout, option: "--header-timeout", range: Self.timeoutRange)
        limits.bodyTimeout = try GetCommand.duration(bodyTimeout, option: "--body-timeout", range: Self.timeoutRange)
        limits.idleTimeout = try GetCommand.duration(idleTimeout, option: "--idle-timeout", range: Self.timeoutRange)
        for (name, value) in [("--max-socket-connections", socketConnections), ("--max-tcp-connections", tcpConnections ?? 1),
                              ("--max-tcp-connections-per-peer", tcpConnectionsPerPeer)] where !Self.connectionsRange.contains(value) {
            throw ValidationError("\(name) must be between 1 and \(Self.connectionsRange.upperBound), not \(value)")
        }
        limits.socketConnections = socketConnections
        limits.socketConnectionsPerPeer = socketConnections
        limits.tcpConnections = tcpConnections
        limits.tcpConnectionsPerPeer = tcpConnectionsPerPeer
        return limits
    }
}
