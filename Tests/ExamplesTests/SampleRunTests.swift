import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs the programs that hold the samples of the README (`QuickStartExample`) and of
/// docs/getting-started.md (`EmbeddingExample`, with a delegate and with `--events`) against nginx
/// on 127.0.0.1 (and the custom transport example on a local file), as a reader would run them: each must end by itself within a bounded time, with
/// status 0 and the files on disk when every download completes, and 1 when one cannot.
@Suite("The README's and getting-started's samples run and end", .serialized, .timeLimit(.minutes(3)))
struct SampleRunTests {
    /// How long a sample may take to download a few small files from loopback.
    static let limit: Duration = .seconds(90)

    /// A finished run of a sample program.
    struct Run {
        var status: Int32
        var output: String
    }

    /// The executable `name` built next to the test bundle (the test target depends on it).
    static func executable(_ name: String) throws -> URL {
        let url = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appending(path: name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw TestFailure("the sample \(url.path) was not built: run `swift build --build-tests`")
        }
        return url
    }

    /// Runs `name arguments...` in `directory` and waits for it to end; after ``limit`` it is
    /// killed, the test fails saying so, and the run reports status 137 (128 + SIGKILL).
    static func run(_ name: String, _ arguments: [String], in directory: TemporaryDirectory) async throws -> Run {
        var environment = ProxyFreeEnvironment.of()
        environment["TMPDIR"] = directory.path  // what a sample puts in "the temporary directory" stays in the test's
        let log = directory.path("\(name).log")
        let process = try ChildProcess(try executable(name).path, arguments, environment: environment,
                                       directory: directory.path, output: .file(log), error: .file(log))
        let status: Int32
        do {
            status = try await process.wait(limit: limit)
        } catch {
            Issue.record("\(error)")
            status = process.exitStatus ?? 128 + SIGKILL
        }
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return Run(status: status, output: output)
    }

    /// Serves three files (one of them 1 MB) from nginx and runs `body` with it and an empty
    /// working directory.
    func withServedFiles(_ body: (NginxServer, [String: Data], TemporaryDirectory) async throws -> Void) async throws {
        let www = try TemporaryDirectory("samples-www")
        let work = try TemporaryDirectory("samples-run")
        defer {
            www.remove()
            work.remove()
        }
        var files: [String: Data] = [:]
        for (name, size) in [("a.bin", 1_000_000), ("b.txt", 10_000), ("c.dat", 1)] {
            let data = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ size) })
            try data.write(to: www.file(name))
            files[name] = data
        }
        let server = try await NginxServer(root: www.url, bytesPerSecond: 0)
        defer { server.stop() }
        try await body(server, files, work)
    }

    @Test("the README's quick start downloads the file and exits 0")
    func quickStart() async throws {
        try await withServedFiles { server, files, work in
            let run = try await Self.run("QuickStartExample", [server.baseURL.appending(path: "a.bin").absoluteString], in: work)
            #expect(run.status == 0, "exit \(run.status); output:\n\(run.output)")
            #expect(FileManager.default.contents(atPath: work.path("a.bin")) == files["a.bin"])
            #expect(run.output.contains("saved to"))
        }
    }

    @Test("the README's quick start ends with status 1 when the file is missing")
    func quickStartMissingFile() async throws {
        try await withServedFiles { server, _, work in
            let run = try await Self.run("QuickStartExample", [server.baseURL.appending(path: "missing.bin").absoluteString], in: work)
            #expect(run.status == 1, "exit \(run.status); output:\n\(run.output)")
            #expect(run.output.contains("not downloaded"))
            #expect(!FileManager.default.fileExists(atPath: work.path("missing.bin.part")))
        }
    }

    @Test("the custom transport example copies a file through its transport and exits 0")
    func customTransport() async throws {
        let work = try TemporaryDirectory("samples-custom")
        defer { work.remove() }
        let data = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try data.write(to: work.file("source.bin"))
        let run = try await Self.run("CustomTransportExample", [work.path("source.bin")], in: work)
        #expect(run.status == 0, "exit \(run.status); output:\n\(run.output)")
        #expect(FileManager.default.contents(atPath: work.path("custom-transport-example/source.bin")) == data)
    }

    @Test("getting-started's samples (delegate, then events) download every file and exit 0",
          arguments: [[], ["--events"]])
    func gettingStarted(mode: [String]) async throws {
        try await withServedFiles { server, files, work in
            let names = files.keys.sorted()
            let urls = names.map { server.baseURL.appending(path: $0).absoluteString }
            let run = try await Self.run("EmbeddingExample", mode + urls, in: work)
            #expect(run.status == 0, "exit \(run.status); output:\n\(run.output)")
            for name in names {
                #expect(FileManager.default.contents(atPath: work.path(name)) == files[name], "\(name)")
            }
        }
    }

    @Test("getting-started's samples end (status 1) when one download fails", arguments: [[], ["--events"]])
    func gettingStartedWithAFailure(mode: [String]) async throws {
        try await withServedFiles { server, files, work in
            let urls = ["a.bin", "missing.bin"].map { server.baseURL.appending(path: $0).absoluteString }
            let run = try await Self.run("EmbeddingExample", mode + urls, in: work)
            #expect(run.status == 1, "exit \(run.status); output:\n\(run.output)")
            #expect(FileManager.default.contents(atPath: work.path("a.bin")) == files["a.bin"])
        }
    }
}
