/// What identifies one version of a remote file, so that a resumed download can tell whether the
/// bytes on disk still belong to the file on the server.
///
/// HTTP uses an entity tag (strong or weak) or a Last-Modified date; SFTP uses size and mtime.
/// Only a *strong* validator may be used to resume (HTTP `If-Range`); a weak one only tells that
/// the file may be the same.
///
/// Two validators are equal only when their ``contentEncoding`` is equal too: bytes the server
/// sent in one content coding (HTTP `Content-Encoding: gzip`, kept as sent) are never continued
/// with bytes of another coding, even under the same entity tag.
public struct Validator: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The kind of validator: an open set.
    public struct Kind: Hashable, Sendable, RawRepresentable, Codable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// An HTTP entity tag, quoted as the server sent it (`"abc"`, or `W/"abc"` when weak).
        public static let entityTag = Kind(rawValue: "etag")
        /// An HTTP `Last-Modified` date, as the server sent it.
        public static let lastModified = Kind(rawValue: "last-modified")
        /// A remote file's size and modification time (`"<size>:<mtime>"`).
        public static let sizeAndModificationTime = Kind(rawValue: "size-mtime")
        /// Anything else a custom transport uses.
        public static let opaque = Kind(rawValue: "opaque")
    }

    public var kind: Kind
    /// The validator's text, compared byte for byte.
    public var value: String
    /// Whether it changes whenever any byte of the file changes.
    public var isStrong: Bool
    /// The content coding the bytes were sent in and are kept in (HTTP `Content-Encoding`, the
    /// codings other than `identity`, lowercased, in order, joined by `", "`), or `nil` for the
    /// resource's own bytes. Records and resume data written before this field existed decode
    /// with `nil`: those bytes were always identity.
    public var contentEncoding: String?

    public init(kind: Kind, value: String, isStrong: Bool, contentEncoding: String? = nil) {
        self.kind = kind
        self.value = value
        self.isStrong = isStrong
        self.contentEncoding = contentEncoding
    }

    /// This validator with `contentEncoding` as its content coding.
    public func encoded(_ contentEncoding: String?) -> Validator {
        var copy = self
        copy.contentEncoding = contentEncoding
        return copy
    }

    /// An HTTP entity tag as received; weak when it starts with `W/`.
    public static func entityTag(_ tag: String) -> Validator {
        Validator(kind: .entityTag, value: tag, isStrong: !tag.hasPrefix("W/"))
    }

    /// An HTTP Last-Modified date as received (strong enough for `If-Range` per RFC 9110 when the
    /// caller accepts one-second granularity).
    public static func lastModified(_ date: String) -> Validator {
        Validator(kind: .lastModified, value: date, isStrong: true)
    }

    /// A remote file's size and modification time in seconds since the epoch.
    public static func sizeAndModificationTime(size: Int64, mtime: Int64) -> Validator {
        Validator(kind: .sizeAndModificationTime, value: "\(size):\(mtime)", isStrong: true)
    }

    public var description: String {
        "\(kind.rawValue)=\(value)" + (contentEncoding.map { " (\($0))" } ?? "")
    }
}
