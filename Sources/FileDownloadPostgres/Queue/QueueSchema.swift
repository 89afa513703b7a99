/// The tables of the shared queue and the steps that bring a database to the current version.
///
/// Version 1: `fdl_schema_version` (one row: the version) and `downloads` (one row per download).
/// Version 2: at most one unfinished (`queued` or `claimed`) download per destination, so two
/// workers never write the same file; of older duplicates the first queued is kept and the
/// others are marked failed (`invalidDestination`) before the index is made.
/// Version 3: at most one unfinished download per staging family
/// (`DestinationPolicy.stagingFamily(of:stagingSuffix:)`: the destination without its trailing
/// `.part` suffixes), so that `a` and `a.part` (`a`'s staging file is the other's destination)
/// are never written at once, by one worker or by two; older clashes are marked failed the same
/// way first. Unfinished downloads an older version queued that today's id and destination rules
/// refuse are marked failed first too, naming the rule (``failDownloadsBreakingRules(on:logger:)``).
/// Each step runs in the transaction that checks the version, under an advisory lock, so workers
/// that start together migrate once. A database of a newer version is refused before anything
/// is written.
enum QueueSchema {
    /// The version this build writes and understands.
    static let currentVersion = 3
    /// The key of the advisory lock migrations hold (ASCII "FDLQ").
    static let migrationLock: Int64 = 0x4644_4C51

    /// The unique index of version 2; ``PostgresDownloadQueue/add(_:)`` names the clash when it
    /// refuses a download.
    static let unfinishedDestinationIndex = "downloads_unfinished_destination"

    /// The unique index of version 3, over each unfinished download's staging family.
    static let unfinishedFamilyIndex = "downloads_unfinished_staging_family"

    /// The staging family of `downloads.destination` in SQL: the same key as
    /// `DestinationPolicy.stagingFamily(of:stagingSuffix:)` with the workers' suffix `.part`.
    static let stagingFamily = #"regexp_replace(destination, '(.)(\.part)+$', '\1')"#

    /// `steps[n]` brings version `n` to `n + 1`.
    static let steps: [[String]] = [
        [
            """
            CREATE TABLE downloads (
                id text PRIMARY KEY,
                url text NOT NULL,
                destination text NOT NULL,
                state text NOT NULL DEFAULT 'queued'
                    CHECK (state IN ('queued', 'claimed', 'completed', 'failed', 'cancelled')),
                priority integer NOT NULL DEFAULT 0,
                queue_order bigserial NOT NULL,
                lease_owner text,
                lease_expires_at timestamptz,
                claims integer NOT NULL DEFAULT 0,
                node text,
                staging_path text,
                staging_shared boolean NOT NULL DEFAULT false,
                checkpointed_bytes bigint NOT NULL DEFAULT 0,
                record jsonb NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                updated_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            """
            CREATE INDEX downloads_claimable ON downloads (priority DESC, queue_order)
                WHERE state IN ('queued', 'claimed')
            """,
            "CREATE INDEX downloads_by_lease_owner ON downloads (lease_owner) WHERE lease_owner IS NOT NULL",
        ],
        [
            """
            UPDATE downloads d SET state = 'failed', lease_owner = NULL, lease_expires_at = NULL, updated_at = now(),
                   record = d.record || jsonb_build_object('state', 'failed', 'errorCode', 'invalidDestination',
                       'errorMessages', jsonb_build_array('another download queued before writes to ' || d.destination))
            WHERE d.state IN ('queued', 'claimed') AND EXISTS (
                SELECT 1 FROM downloads o
                WHERE o.destination = d.destination AND o.state IN ('queued', 'claimed') AND o.queue_order < d.queue_order)
            """,
            """
            CREATE UNIQUE INDEX \(unfinishedDestinationIndex) ON downloads (destination)
                WHERE state IN ('queued', 'claimed')
            """,
        ],
        [
            """
            UPDATE downloads d SET state = 'failed', lease_owner = NULL, lease_expires_at = NULL, updated_at = now(),
                   record = d.record || jsonb_build_object('state', 'failed', 'errorCode', 'invalidDestination',
                       'errorMessages', jsonb_build_array('another download queued before writes to ' || d.destination
                           || ' or to its staging file'))
            WHERE d.state IN ('queued', 'claimed') AND EXISTS (
                SELECT 1 FROM downloads o
                WHERE \(stagingFamily.replacingOccurrences(of: "destination", with: "o.destination"))
                      = \(stagingFamily.replacingOccurrences(of: "destination", with: "d.destination"))
                  AND o.state IN ('queued', 'claimed') AND o.queue_order < d.queue_order)
            """,
            """
            CREATE UNIQUE INDEX \(unfinishedFamilyIndex) ON downloads ((\(stagingFamily)))
                WHERE state IN ('queued', 'claimed')
            """,
        ],
    ]
}
