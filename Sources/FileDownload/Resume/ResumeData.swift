public import Foundation

/// What it takes to continue a download later, in this process or another: produced on pause and
/// on failures that keep their bytes, consumed by ``Downloader/start(id:resumeData:)-(_,ResumeData)``.
///
/// It is versioned JSON (``encoded()``). It holds no secret: the URL has no password and sensitive
/// header fields are left out. The offset to resume from is never taken from it blindly: the
/// downloader resumes from the smaller of ``bytesOnDisk`` and the staging file's real length,
/// and from zero when the staging file is gone.
public struct ResumeData: Sendable, Hashable, Codable {
    /// The format version this library writes.
    public static let currentVersion = 1

    public var version: Int
    public var id: String
    public var url: URL
    public var destination: URL
    public var partPath: String
    /// Bytes on disk when the resume data was made.
    public var bytesOnDisk: Int64
    public var validator: Validator?
    public var expectedLength: Int64?
    public var options: DownloadOptions

    public init(id: String, url: URL, destination: URL, partPath: String, bytesOnDisk: Int64,
                validator: Validator?, expectedLength: Int64?, options: DownloadOptions) {
        self.version = Self.currentVersion
        self.id = id
        self.url = url.removingCredentials
        self.destination = destination
        self.partPath = partPath
        self.bytesOnDisk = bytesOnDisk
        self.validator = validator
        self.expectedLength = expectedLength
        self.options = options.withoutSecrets
    }

    /// The JSON form to keep wherever the caller likes.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding these plain value types cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }

    /// Reads resume data made by ``encoded()``.
    ///
    /// - Throws: ``DownloadError/Code/invalidResumeData`` when `data` is not resume data of a known
    ///   version, or has impossible values (negative offset, empty id, no scheme, a staging path that
    ///   is not absolute).
    public init(decoding data: Data) throws {
        struct VersionOnly: Decodable { var version: Int }
        guard let probe = try? JSONDecoder().decode(VersionOnly.self, from: data) else {
            throw DownloadError(.invalidResumeData, "the resume data is not JSON resume data (\(data.count) bytes)")
        }
        guard probe.version == Self.currentVersion else {
            throw DownloadError(.invalidResumeData,
                                "the resume data has version \(probe.version); this library reads version \(Self.currentVersion)")
        }
        let decoded: ResumeData
        do {
            decoded = try JSONDecoder().decode(ResumeData.self, from: data)
        } catch {
            throw DownloadError(.invalidResumeData, "the resume data is incomplete or malformed: \(error)")
        }
        guard !decoded.id.isEmpty, decoded.bytesOnDisk >= 0, decoded.url.scheme != nil,
              decoded.partPath.hasPrefix("/"), decoded.destination.isFileURL,
              decoded.expectedLength.map({ $0 >= 0 }) ?? true else {
            throw DownloadError(.invalidResumeData, "the resume data holds impossible values")
        }
        self = decoded
    }
}
