public import FileDownload
import Foundation

/// One line of `fdl get --json` (and of `fdl watch`, `fdl add`, `fdl list` with `--json`): a JSON
/// object with a `type` field. A downloader event is written in the one JSON form of events, the
/// form the download agent's event stream sends (`DownloadEvent`'s `Codable` conformance:
/// `type`, `id`, `state`, `progress`, `total`, `reason`, `error`, `retryInSeconds`, `file`,
/// `statusCode`, `url`, `receivedBytes`), with what `fdl` adds to it (`verified`, `verifiedBy`
/// on `completed`); `fdl`'s own lines (`added`, `checkpoint`, `summary`, `download`, ...) carry
/// the fields below. The schema is documented in `docs/cli.md`; fields that do not apply or are
/// unknown are left out (never `null`). Keys are sorted, so lines are stable for tests and `jq`.
public struct JSONEventLine: Sendable, Codable {
    /// The event's type: a `DownloadEvent` case name (`stateChanged`, `progress`, `completed`,
    /// ...) or one of `fdl`'s own (`added`, `checkpoint`, `summary`, ...).
    public var type: String
    /// The downloader event the line writes, when it writes one.
    public var event: DownloadEvent?
    public var id: String?
    public var url: String?
    public var destination: String?
    /// `added` (of `fdl add`), `download`: the download's state; `completed` of a file already
    /// there: `alreadyComplete`.
    public var state: String?
    /// `added`: bytes already on disk the download continues from (0 for a fresh start).
    public var resumeFrom: Int64?
    /// `checkpoint`: bytes flushed to disk and recorded in the state directory.
    public var bytes: Int64?
    /// `download`: the bytes on disk and the size, when known.
    public var receivedBytes: Int64?
    public var expectedBytes: Int64?
    /// `download`: the last error's message stack, outermost first.
    public var errorMessages: [String]?
    /// `added`: a file at the first name that fdl did not download, kept (the download got
    /// another name).
    public var keptFile: String?
    /// `completed` of a file already there, `agentStarted`: a file's path.
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

    /// A line of `fdl`'s own, of `type`.
    public init(type: String, id: String? = nil) {
        self.type = type
        self.id = id
    }

    /// The line for a downloader event, or `nil` for events `fdl` does not report
    /// (activity count changes).
    public init?(_ event: DownloadEvent) {
        if case .activityCountChanged = event { return nil }
        self.init(type: event.wireType, id: event.id)
        self.event = event
    }

    private enum Key: String, CodingKey {
        case type, id, url, destination, state, resumeFrom, bytes, receivedBytes, expectedBytes, errorMessages,
             keptFile, file, verified, verifiedBy, completed, failed, stopped, unverified, exitCode
    }

    /// Writes the event's JSON form, then `fdl`'s fields that are set (a downloader event's own
    /// fields win: they are written first and left alone).
    public func encode(to encoder: any Encoder) throws {
        if let event { try event.encode(to: encoder) }
        var c = encoder.container(keyedBy: Key.self)
        if event == nil {
            try c.encode(type, forKey: .type)
            try c.encodeIfPresent(id, forKey: .id)
            try c.encodeIfPresent(url, forKey: .url)
            try c.encodeIfPresent(state, forKey: .state)
            try c.encodeIfPresent(receivedBytes, forKey: .receivedBytes)
            try c.encodeIfPresent(file, forKey: .file)
        }
        try c.encodeIfPresent(destination, forKey: .destination)
        try c.encodeIfPresent(resumeFrom, forKey: .resumeFrom)
        try c.encodeIfPresent(bytes, forKey: .bytes)
        try c.encodeIfPresent(expectedBytes, forKey: .expectedBytes)
        try c.encodeIfPresent(errorMessages, forKey: .errorMessages)
        try c.encodeIfPresent(keptFile, forKey: .keptFile)
        try c.encodeIfPresent(verified, forKey: .verified)
        try c.encodeIfPresent(verifiedBy, forKey: .verifiedBy)
        try c.encodeIfPresent(completed, forKey: .completed)
        try c.encodeIfPresent(failed, forKey: .failed)
        try c.encodeIfPresent(stopped, forKey: .stopped)
        try c.encodeIfPresent(unverified, forKey: .unverified)
        try c.encodeIfPresent(exitCode, forKey: .exitCode)
    }

    /// Reads a line: the downloader event when `type` is one (`DownloadEvent`'s JSON form), and
    /// `fdl`'s fields.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        type = try c.decode(String.self, forKey: .type)
        event = DownloadEvent.isWireType(type) ? try DownloadEvent(from: decoder) : nil
        id = try c.decodeIfPresent(String.self, forKey: .id)
        url = try c.decodeIfPresent(String.self, forKey: .url)
        destination = try c.decodeIfPresent(String.self, forKey: .destination)
        state = try? c.decodeIfPresent(String.self, forKey: .state)
        resumeFrom = try c.decodeIfPresent(Int64.self, forKey: .resumeFrom)
        bytes = try c.decodeIfPresent(Int64.self, forKey: .bytes)
        receivedBytes = try c.decodeIfPresent(Int64.self, forKey: .receivedBytes)
        expectedBytes = try c.decodeIfPresent(Int64.self, forKey: .expectedBytes)
        errorMessages = try c.decodeIfPresent([String].self, forKey: .errorMessages)
        keptFile = try c.decodeIfPresent(String.self, forKey: .keptFile)
        file = try c.decodeIfPresent(String.self, forKey: .file)
        verified = try c.decodeIfPresent(Bool.self, forKey: .verified)
        verifiedBy = try c.decodeIfPresent(String.self, forKey: .verifiedBy)
        completed = try c.decodeIfPresent(Int.self, forKey: .completed)
        failed = try c.decodeIfPresent(Int.self, forKey: .failed)
        stopped = try c.decodeIfPresent(Int.self, forKey: .stopped)
        unverified = try c.decodeIfPresent(Int.self, forKey: .unverified)
        exitCode = try c.decodeIfPresent(Int32.self, forKey: .exitCode)
    }

    /// The JSON text of the line, without the newline.
    public func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Plain strings and numbers cannot fail to encode.
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
