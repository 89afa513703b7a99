public import FileDownload
public import Foundation

/// Matches the URLs of an `fdl get` command against what the state directory remembers, so that
/// running the same command again continues where the last run stopped.
///
/// For each URL, in order:
/// 1. The id is the id of the stored download with the same URL (credentials ignored) and the same
///    destination; else the `names` entry (which replaces a stored download of that name); else the
///    sanitised last path component, made unique with `-2`, `-3`, ... before the extension. The
///    destination is `outputDirectory/id`.
/// 2. When the destination exists and matches the SHA-256 given, or no SHA-256 is given and the
///    stored download completed, the download is already complete.
/// 3. Otherwise, when the stored download has bytes on disk that were checkpointed together with
///    a validator, and its staging file still exists, it resumes from them (the downloader then
///    resumes from the smaller of the checkpoint and the file's real length, and the transport
///    restarts from zero if the remote file changed).
/// 4. Otherwise it starts from zero.
public struct DownloadPlanner: Sendable {
    public var outputDirectory: URL
    /// Reads a file's SHA-256 (lowercase hex); `nil` when it cannot be read.
    public var sha256OfFile: @Sendable (String) -> String?

    public init(outputDirectory: URL, sha256OfFile: @escaping @Sendable (String) -> String? = FileDigest.sha256) {
        self.outputDirectory = outputDirectory.standardizedFileURL
        self.sha256OfFile = sha256OfFile
    }

    /// Plans `urls` against `records` (the state directory's downloads).
    public func plan(urls: [URL], sha256: [String?], names: [String?], records: [DownloadRecord],
                     options: DownloadOptions) -> [PlannedDownload] {
        var taken = Set(records.map(\.id))
        var result: [PlannedDownload] = []
        var seenURLs = Set<String>()
        for (index, url) in urls.enumerated() {
            let key = url.removingCredentials.absoluteString
            guard seenURLs.insert(key).inserted else { continue }
            let digest = index < sha256.count ? sha256[index]?.lowercased() : nil
            let name = index < names.count ? names[index] : nil
            // A stored download continues only if it fetched the same URL into the same place.
            let record = records.first {
                $0.url.absoluteString == key && (name == nil || $0.id == name)
                    && $0.destination.standardizedFileURL == outputDirectory.appendingPathComponent($0.id).standardizedFileURL
            }
            let id: String
            if let record {
                id = record.id
            } else if let name {
                id = FileNameSanitizer.sanitize(name)  // the caller's choice replaces a stored download of that name
            } else {
                id = Self.unique(FileNameSanitizer.sanitize(FileNameSanitizer.fileName(for: url)), taken: taken)
            }
            taken.insert(id)
            let destination = outputDirectory.appendingPathComponent(id)
            var download = PlannedDownload(id: id, url: url, destination: destination, sha256: digest,
                                           resume: nil, alreadyComplete: false)
            let exists = FileManager.default.fileExists(atPath: destination.path)
            if exists, let digest {
                download.alreadyComplete = sha256OfFile(destination.path) == digest
            } else if exists, record?.state == .completed {
                download.alreadyComplete = true
            }
            if !download.alreadyComplete, let record {
                var resumeOptions = options
                resumeOptions.sha256 = digest
                download.resume = Self.resumeData(continuing: record, id: id, url: url, destination: destination,
                                                  options: resumeOptions)
            }
            result.append(download)
        }
        return result
    }

    /// Resume data that continues `record`'s staging file under the given id, URL, destination and
    /// options; `nil` when its bytes cannot be continued (``canContinue(_:)``).
    static func resumeData(
        continuing record: DownloadRecord, id: String, url: URL, destination: URL, options: DownloadOptions
    ) -> ResumeData? {
        guard canContinue(record) else { return nil }
        return ResumeData(id: id, url: url, destination: destination, partPath: record.partPath,
                          bytesOnDisk: record.checkpointedBytes, validator: record.validator,
                          expectedLength: record.expectedLength, options: options)
    }

    /// Whether a stored download's bytes can be continued: not finished, checkpointed with a
    /// validator, and its staging file still there.
    static func canContinue(_ record: DownloadRecord) -> Bool {
        guard record.state != .completed, record.state != .cancelled,
              record.checkpointedBytes > 0, record.validator != nil else { return false }
        return FileManager.default.fileExists(atPath: record.partPath)
    }

    /// `name`, or `name-2`, `name-3`, ... (before the extension) when `name` is taken.
    public static func unique(_ name: String, taken: Set<String>) -> String {
        guard taken.contains(name) else { return name }
        let ext = (name as NSString).pathExtension
        let stem = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
        var n = 2
        while true {
            let candidate = ext.isEmpty ? "\(stem)-\(n)" : "\(stem)-\(n).\(ext)"
            if !taken.contains(candidate) { return candidate }
            n += 1
        }
    }
}
