import FileDownloadTestSupport
import Foundation
import Testing

/// What wget, curl and aria2c users type from habit, run as `fdl` processes: a flag that means
/// the same in fdl is accepted; any other gets exit 64 and a message naming fdl's option and what
/// it does (never its value, which may hold a password), and nothing is downloaded or created.
@Suite struct FDLHabitPointerTests {
    @Test(arguments: [
        (["-O"], "unknown option '-O'; fdl saves under the URL's name by default (as curl -O); -o NAME names the file"),
        (["-O", "name.bin"], "-o NAME names the file (as wget -O NAME), -o - writes it to standard output"),
        (["-s", "4"], "unknown option '-s'; -x N sets the connections one download may use (as aria2c -s N); -q prints"),
        (["-t", "3"], "unknown option '-t'; --retry N sets the retries after the first attempt (wget -t 3 is --retry 2)"),
        (["--tries=3"], "unknown option '--tries'; --retry N sets the retries"),
        (["--password", "s3cret"], "unknown option '--password'; --user USER:PASS gives user and password"),
        (["--http-user", "alice"], "unknown option '--http-user'; --user USER:PASS"),
        (["-x", "http://bob:s3cret@127.0.0.1:3128"], "-x N is the connections one download may use in fdl (as aria2c -x N), not a proxy; give a proxy with --proxy URL"),
        (["-xproxy.example:3128"], "not a proxy; give a proxy with --proxy URL (curl -x URL)"),
    ])
    func aHabitFlagFdlSpellsOtherwiseNamesFdlsOption(arguments: [String], message: String) async throws {
        let result = try await FDLProcess.getInEmptyDirectory(arguments)
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("s3cret"), "the value is never repeated: \(result.stderr)")
        #expect(result.created.isEmpty)
    }

    @Test func urlsOnStandardInputWithoutDashIPointToIt() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let result = try await FDLProcess.run(["get", "-d", dir.path], input: Data("http://127.0.0.1:9/x\n".utf8))
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("give at least one URL"), "\(result.stderr)")
        #expect(result.stderr.contains("-i - reads standard input: `cat list | fdl get -i -`"), "\(result.stderr)")
    }

    /// `-nc`/`--no-clobber` are fdl's default (a file fdl did not download is kept), and `-P`,
    /// `--directory-prefix` and `--output-dir` are `-d`.
    @Test(arguments: [["-nc", "-P"], ["--no-clobber", "--output-dir"], ["--no-clobber", "--directory-prefix"]])
    func noClobberIsAcceptedAndDashPIsTheDirectory(options: [String]) async throws {
        try await NginxServer.withServer { server, out in
            let data = try server.serve("hello.txt", sampleBytes(20_000, seed: 131))
            let mine = Data("mine\n".utf8)
            try mine.write(to: out.file("hello.txt"))
            let result = try await FDLProcess.run(["get", server.url("hello.txt"), options[0], options[1], out.path])
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("hello.txt")) == mine, "the file fdl did not download is kept")
            #expect(try Data(contentsOf: out.file("hello.1.txt")) == data)
        }
    }

    @Test func noClobberAndAllowOverwriteContradict() async throws {
        let result = try await FDLProcess.getInEmptyDirectory(["-nc", "--allow-overwrite"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--no-clobber (keep a file fdl did not download, the default) and --allow-overwrite contradict"),
                "\(result.stderr)")
        #expect(result.created.isEmpty)
    }

    @Test func dashJIsContentDisposition() async throws {
        try await NginxServer.withServer(locations: FDLContentDispositionTests.locations) { server, out in
            let data = try server.serve("cd/plain.bin", sampleBytes(30_000, seed: 132))
            let result = try await FDLProcess.run(["get", server.url("cd/plain.bin"), "-d", out.path, "-J"])
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("report.pdf")) == data, "saved under the server's name")
        }
    }
}
