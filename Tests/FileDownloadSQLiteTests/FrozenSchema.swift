/// Frozen copies of the SQL each released schema version ran, for tests that build an old store by
/// hand and open it with today's code. Never edit: a new schema version adds a migration (and a
/// constant here once it is released).
enum FrozenSchema {
    /// Version 1: the `downloads` table (no `PRAGMA user_version`; the caller sets it).
    static let version1 = """
        PRAGMA application_id = 1178881107;
        CREATE TABLE downloads (
            id TEXT NOT NULL PRIMARY KEY, url TEXT NOT NULL, destination TEXT NOT NULL,
            part_path TEXT NOT NULL, state TEXT NOT NULL, validator_kind TEXT, validator_value TEXT,
            validator_strong INTEGER, checkpointed_bytes INTEGER NOT NULL DEFAULT 0,
            expected_length INTEGER, options TEXT NOT NULL, queue_order INTEGER NOT NULL,
            error_code TEXT, error_messages TEXT NOT NULL DEFAULT '[]',
            attempts INTEGER NOT NULL DEFAULT 0, created_at REAL NOT NULL, updated_at REAL NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX downloads_by_queue_order ON downloads (queue_order, id);

        """

    /// What version 2 added: the event journal.
    static let version2Additions = """
        CREATE TABLE events (
            sequence INTEGER PRIMARY KEY AUTOINCREMENT, download_id TEXT, state TEXT,
            recorded_at REAL NOT NULL, payload TEXT NOT NULL
        );
        CREATE TABLE journal_states (download_id TEXT NOT NULL PRIMARY KEY, state TEXT NOT NULL) WITHOUT ROWID;

        """

    /// What version 3 added: the segments of a download over several connections.
    static let version3Additions = """
        ALTER TABLE downloads ADD COLUMN segments TEXT NOT NULL DEFAULT '[]';

        """
}
