public import FileDownload
public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Matches the URLs of an `fdl get` command against what the state directory remembers, so that
/// running the same command again continues where the last run stopped, and chooses each
/// download's name so that no file fdl did not download is replaced.
///
/// For each URL, in order, it walks the candidate names: the `names` entry or the sanitised last
/// path component of the URL (`NAME.EXT`), then `NAME.1.EXT`, `NAME.2.EXT`, ...
/// (`DestinationPolicy.candidates(_:)`, the library's rule for existing files: a dot and a number
/// before the extension, as aria2c's `--auto-file-renaming` does). A candidate is skipped when
/// - this run already chose it, or it or its staging name (`NAME.EXT.part`) is the name or the
///   staging name of another download (of this run or of the state): `x` and `x.part` are two
///   files and neither ever writes into the other;
/// - a stored download of another URL has it (unless the caller gave the name: then it replaces
///   that stored download, never continuing its bytes);
/// - something is there (or at its staging name) that fdl did not download: a file the state does
///   not record as completed there with its size. Unless ``allowsOverwrite``.
///
/// The first candidate left is the id and `outputDirectory/id` the destination. Then:
/// 1. the download is already complete when the destination holds a file that matches the
///    SHA-256 given, or, without SHA-256, when the stored download of this URL completed it and the
///    file is still there with the size recorded. A completed download whose file is gone is
///    fetched again under its name.
/// 2. Otherwise, when the stored download of this URL has bytes on disk that were checkpointed
///    together with a validator, and its staging file still exists, it resumes from them (the
///    downloader then resumes from the smaller of the checkpoint and the file's real length, and
///    the transport restarts from zero if the remote file changed).
/// 3. Otherwise it starts from zero.
///
/// The check happens when the run starts: a file that appears at the destination while the run
/// downloads is replaced when the download completes.
///
/// A stored download saved under the server's name (`--content-disposition`) keeps its id (the
/// URL's name) and records the chosen file as its destination: that name is held too, and the
/// download is already complete while that file is there with the size recorded.
public struct DownloadPlanner: Sendable {
    public var outputDirectory: URL
    /// Reads a file's SHA-256 (lowercase hex); `nil` when it cannot be read.
    public var sha256OfFile: @Sendable (String) -> String?
    /// Whether files fdl did not download may be replaced (`--allow-overwrite`).
    public var allowsOverwrite: Bool
    /// What the downloader appends to a destination for its staging file
    /// (`DownloaderConfiguration.stagingSuffix`).
    public var stagingSuffix: String

    public init(outputDirectory: URL, allowsOverwrite: Bool = false, stagingSuffix: String = ".part",
                sha256OfFile: @escaping @Sendable (String) -> String? = FileDigest.sha256) {
        self.outputDirectory = outputDirectory.standardizedFileURL
        self.allowsOverwrite = allowsOverwrite
        self.stagingSuffix = stagingSuffix
        self.sha256OfFile = sha256OfFile
    }

    /// Plans `urls` against `records` (the state directory's downloads).
    public func plan(urls: [URL], sha256: [String?], names: [String?], records: [DownloadRecord],
                     options: DownloadOptions) -> [PlannedDownload] {
        // The stored downloads of this directory by id, and who holds each name and staging name.
        var stored: [String: DownloadRecord] = [:]
        var holders: [String: String] = [:]
        for record in records where isOwnedHere(record) {
            stored[record.id] = record
            holders[record.id] = record.id
            holders[(record.partPath as NSString).lastPathComponent] = record.id
            holders[record.destination.lastPathComponent] = record.id  // a name from the server
        }
        var chosen = Set<String>()
        var result: [PlannedDownload] = []
        var seenURLs = Set<String>()
        for (index, url) in urls.enumerated() {
            let key = url.removingCredentials.absoluteString
            guard seenURLs.insert(key).inserted else { continue }
            let digest = index < sha256.count ? sha256[index]?.lowercased() : nil
            let name = index < names.count ? names[index] : nil
            let base = FileNameSanitizer.sanitize(name ?? FileNameSanitizer.fileName(for: url))
            var download: PlannedDownload?
            var kept: URL?
            for candidate in DestinationPolicy.candidates(base) {
                let held = { (n: String) in holders[n].map { $0 != candidate } ?? false }
                if chosen.contains(candidate) || held(candidate) || held(candidate + stagingSuffix) { continue }
                let record = stored[candidate]
                let sameURL = record?.url.absoluteString == key
                if record != nil, !sameURL, name == nil { continue }  // another URL's download
                guard let planned = decide(candidate, url: url, digest: digest,
                                           record: sameURL ? record : nil, replacing: record, options: options) else {
                    if kept == nil { kept = file(candidate) }
                    continue
                }
                download = planned
                break
            }
            // The walk ends: names are finite only in theory (one of 2^64 is free).
            guard var download else { continue }
            download.keptFile = kept
            chosen.insert(download.id)
            holders[download.id] = download.id
            holders[download.id + stagingSuffix] = download.id
            result.append(download)
        }
        return result
    }

