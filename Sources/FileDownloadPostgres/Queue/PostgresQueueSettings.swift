public import Foundation
#if canImport(Glibc)
import Glibc
#endif
import FileDownload

/// Where the shared queue lives and how to log in: made from a `postgres://` URL and a password
/// that comes from elsewhere (never from the URL).
///
/// ```swift
/// let settings = try PostgresQueueSettings(
///     url: URL(string: "postgres://fdl@db.example.org:5432/downloads")!,
///     password: ProcessInfo.processInfo.environment["PGPASSWORD"])
/// ```
///
/// TLS: a server on `localhost`, a loopback IP literal (127.0.0.0/8, `::1`) or a Unix socket is reached without TLS; any other host with
/// TLS whose certificate is verified against the system's roots and the host name
/// (`sslmode=verify-full`, the default). `?sslmode=disable` turns TLS off explicitly for a trusted
/// network; no mode that accepts an unverified certificate exists.
public struct PostgresQueueSettings: Sendable, Hashable, CustomStringConvertible {
    /// How the connection is protected.
    public enum TLSMode: String, Sendable, Hashable {
        /// No TLS (the default only for loopback addresses and Unix sockets).
        case disable
        /// TLS with the certificate verified against the system's roots and the host name.
        case verifyFull = "verify-full"
    }

    /// The server's host name or IP address (ignored for the connection when ``unixSocketPath`` is set).
    public var host: String
    /// The server's TCP port (5432 by default).
    public var port: Int
    /// The PostgreSQL role to log in as.
    public var username: String
    /// The database that holds the queue's tables.
    public var database: String
    /// Never part of `description` or any log line.
    public var password: String?
    /// A Unix socket directory or path (`?host=/path` in the URL), used instead of TCP.
    public var unixSocketPath: String?
    /// Whether the connection uses verified TLS; see the type's description for the default.
    public var tls: TLSMode

    /// Creates settings from parts.
    public init(host: String, port: Int = 5432, username: String, database: String, password: String?,
                unixSocketPath: String? = nil, tls: TLSMode? = nil) {
        self.host = host
        self.port = port
        self.username = username
        self.database = database
        self.password = password
        self.unixSocketPath = unixSocketPath
        self.tls = tls ?? (unixSocketPath != nil || Self.isLoopback(host) ? .disable : .verifyFull)
    }

    /// Reads `postgres://USER@HOST[:PORT]/DATABASE[?sslmode=disable|verify-full]` (also
    /// `postgresql://`). The user defaults to `postgres`, the port to 5432, the database to the user.
    ///
    /// - Throws: `DownloadError` with code `invalidURL` when the URL is not of that form or
    ///   carries a password (the message never repeats the password).
    public init(url: URL, password: String?) throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw Self.invalid("the queue URL must start with postgres:// (got \(url.redactingPassword))")
        }
        if url.password != nil {
            throw Self.invalid("the queue URL \(url.redactingPassword) carries a password; give it in PGPASSWORD or a password file (mode 0600) instead")
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw Self.invalid("cannot read the queue URL \(url.redactingPassword)")
        }
        var mode: TLSMode?
        var socket: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let value = item.value, let parsed = TLSMode(rawValue: value) else {
                    throw Self.invalid("sslmode must be disable or verify-full (got \(item.value ?? ""))")
                }
                mode = parsed
            case "host":
                socket = item.value
            default:
                throw Self.invalid("the queue URL has an unknown parameter '\(item.name)' (known: sslmode, host)")
            }
        }
        let user = (components.user?.removingPercentEncoding).flatMap { $0.isEmpty ? nil : $0 } ?? "postgres"
        let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        guard !path.contains("/") else {
            throw Self.invalid("the queue URL's path must be one database name (got \(path))")
        }
        let host = components.host ?? ""
        guard !host.isEmpty || socket != nil else {
            throw Self.invalid("the queue URL \(url.redactingPassword) names no host")
        }
        self.init(host: host.isEmpty ? "localhost" : host, port: components.port ?? 5432, username: user,
                  database: path.isEmpty ? user : path, password: password, unixSocketPath: socket, tls: mode)
    }

    /// `user@host:port/database`, without the password.
    public var endpoint: String {
        "\(username)@\(unixSocketPath ?? "\(host):\(port)")/\(database)"
    }

    /// ``endpoint``: the password never appears when the settings are printed or logged.
    public var description: String { endpoint }

    /// True only for exactly `localhost`, an IPv4 literal in 127.0.0.0/8 or the IPv6 literal `::1`
    /// (a name such as `127.db.example.com` is not loopback: it is resolved by DNS).
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var v6 = in6_addr()
        var loopback = in6_addr()
        guard inet_pton(AF_INET6, bare, &v6) == 1, inet_pton(AF_INET6, "::1", &loopback) == 1 else { return false }
        return withUnsafeBytes(of: &v6) { a in withUnsafeBytes(of: &loopback) { b in a.elementsEqual(b) } }
    }

    private static func invalid(_ message: String) -> DownloadError {
        DownloadError(.invalidURL, message)
    }
}
