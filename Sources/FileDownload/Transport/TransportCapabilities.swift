/// What a ``Transport`` can do. The downloader adapts to what is missing: without
/// ``resume`` every retry starts from zero; without ``validators`` a resumed file cannot be checked
/// for a change on the server.
public struct TransportCapabilities: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Can start at an offset above zero.
    public static let resume = TransportCapabilities(rawValue: 1 << 0)
    /// Reports a validator that changes when the remote file changes, and honours it on resume.
    public static let validators = TransportCapabilities(rawValue: 1 << 1)
    /// Asks ``TransferRequest/authenticate(_:)`` for credentials.
    public static let authentication = TransportCapabilities(rawValue: 1 << 2)
    /// Waits ``TransferWriter/pacingDelay`` before reading more: the writer carries the download's own
    /// limit (``TransferOptions/maxBytesPerSecond``, one budget for all the download's
    /// connections) and the downloader's overall one (``Downloader/setBandwidthLimit(_:)``). The
    /// ``Downloader`` gives such a transport no `maxBytesPerSecond` (it would cap each connection by
    /// the whole limit); used on its own, with a writer without a limiter, the transport may honour
    /// ``TransferOptions/maxBytesPerSecond`` per transfer itself.
    public static let rateLimit = TransportCapabilities(rawValue: 1 << 3)
    /// Sends ``TransferOptions/headers``.
    public static let customHeaders = TransportCapabilities(rawValue: 1 << 4)
    /// Reports the total length in the head when the server says it.
    public static let expectedLength = TransportCapabilities(rawValue: 1 << 5)
    /// Honours ``TransferRequest/end``: delivers the byte range `offset ..< end` as the
    /// ``Transport`` documentation's "Ranges" section says. The downloader never sends an end to
    /// a transport without it (such a transport downloads every file over one connection).
    public static let ranges = TransportCapabilities(rawValue: 1 << 6)
}
