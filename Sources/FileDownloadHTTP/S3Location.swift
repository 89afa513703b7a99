import FileDownload
import Foundation

/// The bucket and key of an `s3://BUCKET/KEY` URL, and the HTTP URL that reads them.
struct S3Location: Sendable, Hashable {
    let bucket: String
    /// The object's key, decoded (`dir/a b.bin`).
    let key: String

    /// Reads `url`.
    ///
    /// - Throws: `DownloadError.Code.invalidURL` (not retryable) when it is not `s3://` with a
    ///   bucket and a key, or the key ends in `/` (a prefix, not an object).
    init(_ url: URL) throws {
        guard url.scheme?.lowercased() == "s3", let bucket = url.host(percentEncoded: false), !bucket.isEmpty else {
            throw DownloadError(.invalidURL, "\(url.redactingPassword) is not an s3://BUCKET/KEY URL", isRetryable: false)
        }
        // Exactly one slash separates the bucket from the key: s3://b//k names the key "/k".
        let path = url.path(percentEncoded: false)
        let key = String(path.hasPrefix("/") ? path.dropFirst() : path[...])
        guard !key.isEmpty, !key.hasSuffix("/") else {
            throw DownloadError(.invalidURL, "\(url.redactingPassword) names no object: give s3://BUCKET/KEY with the key of one object",
                                isRetryable: false)
        }
        self.bucket = bucket
        self.key = key
    }

    /// The HTTP URL of the object at `endpoint` (`nil`: AWS in `region`), in `style`.
    ///
    /// Automatic addressing is virtual-hosted (`https://BUCKET.s3.REGION.amazonaws.com/KEY`) on
    /// AWS when the bucket can be a host name without dots (a dotted name would not match the
    /// wildcard certificate), path style (`ENDPOINT/BUCKET/KEY`) otherwise and at any other
    /// endpoint (MinIO, Ceph, moto and most S3-compatible stores answer it).
    func httpURL(endpoint: URL?, region: String, style: S3Transport.AddressingStyle) throws -> URL {
        guard let base = endpoint ?? URL(string: "https://s3.\(region).amazonaws.com") else {
            throw DownloadError(.invalidURL, "the AWS region '\(region)' does not make a host name", isRetryable: false)
        }
        let virtual = switch style {
        case .virtualHosted: true
        case .path: false
        case .automatic: endpoint == nil && Self.isHostLabel(bucket)
        }
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false), let host = components.host else {
            throw DownloadError(.invalidURL, "the S3 endpoint \(base.redactingPassword) has no host", isRetryable: false)
        }
        let prefix = components.percentEncodedPath.hasSuffix("/") ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        if virtual {
            components.host = "\(bucket).\(host)"
            components.percentEncodedPath = "\(prefix)/\(Self.encoded(key))"
        } else {
            components.percentEncodedPath = "\(prefix)/\(Self.encoded(bucket))/\(Self.encoded(key))"
        }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        guard let url = components.url else {
            throw DownloadError(.invalidURL, "s3://\(bucket)/\(key) cannot be sent to \(base.redactingPassword)", isRetryable: false)
        }
        return url
    }

    /// `text` URI-encoded as SigV4 canonical paths are: every byte but the unreserved
    /// `A-Z a-z 0-9 - . _ ~` and `/` as `%XX`, so that the path libcurl signs is the path the
    /// server signs again.
    static func encoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// Whether `bucket` can be one DNS label: 3-63 lower-case letters, digits and hyphens, not
    /// starting or ending with a hyphen.
    static func isHostLabel(_ bucket: String) -> Bool {
        (3...63).contains(bucket.utf8.count)
            && bucket.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") }
            && bucket.first != "-" && bucket.last != "-"
    }
}
