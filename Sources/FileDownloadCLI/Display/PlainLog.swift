public import FileDownload

/// The log lines `fdl get` prints when its output is not a terminal: one line per event that
/// matters to a person reading a log, never cursor movement. Pure.
public enum PlainLog {
    /// The line for a downloader event, or `nil` for events that a log leaves out (state changes
    /// that another line already tells, activity counts, totals). Progress lines come from
    /// ``progressLine(id:_:)``, which the caller throttles. `checks` are what confirmed the file
    /// of a `DownloadEvent.completed(id:file:)` event (`DownloadInfo.checks`), told after
    /// its path when known. `pausedAt` is the bytes of a paused download when the event carries
    /// no resume data (an event from the agent's stream): its `DownloadInfo.progress`; otherwise
    /// the resume data's `ResumeData.bytesDone`, the number the display and `fdl list` show.
    public static func line(for event: DownloadEvent, checks: CompletionChecks? = nil, pausedAt: Int64? = nil) -> String? {
        switch event {
        case .stateChanged(let id, let state) where state == .downloading:
            "\(id): downloading"
        case .stateChanged, .progress, .totalProgress, .activityCountChanged:
            nil
        case .restarted(let id, let reason):
            "\(id): restarting from zero (\(reason.explanation))"
        case .resumed(let id):
            "\(id): resuming"
        case .paused(let id, let data):
            (pausedAt ?? data?.bytesDone).map { "\(id): paused at \(Formatting.bytes($0))" } ?? "\(id): paused"
        case .interrupted(let id, let error, let retryIn):
            "\(id): interrupted: \(error.messages.joined(separator: ": "))"
                + (retryIn.map { "; retrying in \(Formatting.eta($0))" } ?? "")
        case .completed(let id, let file):
            "\(id): done -> \(file.path)" + (checks.map { " (\($0.wording))" } ?? "")
        case .failed(let id, let error, _):
            "\(id): FAILED (\(error.code)): \(error.messages.joined(separator: ": "))"
        case .cancelled(let id):
            "\(id): cancelled"
        case .onHold(let id, let reason):
            "\(id): \(reason.words)"
        case .needsFreshURL(let id, .refused(let status)):
            "\(id): the server refused the link (\(status)); asking for a fresh one"
        case .needsFreshURL(let id, .expiresSoon):
            "\(id): the link expires soon; asking for a fresh one"
        case .urlChanged(let id, let url):
            "\(id): continuing at \(url.removingCredentials.absoluteString)"
        case .removed(let id):
            "\(id): forgotten"
        }
    }

    /// A progress line: `big.iso: 41% 8.2 MiB/20.0 MiB 2.0 MiB/s ETA 0:06`.
    public static func progressLine(id: String, _ p: DownloadProgress) -> String {
        let size = p.expectedBytes.map { "/" + Formatting.bytes($0) } ?? ""
        let percent = p.expectedBytes == nil ? "" : Formatting.percent(p.fractionCompleted) + " "
        return "\(id): \(percent)\(Formatting.bytes(p.receivedBytes))\(size) \(Formatting.rate(p.bytesPerSecond))"
            + " ETA \(Formatting.eta(p.estimatedTimeRemaining))"
    }
}
