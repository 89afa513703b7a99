import Foundation

/// Everything the downloader knows of one download.
struct DownloadEntry {
    let id: String
    /// The URL as given, credentials included (memory only).
    var url: URL
    var destination: URL {
        didSet { destinationPath = destination.path }
    }
    /// ``destination``'s path, kept with it: `URL.path` decodes the URL at every call (four
    /// allocations), and every start and every attempt asks for it.
    private(set) var destinationPath: String
    var partPath: String
    var options: DownloadOptions
    /// The state and the data it carries (a retry's due time, a hold), changed only by its
    /// triggers (docs/states.md).
    var lifecycle: DownloadLifecycle
    /// The state the API reports.
    var state: DownloadState { lifecycle.state }
    var validator: Validator?
    var expectedLength: Int64?
    /// Bytes of the resource in the staging file, as last seen (with ``segments``: their sum).
    var bytesOnDisk: Int64 = 0
    /// The segments of a download fetched over several connections, each with its bytes on
    /// disk, as last seen; empty for one stream (then the bytes on disk are the first
    /// ``bytesOnDisk`` bytes of the file).
    var segments: [SegmentCheckpoint] = []
    /// Set once a server ignored a range request of this download: it uses one connection.
    var segmentsDisabled = false
    var queueOrder: Int64
    var attempts = 0
    /// Retries used since the download was last started or resumed by the caller.
    var retriesUsed = 0
    /// Restarts from zero of a segmented download because the remote file changed
    /// (``AttemptOutcome/restart(_:)``) since the download was last started or
    /// resumed by the caller; bounded by the retry policy (memory only).
    var changedFileRestarts = 0
    var lastError: DownloadError?
    /// What the file was checked against when it completed in this process.
    var checks: CompletionChecks?
    /// When the automatic retry of an interrupted download is due (downloader clock).
    var retryAt: Duration? { lifecycle.retryDue }
    var attempt: AttemptHandle?
    var createdAt = Date()
    /// Which of the download's URLs the next attempt uses: 0 for ``url``, n for mirror n - 1.
    var urlIndex = 0
    /// The origin (`URL.origin`) that secret header fields were given for, once ``url`` was
    /// replaced by a fresh one (``Downloader/point(_:at:expiry:now:events:)``); `nil` while it is
    /// ``url``'s own. Memory only, as the secrets are: after a restore it is the stored URL's.
    var secretsOrigin: String?
    /// The origin an attempt may send secret header fields to.
    var originOfSecrets: String { secretsOrigin ?? url.origin }
    /// Whether the next attempt fetches ``url`` itself and the secrets are ``url``'s own: then
    /// it may carry them without comparing origins.
    var isFirstURLWithItsSecrets: Bool { urlIndex == 0 && secretsOrigin == nil }
    /// Whether a failure of the current pass over the URLs (mirrors) was retryable.
    var passHadRetryableFailure = false
    /// The first file name a head of this download suggested (``TransferHead/suggestedFilename``).
    var suggestedFileName: String?
    /// What an interrupted download on hold waits for (``WaitReason``), while it is on hold.
    var waitReason: WaitReason? { lifecycle.hold?.reason }
    /// When the download was put on hold (``Downloader/hold(_:_:error:now:events:)``).
    var heldAt: Duration? { lifecycle.hold?.since }
    /// See ``DownloadHold/freeAtHold``.
    var freeAtHold: Int64? { lifecycle.hold?.freeAtHold }
    /// See ``DownloadHold/neededAtHold``.
    var neededAtHold: Int64? { lifecycle.hold?.neededAtHold }
    /// When the current URL expires on the downloader's clock (from
    /// ``DownloadOptions/urlExpiresAt``), and how long it lived from when that was set.
    var urlExpiry: Duration?
    var urlLifetime: Duration?
    /// Whether a fresh URL was asked for because the current one expires soon.
    var expiryAsked = false
    /// Set while a refusal is booked after the caller gave no fresh URL (no new question).
    var declinedRefresh = false
    /// Fresh URLs asked for after refusals since the bytes last grew, and the bytes then.
    var refusals = FreshURLHolds.Refusals()

