import FileDownload
import Foundation

/// The parts of an `sftp` URL: where to connect, as whom, and which file.
struct SFTPTarget: Sendable {
    var host: String
    var port: Int
    /// The user named in the URL, percent-decoded.
    var user: String?
    /// The password in the URL, percent-decoded. Kept in memory for this attempt only.
    var password: String?
    /// The remote path as the server should see it: absolute, or relative to the login
    /// directory for `~/...` (as OpenSSH's `sftp` understands it).
    var path: String

    /// - Throws: `DownloadError.Code.invalidURL` for a URL that is not `sftp` or lacks a host
    ///   or a file path.
    init(url: URL) throws {
        guard url.scheme?.lowercased() == "sftp",
              let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw DownloadError(.invalidURL, "\(url.redactingPassword) is not an sftp URL")
        }
        guard let host = components.host, !host.isEmpty else {
            throw DownloadError(.invalidURL, "the URL \(url.redactingPassword) names no host")
        }
        guard let decoded = components.percentEncodedPath.removingPercentEncoding else {
            throw DownloadError(.invalidURL, "the path of \(url.redactingPassword) is not valid percent-encoded UTF-8")
        }
        var path = decoded
        if path == "/~" || path == "/~/" {
            path = ""
        } else if path.hasPrefix("/~/") {
            path.removeFirst(3)
        }
        guard !path.isEmpty, path != "/", !path.hasSuffix("/"), !path.contains("\0") else {
            throw DownloadError(.invalidURL, "the URL \(url.redactingPassword) names no file")
        }
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = components.port ?? 22
        guard (1...65535).contains(self.port) else {
            throw DownloadError(.invalidURL, "the port of \(url.redactingPassword) is out of range")
        }
        self.user = components.percentEncodedUser?.removingPercentEncoding.flatMap { $0.isEmpty ? nil : $0 }
        self.password = components.percentEncodedPassword?.removingPercentEncoding
        self.path = path
    }

    /// `host:port` for messages.
    var endpoint: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
