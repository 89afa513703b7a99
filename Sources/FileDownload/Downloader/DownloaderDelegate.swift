public import Foundation

/// Receives a ``Downloader``'s notifications and answers its questions. Every method has a default
/// implementation; implement only what you need.
///
/// This is the counterpart of HWIFileDownload's `HWIFileDownloadDelegate`:
///
/// | HWIFileDownloadDelegate | here |
/// |---|---|
/// | `downloadDidComplete(withIdentifier:localFileURL:)` | ``downloadDidComplete(id:file:)`` |
/// | `downloadFailed(withIdentifier:error:errorMessagesStack:resumeData:)` | ``downloadDidFail(id:error:resumeData:)`` (the stack is ``DownloadError/messages``) |
/// | `increment/decrementNetworkActivityIndicatorActivityCount` | ``activityCountDidChange(_:)`` |
/// | `downloadProgressChanged(forIdentifier:)` | ``downloadProgressDidChange(id:progress:)`` |
/// | `downloadPaused(withIdentifier:resumeData:)` | ``downloadDidPause(id:resumeData:)`` |
/// | `resumeDownload(withIdentifier:)` | ``downloadWillResume(id:)`` |
/// | `localFileURL(forIdentifier:remoteURL:)` | ``destination(forID:remoteURL:proposed:)`` |
/// | `download(atLocalFileURL:isValidForDownloadIdentifier:)` | ``validateFile(at:id:)`` |
/// | `httpStatusCode(_:isValidForDownloadIdentifier:)` | ``isValidStatus(_:id:)`` |
/// | `customizeBackgroundSessionConfiguration` / `urlRequest(forRemoteURL:)` | ``customizeTransfer(_:id:url:)`` |
/// | `onAuthenticationChallenge(_:downloadIdentifier:completionHandler:)` | ``download(_:didReceive:)`` |
/// | `rootProgress` | ``totalProgressDidChange(_:)`` and ``Downloader/rootProgress`` |
///
/// ## When and where methods are called
/// Notifications (`did`/`will` methods) are delivered one at a time, in the order of the
/// downloader's ``DownloadEvent``s (see its order guarantees), on a task of their own: a slow
/// delegate delays later notifications but never a transfer. Questions (`destination`, `validate`,
/// `isValidStatus`, `customizeTransfer`, the auth challenge, `willMoveTo`) are asked by the
/// download that needs the answer, when it needs it; they may run concurrently for different
/// downloads.
/// ``isValidStatus(_:id:)`` is synchronous because it runs on the transport's I/O thread before the
/// first body byte: keep it quick.
public protocol DownloaderDelegate: Sendable {
    /// The file was validated and moved to `file`.
    func downloadDidComplete(id: String, file: URL) async
    /// The download failed for good (or retries ran out). `resumeData` is present when the bytes on
    /// disk were kept and ``Downloader/resume(_:)`` or ``Downloader/start(id:resumeData:)-(_,ResumeData)`` can continue.
    func downloadDidFail(id: String, error: DownloadError, resumeData: ResumeData?) async
    /// A transient failure; a retry follows after `retryIn` unless it is `nil`.
    func downloadWasInterrupted(id: String, error: DownloadError, retryIn: Duration?) async
    /// An interrupted download waits for free space or the network and continues by itself when
    /// the reason is gone (see ``WaitReason``); follows ``downloadWasInterrupted(id:error:retryIn:)``.
    func downloadIsOnHold(id: String, reason: WaitReason) async
    /// The download was paused; `resumeData` continues it later, in this process or another.
    func downloadDidPause(id: String, resumeData: ResumeData?) async
    /// The download was cancelled and its partial bytes discarded.
    func downloadDidCancel(id: String) async
    /// A paused, interrupted or failed download is about to continue.
    func downloadWillResume(id: String) async
    /// Throttled progress of one download.
    func downloadProgressDidChange(id: String, progress: DownloadProgress) async
    /// Throttled progress of all downloads together.
    func totalProgressDidChange(_ progress: TotalProgress) async
    /// The number of running attempts changed.
    func activityCountDidChange(_ count: Int) async
    /// Every state change, before the specific notification above.
    func downloadDidChangeState(id: String, state: DownloadState) async

