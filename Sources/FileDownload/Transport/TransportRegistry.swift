public import Foundation

/// Which ``Transport`` serves which URL scheme: an explicit value handed to the ``Downloader``.
///
/// ```swift
/// var transports = TransportRegistry()
/// transports.register(try HTTPTransport(), for: "http", "https")
/// transports.register(MyTransport(), for: "myproto")
/// ```
/// Schemes are compared case-insensitively. Registering a scheme again replaces its transport.
///
/// A value: ``Downloader/init(configuration:transports:store:delegate:clock:)`` keeps a copy of
/// the registry it is given, so registering or removing a scheme afterwards changes what later
/// downloaders get, never a downloader already made. The transports themselves are objects
/// shared by every copy: a transport registered in two downloaders serves both, and each
/// downloader's ``Downloader/shutdown()`` shuts down every distinct transport of its copy.
public struct TransportRegistry: Sendable {
    private var transports: [String: any Transport] = [:]

    /// An empty registry: no scheme is served until one is registered.
    public init() {}

    /// Serves `schemes` with `transport`, replacing whatever served them before.
    ///
    /// - Parameters:
    ///   - transport: the transport; the registry keeps a reference to it (or a copy of a value
    ///     type).
    ///   - schemes: URL schemes without `:`, such as `"http", "https"`; stored in lower case.
    ///     Nothing is checked: a scheme no URL uses is harmless.
    public mutating func register(_ transport: any Transport, for schemes: String...) {
        register(transport, for: schemes)
    }

    /// Serves `schemes` with `transport`, replacing whatever served them before.
    public mutating func register(_ transport: any Transport, for schemes: [String]) {
        for scheme in schemes { transports[scheme.lowercased()] = transport }
    }

    /// Stops serving `scheme` (compared case-insensitively); nothing happens when it was not
    /// served. The transport is not shut down.
    public mutating func remove(scheme: String) {
        transports[scheme.lowercased()] = nil
    }

    /// The registered schemes, sorted.
    public var schemes: [String] { transports.keys.sorted() }

    /// The transport for `url`'s scheme, as the downloader looks it up when a download is added
    /// and before every attempt.
    ///
    /// - Parameter url: any URL; only its scheme is read.
    /// - Throws: ``DownloadError/Code/invalidURL`` when the URL has no scheme,
    ///   ``DownloadError/Code/unsupportedScheme`` when none is registered for it.
    public func transport(for url: URL) throws -> any Transport {
        guard let scheme = url.scheme?.lowercased(), !scheme.isEmpty else {
            throw DownloadError(.invalidURL, "the URL \(url.redactingPassword) has no scheme")
        }
        guard let transport = transports[scheme] else {
            let known = schemes.isEmpty ? "none" : schemes.joined(separator: ", ")
            throw DownloadError(.unsupportedScheme,
                                "no transport is registered for the scheme '\(scheme)' (registered: \(known))")
        }
        return transport
    }

    /// All distinct transports, for shutdown.
    var allTransports: [any Transport] {
        var seen = Set<ObjectIdentifier>()
        var result: [any Transport] = []
        for t in transports.values {
            if type(of: t) is AnyClass {
                let id = ObjectIdentifier(t as AnyObject)
                if !seen.insert(id).inserted { continue }
            }
            result.append(t)
        }
        return result
    }
}
