public import Foundation

/// Something that happened to a download, in the order it happened.
///
/// ## Order guarantees
/// For one download: every transition is announced by ``stateChanged(id:state:)`` first, followed at
/// once by the event that describes it when there is one (``paused(id:resumeData:)``,
/// ``interrupted(id:error:retryIn:)``, ``completed(id:file:)``, ``failed(id:error:resumeData:)``,
/// ``cancelled(id:)``). ``progress(id:_:)`` events come only while the download is downloading,
/// at most one per ``DownloaderConfiguration/progressInterval``, with non-decreasing
/// ``DownloadProgress/receivedBytes`` (a ``restarted(id:reason:)`` event starts the count anew),
/// never above the expected size. When an attempt ends, a last progress event fires if the bytes
/// changed since the previous one; on completion that event always fires and reports the whole
/// file. After ``completed(id:file:)`` or ``cancelled(id:)`` nothing more is said of that id
/// until ``removed(id:)``, when the download is forgotten.
///
/// ``totalProgress(_:)`` comes at most once per ``DownloaderConfiguration/progressInterval``, when
/// the total changed; and when the last download that runs or waits completes, its total (100 %
/// when every size is known) comes at once, between that download's final progress event and its
/// ``stateChanged(id:state:)``. ``Downloader/outcome(of:)`` returns after the events of the
/// outcome it reports.
///
/// The cases that carry resume data or an error are `indirect` (boxed), so that the frequent
/// ones (states and progress) stay small in event buffers: an event takes about 80 bytes, not 450.
public enum DownloadEvent: Sendable {
    case stateChanged(id: String, state: DownloadState)
    case progress(id: String, DownloadProgress)
    case totalProgress(TotalProgress)
    /// The bytes on disk were discarded and the download starts from zero.
    case restarted(id: String, reason: RestartReason)
    /// A paused, interrupted or failed download was asked to continue (HWIFileDownload's
    /// "resume requested"); ``stateChanged(id:state:)`` to waiting or downloading follows.
    case resumed(id: String)
    indirect case paused(id: String, resumeData: ResumeData?)
    /// A retryable failure; `retryIn` is the delay before the automatic retry, `nil` when none will
    /// happen (retries exhausted lead to ``failed(id:error:resumeData:)`` instead).
    indirect case interrupted(id: String, error: DownloadError, retryIn: Duration?)
    case completed(id: String, file: URL)
    indirect case failed(id: String, error: DownloadError, resumeData: ResumeData?)
    case cancelled(id: String)
    /// An interrupted download waits for the world to change (free space, the network) instead
    /// of a retry at a time; it comes right after ``interrupted(id:error:retryIn:)`` (whose
    /// `retryIn` is `nil`) or, when a download cannot even start, after
    /// ``stateChanged(id:state:)`` to interrupted. The download continues by itself (waiting,
    /// then downloading) when the reason is gone; it is not an outcome.
    case onHold(id: String, reason: WaitReason)
    /// The download needs a fresh URL: the server refused its URL after the download began, or
    /// the URL expires soon (``URLRefreshReason``). The delegate is asked next
    /// (``DownloaderDelegate/freshURL(forID:current:reason:)``); a process without one (the
    /// agent's clients) can answer with ``Downloader/updateURL(id:to:expiresAt:)``. For a refusal
    /// it follows the `onHold(refreshingURL)` of the interruption.
    case needsFreshURL(id: String, reason: URLRefreshReason)
    /// The download fetches `url` (without credentials) from now on: the delegate gave a fresh
    /// URL, or ``Downloader/updateURL(id:to:expiresAt:)`` was called. The bytes on disk continue
    /// when the new URL serves the same resource (the transport's validator check, as for a
    /// resume); otherwise a ``restarted(id:reason:)`` follows.
    case urlChanged(id: String, url: URL)
    /// The download was forgotten (``Downloader/remove(_:)``), in memory and in the store: its
    /// id may be used again by a new download. The last event of that id, after the store
    /// forgot it; nothing describes its state any more.
    case removed(id: String)
    /// The number of downloads with an attempt running changed (HWIFileDownload's network
    /// activity indicator count).
    case activityCountChanged(Int)

    /// The download the event is about, if it is about one.
    public var id: String? {
        switch self {
        case .stateChanged(let id, _), .progress(let id, _), .restarted(let id, _), .paused(let id, _), .resumed(let id),
             .interrupted(let id, _, _), .completed(let id, _), .failed(let id, _, _), .cancelled(let id),
             .onHold(let id, _), .needsFreshURL(let id, _), .urlChanged(let id, _), .removed(let id):
            id
        case .totalProgress, .activityCountChanged:
            nil
        }
    }
}
