import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl worker` and `fdl add` with `--postgres` given something wrong: a clear error, the right
/// exit status, no password printed, nothing written.
@Suite struct FleetBadInputTests {
    @Test func aWrongPasswordIsRefusedClearlyAndNothingIsCreated() async throws {
        let postgres = try await PostgresServer()
        defer { postgres.stop() }
        for command in [["worker"], ["add", "http://127.0.0.1:9/a.bin"]] {
            let run = try await FDLProcess.run(command + ["--postgres", postgres.url], environment: ["PGPASSWORD": "not-the-password-42"])
            #expect(run.status == 74, "\(run.stdout) \(run.stderr)")
            #expect(run.stderr.contains("password authentication failed"), "\(run.stderr)")
            #expect(!(run.stdout + run.stderr).contains("not-the-password-42"))
        }
        #expect(try postgres.psql("SELECT to_regclass('downloads') IS NULL") == "t")
    }

    @Test func anUnreachableServerIsAClearErrorAtOnce() async throws {
        let refusing = try RefusingPort()  // held for the test: nothing can listen there
        let port = refusing.port
        let run = try await FDLProcess.run(["worker", "--postgres", "postgres://fdl@127.0.0.1:\(port)/db"], environment: ["PGPASSWORD": "x"])
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("PostgreSQL at fdl@127.0.0.1:\(port)/db") && run.stderr.contains("connecting failed"), "\(run.stderr)")
        withExtendedLifetime(refusing) {}
    }

    @Test func aSchemaOfANewerVersionIsRefusedAndLeftUntouched() async throws {
        let postgres = try await PostgresServer()
        defer { postgres.stop() }
        try postgres.psql("CREATE TABLE fdl_schema_version (version integer NOT NULL); INSERT INTO fdl_schema_version VALUES (99)")
        for command in [["worker"], ["add", "http://127.0.0.1:9/a.bin"]] {
            let run = try await FDLProcess.run(command + ["--postgres", postgres.url], environment: ["PGPASSWORD": postgres.password])
            #expect(run.status == 74, "\(run.stderr)")
            #expect(run.stderr.contains("schema is version 99, newer than this fdl knows"), "\(run.stderr)")
        }
        #expect(try postgres.psql("SELECT to_regclass('downloads') IS NULL") == "t")
        #expect(try postgres.psql("SELECT string_agg(version::text, ',') FROM fdl_schema_version") == "99")
    }

    @Test func aBatchWithADuplicateOrABadDestinationQueuesNothing() async throws {
        let postgres = try await PostgresServer()
        defer { postgres.stop() }
        let env: [String: String?] = ["PGPASSWORD": postgres.password]
        let first = try await FDLProcess.run(["add", "--postgres", postgres.url, "http://127.0.0.1:9/a.bin"], environment: env)
        #expect(first.status == 0, "\(first.stderr)")
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let list = dir.path("list.txt")
        try "http://127.0.0.1:9/b.bin\nhttp://127.0.0.1:9/a.bin\n".write(toFile: list, atomically: true, encoding: .utf8)
        let duplicate = try await FDLProcess.run(["add", "--postgres", postgres.url, "-i", list], environment: env)
        #expect(duplicate.status == 74, "\(duplicate.stderr)")
        #expect(duplicate.stderr.contains("already exists"), "\(duplicate.stderr)")
        let escaping = try await FDLProcess.run(["add", "--postgres", postgres.url, "-o", "../evil", "http://127.0.0.1:9/c.bin"], environment: env)
        #expect(escaping.status == 64, "\(escaping.stderr)")
        #expect(try postgres.psql("SELECT string_agg(id, ',') FROM downloads") == "a.bin")
    }

    @Test func aDestinationAnUnfinishedDownloadWritesToIsRefused() async throws {
        let postgres = try await PostgresServer()
        defer { postgres.stop() }
        let env: [String: String?] = ["PGPASSWORD": postgres.password]
        let first = try await FDLProcess.run(["add", "--postgres", postgres.url, "-o", "same.bin", "http://127.0.0.1:9/a.bin"], environment: env)
        #expect(first.status == 0, "\(first.stderr)")
        let again = try await FDLProcess.run(["add", "--postgres", postgres.url, "-o", "same.bin", "--id", "other",
                                              "http://127.0.0.1:9/b.bin"], environment: env)
        #expect(again.status == 64, "\(again.stderr)")
        #expect(again.stderr.contains("already writes to that destination") && again.stderr.contains("same.bin"), "\(again.stderr)")
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let list = dir.path("list.txt")
        try "http://127.0.0.1:9/c.bin\n  out=twice.bin\nhttp://127.0.0.1:9/d.bin\n  out=twice.bin\n".write(toFile: list, atomically: true, encoding: .utf8)
        // (Their ids are their destination too: a duplicate id or destination, either way nothing is queued.)
        let batch = try await FDLProcess.run(["add", "--postgres", postgres.url, "-i", list], environment: env)
        #expect(batch.status != 0, "\(batch.stderr)")
        #expect(try postgres.psql("SELECT string_agg(id || '>' || destination, ',') FROM downloads") == "same.bin>same.bin")
        // Once that download is finished, the destination is free again.
        try postgres.psql("UPDATE downloads SET state = 'completed'")
        let later = try await FDLProcess.run(["add", "--postgres", postgres.url, "-o", "same.bin", "--id", "later",
                                              "http://127.0.0.1:9/b.bin"], environment: env)
        #expect(later.status == 0, "\(later.stderr)")
    }

    /// The tables of queue schema version 1 as that version made them (frozen: the migration
    /// test starts from it).
    static let version1 = """
        CREATE TABLE fdl_schema_version (version integer NOT NULL); INSERT INTO fdl_schema_version VALUES (1);
        CREATE TABLE downloads (
            id text PRIMARY KEY, url text NOT NULL, destination text NOT NULL,
            state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'claimed', 'completed', 'failed', 'cancelled')),
            priority integer NOT NULL DEFAULT 0, queue_order bigserial NOT NULL,
            lease_owner text, lease_expires_at timestamptz, claims integer NOT NULL DEFAULT 0,
            node text, staging_path text, staging_shared boolean NOT NULL DEFAULT false,
            checkpointed_bytes bigint NOT NULL DEFAULT 0, record jsonb NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now());
        CREATE INDEX downloads_claimable ON downloads (priority DESC, queue_order) WHERE state IN ('queued', 'claimed');
        CREATE INDEX downloads_by_lease_owner ON downloads (lease_owner) WHERE lease_owner IS NOT NULL;
        """

    @Test func aPasswordInTheURLOrInAFileOthersMayReadIsRefused() async throws {
        let inURL = try await FDLProcess.run(["worker", "--postgres", "postgres://fdl:hunter2secret@127.0.0.1:9/db"])
        #expect(inURL.status == 64, "\(inURL.stderr)")
        #expect(inURL.stderr.contains("carries a password") && !inURL.stderr.contains("hunter2secret"), "\(inURL.stderr)")
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try dir.createFile("pw", contents: Data("hunter2secret\n".utf8))
        chmod(file, 0o644)
        let readable = try await FDLProcess.run(["add", "--postgres", "postgres://fdl@127.0.0.1:9/db", "--postgres-password-file", file,
                                                 "http://127.0.0.1:9/a.bin"])
        #expect(readable.status == 64, "\(readable.stderr)")
        #expect(readable.stderr.contains("chmod 600"), "\(readable.stderr)")
    }

    @Test func aBadChecksumOrURLIsRefusedBeforeTheQueueIsReached() async throws {
        let base = ["add", "--postgres", "postgres://fdl@127.0.0.1:9/db"]
        for (arguments, says) in [
            (["--sha256", "abc", "http://127.0.0.1:9/a.bin"], "is not 64 hexadecimal digits"),
            (["http:///a.bin"], "has no host"),
            (["gopher://127.0.0.1/a.bin"], "not an http, https, sftp, ftp, ftps or s3 URL"),
            (["a.bin"], "is not an absolute URL"),
        ] {
            let run = try await FDLProcess.run(base + arguments, environment: ["PGPASSWORD": "x"])
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(says), "\(arguments): \(run.stderr)")
        }
    }

    @Test func theRootDirectoryIsRefused() async throws {
        for dir in ["/", "/tmp/.."] {
            let run = try await FDLProcess.run(["worker", "--postgres", "postgres://fdl@127.0.0.1:9/db", "-d", dir],
                                               environment: ["PGPASSWORD": "x"])
            #expect(run.status == 64, "\(run.stderr)")
            #expect(run.stderr.contains("refusing to put downloads in /"), "\(run.stderr)")
        }
    }

    @Test func aSecondWorkerOnTheSameUnsharedDirectoryIsRefused() async throws {
        let postgres = try await PostgresServer()
        defer { postgres.stop() }
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let env: [String: String?] = ["PGPASSWORD": postgres.password]
        let first = try FDLProcess(["worker", "--postgres", postgres.url, "-d", dir.path("files"), "--node", "n"], environment: env)
        try await first.waitForOutput(containing: "fdl worker: claiming from")
        let second = try await FDLProcess.run(["worker", "--postgres", postgres.url, "-d", dir.path("files"), "--node", "n"], environment: env)
        #expect(second.status == 74, "\(second.stderr)")
        #expect(second.stderr.contains("another worker already uses"), "\(second.stderr)")
        // Its own directory is fine.
        let other = try FDLProcess(["worker", "--postgres", postgres.url, "-d", dir.path("other"), "--node", "n"], environment: env)
        try await other.waitForOutput(containing: "fdl worker: claiming from")
        for worker in [first, other] {
            worker.send(SIGTERM)
            #expect(await worker.exitStatus() == 0, "\(worker.stderr)")
        }
    }
}
