@testable import FileDownload
import FileDownloadSQLite
import FileDownloadTestSupport
import Foundation
import Testing

/// A full disk (ENOSPC, on a small tmpfs) and a file size limit (EFBIG, RLIMIT_FSIZE in the helper
/// process) while downloading: a clear error, the bytes kept, the other downloads unaffected, and
/// a later run finishes the file from the kept bytes.
@Suite("Disk full and file size limit", .serialized)
struct DiskLimitTests {
    private struct Setup {
        let work: TemporaryDirectory
        let served: ServedFiles
        let server: NginxServer
        let downloads: URL

        init(label: String = #function) async throws {
            work = try TemporaryDirectory(label)
            var random = SplitMix64(seed: 42)
            var files = try ServedFiles(root: work.url.appending(path: "www"))
            try files.add("big.bin", size: 3_000_000, using: &random)
            try files.add("small1.bin", size: 200_000, using: &random)
            try files.add("small2.bin", size: 300_000, using: &random)
            served = files
            downloads = work.url.appending(path: "downloads")
            try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
            server = try await NginxServer(root: served.root, bytesPerSecond: 4 * 1024 * 1024)
        }

        /// Runs the helper to its end (it must exit with 0) and returns its results. The big file
        /// goes to `bigDirectory`, or the downloads directory.
        func run(_ label: String, bigDirectory: URL? = nil, extra: [String] = [],
                 sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: HelperProcess.Result] {
            let big = bigDirectory.map { "big.bin@\($0.path)" } ?? "big.bin"
            let arguments = ["--store", work.path("downloads.sqlite"), "--base", server.baseURL.absoluteString,
                             "--dir", downloads.path, "--file", big, "--file", "small1.bin", "--file", "small2.bin"]
            let helper = try HelperProcess(arguments + extra, output: work.url.appending(path: "\(label).log"))
            #expect(try await helper.waitForExit(limit: .seconds(60)) == 0, "\(helper.outputText)",
                    sourceLocation: sourceLocation)
            return helper.results
        }

        /// Checks the first run: big stopped with `code` and kept its bytes, the small files completed.
        func expectStopped(_ results: [String: HelperProcess.Result], code: String, saying phrase: String,
                           sourceLocation: SourceLocation = #_sourceLocation) throws -> HelperProcess.Result {
            let big = try #require(results["big.bin"], "\(results)", sourceLocation: sourceLocation)
            #expect(["failed", "interrupted"].contains(big.state), "\(big)", sourceLocation: sourceLocation)
            #expect(big.errorCode == code, "\(big)", sourceLocation: sourceLocation)
            #expect(big.message.contains(phrase), "\(big)", sourceLocation: sourceLocation)
            for name in ["small1.bin", "small2.bin"] {
                #expect(results[name]?.state == "completed", "\(String(describing: results[name]))", sourceLocation: sourceLocation)
                #expect(ServedFiles.sha256(of: downloads.appending(path: name)) == served.files[name]?.sha256,
                        sourceLocation: sourceLocation)
            }
            return big
        }

        /// Checks the second run: big completed with the right content, its last request resumed at
        /// `offset` (the bytes kept by the first run).
        func expectFinished(_ results: [String: HelperProcess.Result], file: URL, resumedAt offset: Int64,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(results["big.bin"]?.state == "completed", "\(results)", sourceLocation: sourceLocation)
            #expect(ServedFiles.sha256(of: file) == served.files["big.bin"]?.sha256, sourceLocation: sourceLocation)
            server.stop()
            let ranges = try server.transferLog().filter { $0.hasPrefix("/big.bin ") }.map { String($0.split(separator: " ")[3]) }
            #expect(ranges.last == "\"bytes=\(offset)-\"", "the last request resumes at the kept bytes: \(ranges)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test("ENOSPC: the download on the full disk stops with diskFull and keeps its bytes; the others complete")
    func diskFull() async throws {
        let setup = try await Setup()
        defer { setup.work.remove() }
        let mount = try TmpfsMount(size: "1m")
        defer { mount.unmount() }

        let big = try setup.expectStopped(try await setup.run("first", bigDirectory: mount.url),
                                          code: "diskFull", saying: "disk is full")
        #expect(big.partBytes > 0 && big.partBytes <= 1_048_576, "the bytes that fitted are kept: \(big)")
        #expect(!FileManager.default.fileExists(atPath: mount.path("big.bin")))

        // Room again: the next run resumes from the kept bytes and finishes.
        try mount.resize(to: "8m")
        try setup.expectFinished(try await setup.run("second", bigDirectory: mount.url),
                                 file: mount.url.appending(path: "big.bin"), resumedAt: big.partBytes)
    }

    @Test("EFBIG: past RLIMIT_FSIZE the download stops with fileTooLarge and keeps its bytes; the others complete")
    func fileTooLarge() async throws {
        let setup = try await Setup()
        defer { setup.work.remove() }
        let limit: Int64 = 1_000_000

        let big = try setup.expectStopped(try await setup.run("first", extra: ["--fsize-limit", "\(limit)"]),
                                          code: "fileTooLarge", saying: "file size limit")
        #expect(big.partBytes == limit, "the bytes up to the limit are kept: \(big)")

        try setup.expectFinished(try await setup.run("second"),
                                 file: setup.downloads.appending(path: "big.bin"), resumedAt: limit)
    }

    @Test("EFBIG with every download settled before the helper reads an event: the error comes from the download's info")
    func fileTooLargeSettledBeforeEvents() async throws {
        let setup = try await Setup()
        defer { setup.work.remove() }
        let limit: Int64 = 1_000_000
        let big = try setup.expectStopped(try await setup.run("first", extra: ["--fsize-limit", "\(limit)", "--settle-before-events"]),
                                          code: "fileTooLarge", saying: "file size limit")
        #expect(big.partBytes == limit, "the bytes up to the limit are kept: \(big)")
    }

    @Test("a server announcing nearly the whole disk gets a reservation that leaves 64 MiB free, given back after")
    func reservationLeavesMargin() throws {
        let tmpfs = try TmpfsMount(size: "100m")
        defer { tmpfs.unmount() }
        func freeBytes() -> Int64 {
            var vfs = statvfs()
            return statvfs(tmpfs.url.path, &vfs) == 0 ? Int64(vfs.f_bavail) * Int64(vfs.f_frsize) : -1
        }
        let path = tmpfs.path("x.part")
        let sink = try TransferSink(path: path, requestedOffset: 0)
        try sink.begin(TransferHead(disposition: .restarted(.resumeUnsupported), expectedLength: 90 << 20))
        var st = stat()
        #expect(stat(path, &st) == 0 && Int64(st.st_blocks) * 512 >= 8 << 20, "some space is reserved")
        #expect(freeBytes() >= (64 << 20) - (1 << 20), "\(freeBytes()) bytes left free")
        sink.seal()
        sink.releaseReservation()
        #expect(stat(path, &st) == 0 && st.st_blocks == 0)
    }
}
