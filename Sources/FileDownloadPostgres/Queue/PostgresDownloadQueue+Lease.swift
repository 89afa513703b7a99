import FileDownload
import Foundation
import PostgresNIO

/// The claim and the writes under a lease. Every write names the lease it is made under
/// (owner and claim number) and changes nothing once that lease lapsed, passed to another
/// worker, or the row left `claimed` (an operator cancelled it): the statement's `WHERE` is the fence.
extension PostgresDownloadQueue {
    /// Claims up to `limit` claimable downloads (queued, or claimed under a lapsed lease), by
    /// priority then queue order, in one statement: `SELECT ... FOR UPDATE SKIP LOCKED` picks rows
    /// no other worker is claiming at this instant, the `UPDATE` around it sets the lease.
    func claim(owner: String, limit: Int, lease: Duration) async throws -> [ClaimedDownload] {
        guard limit > 0 else { return [] }
        let seconds = lease.seconds
        return try await run("claiming downloads") { connection in
            let rows = try await connection.query("""
                UPDATE downloads d SET state = 'claimed', lease_owner = \(owner),
                       lease_expires_at = now() + make_interval(secs => \(seconds)),
                       claims = d.claims + 1, updated_at = now()
                FROM (SELECT id FROM downloads
                      WHERE state IN ('queued', 'claimed') AND (lease_expires_at IS NULL OR lease_expires_at <= now())
                      ORDER BY priority DESC, queue_order
                      LIMIT \(limit)
                      FOR UPDATE SKIP LOCKED) c
                WHERE d.id = c.id
                RETURNING d.id, d.claims, d.destination, d.record::text, d.node, d.staging_path, d.staging_shared
                """, logger: self.logger)
            var claimed: [ClaimedDownload] = []
            var unreadable: [(id: String, claim: Int, problem: String)] = []
            for try await (id, claims, destination, record, node, staging, shared)
                in rows.decode((String, Int, String, String, String?, String?, Bool).self) {
                do {
                    claimed.append(ClaimedDownload(
                        id: id, claim: claims, destination: destination, record: try RecordCoding.decode(record),
                        node: node, stagingPath: staging, stagingShared: shared))
                } catch {
                    unreadable.append((id, claims, "\(error)"))
                }
            }
            for row in unreadable {
                try await self.failUnreadable(id: row.id, claim: row.claim, owner: owner, problem: row.problem, on: connection)
            }
            return claimed
        }
    }

    /// Marks download `id`, claimed under `owner`/`claim`, `failed` because its stored record
    /// cannot be read (a row written by hand or by another program): the record keeps what it
    /// had and gains `state`, `errorCode` (`store`) and `errorMessages` saying why.
    private func failUnreadable(id: String, claim: Int, owner: String, problem: String,
                                on connection: PostgresConnection) async throws {
        let message = "the queue's record of download '\(id)' cannot be read: \(problem)"
        logger.error("a claimed download has an unreadable record; marked failed", metadata: ["id": "\(id)", "error": "\(problem)"])
        try await connection.query("""
            UPDATE downloads SET state = 'failed', lease_owner = NULL, lease_expires_at = NULL, updated_at = now(),
                   record = (CASE WHEN jsonb_typeof(record) = 'object' THEN record
                                  ELSE jsonb_build_object('unreadable', record) END)
                            || jsonb_build_object('state', 'failed', 'errorCode', 'store',
                                                  'errorMessages', jsonb_build_array(\(message)::text))
            WHERE id = \(id) AND state = 'claimed' AND lease_owner = \(owner) AND claims = \(claim)
            """, logger: logger)
    }

    /// Extends by `lease` from now the leases of `owner` on exactly the downloads in `held`
    /// (id → claim number) that are still `claimed` under that claim and not lapsed, and in the
    /// same statement gives back (`queued`, no lease) every other download `owner` still has
    /// claimed: ones the worker stopped, or whose claim committed but whose reply was lost.
    ///
    /// - Returns: the downloads of `held` that `owner` still holds, with their claim numbers.
    func renew(owner: String, held: [String: Int], lease: Duration) async throws -> [String: Int] {
        let seconds = lease.seconds
        let ids = Array(held.keys)
        let claims = Array(held.values)  // the same order as the keys
        return try await run("renewing leases") { connection in
            let rows = try await connection.query("""
                WITH renewed AS (
                    UPDATE downloads d SET lease_expires_at = now() + make_interval(secs => \(seconds))
                    FROM unnest(\(ids)::text[], \(claims)::bigint[]) AS h(id, claim)
                    WHERE d.id = h.id AND d.claims = h.claim AND d.lease_owner = \(owner)
                      AND d.state = 'claimed' AND d.lease_expires_at > now()
                    RETURNING d.id, d.claims),
                released AS (
                    UPDATE downloads SET state = 'queued', lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
                    WHERE lease_owner = \(owner) AND state = 'claimed' AND NOT (id = ANY(\(ids)::text[]))
                    RETURNING id)
                SELECT id, claims FROM renewed
                """, logger: self.logger)
            var stillHeld: [String: Int] = [:]
            for try await (id, claims) in rows.decode((String, Int).self) { stillHeld[id] = claims }
            return stillHeld
        }
    }