    /// Where the finished file goes. `proposed` is the destination given to `start`, or the
    /// configured directory plus the sanitised last path component of the URL. Return `proposed`
    /// to keep it. Asked once, when the download is started.
    func destination(forID id: String, remoteURL: URL, proposed: URL) async -> URL
    /// Whether the downloaded bytes (still in the staging file at `file`) are acceptable. Asked
    /// after the size and SHA-256 checks passed and before the file is moved. `false` fails the
    /// download with ``DownloadError/Code/validationFailed`` and discards the bytes.
    func validateFile(at file: URL, id: String) async -> Bool
    /// The last question before a finished file is moved to `destination`: throwing keeps it in
    /// its staging file and pauses the download. Asked after every check (length, SHA-256,
    /// ``validateFile(at:id:)``) passed and after the staging file was flushed (with
    /// ``DownloaderConfiguration/synchronizesFiles``), right before the rename, on the attempt's
    /// task; the download is still ``DownloadState/downloading``, and a pause or cancel meanwhile
    /// wins over the answer. With ``DownloadOptions/usesSuggestedFileName`` `destination` is the
    /// configured one; the server's name is chosen after this call.
    ///
    /// An error thrown pauses the download with its whole file in staging: the usual
    /// ``DownloadEvent/paused(id:resumeData:)``, the error kept as the download's last error
    /// (``DownloadInfo/lastError``), no retry counted. ``Downloader/resume(_:)`` continues it from
    /// the end of the file and asks again: a transport with ``TransportCapabilities/resume`` and a
    /// strong validator fetches nothing again when the remote file did not change (otherwise as
    /// any resume). Meant for a process that must confirm, at the last moment, that it may still
    /// deliver the file (a fleet worker confirms its lease). The default returns at once.
    func download(_ id: String, willMoveTo destination: URL) async throws
    /// Whether a protocol status is acceptable (HTTP). Asked before any body byte is written.
    /// The default accepts 2xx, and `nil` (protocols without a status).
    func isValidStatus(_ status: Int?, id: String) -> Bool
    /// Adjusts the transfer options of an attempt (headers, user agent, timeouts, proxy, rate).
    /// Asked before every attempt; the result is used for that attempt only. On a mirror
    /// (``DownloadOptions/mirrors``) of another origin than the download's first URL
    /// (`URL.origin`), the downloader then removes the secret header fields
    /// (``HeaderField/isSensitive``) from the result, whoever put them there.
    func customizeTransfer(_ options: TransferOptions, id: String, url: URL) async -> TransferOptions
    /// Answers an authentication or trust challenge. The default is
    /// ``AuthDisposition/performDefaultHandling``.
    func download(_ id: String, didReceive challenge: AuthChallenge) async -> AuthDisposition
    /// A fresh URL for a download whose URL expired or soon will (a presigned object-store URL,
    /// a CDN token), or `nil` for none (the default: the download goes on as without this
    /// question). Asked after ``DownloadEvent/needsFreshURL(id:reason:)``, on a task of its own:
    /// - ``URLRefreshReason/refused(statusCode:)``: the server answered 401, 403 or 410 after the
    ///   download began (it had bytes or a validator). The download is interrupted and waits
    ///   (``WaitReason/refreshingURL``) for the answer; with a URL it continues at once, with
    ///   `nil` it fails with the refusal, as it would without a delegate. Asked at most three
    ///   times in a row without a byte gained in between.
    /// - ``URLRefreshReason/expiresSoon``: ``DownloadOptions/urlExpiresAt`` is near (within
    ///   ``DownloaderConfiguration/urlRefreshLead``, or the last quarter of the URL's life). The
    ///   download goes on meanwhile; a URL given makes a running attempt stop and the download
    ///   continue at the new URL at once (no retry is used), `nil` lets it go on. Asked once per
    ///   URL.
    ///
    /// The bytes on disk continue at the new URL only when it serves the same resource: the same
    /// strong validator (HTTP `If-Range`), or the same size for a protocol without validators;
    /// otherwise the download starts again from zero (``DownloadEvent/restarted(id:reason:)``),
    /// never splicing two files. A URL given here expires after as long as the one it replaces
    /// lived (from its ``DownloadOptions/urlExpiresAt`` and when that was set); a URL of a scheme
    /// no transport is registered for is ignored (as `nil`).
    func freshURL(forID id: String, current: URL, reason: URLRefreshReason) async -> URL?
}

extension DownloaderDelegate {
    public func downloadDidComplete(id: String, file: URL) async {}
    public func downloadDidFail(id: String, error: DownloadError, resumeData: ResumeData?) async {}
    public func downloadWasInterrupted(id: String, error: DownloadError, retryIn: Duration?) async {}
    public func downloadDidPause(id: String, resumeData: ResumeData?) async {}
    public func downloadIsOnHold(id: String, reason: WaitReason) async {}
    public func downloadDidCancel(id: String) async {}
    public func downloadWillResume(id: String) async {}
    public func downloadProgressDidChange(id: String, progress: DownloadProgress) async {}
    public func totalProgressDidChange(_ progress: TotalProgress) async {}
    public func activityCountDidChange(_ count: Int) async {}
    public func downloadDidChangeState(id: String, state: DownloadState) async {}
    public func destination(forID id: String, remoteURL: URL, proposed: URL) async -> URL { proposed }
    public func validateFile(at file: URL, id: String) async -> Bool { true }
    public func download(_ id: String, willMoveTo destination: URL) async throws {}
    public func isValidStatus(_ status: Int?, id: String) -> Bool {
        HeadCheck.acceptsByDefault(status)
    }
    public func customizeTransfer(_ options: TransferOptions, id: String, url: URL) async -> TransferOptions { options }
    public func download(_ id: String, didReceive challenge: AuthChallenge) async -> AuthDisposition {
        .performDefaultHandling
    }
    public func freshURL(forID id: String, current: URL, reason: URLRefreshReason) async -> URL? { nil }
}
