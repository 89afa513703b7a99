/// The exit codes of `fdl`, documented in `docs/cli.md`: every code a command exits with is
/// one of these (`fdl --help` lists them from here; argument-parser's own usage errors are
/// ``usage``, any other error ``failure``).
///
/// When several apply, the highest-ranked wins: interrupted, then usage, then state, then
/// verification, then partial failure, then stopped by request.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Every download is complete (or was already there); the log and the JSON events tell which
    /// files were verified.
    case success = 0
    /// At least one download failed (network, server, local disk); the others completed.
    /// Failed downloads keep their bytes: run the same command again to retry them.
    case failure = 1
    /// At least one download was cancelled by `fdl cancel` while this command ran; nothing
    /// failed. A download paused by `fdl pause` does not end a run: it waits for `fdl resume`
    /// (Ctrl-C then ends it with ``interrupted``).
    case stopped = 3
    /// The command line was wrong (unknown option, bad value, missing argument). Nothing was
    /// downloaded. The same code as swift-argument-parser's validation failures (`EX_USAGE`).
    case usage = 64
    /// At least one file failed verification (SHA-256 or size): it was discarded, nothing was
    /// written at its destination (`EX_DATAERR`).
    case verificationFailed = 65
    /// The state directory cannot be used: unreadable store, or another `fdl get` holds it (`EX_IOERR`).
    case stateUnavailable = 74
    /// Stopped by SIGINT (Ctrl-C) or SIGTERM; the state was saved: run the same command again to
    /// resume (128 + SIGINT).
    case interrupted = 130

    /// A one-line explanation, for `fdl --help` and docs.
    public var summary: String {
        switch self {
        case .success: "every download completed (or was already there)"
        case .failure: "at least one download failed; the rest completed (re-run to retry)"
        case .stopped: "cancelled by `fdl cancel`; a paused download keeps the run waiting"
        case .usage: "usage error: bad arguments, nothing was downloaded"
        case .verificationFailed: "a file failed SHA-256 or size verification and was discarded"
        case .stateUnavailable: "the state directory is unusable or held by another fdl"
        case .interrupted: "interrupted by Ctrl-C or SIGTERM; re-run the same command to resume"
        }
    }

    /// The exit status for a finished session, from the final states of its downloads.
    ///
    /// - Parameters:
    ///   - outcomes: one final outcome per requested download.
    public static func combining(_ outcomes: [SessionOutcome]) -> ExitStatus {
        if outcomes.contains(.verificationFailed) { return .verificationFailed }
        if outcomes.contains(.failed) { return .failure }
        if outcomes.contains(.stopped) { return .stopped }
        return .success
    }
}