    /// The plan for `url` under `id`, or `nil` when something fdl did not download is at the
    /// destination or its staging name. `record` is the stored download of this URL under `id`;
    /// `replacing` the stored download of any URL under `id` (whose files are fdl's).
    func decide(_ id: String, url: URL, digest: String?, record: DownloadRecord?, replacing: DownloadRecord?,
                options: DownloadOptions) -> PlannedDownload? {
        let destination = file(id)
        var download = PlannedDownload(id: id, url: url, destination: destination, sha256: digest,
                                       resume: nil, alreadyComplete: false)
        if let record, let serverNamed = completedUnderServerName(record, digest: digest) {
            download.destination = serverNamed
            download.alreadyComplete = true
            download.completedRecord = record
            return download
        }
        let size = Self.itemSize(destination.path)
        let ours = replacing.map { $0.state == .completed && size == ($0.expectedLength ?? $0.checkpointedBytes) } ?? false
        if let size, size >= 0, let digest, sha256OfFile(destination.path) == digest {
            download.alreadyComplete = true  // the very bytes asked for: nothing is replaced
            download.completedRecord = ours ? record : nil
            return download
        }
        if size != nil, !ours, !allowsOverwrite { return nil }
        let stagingOwned = replacing.map { $0.partPath == destination.path + stagingSuffix } ?? false
        if !stagingOwned, !allowsOverwrite, Self.itemSize(destination.path + stagingSuffix) != nil { return nil }
        if ours, digest == nil, record != nil {
            download.alreadyComplete = true
            download.completedRecord = record
            return download
        }
        if let record {
            var resumeOptions = options
            resumeOptions.sha256 = digest
            download.resume = Self.resumeData(continuing: record, id: id, url: url, destination: destination,
                                              options: resumeOptions)
        }
        return download
    }

    /// Whether `record` is a download of this directory: its file is `DIR/ID`, or (saved under
    /// the server's name, `--content-disposition`) another file directly in DIR.
    func isOwnedHere(_ record: DownloadRecord) -> Bool {
        let destination = record.destination.standardizedFileURL
        return destination == file(record.id) || destination.deletingLastPathComponent().path == outputDirectory.path
    }

    /// The file a completed download saved under the server's name (not `DIR/ID`), when it is
    /// still there with the size recorded (and the SHA-256 given); `nil` otherwise.
    func completedUnderServerName(_ record: DownloadRecord, digest: String?) -> URL? {
        let saved = record.destination.standardizedFileURL
        guard record.state == .completed, saved != file(record.id),
              let size = Self.itemSize(saved.path), size == (record.expectedLength ?? record.checkpointedBytes) else { return nil }
        if let digest, sha256OfFile(saved.path) != digest { return nil }
        return saved
    }

    func file(_ name: String) -> URL {
        outputDirectory.appendingPathComponent(name).standardizedFileURL
    }

    /// Resume data that continues `record`'s staging file under the given id, URL, destination and
    /// options; `nil` when its bytes cannot be continued (``canContinue(_:)``).
    static func resumeData(
        continuing record: DownloadRecord, id: String, url: URL, destination: URL, options: DownloadOptions
    ) -> ResumeData? {
        guard canContinue(record) else { return nil }
        return ResumeData(id: id, url: url, destination: destination, partPath: record.partPath,
                          // With segments, resume data continues one stream after the bytes from the start on.
                          bytesOnDisk: record.segments.isEmpty ? record.checkpointedBytes : record.segments.contiguousPrefix,
                          validator: record.validator,
                          expectedLength: record.expectedLength, options: options, segments: record.segments)
    }

    /// Whether a stored download's bytes can be continued: not finished, checkpointed with a
    /// validator, and its staging file still there.
    static func canContinue(_ record: DownloadRecord) -> Bool {
        guard record.state != .completed, record.state != .cancelled,
              record.hasBytesToContinue, record.validator != nil else { return false }
        return FileManager.default.fileExists(atPath: record.partPath)
    }

    /// The size of the regular file at `path`; -1 for anything else there (a directory, a
    /// symbolic link: never fdl's); `nil` when nothing is there.
    static func itemSize(_ path: String) -> Int64? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return (st.st_mode & S_IFMT) == S_IFREG ? Int64(st.st_size) : -1
    }
}
