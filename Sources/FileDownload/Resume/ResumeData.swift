public import Foundation

/// What it takes to continue a download later, in this process or another: produced on pause and
/// on failures that keep their bytes, consumed by ``Downloader/start(id:resumeData:)-(_,ResumeData)``.
///
/// It is versioned JSON (``encoded()``). It holds no secret: the URL has no password and sensitive
/// header fields are left out. The offset to resume from is never taken from it blindly: the
/// downloader resumes from the smaller of ``bytesOnDisk`` and the staging file's real length,
/// and from zero when the staging file is gone. A download fetched over several connections also
/// carries its ``segments``: they are continued, each from its own bytes, when the staging file
/// holds every byte they say is done, the validator is strong and the length is known; otherwise
/// the download continues one stream from ``bytesOnDisk`` (their contiguous prefix).
public struct ResumeData: Sendable, Hashable, Codable {
    /// The format version this library writes.
    public static let currentVersion = 1

    public var version: Int
    public var id: String
    public var url: URL
    public var destination: URL
    public var partPath: String
    /// Bytes on disk from the start on, without a gap, when the resume data was made: where one
    /// stream continues (for segments, their contiguous prefix).
    public var bytesOnDisk: Int64
    public var validator: Validator?
    public var expectedLength: Int64?
    public var options: DownloadOptions
    /// The segments of a download fetched over several connections, each with its own bytes on
    /// disk; empty for one stream (and in resume data written before segments existed).
    public var segments: [SegmentCheckpoint]

    public init(id: String, url: URL, destination: URL, partPath: String, bytesOnDisk: Int64,
                validator: Validator?, expectedLength: Int64?, options: DownloadOptions,
                segments: [SegmentCheckpoint] = []) {
        self.version = Self.currentVersion
        self.id = id
        self.url = url.removingCredentials
        self.destination = destination
        self.partPath = partPath
        self.bytesOnDisk = bytesOnDisk
        self.validator = validator
        self.expectedLength = expectedLength
        self.options = options.withoutSecrets
        self.segments = segments
    }

    private enum CodingKeys: String, CodingKey {
        case version, id, url, destination, partPath, bytesOnDisk, validator, expectedLength, options, segments
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decode(Int.self, forKey: .version)
        id = try c.decode(String.self, forKey: .id)
        url = try c.decode(URL.self, forKey: .url)
        destination = try c.decode(URL.self, forKey: .destination)
        partPath = try c.decode(String.self, forKey: .partPath)
        bytesOnDisk = try c.decode(Int64.self, forKey: .bytesOnDisk)
        validator = try c.decodeIfPresent(Validator.self, forKey: .validator)
        expectedLength = try c.decodeIfPresent(Int64.self, forKey: .expectedLength)
        options = try c.decode(DownloadOptions.self, forKey: .options)
        segments = try c.decodeIfPresent([SegmentCheckpoint].self, forKey: .segments) ?? []
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
