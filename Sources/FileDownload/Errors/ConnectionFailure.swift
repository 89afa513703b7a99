/// What a failed connection (``DownloadError/Code/connectionFailed``) says about the way to the
/// server, when the transport can tell. The ``Downloader`` decides with it whether the network
/// is down (the download waits, ``WaitReason/waitingForNetwork``, using no retry) or the server
/// is (the failure counts against the retry budget, then the download fails); the rule is
/// ``FailurePolicy``'s table.
public enum ConnectionFailure: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The server's host answered and refused the connection (`ECONNREFUSED`): the way to it
    /// works, nothing listens on the port. The server is down, not the network.
    case refused
    /// No way to the host: the machine has no route to it (`ENETUNREACH`, `EHOSTUNREACH`,
    /// `ENETDOWN`, `EHOSTDOWN`: no route, the link is down). The download waits for the network.
    case unreachable
    /// The connection (or the name lookup before it) was not answered within the connect
    /// timeout, although the machine has a route to the host: a host that is off or drops the
    /// packets, or a slow resolver. Counts against the retries.
    case timedOut
    /// The host name could not be resolved: the name does not exist, or the name servers
    /// cannot be reached.
    case nameNotResolved

    public var description: String { rawValue }
}