    /// Extends the lease on download `id` alone, when `owner` still holds it under claim number
    /// `claim` and the lease has not lapsed: the fence a worker passes right before it moves a
    /// finished file into place. Unlike ``renew(owner:held:lease:)`` it gives nothing back.
    ///
    /// - Returns: whether `owner` still holds the download (its lease now extended).
    func confirm(id: String, claim: Int, owner: String, lease: Duration) async throws -> Bool {
        let seconds = lease.seconds
        return try await run("confirming a lease") { connection in
            let rows = try await connection.query("""
                UPDATE downloads SET lease_expires_at = now() + make_interval(secs => \(seconds))
                WHERE id = \(id) AND claims = \(claim) AND lease_owner = \(owner)
                  AND state = 'claimed' AND lease_expires_at > now()
                RETURNING id
                """, logger: self.logger)
            var held = false
            for try await _ in rows.decode(String.self) { held = true }
            return held
        }
    }

    /// Which of `ids` are finished in the queue (completed, failed or cancelled).
    func finished(among ids: [String]) async throws -> Set<String> {
        try await run("reading finished downloads") { connection in
            let rows = try await connection.query("""
                SELECT id FROM downloads WHERE id = ANY(\(ids)::text[]) AND state IN ('completed', 'failed', 'cancelled')
                """, logger: self.logger)
            var finished: Set<String> = []
            for try await id in rows.decode(String.self) { finished.insert(id) }
            return finished
        }
    }

    /// One record to store with ``update(_:owner:node:stagingShared:)``: download `id`'s record
    /// under claim number `claim`.
    struct Write: Sendable {
        var id: String
        var claim: Int
        var record: DownloadRecord
    }

    /// Stores each record (the worker's view of its download) and where its bytes are, under the
    /// lease `owner`/claim, in one statement (of several records of one download, the last one).
    /// A finished record (completed, failed, cancelled)
    /// ends its lease.
    ///
    /// - Returns: the ids whose lease is gone (nothing was written for them).
    func update(_ writes: [Write], owner: String, node: String, stagingShared: Bool) async throws -> Set<String> {
        guard !writes.isEmpty else { return [] }
        // One row per download, the last record given for it: an UPDATE ... FROM that joins a row
        // twice applies only one of the two, and not predictably which.
        var latest: [String: Int] = [:]
        for (index, write) in writes.enumerated() { latest[write.id] = index }
        let writes = writes.indices.filter { latest[writes[$0].id] == $0 }.map { writes[$0] }
        var ids: [String] = [], claims: [Int] = [], states: [String] = [], records: [String] = []
        var bytes: [Int64] = [], staging: [String] = []
        for write in writes {
            ids.append(write.id)
            claims.append(write.claim)
            switch write.record.state {
            case .completed: states.append("completed")
            case .failed: states.append("failed")
            case .cancelled: states.append("cancelled")
            default: states.append("claimed")
            }
            records.append(try RecordCoding.encode(write.record))
            bytes.append(write.record.checkpointedBytes)
            staging.append(write.record.partPath)
        }
        return try await run("saving \(writes.count) download(s)") { [ids, claims, records, states, bytes, staging] connection in
            let rows = try await connection.query("""
                UPDATE downloads d SET record = w.record::jsonb, state = w.state, checkpointed_bytes = w.bytes,
                       node = \(node), staging_path = w.staging, staging_shared = \(stagingShared), updated_at = now(),
                       lease_owner = CASE WHEN w.state = 'claimed' THEN d.lease_owner END,
                       lease_expires_at = CASE WHEN w.state = 'claimed' THEN d.lease_expires_at END
                FROM unnest(\(ids)::text[], \(claims)::bigint[], \(records)::text[], \(states)::text[],
                            \(bytes)::bigint[], \(staging)::text[]) AS w(id, claim, record, state, bytes, staging)
                WHERE d.id = w.id AND d.state = 'claimed' AND d.lease_owner = \(owner) AND d.claims = w.claim
                  AND d.lease_expires_at > now()
                RETURNING d.id
                """, logger: self.logger)
            var refused = Set(ids)
            for try await id in rows.decode(String.self) { refused.remove(id) }
            return refused
        }
    }

    /// Records a checkpoint of download `id` under the lease `owner`/`claim`: `segments` (empty
    /// for a download over one connection) and `bytes`, the bytes from 0 that are on disk (for
    /// segments their contiguous prefix), safe for any reader to continue from.
    ///
    /// - Returns: false when the lease is gone (nothing was written).
    func checkpoint(id: String, claim: Int, owner: String, bytes: Int64, segments: [SegmentCheckpoint],
                    validator: Validator?) async throws -> Bool {
        let validatorJSON = try RecordCoding.encode(validator)
        let segmentsJSON = try RecordCoding.encode(segments)
        return try await run("checkpointing download '\(id)'") { connection in
            let rows = try await connection.query("""
                UPDATE downloads SET checkpointed_bytes = \(bytes), updated_at = now(),
                       record = record || jsonb_build_object('checkpointedBytes', \(bytes)::bigint,
                                                             'segments', \(segmentsJSON)::jsonb,
                                                             'validator', \(validatorJSON)::jsonb)
                WHERE id = \(id) AND state = 'claimed' AND lease_owner = \(owner) AND claims = \(claim)
                      AND lease_expires_at > now()
                RETURNING id
                """, logger: self.logger)
            var count = 0
            for try await _ in rows { count += 1 }
            return count == 1
        }
    }

    /// Gives back every unfinished download `owner` holds: they become `queued` again at once
    /// (their checkpoints and where their bytes are stay recorded).
    func release(owner: String) async throws {
        try await run("releasing leases") { connection in
            try await connection.query("""
                UPDATE downloads SET state = 'queued', lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
                WHERE lease_owner = \(owner) AND state = 'claimed'
                """, logger: self.logger)
        }
    }
}
