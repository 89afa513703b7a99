public import FileDownload
import Foundation

/// One line of `fdl get --json`: a JSON object with an `event` field and the fields that event
/// has. The schema is documented in `docs/cli.md`; fields that do not apply or are unknown are
/// left out (never `null`). Keys are sorted, so lines are stable for tests and `jq`.
public struct JSONEventLine: Sendable, Hashable, Codable {
    public var event: String
    public var id: String?
    public var url: String?
    public var destination: String?
    public var state: String?
    /// `added`: bytes already on disk the download continues from (0 for a fresh start).
    public var resumeFrom: Int64?
    /// `checkpoint`: bytes flushed to disk and recorded in the state directory.
    public var bytes: Int64?
    public var receivedBytes: Int64?
    public var expectedBytes: Int64?
    public var bytesPerSecond: Double?
    public var etaSeconds: Double?
    /// `restarted`: why the bytes on disk were discarded; `onHold`: what the download waits for
    /// (`insufficientSpace`, `waitingForNetwork`, `refreshingURL`); `needsFreshURL`: `refused` (with
    /// `statusCode`) or `expiresSoon`.
    public var reason: String?
    /// `needsFreshURL` after a refusal: the server's status (401, 403, 410).
    public var statusCode: Int?
    /// `interrupted`: seconds until the automatic retry; absent when none is scheduled.
    public var retryInSeconds: Double?
    /// `interrupted`, `failed`: the error code (`DownloadError.Code`).
    public var errorCode: String?
    /// `interrupted`, `failed`: the message stack, outermost first.
    public var errorMessages: [String]?
    /// `added`: a file at the first name that fdl did not download, kept (the download got
    /// another name).
    public var keptFile: String?
    /// `completed`: the file's path.
    public var file: String?
    /// `completed`: whether the SHA-256, or the length the server announced, confirmed the file;
    /// absent when unknown (a file already complete without `--sha256`).
    public var verified: Bool?
    /// `completed`: what confirmed the file's bytes: `sha256` (the `--sha256` given), `serverDigest`
    /// (the SHA-256 the server announced: `Repr-Digest`, `Content-Digest`, `Digest`); absent when
    /// no digest checked them (a length may still have, see ``verified``).
    public var verifiedBy: String?
    /// `summary`: counts of final outcomes, and the exit code.
    public var completed: Int?
    public var failed: Int?
    public var stopped: Int?
    /// `summary`: how many of the completed files nothing confirmed (``verified`` false).
    public var unverified: Int?
    public var exitCode: Int32?

    public init(event: String, id: String? = nil) {
        self.event = event
        self.id = id
    }

    /// The line for a downloader event, or `nil` for events `fdl` does not report
    /// (activity count changes).
    public init?(_ event: DownloadEvent) {
        switch event {
        case .stateChanged(let id, let state):
            self.init(event: "state", id: id)
            self.state = state.rawValue
        case .progress(let id, let p):
            self.init(event: "progress", id: id)
            receivedBytes = p.receivedBytes
            expectedBytes = p.expectedBytes
            bytesPerSecond = p.bytesPerSecond.rounded()
            etaSeconds = p.estimatedTimeRemaining.map(Self.seconds)
        case .totalProgress(let t):
            self.init(event: "total")
            receivedBytes = t.receivedBytes
            expectedBytes = t.expectedBytes
            bytesPerSecond = t.bytesPerSecond.rounded()
            etaSeconds = t.estimatedTimeRemaining.map(Self.seconds)
        case .restarted(let id, let why):
            self.init(event: "restarted", id: id)
            reason = why.rawValue
        case .resumed(let id):
            self.init(event: "resumed", id: id)
        case .paused(let id, let data):
            self.init(event: "paused", id: id)
            receivedBytes = data?.bytesOnDisk
        case .interrupted(let id, let error, let retryIn):
            self.init(event: "interrupted", id: id)
            errorCode = error.code.rawValue
            errorMessages = error.messages
            retryInSeconds = retryIn.map(Self.seconds)
        case .completed(let id, let url):
            self.init(event: "completed", id: id)
            file = url.path
        case .failed(let id, let error, _):
            self.init(event: "failed", id: id)
            errorCode = error.code.rawValue
            errorMessages = error.messages
        case .cancelled(let id):
            self.init(event: "cancelled", id: id)
        case .onHold(let id, let why):
            self.init(event: "onHold", id: id)
            reason = why.rawValue
        case .needsFreshURL(let id, let why):
            self.init(event: "needsFreshURL", id: id)
            switch why {
            case .refused(let status):
                reason = "refused"
                statusCode = status
            case .expiresSoon:
                reason = "expiresSoon"
            }
        case .urlChanged(let id, let newURL):
            self.init(event: "urlChanged", id: id)
            url = newURL.removingCredentials.absoluteString
        case .removed(let id):
            self.init(event: "removed", id: id)
        case .activityCountChanged:
            return nil
        }
    }

    /// The JSON text of the line, without the newline.
    public func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Plain strings and numbers cannot fail to encode.
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    static func seconds(_ d: Duration) -> Double {
        (d / .milliseconds(1)).rounded() / 1000
    }
}
