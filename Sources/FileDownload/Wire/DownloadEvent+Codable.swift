import Foundation

/// The JSON form of an event, as the download agent's API sends it (`docs/agent-api.md`).
///
/// One flat object with a `type` (the case name: `stateChanged`, `progress`, `totalProgress`,
/// `restarted`, `resumed`, `paused`, `interrupted`, `completed`, `failed`, `cancelled`,
/// `activityCountChanged`, `onHold`, `needsFreshURL`, `urlChanged`, `removed`) and the case's values: `id`,
/// `state`, `progress`, `total`, `reason`, `error`, `retryInSeconds`, `file` (a file path), `count`,
/// `statusCode`, `url`, `receivedBytes` (`paused`: the bytes kept, when known). `onHold` carries `id` and `reason` (`insufficientSpace`,
/// `waitingForNetwork` or `refreshingURL`); `needsFreshURL` carries `id`, `reason` (`refused`, with
/// the `statusCode`, or `expiresSoon`); `urlChanged` carries `id` and `url` (without credentials); `removed` (the download was
/// forgotten) carries `id` only.
///
/// Decoding gives back an equal event with two exceptions, both deliberate: **resume data is never
/// encoded** (it may carry the URL's credentials and secret header fields; a process that wants to
/// continue a download asks the process that owns it to resume it), so `paused` and `failed`
/// decode with `resumeData: nil`; and an error's ``DownloadError/underlying`` is not encoded.
/// An unknown `type` is a `DecodingError.dataCorrupted` naming it.
extension DownloadEvent: Codable {
    private enum Key: String, CodingKey {
        case type, id, state, progress, total, reason, error, retryInSeconds, file, count, statusCode, url, receivedBytes
    }

    private enum Kind: String, Codable {
        case stateChanged, progress, totalProgress, restarted, resumed, paused, interrupted, completed, failed,
             cancelled, activityCountChanged, onHold, needsFreshURL, urlChanged, removed
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encodeIfPresent(id, forKey: .id)
        switch self {
        case .stateChanged(_, let state):
            try c.encode(Kind.stateChanged, forKey: .type)
            try c.encode(state, forKey: .state)
        case .progress(_, let progress):
            try c.encode(Kind.progress, forKey: .type)
            try c.encode(progress, forKey: .progress)
        case .totalProgress(let total):
            try c.encode(Kind.totalProgress, forKey: .type)
            try c.encode(total, forKey: .total)
        case .restarted(_, let reason):
            try c.encode(Kind.restarted, forKey: .type)
            try c.encode(reason, forKey: .reason)
        case .resumed:
            try c.encode(Kind.resumed, forKey: .type)
        case .paused(_, let data):
            try c.encode(Kind.paused, forKey: .type)
            try c.encodeIfPresent(data?.bytesDone, forKey: .receivedBytes)
        case .interrupted(_, let error, let retryIn):
            try c.encode(Kind.interrupted, forKey: .type)
            try c.encode(error, forKey: .error)
            try c.encodeIfPresent(retryIn?.seconds, forKey: .retryInSeconds)
        case .completed(_, let file):
            try c.encode(Kind.completed, forKey: .type)
            try c.encode(file.path, forKey: .file)
        case .failed(_, let error, _):
            try c.encode(Kind.failed, forKey: .type)
            try c.encode(error, forKey: .error)
        case .cancelled:
            try c.encode(Kind.cancelled, forKey: .type)
        case .activityCountChanged(let count):
            try c.encode(Kind.activityCountChanged, forKey: .type)
            try c.encode(count, forKey: .count)
        case .onHold(_, let reason):
            try c.encode(Kind.onHold, forKey: .type)
            try c.encode(reason, forKey: .reason)
        case .needsFreshURL(_, let reason):
            try c.encode(Kind.needsFreshURL, forKey: .type)
            switch reason {
            case .refused(let status):
                try c.encode("refused", forKey: .reason)
                try c.encode(status, forKey: .statusCode)
            case .expiresSoon:
                try c.encode("expiresSoon", forKey: .reason)
            }
        case .removed:
            try c.encode(Kind.removed, forKey: .type)
        case .urlChanged(_, let url):
            try c.encode(Kind.urlChanged, forKey: .type)
            try c.encode(url.removingCredentials.absoluteString, forKey: .url)
        }
    }

