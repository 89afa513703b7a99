import FileDownload
import Foundation

/// One attempt the suite made through a fresh staging file, and what it left behind.
struct ConformanceAttempt {
    /// The staging file.
    var path: String
    var sink: TransferSink
    /// What the transfer threw, if it did.
    var error: (any Error)?
    /// The staging file's bytes after the transfer returned.
    var file: Data

    var head: TransferHead? { sink.head }
    var downloadError: DownloadError? { error as? DownloadError }

    /// Creates the staging file `conformance-<name>` in `directory` holding `existing`, and a sink
    /// that continues after those bytes (up to `end`, when the attempt asks for a range). The sink refuses a status outside 2xx as the downloader's
    /// default `DownloaderDelegate.isValidStatus(_:id:)` does (`DownloadError.forStatus(_:retryAfter:)`),
    /// except for a head that reports the file `ResumeDisposition.complete` (an HTTP 416 whose
    /// `Content-Range` proves it), which the downloader accepts too; then it calls `onHead`.
    /// Unless `acceptsRestart`, it then refuses a head that restarts from zero with
    /// ``restartRefused``, as the sink of one segment of a file does.
    static func prepare(
        _ name: String, in directory: URL, existing: Data, end: Int64? = nil, acceptsRestart: Bool = true,
        onHead: @escaping @Sendable (TransferHead) -> Void = { _ in }
    ) throws -> (path: String, sink: TransferSink) {
        let path = directory.appendingPathComponent("conformance-\(name)").path
        try existing.write(to: URL(fileURLWithPath: path))
        let sink = try TransferSink(path: path, requestedOffset: Int64(existing.count), end: end) { head in
            try Downloader.checkHead(head, id: name, expectedSize: nil, delegate: nil)
            onHead(head)
            if !acceptsRestart, head.disposition.isRestart { throw restartRefused }
        }
        return (path, sink)
    }

    /// What a sink that does not accept a restart throws from `begin`.
    static let restartRefused = DownloadError(
        .validationFailed, "conformance: this sink takes only the range asked for, not the whole resource from zero",
        isRetryable: false)

    /// Reads the staging file as it is now.
    static func contents(of path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path))
    }
}
