import FileDownload

/// The store's schema: how a database file is recognised, and the migrations that bring it from
/// any released version to the current one.
///
/// A store file carries `PRAGMA application_id` = ``applicationID`` and
/// `PRAGMA user_version` = its schema version. Migration *n* (1-based) takes a database from version
/// *n − 1* to *n*; migration 1 creates the schema in an empty file. Released migrations are never
/// edited: a change of schema is a new migration appended to ``migrations``.
enum SQLiteSchema {
    /// "FDLS" in ASCII: marks a file as a swift-file-download store.
    static let applicationID: Int64 = 0x4644_4C53

    /// The migrations, in order. `migrations[n - 1]` produces version `n`.
    static let migrations: [String] = [
        // Version 1. Dates are seconds since 2001-01-01 UTC (Foundation's reference date), so
        // that they round-trip exactly; options and error messages are JSON text.
        """
        CREATE TABLE downloads (
            id                 TEXT    NOT NULL PRIMARY KEY,
            url                TEXT    NOT NULL,
            destination        TEXT    NOT NULL,
            part_path          TEXT    NOT NULL,
            state              TEXT    NOT NULL,
            validator_kind     TEXT,
            validator_value    TEXT,
            validator_strong   INTEGER,
            checkpointed_bytes INTEGER NOT NULL DEFAULT 0,
            expected_length    INTEGER,
            options            TEXT    NOT NULL,
            queue_order        INTEGER NOT NULL,
            error_code         TEXT,
            error_messages     TEXT    NOT NULL DEFAULT '[]',
            attempts           INTEGER NOT NULL DEFAULT 0,
            created_at         REAL    NOT NULL,
            updated_at         REAL    NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX downloads_by_queue_order ON downloads (queue_order, id);
        """,
        // Version 2: the event journal (docs/persistence.md). AUTOINCREMENT, so that a sequence
        // number is never used twice, even after every row was pruned. `journal_states` holds the
        // last state the journal announced for each download; downloads stored before the journal
        // existed count as announced in the state they are in.
        """
        CREATE TABLE events (
            sequence    INTEGER PRIMARY KEY AUTOINCREMENT,
            download_id TEXT,
            state       TEXT,
            recorded_at REAL    NOT NULL,
            payload     TEXT    NOT NULL
        );
        CREATE TABLE journal_states (
            download_id TEXT NOT NULL PRIMARY KEY,
            state       TEXT NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO journal_states (download_id, state) SELECT id, state FROM downloads;
        """,
        // Version 3: the segments of a download fetched over several connections, as JSON text
        // (an array of {"start", "end", "done"}); '[]' for a download over one connection.
        """
        ALTER TABLE downloads ADD COLUMN segments TEXT NOT NULL DEFAULT '[]';
        """,
        // Version 4, paging (docs/persistence.md): the downloader reads the next waiting downloads, counts
        // and lists by state, and finds the staging files of waiting downloads without reading
        // every row. `priority` copies the options' priority so that the waiting order is an index.
        """
        ALTER TABLE downloads ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
        UPDATE downloads SET priority = coalesce(json_extract(options, '$.priority'), 0);
        CREATE INDEX downloads_waiting ON downloads (state, priority DESC, queue_order, id);
        CREATE INDEX downloads_by_state ON downloads (state, queue_order, id);
        CREATE INDEX downloads_waiting_with_bytes ON downloads (part_path)
            WHERE state = 'waiting' AND checkpointed_bytes > 0;
        """,
        // Version 5: whether a new download would write into the files of an unfinished one the
        // store holds (DownloadStore.unfinishedOwner) is one index lookup.
        """
        CREATE INDEX downloads_unfinished_by_part_path ON downloads (part_path)
            WHERE state NOT IN ('completed', 'cancelled');
        """,
        // Version 6: a waiting download fetched in segments may have bytes on disk while its
        // contiguous prefix (checkpointed_bytes) is still 0: its staging file is kept too.
        """
        DROP INDEX downloads_waiting_with_bytes;
        CREATE INDEX downloads_waiting_with_bytes ON downloads (part_path)
            WHERE state = 'waiting' AND (checkpointed_bytes > 0 OR segments <> '[]');
        """,
        // Version 7: the content coding the bytes on disk were sent in (Validator.contentEncoding);
        // NULL for identity, which is what every row written before holds.
        """
        ALTER TABLE downloads ADD COLUMN validator_encoding TEXT;
        """,
        // Version 8: the connection count remembered per origin (scheme://host:port, nothing
        // else of a URL) for automatic connections (DownloadStore.rememberConnections).
        """
        CREATE TABLE host_connections (
            origin      TEXT    NOT NULL PRIMARY KEY,
            connections INTEGER NOT NULL,
            updated_at  REAL    NOT NULL
        ) WITHOUT ROWID;
        """,
    ]

    /// The schema version this build writes.
    static var currentVersion: Int64 { Int64(migrations.count) }

    /// Throws unless the database behind `connection` is an empty file or a store of a version this
    /// build knows, and is not corrupt. Only reads: a foreign database, one of a future version or a
    /// corrupt one is left untouched and is a `DownloadError(.store, …)`. A file that is not SQLite
    /// at all makes SQLite fail on the first read with `SQLITE_NOTADB` (the caller translates it).
    static func recognise(_ connection: SQLiteConnection, path: String) throws {
        try check(connection, path: path)
        // quick_check reads every page: a damaged file fails here rather than at some later read.
        let problems = try connection.strings("PRAGMA quick_check")
        guard problems == ["ok"] else {
            throw DownloadError(.store, "the download store at \(path) is corrupt "
                + "(\(problems.prefix(3).joined(separator: "; "))); it was left untouched")
        }
    }

    /// Brings a recognised database to ``currentVersion``, in one `BEGIN IMMEDIATE` transaction
    /// (so two processes opening the same new file do not both create the schema).
    static func migrate(_ connection: SQLiteConnection) throws(SQLiteError) {
        try connection.writeTransaction { () throws(SQLiteError) in
            // Read again under the write lock: another process may have migrated meanwhile.
            let version = try connection.integer("PRAGMA user_version")
            guard version < currentVersion else { return }
            if version == 0 {
                try connection.execute("PRAGMA application_id = \(applicationID)")
            }
            for migration in migrations[Int(version)...] {
                try connection.execute(migration)
            }
            try connection.execute("PRAGMA user_version = \(currentVersion)")
        }
    }

    /// Throws unless the file is empty or a store of a known version.
    private static func check(_ connection: SQLiteConnection, path: String) throws {
        let application = try connection.integer("PRAGMA application_id")
        let version = try connection.integer("PRAGMA user_version")
        if application == applicationID {
            guard version <= currentVersion else {
                throw DownloadError(.store, "the download store at \(path) has schema version \(version), "
                    + "newer than this build understands (\(currentVersion)); it was left untouched. "
                    + "Open it with a newer version of swift-file-download")
            }
            guard version >= 1 else {
                throw DownloadError(.store, "the download store at \(path) has no schema version; "
                    + "it was left untouched")
            }
            return
        }
        let objects = try connection.integer("SELECT count(*) FROM sqlite_schema")
        guard application == 0, version == 0, objects == 0 else {
            throw DownloadError(.store, "\(path) is an SQLite database of another application "
                + "(application_id \(application), user_version \(version), \(objects) schema objects), "
                + "not a download store; it was left untouched")
        }
    }
}
