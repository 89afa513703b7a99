import Foundation

/// How an attempt ended (``Attempt/run()``); the downloader books it
/// (``Downloader/attemptEnded(_:handle:outcome:)``).
enum AttemptOutcome: Sendable {
    /// The file was validated (by the checks given) and moved to its destination.
    case completed(URL, CompletionChecks)
    /// The transfer or the validation failed.
    case failed(DownloadError)
    /// The file was complete but failed validation; its bytes were discarded.
    case invalid(DownloadError)
    /// The downloader stopped the attempt (see the handle's stop reason).
    case stopped
    /// The delegate held the finished file back before the move
    /// (``DownloaderDelegate/download(_:willMoveTo:)`` threw this): the download pauses with
    /// its file whole in staging.
    case held(DownloadError)
    /// A segment saw another version of the remote file (or was answered with the whole
    /// file): every connection was stopped; the download starts over from zero, or fails once
    /// it restarted the retry policy's `maxRetries` times (``Downloader/changedFileError(_:restarts:)``).
    case restart(RestartReason)

    /// A few words for a debug log (error messages never hold a secret).
    var summary: String {
        switch self {
        case .completed(let file, _): "completed at \(file.path)"
        case .failed(let error): "failed (\(error.code)): \(error.messages.joined(separator: ": "))"
        case .invalid(let error): "invalid (\(error.code)): \(error.messages.joined(separator: ": "))"
        case .stopped: "stopped"
        case .held(let error): "held back before the move (\(error.code)): \(error.messages.joined(separator: ": "))"
        case .restart(let reason): "restarts from zero (\(reason))"
        }
    }
}