    /// An entry for a new download (`attempts` 0, nothing on disk); `destinationPath`, when the
    /// caller has it, is `destination.path` (else it is read from `destination`).
    init(id: String, url: URL, destination: URL, destinationPath: String? = nil, partPath: String,
         options: DownloadOptions, lifecycle: DownloadLifecycle, queueOrder: Int64) {
        self.id = id
        self.url = url
        self.destination = destination
        self.destinationPath = destinationPath ?? destination.path
        self.partPath = partPath
        self.options = options
        self.lifecycle = lifecycle
        self.queueOrder = queueOrder
    }

    /// The URL the next attempt asks for: ``url`` or one of the mirrors.
    var currentURL: URL {
        urlIndex > 0 && urlIndex <= options.mirrors.count ? options.mirrors[urlIndex - 1] : url
    }

    // Progress and timeouts.
    var lastEmitted: DownloadProgress?
    var lastEmittedAt: Duration?
    var headSeen = false
    var lastActivityCount: UInt64 = 0
    var lastActivityAt: Duration = .zero
    /// Time counted against the resource timeout, accumulated: finished attempts, and the waits
    /// for a retry or for the network that ended.
    var activeTime: Duration = .zero
    /// When the current wait for a retry or for the network began (it counts against the
    /// resource timeout); `nil` when the download is not in such a wait.
    var waitingSince: Duration?
    var lastCheckpointAt: Duration = .zero
    var lastCheckpointBytes: Int64 = -1
    var speed = SpeedEstimator()
    /// Made on the first ``Downloader/nativeProgress(for:)`` call (most callers never ask, and
    /// thousands of idle `Progress` objects cost memory); updated from then on.
    var nativeProgress: Progress?

    func progress() -> DownloadProgress {
        let sink = attempt?.currentSink
        let board = attempt?.segments
        let received = board.flatMap { $0.isActive ? $0.received : nil } ?? sink?.fileLength ?? bytesOnDisk
        let expected = sink?.announcedLength ?? expectedLength ?? options.expectedSize
        return DownloadProgress(
            receivedBytes: expected.map { min(received, $0) } ?? received,
            expectedBytes: expected,
            bytesPerSecond: state == .downloading ? speed.bytesPerSecond : 0,
            estimatedTimeRemaining: state == .downloading ? speed.timeRemaining(received: received, expected: expected) : nil
        )
    }

    /// Where one stream continues the staging file: after the bytes from the start on (with
    /// segments, their contiguous prefix; ``bytesOnDisk`` is then their sum).
    var continuationOffset: Int64 { segments.isEmpty ? bytesOnDisk : segments.contiguousPrefix }

    func record() -> DownloadRecord {
        DownloadRecord(
            id: id, url: url, destination: destination, partPath: partPath, state: state,
            validator: validator, checkpointedBytes: continuationOffset, segments: segments, expectedLength: expectedLength,
            options: options, queueOrder: queueOrder, errorCode: lastError?.code.rawValue,
            errorMessages: lastError?.messages ?? [], attempts: attempts, createdAt: createdAt, updatedAt: Date()
        )
    }

    func resumeData() -> ResumeData {
        ResumeData(id: id, url: url, destination: destination, partPath: partPath,
                   bytesOnDisk: continuationOffset,
                   validator: validator, expectedLength: expectedLength, options: options, segments: segments)
    }

    func info() -> DownloadInfo {
        DownloadInfo(id: id, url: url.removingCredentials, destination: destination, state: state,
                     progress: progress(), lastError: lastError?.description, lastErrorCode: lastError?.code,
                     attempts: attempts, checks: checks, mirrors: options.mirrors.map(\.removingCredentials),
                     waitReason: state == .interrupted ? waitReason : nil)
    }
}
