import FileDownload
import FileDownloadHTTP
import Foundation
import Testing

/// Every case of the HTTP issue through a real `Downloader`: the final file is compared by
/// SHA-256, and on every failure the destination still holds what it held before.
@Suite("HTTP end to end through Downloader")
struct HTTPEndToEndTests {
    /// A fault the download must get through, and the restart it must announce, if any.
    ///
    /// `requestTimeout` is short only where the fault is a stall the timeout must end; elsewhere a
    /// one-second timeout fired spuriously when the whole suite loaded the machine (an extra
    /// interruption, and for ignored ranges an extra restart).
    struct Recovery: Sendable, CustomTestStringConvertible {
        var query: String
        var restarts: [RestartReason]
        var interrupted: Bool
        var requestTimeout: Duration = .seconds(20)
        var testDescription: String { query }
    }

    static let recoveries: [Recovery] = [
        Recovery(query: "drop=100000", restarts: [], interrupted: true),
        Recovery(query: "drop=1,150000,299999", restarts: [], interrupted: true),
        Recovery(query: "short=5000", restarts: [], interrupted: true),
        Recovery(query: "reset=100000", restarts: [], interrupted: true),
        Recovery(query: "reset=1,150000,299999", restarts: [], interrupted: true),
        Recovery(query: "stall=120000", restarts: [], interrupted: true, requestTimeout: .seconds(1)),
        Recovery(query: "drop=100000&ignoreRange=1", restarts: [.rangeIgnored], interrupted: true),
        Recovery(query: "drop=100000&wrongRange=1", restarts: [.rangeMismatch], interrupted: true),
        Recovery(query: "status=500,503", restarts: [], interrupted: true),
        Recovery(query: "status=429&retryAfter=1", restarts: [], interrupted: true),
        Recovery(query: "redirect=4", restarts: [], interrupted: false),
    ]

    @Test("a download through a fault completes byte-exact", arguments: recoveries)
    func recovers(from fault: Recovery) async throws {
        try await HTTPFixture.with { fx in
            let run = try await DownloadRun.run(fx, fx.fault.url("small.bin", fault.query),
                                                transfer: TransferOptions(requestTimeout: fault.requestTimeout),
                                                sha256: fx.smallSHA)
            #expect(run.error == nil, "\(String(describing: run.error))")
            let file = try #require(run.file)
            #expect(try TestFiles.sha256(file) == fx.smallSHA)
            #expect(run.restarts == fault.restarts)
            #expect((run.interruptions > 0) == fault.interrupted)
        }
    }

    @Test("a Content-Length far larger than what is sent leaves no reserved blocks past the end after the failure")
    func shortBodyReleasesReservation() async throws {
        try await HTTPFixture.with { fx in
            let size = 24 << 20
            _ = try TestFiles.write(fx.served.appendingPathComponent("big.bin"), size: size, seed: 3)
            // The full length is announced (space is reserved for it), 64 KiB are sent, the connection closes.
            // One connection: the reservation of one stream is what is checked (segments would fetch the rest).
            let run = try await DownloadRun.run(fx, fx.fault.url("big.bin", "short=\(size - (64 << 10))"), retry: .none,
                                                maxConnections: 1)
            #expect(run.error != nil)
            var st = stat()
            #expect(lstat(run.destination.path + ".part", &st) == 0)
            let allocated = Int64(st.st_blocks) * 512
            // Without the release 24 MiB stay allocated; with it, the bytes written (plus a block).
            #expect(allocated <= Int64(st.st_size) + (1 << 20), "\(allocated) bytes allocated for a \(st.st_size)-byte file")
        }
    }

    @Test("a file changed on the server between attempts restarts and ends as the new file")
    func changedBetweenAttempts() async throws {
        try await HTTPFixture.with { fx in
            let newSHA = try TestFiles.write(fx.served.appendingPathComponent("v2.bin"), size: HTTPFixture.smallSize, seed: 9)
            let run = try await DownloadRun.run(fx, fx.fault.url("x", "versions=small.bin,v2.bin&drop=150000"))
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try TestFiles.sha256(file) == newSHA)
            #expect(run.restarts == [.validatorChanged])
        }
    }

    @Test("nginx over HTTP and over HTTPS with the test CA", arguments: [false, true])
    func nginx(https: Bool) async throws {
        try await HTTPFixture.with(nginx: true) { fx in
            let run = try await DownloadRun.run(fx, fx.nginx!.fileURL("small.bin", https: https),
                                                configuration: .init(caBundlePath: fx.certificates!.caCertificate.path, proxy: .none))
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try TestFiles.sha256(file) == fx.smallSHA)
        }
    }

    @Test("401 Basic and Digest answered by the delegate complete",
          arguments: ["basic:alice:s3cret", "digest:alice:s3cret"])
    func authenticated(auth: String) async throws {
        try await HTTPFixture.with { fx in
            let delegate = ChallengeAnswering { _ in .useCredential(.password(user: "alice", password: "s3cret")) }
            let run = try await DownloadRun.run(fx, fx.fault.url("small.bin", "auth=\(auth)"), delegate: delegate)
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try TestFiles.sha256(file) == fx.smallSHA)
        }
    }

    /// A failure and the code it must end with.
    struct Failure: Sendable, CustomTestStringConvertible {
        var query: String
        var code: DownloadError.Code
        var testDescription: String { "\(query) → \(code)" }
    }

    static let failures: [Failure] = [
        Failure(query: "status=404", code: .notFound),
        Failure(query: "status=403", code: .permissionDenied),
        Failure(query: "status=500,500,500,500,500,500,500", code: .badStatus),
        Failure(query: "auth=basic:alice:s3cret", code: .authenticationFailed),
        Failure(query: "auth=digest:alice:s3cret", code: .authenticationFailed),
        Failure(query: "location=file:///etc/passwd", code: .redirectRefused),
        Failure(query: "redirect=30", code: .tooManyRedirects),
    ]

    @Test("a failing download leaves the destination untouched", arguments: failures)
    func fails(with failure: Failure) async throws {
        try await HTTPFixture.with { fx in
            let delegate = ChallengeAnswering { _ in .useCredential(.password(user: "alice", password: "wrong")) }
            let run = try await DownloadRun.run(fx, fx.fault.url("small.bin", failure.query), delegate: delegate)
            #expect(run.file == nil)
            #expect(run.error?.code == failure.code, "\(String(describing: run.error))")
            #expect(run.destinationUntouched)
        }
    }

    @Test("HTTPS without the CA fails as tlsFailure; a redirect from https to http is refused")
    func httpsFailures() async throws {
        try await HTTPFixture.with(tls: true) { fx in
            let untrusted = try await DownloadRun.run(fx, fx.faultTLS!.url("small.bin"))
            #expect(untrusted.error?.code == .tlsFailure)
            #expect(untrusted.interruptions == 0)
            #expect(untrusted.destinationUntouched)

            let target = fx.fault.url("small.bin").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let downgrade = try await DownloadRun.run(fx, fx.faultTLS!.url("small.bin", "location=\(target)"),
                                                      configuration: .init(caBundlePath: fx.certificates!.caCertificate.path, proxy: .none))
            #expect(downgrade.error?.code == .redirectRefused)
            #expect(downgrade.destinationUntouched)
        }
    }
}
