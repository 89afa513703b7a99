import FileDownload
import Foundation
import Logging

/// The `DownloadStore` a worker's local `Downloader` writes to: every state change and
/// checkpoint goes through to the shared queue under the worker's lease on that download.
///
/// - A write whose lease is gone (lapsed, or the download claimed by another worker since) is
///   refused: it throws, and the row keeps what its current holder wrote.
/// - A write that fails because PostgreSQL cannot be reached is tried again, with a growing
///   delay, for up to `patience` (the lease); once the lease lapsed the fence refuses it anyway.
/// - `loadAll` is empty (a worker never restores: it claims) and `remove` does nothing: forgetting
///   a finished download locally keeps its row in the queue.
struct LeasedStore: DownloadStore {
    let queue: PostgresDownloadQueue
    let owner: String
    let node: String
    let sharedDirectory: Bool
    let patience: Duration
    let logger: Logger

    func loadAll() async throws -> [DownloadRecord] { [] }

    func save(_ record: DownloadRecord) async throws {
        try await saveAll([record])
    }

    /// One statement for the batch, retried as a whole within one `patience`.
    func saveAll(_ records: [DownloadRecord]) async throws {
        let writes = try records.map { record in
            let local = try Self.localID(record.id)
            var stored = record
            stored.id = local.queueID
            return PostgresDownloadQueue.Write(id: local.queueID, claim: local.claim, record: stored)
        }
        let (refused, retried) = try await retrying {
            try await queue.update(writes, owner: owner, node: node, stagingShared: sharedDirectory)
        }
        if let lost = refused.sorted().first { throw Self.leaseLost(lost, afterRetry: retried) }
    }

    func checkpoint(id: String, bytes: Int64, validator: Validator?) async throws {
        try await checkpoint(id: id, bytes: bytes, segments: [], validator: validator)
    }

    /// Keeps the segments in the record; `checkpointedBytes` is their contiguous prefix from byte 0.
    func checkpoint(id: String, segments: [SegmentCheckpoint], validator: Validator?) async throws {
        try await checkpoint(id: id, bytes: segments.contiguousPrefix, segments: segments, validator: validator)
    }

    private func checkpoint(id: String, bytes: Int64, segments: [SegmentCheckpoint], validator: Validator?) async throws {
        let local = try Self.localID(id)
        let (accepted, retried) = try await retrying {
            try await queue.checkpoint(id: local.queueID, claim: local.claim, owner: owner, bytes: bytes,
                                       segments: segments, validator: validator)
        }
        if !accepted { throw Self.leaseLost(local.queueID, afterRetry: retried) }
    }

    func remove(id: String) async throws {}

    /// The answer of `write`, and whether an earlier try of it failed first.
    private func retrying<T>(_ write: () async throws -> T) async throws -> (T, retried: Bool) {
        let clock = ContinuousClock()
        let giveUp = clock.now + patience
        let backoff = RetryPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(2), jitter: 0)
        var failures = 1
        while true {
            let delay = backoff.delay(beforeRetry: failures, unit: 0.5)
            do {
                return (try await write(), failures > 1)
            } catch let error as DownloadError where error.isRetryable && clock.now + delay < giveUp {
                logger.warning("the queue cannot be reached; trying again", metadata: ["error": "\(error.message)"])
                try await Task.sleep(for: delay)
                failures += 1
            }
        }
    }

    private static func localID(_ raw: String) throws -> LocalID {
        guard let local = LocalID(raw) else {
            throw DownloadError(.store, "'\(raw)' is not a download this worker claimed")
        }
        return local
    }

    /// The refusal of a write to `id`. After a retry, the earlier try that got no answer (its
    /// deadline passed, ``AnswerDeadline``) may have committed and released the lease itself: the
    /// message says so, since the row may then hold exactly what was written.
    static func leaseLost(_ id: String, afterRetry: Bool) -> DownloadError {
        let earlier = afterRetry
            ? "; an earlier try of this write got no answer and may have been applied, in which case the row already holds it"
            : ""
        return DownloadError(.store, "the lease on download '\(id)' is gone (it lapsed or another worker claimed it); the write was refused\(earlier)",
                             isRetryable: false)
    }
}
