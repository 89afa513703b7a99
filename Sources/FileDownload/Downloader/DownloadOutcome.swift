public import Foundation

/// How a download stopped: the answer of ``Downloader/outcome(of:)`` and
/// ``Downloader/outcomes(of:)``.
///
/// A download has an outcome once it is in a state that nothing but the caller will change:
/// ``completed(file:)`` and ``cancelled`` are final; ``paused(resumeData:)``,
/// ``interrupted(_:resumeData:)`` (with no automatic retry due) and ``failed(_:resumeData:)`` last
/// until the caller calls ``Downloader/resume(_:)`` (after which the download may have another
/// outcome). A download that is waiting, downloading, or interrupted with a retry due has none yet.
public enum DownloadOutcome: Sendable, CustomStringConvertible {
    /// The file was validated and moved to `file`, its destination.
    case completed(file: URL)
    /// A failure retrying would not fix, or the retries ran out. `resumeData` is there when bytes
    /// were kept (``Downloader/resume(_:)`` continues from them).
    case failed(DownloadError, resumeData: ResumeData?)
    /// Cancelled; the partial bytes were discarded.
    case cancelled
    /// Paused by the caller; the bytes on disk are kept.
    case paused(resumeData: ResumeData?)
    /// Stopped by a transient failure with no automatic retry due: a full disk, a file larger than
    /// the file system allows, the downloader's ``Downloader/shutdown()``, or a download restored
    /// as interrupted without ``DownloaderConfiguration/resumeInterruptedOnRestore``.
    /// ``Downloader/resume(_:)`` (or ``Downloader/restore()`` in a later process) continues it.
    case interrupted(DownloadError, resumeData: ResumeData?)

    /// The state the download was in when the outcome was taken.
    public var state: DownloadState {
        switch self {
        case .completed: .completed
        case .failed: .failed
        case .cancelled: .cancelled
        case .paused: .paused
        case .interrupted: .interrupted
        }
    }

    /// Whether the file is at its destination.
    public var isCompleted: Bool {
        if case .completed = self { return true }
        return false
    }

    /// The error that stopped the download (failed or interrupted), if any.
    public var error: DownloadError? {
        switch self {
        case .failed(let error, _), .interrupted(let error, _): error
        case .completed, .cancelled, .paused: nil
        }
    }

    public var description: String {
        switch self {
        case .completed(let file): "completed: \(file.path)"
        case .failed(let error, _): "failed: \(error)"
        case .cancelled: "cancelled"
        case .paused: "paused"
        case .interrupted(let error, _): "interrupted: \(error)"
        }
    }
}
