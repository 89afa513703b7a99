import Foundation
import FileDownload
public import Logging
import PostgresNIO

/// The shared queue of a fleet of workers: one table, `downloads`, in a PostgreSQL database.
///
/// Producers call ``add(_:)`` to queue downloads; ``FleetWorker``s claim them. The queue talks to
/// PostgreSQL over one connection of its own, opened at the first call and opened again at the
/// next call after it broke (a restarted server). Every statement is one transaction by itself:
/// a call that returns has committed, and a call that throws changed nothing, except one given up
/// after ``queryTimeout`` with no answer: its statement may still have committed (the workers'
/// renewal gives back claims whose reply was lost; an ``add(_:)`` tried again with the same ids
/// then fails as a duplicate id for what was queued).
///
/// ```swift
/// let queue = PostgresDownloadQueue(settings: settings)
/// try await queue.add([QueuedDownload(url: URL(string: "https://example.org/a.iso")!)])
/// await queue.close()
/// ```
///
/// Errors are `DownloadError` with code `store`; `isRetryable` is true when the server could not
/// be reached or went away (call again later), false when it answered (wrong password, a
/// duplicate id, a schema of a newer version: calling again does not help).
public actor PostgresDownloadQueue {
    /// Where the queue lives (without the password in any description).
    public nonisolated let settings: PostgresQueueSettings
    let logger: Logger
    private var connection: PostgresConnection?
    private var connecting: Task<PostgresConnection, any Error>?
    private var prepared = false
    private var preparing: Task<Void, any Error>?
    private var nextConnectionID = 1
    nonisolated var endpoint: String { settings.endpoint }

    /// The longest a call waits for a statement (a batch of ``add(_:)`` 1 ms more per download)
    /// and for a connection to open: past it the connection is closed, the call throws a
    /// retryable `DownloadError` (whether or not the driver ever answers) and the next call
    /// connects again.
    public nonisolated let queryTimeout: Duration

    /// Creates a queue handle. Nothing is opened until the first call.
    public init(settings: PostgresQueueSettings, logger: Logger = Logger(label: "fdl.postgres"),
                queryTimeout: Duration = .seconds(10)) {
        self.settings = settings
        self.logger = logger
        self.queryTimeout = queryTimeout
    }

    /// Connects (if not connected) and brings the schema to the current version: creates the
    /// tables in an empty database, runs the missing migration steps in one transaction under an
    /// advisory lock (workers that start together migrate once), and refuses a database whose
    /// schema is newer than this build knows, before writing anything to it. The other calls do
    /// this first themselves; call it to find a bad URL, password or schema at start-up.
    ///
    /// - Throws: `DownloadError` (code `store`) that names the server and its answer.
    public func prepare() async throws {
        if prepared { return }
        // Callers that come while it runs wait for the same preparation: one migration at a
        // time on the connection.
        if let preparing { return try await preparing.value }
        let task = Task { try await self.migrateOnce() }
        preparing = task
        defer { preparing = nil }
        try await task.value
    }

    private func migrateOnce() async throws {
        let connection = try await open()
        do {
            // Bounded like every statement: a migration lock held by a session that hangs, or a
            // server that stops answering, ends in an error instead of a wait for ever.
            try await bounded(connection, by: queryTimeout, doing: "preparing the queue") { try await self.migrate(on: $0) }
        } catch {
            // Closed either way: a refused schema leaves nothing open behind.
            await drop(connection)
            throw PostgresErrors.describe(error, endpoint: endpoint, doing: "preparing the queue")
        }
        prepared = true
    }

    /// Queues `downloads`, all or none (one statement). Each is stored with state `queued`, its
    /// priority (`DownloadOptions/priority`) and its place after everything queued before.
    ///
    /// - Throws: `DownloadError` with code `invalidIdentifier`, `invalidURL`, `invalidHeader` or
    ///   `invalidChecksum` for an id, URL, mirror, header field or SHA-256 that
    ///   `InputValidation.checkDownload(id:url:options:allowsOpaque:)` refuses (the rules of every front end;
    ///   a queued id has 20 characters less room, for the worker's claim number);
    ///   code `invalidDestination` for a destination that is not a
    ///   plain relative path, or that an unfinished download in the queue (or another in the
    ///   batch) already writes to, itself or through its staging file (`a` and `a.part`: one
    ///   staging family, `DestinationPolicy.stagingFamily(of:stagingSuffix:)`, a rule of the
    ///   queue's schema that holds across workers); code `store` for a duplicate id. Nothing is
    ///   queued then.
    public func add(_ downloads: [QueuedDownload]) async throws {
        guard !downloads.isEmpty else { return }
        for download in downloads {
            try InputValidation.checkDownload(id: download.id, url: download.url, options: download.options)
            try QueuedDownload.checkIdentifierRoom(download.id)
            if let problem = QueuedDownload.problem(destination: download.destination) {
                // The problem names the destination (control characters escaped); the id is only
                // added when it is another (the default id is the destination).
                let id = download.id == download.destination ? "" : " (id '\(download.id)')"
                throw DownloadError(.invalidDestination, "cannot queue\(id): \(problem)")
            }
        }
        var families: [String: String] = [:]
        for download in downloads {
            let family = DestinationPolicy.stagingFamily(of: download.destination)
            if let other = families.updateValue(download.destination, forKey: family), other != download.destination {
                throw DownloadError(.invalidDestination, Self.familyClash(" (\(other) and \(download.destination) in one batch)"))
            }
        }
        var ids: [String] = [], urls: [String] = [], destinations: [String] = [], priorities: [Int] = [], records: [String] = []
        for download in downloads {
            let record = DownloadRecord(
                id: download.id, url: download.url,
                destination: URL(fileURLWithPath: "/" + download.destination), partPath: "",
                state: .waiting, options: download.options)
            ids.append(record.id)
            urls.append(record.url.absoluteString)
            destinations.append(download.destination)
            priorities.append(download.options.priority)
            records.append(try RecordCoding.encode(record))
        }
        // A large batch is one statement: it may take longer (1 ms per download more).
        try await run("queueing \(downloads.count) download(s)", timeout: queryTimeout + .milliseconds(downloads.count)) {
            [ids, urls, destinations, priorities, records] connection in
            do {
                try await connection.query("""
                    INSERT INTO downloads (id, url, destination, priority, record)
                    SELECT i, u, d, p, r::jsonb FROM unnest(\(ids)::text[], \(urls)::text[], \(destinations)::text[],
                                                           \(priorities)::int8[], \(records)::text[]) AS t(i, u, d, p, r)
                    """, logger: self.logger)
            } catch let error as PSQLError where error.serverInfo?[.constraintName] == QueueSchema.unfinishedDestinationIndex {
                let detail = error.serverInfo?[.detail].map { " (\($0))" } ?? ""
                throw DownloadError(.invalidDestination,
                                    "cannot queue: an unfinished download already writes to that destination\(detail); nothing was queued")
            } catch let error as PSQLError where error.serverInfo?[.constraintName] == QueueSchema.unfinishedFamilyIndex {
                let detail = error.serverInfo?[.detail].map { " (\($0))" } ?? ""
                throw DownloadError(.invalidDestination, Self.familyClash(detail))
            }
        }
    }

    /// The message for two destinations of one staging family; `detail` names them.
    static func familyClash(_ detail: String) -> String {
        "cannot queue: an unfinished download writes to that destination's staging file, or that destination is its staging file"
            + "\(detail): the two would overwrite each other; nothing was queued"
    }

    /// How many downloads are in each queue state. A claim whose lease lapsed counts as queued.
    public func counts() async throws -> QueueCounts {
        try await run("counting the queue") { connection in
            let rows = try await connection.query("""
                SELECT CASE WHEN state = 'claimed' AND lease_expires_at <= now() THEN 'queued' ELSE state END, count(*)
                FROM downloads GROUP BY 1
                """, logger: self.logger)
            var counts = QueueCounts()
            for try await (state, count) in rows.decode((String, Int).self) {
                switch state {
                case "queued": counts.queued += count
                case "claimed": counts.claimed += count
                case "completed": counts.completed += count
                case "failed": counts.failed += count
                default: counts.cancelled += count
                }
            }
            return counts
        }
    }

    /// Closes the connection. A later call opens a new one.
    public func close() async {
        connecting?.cancel()
        connecting = nil
        if let connection { await drop(connection) }
    }

    // MARK: running statements

    /// Runs `body` on the connection (opening it, and preparing the schema, first). A failure that
    /// means the connection broke drops it, so the next call connects again.
    ///
    /// `timeout` (``queryTimeout`` by default) bounds the wait for `body`: past it the connection
    /// is closed and the call throws a retryable error.
    @discardableResult
    func run<T: Sendable>(_ what: String, timeout: Duration? = nil,
                          _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await prepare()
        let connection = try await open()
        do {
            return try await bounded(connection, by: timeout ?? queryTimeout, doing: what, body)
        } catch {
            let wrapped = PostgresErrors.describe(error, endpoint: endpoint, doing: what)
            if wrapped.isRetryable { await drop(connection) }
            throw wrapped
        }
    }

    /// Runs `body` on `connection` and waits for it at most `deadline`: past it the connection is
    /// closed and the call throws a retryable error, even if `body` never returns (a server or
    /// network that hangs, or a statement postgres-nio never answers, would otherwise hold the
    /// caller for ever; see ``AnswerDeadline``).
    private func bounded<T: Sendable>(_ connection: PostgresConnection, by deadline: Duration, doing what: String,
                                      _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await AnswerDeadline.run(within: deadline, what: "PostgreSQL at \(endpoint): \(what)") {
            try await body(connection)
        } onExpiry: {
            try? await connection.close()
        }
    }

    /// Closes `old` and forgets it, so the next call connects again.
    private func drop(_ old: PostgresConnection) async {
        if connection === old { connection = nil }
        try? await old.close()
    }

    /// The open connection, or a new one. A caller that comes while one is being opened waits for
    /// that one; either way the wait is bounded by ``queryTimeout``.
    private func open() async throws -> PostgresConnection {
        if let connection, !connection.isClosed { return connection }
        let task: Task<PostgresConnection, any Error>
        if let connecting {
            task = connecting
        } else {
            let configuration = try connectionConfiguration()
            let id = nextConnectionID
            nextConnectionID += 1
            let logger = self.logger
            task = Task { try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger) }
            connecting = task
        }
        defer { if connecting == task { connecting = nil } }  // not a newer attempt, after close()
        do {
            // Bounded as a whole: the connect timeout covers reaching the server, not a server
            // that accepts and then never completes the start-up.
            let opened = try await AnswerDeadline.run(within: queryTimeout, what: "PostgreSQL at \(endpoint): connecting") {
                try await task.value
            } onExpiry: {
                task.cancel()
                // A connection that opens after all is closed, not left behind.
                Task { try? await task.value.close() }
            }
            connection = opened
            return opened
        } catch {
            prepared = false
            throw PostgresErrors.describe(error, endpoint: endpoint, doing: "connecting")
        }
    }

    /// How to reach the server the settings name (Unix socket, or TCP with the TLS mode).
    private func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let socket = settings.unixSocketPath {
            let path = socket.hasSuffix(".s.PGSQL.\(settings.port)") ? socket : socket + "/.s.PGSQL.\(settings.port)"
            configuration = .init(unixSocketPath: path, username: settings.username,
                                  password: settings.password, database: settings.database)
        } else {
            let tls: PostgresConnection.Configuration.TLS
            switch settings.tls {
            case .disable: tls = .disable
            case .verifyFull:
                do {
                    tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
                } catch {
                    throw DownloadError(.store, "cannot set up TLS for PostgreSQL at \(endpoint): \(error)")
                }
            }
            configuration = .init(host: settings.host, port: settings.port, username: settings.username,
                                  password: settings.password, database: settings.database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }

    private func migrate(on connection: PostgresConnection) async throws {
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(QueueSchema.migrationLock))", logger: self.logger)
            var version = 0
            let exists = try await connection.query("SELECT to_regclass('fdl_schema_version') IS NOT NULL", logger: self.logger)
            var hasTable = false
            for try await present in exists.decode(Bool.self) { hasTable = present }
            if hasTable {
                let rows = try await connection.query("SELECT max(version) FROM fdl_schema_version", logger: self.logger)
                for try await stored in rows.decode(Int?.self) { version = stored ?? 0 }
            }
            if version > QueueSchema.currentVersion {
                throw DownloadError(.store, """
                    the queue's schema is version \(version), newer than this fdl knows (\(QueueSchema.currentVersion)); \
                    upgrade fdl. The database was not changed.
                    """, isRetryable: false)
            }
            if version == QueueSchema.currentVersion { return }
            if !hasTable {
                try await connection.query("CREATE TABLE fdl_schema_version (version integer NOT NULL)", logger: self.logger)
                try await connection.query("INSERT INTO fdl_schema_version (version) VALUES (0)", logger: self.logger)
            }
            if hasTable, version >= 1, version < QueueSchema.rulesVersion {
                _ = try await QueueSchema.failDownloadsBreakingRules(on: connection, logger: self.logger)
            }
            for step in QueueSchema.steps[version...] {
                for statement in step {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                }
            }
            try await connection.query("UPDATE fdl_schema_version SET version = \(QueueSchema.currentVersion)", logger: self.logger)
            self.logger.info("migrated the queue's schema", metadata: ["from": "\(version)", "to": "\(QueueSchema.currentVersion)"])
        }
    }
}
