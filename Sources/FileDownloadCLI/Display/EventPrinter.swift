import FileDownload
import Foundation

/// Prints what happens during `fdl get` in the chosen ``OutputMode``. Owned and called by one
/// session (not thread-safe by itself).
///
/// - terminal: log lines (done, failed, restarted, ...) scroll above a live frame that
///   ``redraw(_:)`` replaces in place;
/// - plain: log lines, and progress lines at most once per `plainProgressInterval` per download;
/// - json: one ``JSONEventLine`` per event.
final class EventPrinter {
    let mode: OutputMode
    /// `-q`: print only failures (and their hints), to standard error.
    var quiet = false
    /// Whether `--user` or a netrc file gave credentials: the hint after a 401 differs.
    var hasCredentials = false
    private var frameLines = 0
    private var lastProgressLine: [String: ContinuousClock.Instant] = [:]
    private let plainProgressInterval: Duration = .seconds(1)
    private let clock = ContinuousClock()
    private let size: () -> (columns: Int, lines: Int)
    private var frameClosed = false

    init(mode: OutputMode, size: @escaping () -> (columns: Int, lines: Int) = { Terminal.size }) {
        self.mode = mode
        self.size = size
    }

    /// Reports a downloader event, with a hint when the error has an obvious remedy. `checks`
    /// are what confirmed the file of a completed event, `pausedAt` the bytes of a paused one
    /// whose event has no resume data (see ``PlainLog/line(for:checks:pausedAt:)``).
    func print(_ event: DownloadEvent, checks: CompletionChecks? = nil, pausedAt: Int64? = nil) {
        if quiet {
            guard case .failed(let id, let error, _) = event else { return }
            Terminal.writeError(PlainLog.line(for: event) ?? "")
            if let hint = Self.hint(for: error, hasCredentials: hasCredentials) { Terminal.writeError("\(id): \(hint)") }
            return
        }
        printEvent(event, checks: checks, pausedAt: pausedAt)
        if case .failed(let id, let error, _) = event, let hint = Self.hint(for: error, hasCredentials: hasCredentials) {
            log("\(id): \(hint)")
        }
    }

    /// What a person can do about `error`, when `fdl` knows.
    static func hint(for error: DownloadError, hasCredentials: Bool = false) -> String? {
        switch error.code {
        case .authenticationFailed: AuthenticationHint.hint(for: error, hasCredentials: hasCredentials)
        case .hostKeyUnknown: "to trust this host on first use and record its key, pass --accept-new-host-keys"
        case .tlsFailure:
            "the server's certificate was not verified: to trust a private CA give --cacert FILE (or --capath DIR, "
                + "or set SSL_CERT_FILE); -k/--insecure skips verification (unsafe, for tests)"
        case .maxFileSizeExceeded: "the file is larger than --max-filesize allows; raise the limit to download it"
        case .redirectRefused: "to follow redirects from https to http, pass --insecure-allow-http-downgrade"
        case .validationFailed: "the file was discarded; check the --sha256 value or the source"
        case .resourceTimedOut: "the time of --max-time ran out; the bytes are kept: run the same command (fdl get -c URL) to continue"
        case .networkUnavailable:
            "the bytes are kept: run the same command (fdl get -c URL) to continue once the network is back, "
                + "or pass --max-network-wait S to wait longer"
        default: nil
        }
    }

    private func printEvent(_ event: DownloadEvent, checks: CompletionChecks?, pausedAt: Int64?) {
        switch mode {
        case .json:
            guard var line = JSONEventLine(event) else { return }
            line.verified = checks?.confirmsFile
            line.verifiedBy = checks?.digestName
            emit(line)
        case .plain:
            if case .progress(let id, let p) = event {
                let now = clock.now
                if let last = lastProgressLine[id], now - last < plainProgressInterval { return }
                lastProgressLine[id] = now
                log(PlainLog.progressLine(id: id, p))
            } else if let line = PlainLog.line(for: event, checks: checks, pausedAt: pausedAt) {
                log(line)
            }
        case .terminal:
            if case .progress = event { return }
            if let line = PlainLog.line(for: event, checks: checks, pausedAt: pausedAt), !line.hasSuffix(": downloading") { log(line) }
        }
    }

    /// Emits a JSON line (json mode only).
    func emit(_ line: JSONEventLine) {
        guard mode == .json, !quiet else { return }
        Terminal.write(line.encoded() + "\n")
    }

    /// Prints a line for a person (not in json mode), above the live frame in terminal mode.
    func log(_ text: String) {
        if quiet { return }
        switch mode {
        case .json:
            return
        case .plain:
            Terminal.write(text + "\n")
        case .terminal:
            Terminal.write(ProgressRenderer.clear(lineCount: frameLines) + text + "\n")
            frameLines = 0
        }
    }

    /// Ends the live frame: later ``redraw(_:)`` calls draw nothing (the summary is the last word).
    func closeFrame() { frameClosed = true }

    /// Replaces the live frame (terminal mode only), fitted to the terminal's size as it is now.
    func redraw(_ snapshot: DisplaySnapshot) {
        guard mode == .terminal, !frameClosed, !quiet else { return }
        let (columns, rows) = size()
        let lines = ProgressRenderer.lines(for: snapshot, width: columns, height: rows)
        Terminal.write(ProgressRenderer.redraw(previousLineCount: frameLines, lines: lines))
        frameLines = lines.count
    }
}