    /// The `type` of the event's JSON form: its case name (`stateChanged`, `progress`, ...).
    public var wireType: String {
        switch self {
        case .stateChanged: Kind.stateChanged.rawValue
        case .progress: Kind.progress.rawValue
        case .totalProgress: Kind.totalProgress.rawValue
        case .restarted: Kind.restarted.rawValue
        case .resumed: Kind.resumed.rawValue
        case .paused: Kind.paused.rawValue
        case .interrupted: Kind.interrupted.rawValue
        case .completed: Kind.completed.rawValue
        case .failed: Kind.failed.rawValue
        case .cancelled: Kind.cancelled.rawValue
        case .activityCountChanged: Kind.activityCountChanged.rawValue
        case .onHold: Kind.onHold.rawValue
        case .needsFreshURL: Kind.needsFreshURL.rawValue
        case .urlChanged: Kind.urlChanged.rawValue
        case .removed: Kind.removed.rawValue
        }
    }

    /// Whether `type` names a case of the JSON form (as ``wireType`` gives it).
    public static func isWireType(_ type: String) -> Bool { Kind(rawValue: type) != nil }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let typeName = try c.decode(String.self, forKey: .type)
        guard let kind = Kind(rawValue: typeName) else {
            throw DecodingError.dataCorruptedError(forKey: .type, in: c,
                                                   debugDescription: "unknown event type \"\(typeName)\"")
        }
        func id() throws -> String { try c.decode(String.self, forKey: .id) }
        switch kind {
        case .stateChanged: self = .stateChanged(id: try id(), state: try c.decode(DownloadState.self, forKey: .state))
        case .progress: self = .progress(id: try id(), try c.decode(DownloadProgress.self, forKey: .progress))
        case .totalProgress: self = .totalProgress(try c.decode(TotalProgress.self, forKey: .total))
        case .restarted: self = .restarted(id: try id(), reason: try c.decode(RestartReason.self, forKey: .reason))
        case .resumed: self = .resumed(id: try id())
        case .paused: self = .paused(id: try id(), resumeData: nil)
        case .interrupted:
            self = .interrupted(id: try id(), error: try c.decode(DownloadError.self, forKey: .error),
                                retryIn: try c.decodeSecondsIfPresent(forKey: .retryInSeconds))
        case .completed:
            self = .completed(id: try id(), file: URL(fileURLWithPath: try c.decode(String.self, forKey: .file)))
        case .failed: self = .failed(id: try id(), error: try c.decode(DownloadError.self, forKey: .error), resumeData: nil)
        case .cancelled: self = .cancelled(id: try id())
        case .removed: self = .removed(id: try id())
        case .activityCountChanged: self = .activityCountChanged(try c.decode(Int.self, forKey: .count))
        case .onHold: self = .onHold(id: try id(), reason: try c.decode(WaitReason.self, forKey: .reason))
        case .needsFreshURL:
            let reason = try c.decode(String.self, forKey: .reason)
            switch reason {
            case "refused": self = .needsFreshURL(id: try id(), reason: .refused(statusCode: try c.decode(Int.self, forKey: .statusCode)))
            case "expiresSoon": self = .needsFreshURL(id: try id(), reason: .expiresSoon)
            default:
                throw DecodingError.dataCorruptedError(forKey: .reason, in: c,
                                                       debugDescription: "unknown reason for a fresh URL \"\(reason)\"")
            }
        case .urlChanged:
            let text = try c.decode(String.self, forKey: .url)
            guard let url = URL(string: text) else {
                throw DecodingError.dataCorruptedError(forKey: .url, in: c, debugDescription: "not a URL: \(text)")
            }
            self = .urlChanged(id: try id(), url: url)
        }
    }
}
