/// How one download of an `fdl` session ended, as far as the exit status is concerned.
public enum SessionOutcome: String, Sendable, Hashable, Codable {
    /// Completed (verified or not: see `CompletionChecks`), or already complete at
    /// the destination.
    case completed
    /// Failed for a reason other than verification.
    case failed
    /// Downloaded but rejected by SHA-256 or size verification.
    case verificationFailed
    /// Paused or cancelled on request.
    case stopped
}

extension SessionOutcome {
    /// Whether the download failed, by verification or otherwise: what the summary and the
    /// display count as failed.
    var isFailure: Bool { self == .failed || self == .verificationFailed }
}
