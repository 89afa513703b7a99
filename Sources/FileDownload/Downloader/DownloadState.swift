/// Where a download is in its life. The transitions are listed in `docs/states.md`.
public enum DownloadState: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// Known to the downloader (added, or restored) but never started.
    case notStarted
    /// Started, queued behind the concurrency limit. Time spent here counts against no timeout.
    case waiting
    /// An attempt is running (or being set up).
    case downloading
    /// Stopped by the caller; the bytes on disk and resume data are kept.
    case paused
    /// The file is validated and at its destination. Terminal.
    case completed
    /// Stopped by the caller; the partial bytes were discarded. Terminal.
    case cancelled
    /// A transient failure; the bytes are kept, and a retry is scheduled or can be asked for.
    case interrupted
    /// A failure that retrying will not fix, or retries ran out. Terminal for the automatic
    /// machinery, but ``Downloader/resume(_:)`` may try again from the kept bytes.
    case failed

    /// Whether the download will never change state by itself or by ``Downloader/resume(_:)``.
    /// (`failed` is not terminal: it can be resumed.)
    public var isTerminal: Bool { self == .completed || self == .cancelled }

    /// Whether the download occupies or waits for a concurrency slot.
    public var isActive: Bool { self == .waiting || self == .downloading }

    public var description: String { rawValue }
}
