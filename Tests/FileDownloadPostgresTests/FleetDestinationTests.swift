import FileDownloadTestSupport
import Foundation
import Testing

/// The destination rules of the fleet's queue (the library's `DestinationPolicy`, kept by the
/// queue's schema): `a` and `a.part` never both unfinished, whoever adds them; names with control
/// characters or a leading dot refused by `fdl add --postgres -o` as by every other path.
@Suite("fleet: destinations", .serialized)
struct FleetDestinationTests {
    @Test("a and a.part are refused across adds, batches and raw inserts; two workers on one shared directory deliver the one queued")
    func stagingNamesUniqueAcrossTheFleet() async throws {
        try await FleetTestbed.with { bed in
            let data = try bed.nginx.serve("files/a", sampleBytes(30_000, seed: 41))
            _ = try bed.nginx.serve("files/other", sampleBytes(10_000, seed: 42))
            let env = bed.environment
            let first = try await FDLProcess.run(["add", "--postgres", bed.postgres.url, "-o", "a", bed.nginx.url("files/a")], environment: env)
            #expect(first.status == 0, "\(first.stderr)")
            // The second of the pair, from another `fdl add` (another process, as another machine would).
            let staging = try await FDLProcess.run(["add", "--postgres", bed.postgres.url, "-o", "a.part", bed.nginx.url("files/other")],
                                                   environment: env)
            #expect(staging.status == 64, "\(staging.stderr)")
            #expect(staging.stderr.contains("staging file") && staging.stderr.contains("nothing was queued"), "\(staging.stderr)")
            // The other way round: b.part first, then b.
            #expect(try await FDLProcess.run(["add", "--postgres", bed.postgres.url, "-o", "b.part", bed.nginx.url("files/other")],
                                             environment: env).status == 0)
            let b = try await FDLProcess.run(["add", "--postgres", bed.postgres.url, "-o", "b", bed.nginx.url("files/other")], environment: env)
            #expect(b.status == 64 && b.stderr.contains("staging file"), "\(b.stderr)")
            // Within one batch.
            let list = bed.out.file("pair.txt").path
            try "\(bed.nginx.url("files/other"))\n  out=c\n\(bed.nginx.url("files/a"))\n  out=c.part\n"
                .write(toFile: list, atomically: true, encoding: .utf8)
            let batch = try await FDLProcess.run(["add", "--postgres", bed.postgres.url, "-i", list], environment: env)
            #expect(batch.status == 64 && batch.stderr.contains("staging file"), "\(batch.stderr)")
            // A row written by anything else than fdl is held to the same rule: it is the schema's.
            #expect(throws: (any Error).self) {
                try bed.postgres.psql("INSERT INTO downloads (id, url, destination, record) VALUES ('raw', 'http://x/', 'a.part', '{}')")
            }
            #expect(try bed.postgres.psql("SELECT string_agg(destination, ',' ORDER BY destination) FROM downloads") == "a,b.part")

            try FileManager.default.createDirectory(atPath: bed.out.path("files"), withIntermediateDirectories: true)
            let workers = [try await bed.startWorker("one"), try await bed.startWorker("two")]
            try await bed.awaitCompleted(2, workers: workers)
            await bed.stop(workers)
            #expect(try Data(contentsOf: bed.out.file("files/a")) == data, "a is whole: nothing wrote its staging file as a download")
            #expect(!FileManager.default.fileExists(atPath: bed.out.path("files/a.part")))
        }
    }

    /// A version-1 queue held two downloads to one destination (`x.bin` twice), or to one staging
    /// family (`x.bin` and `x.bin.part`).
    @Test("migrating an older queue keeps the first of two downloads to one file or staging family and marks the other failed",
          arguments: ["x.bin", "x.bin.part"])
    func migrationKeepsTheFirstOfAPair(second: String) async throws {
        let postgres = try await PostgresServer()
        defer { postgres.stop() }
        try postgres.psql(FleetBadInputTests.version1)
        try postgres.psql("""
            INSERT INTO downloads (id, url, destination, record) VALUES
              ('first', 'http://127.0.0.1:9/a', 'x.bin', '{}'), ('second', 'http://127.0.0.1:9/b', '\(second)', '{}'),
              ('own', 'http://127.0.0.1:9/c', 'y.bin', '{}')
            """)
        let run = try await FDLProcess.run(["add", "--postgres", postgres.url, "-o", "z.bin", "http://127.0.0.1:9/d"],
                                           environment: ["PGPASSWORD": postgres.password])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try postgres.psql("SELECT version FROM fdl_schema_version") == "3")
        #expect(try postgres.psql("SELECT string_agg(id || ':' || state, ',' ORDER BY id) FROM downloads")
                == "first:queued,own:queued,second:failed,z.bin:queued")
        #expect(try postgres.psql("SELECT record->>'errorCode' FROM downloads WHERE id = 'second'") == "invalidDestination")
    }

    @Test("migrating to schema 3 marks failed the unfinished downloads its rules refuse (a leading dot, a long id), naming the rule")
    func migrationFailsDownloadsBreakingTheRules() async throws {
        let postgres = try await PostgresServer()
        defer { postgres.stop() }
        try postgres.psql(FleetBadInputTests.version1)
        let longID = String(repeating: "i", count: 240)
        try postgres.psql("""
            INSERT INTO downloads (id, url, destination, record) VALUES
              ('dotted', 'http://127.0.0.1:9/a', '.cache/x.bin', '{}'), ('\(longID)', 'http://127.0.0.1:9/b', 'long.bin', '{}'),
              ('dotdir', 'http://127.0.0.1:9/c', 'sub/.hidden/p.bin', '{}'), ('fine', 'http://127.0.0.1:9/d', 'sub/fine.bin', '{}');
            INSERT INTO downloads (id, url, destination, state, record) VALUES
              ('done', 'http://127.0.0.1:9/e', '.done.bin', 'completed', '{"state": "completed"}')
            """)
        let run = try await FDLProcess.run(["add", "--postgres", postgres.url, "-o", "z.bin", "http://127.0.0.1:9/f"],
                                           environment: ["PGPASSWORD": postgres.password])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try postgres.psql("SELECT version FROM fdl_schema_version") == "3")
        #expect(try postgres.psql("SELECT string_agg(left(id, 6) || ':' || state, ',' ORDER BY id) FROM downloads")
                == "done:completed,dotdir:failed,dotted:failed,fine:queued,iiiiii:failed,z.bin:queued")
        #expect(try postgres.psql("SELECT record->>'errorCode' FROM downloads WHERE id = 'dotted'") == "invalidDestination")
        let dotted = try postgres.psql("SELECT record->'errorMessages'->>0 FROM downloads WHERE id = 'dotted'")
        #expect(dotted.contains("schema version 3") && dotted.contains("starts with a dot"), "\(dotted)")
        #expect(try postgres.psql("SELECT record->>'errorCode' FROM downloads WHERE id = '\(longID)'") == "invalidIdentifier")
        let long = try postgres.psql("SELECT record->'errorMessages'->>0 FROM downloads WHERE id = '\(longID)'")
        #expect(long.contains("schema version 3") && long.contains("1 to 236 characters"), "\(long)")
        #expect(try postgres.psql("SELECT record->>'state' FROM downloads WHERE id = 'done'") == "completed")
    }

    @Test("fdl add --postgres -o refuses a name with a newline, TAB, ESC or a leading dot, as fdl get does")
    func controlCharacterNamesRefused() async throws {
        let postgres = try await PostgresServer()
        defer { postgres.stop() }
        for name in ["a\nb", "a\tb", "\u{1B}[2Jx", ".hidden", "sub/.x", "sub/a\nb"] {
            let added = try await FDLProcess.run(["add", "--postgres", postgres.url, "-o", name, "http://127.0.0.1:9/x.bin"],
                                                 environment: ["PGPASSWORD": postgres.password])
            #expect(added.status == 64, "\(name.debugDescription): \(added.stderr)")
            #expect(!added.stderr.contains("\u{1B}") && added.stderr.contains("fdl add:"), "\(added.stderr.debugDescription)")
            let get = try await FDLProcess.run(["get", "-o", name, "http://127.0.0.1:9/x.bin"])
            #expect(get.status == 64, "\(name.debugDescription): \(get.stderr)")
        }
        #expect(try await FDLProcess.run(["add", "--postgres", postgres.url, "-o", "fine.bin", "http://127.0.0.1:9/x.bin"],
                                         environment: ["PGPASSWORD": postgres.password]).status == 0)
        #expect(try postgres.psql("SELECT string_agg(destination, ',') FROM downloads") == "fine.bin", "only the plain name was queued")
    }
}
