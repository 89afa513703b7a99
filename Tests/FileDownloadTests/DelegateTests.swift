import FileDownload
import FileDownloadMock
import Foundation
import Synchronization
import Testing

/// Records every delegate call, in order, and answers questions as configured.
final class RecordingDelegate: DownloaderDelegate {
    let calls = Mutex<[String]>([])
    let rejectStatus: Int?
    let rejectFiles: Bool
    let credential: Credential?
    let redirect: URL?

    init(rejectStatus: Int? = nil, rejectFiles: Bool = false, credential: Credential? = nil, redirect: URL? = nil) {
        self.rejectStatus = rejectStatus
        self.rejectFiles = rejectFiles
        self.credential = credential
        self.redirect = redirect
    }

    func log(_ s: String) { calls.withLock { $0.append(s) } }
    var log: [String] { calls.withLock { $0 } }

    func downloadDidComplete(id: String, file: URL) async { log("complete \(id)") }
    func downloadDidFail(id: String, error: DownloadError, resumeData: ResumeData?) async {
        log("fail \(id) \(error.code) resume:\(resumeData != nil)")
    }
    func downloadWasInterrupted(id: String, error: DownloadError, retryIn: Duration?) async { log("interrupted \(id)") }
    func downloadDidPause(id: String, resumeData: ResumeData?) async { log("pause \(id) \(resumeData?.bytesOnDisk ?? -1)") }
    func downloadDidCancel(id: String) async { log("cancel \(id)") }
    func downloadWillResume(id: String) async { log("resume \(id)") }
    func downloadProgressDidChange(id: String, progress: DownloadProgress) async { log("progress \(id)") }
    func totalProgressDidChange(_ progress: TotalProgress) async { log("total") }
    func activityCountDidChange(_ count: Int) async { log("activity \(count)") }
    func downloadDidChangeState(id: String, state: DownloadState) async { log("state \(id) \(state)") }
    func destination(forID id: String, remoteURL: URL, proposed: URL) async -> URL {
        log("destination \(id)")
        return redirect ?? proposed
    }
    func validateFile(at file: URL, id: String) async -> Bool {
        log("validate \(id)")
        return !rejectFiles
    }
    func isValidStatus(_ status: Int?, id: String) -> Bool {
        log("status \(id) \(status ?? 0)")
        return status != rejectStatus && (status.map { (200..<300).contains($0) } ?? true)
    }
    func customizeTransfer(_ options: TransferOptions, id: String, url: URL) async -> TransferOptions {
        log("customize \(id)")
        var options = options
        options.headers.append(HeaderField(name: "X-Test", value: id))
        return options
    }
    func download(_ id: String, didReceive challenge: AuthChallenge) async -> AuthDisposition {
        log("challenge \(id)")
        return credential.map { .useCredential($0) } ?? .reject
    }
}

@Suite("Delegate calls and their order", .timeLimit(.minutes(1)))
struct DelegateTests {
    @Test("a download that completes: every call, in order")
    func completion() async throws {
        let delegate = RecordingDelegate()
        let h = Harness(delegate: delegate)
        h.serve("a", size: 1000)
        try await h.downloader.start(id: "a", url: h.url("a"))
        await h.recorder.state("a", .completed)
        await h.downloader.shutdown()  // delivers every pending notification
        let questions = ["destination", "customize", "status", "validate", "challenge"]
        let asked = delegate.log.filter { questions.contains(String($0.split(separator: " ")[0])) }
        let told = delegate.log.filter { !questions.contains(String($0.split(separator: " ")[0])) }
        #expect(asked == ["destination a", "customize a", "status a 200", "validate a"])
        #expect(told == [
            "state a notStarted", "state a waiting", "state a downloading", "activity 1", "progress a",
            "total", "state a completed", "complete a", "activity 0",  // the final total before the completion

        ])
        #expect(h.mock.requests(for: h.url("a")).first?.headers.contains(HeaderField(name: "X-Test", value: "a")) == true)
        try? FileManager.default.removeItem(at: h.directory)
    }

    @Test("pause, resume, interruption, failure and cancel notifications in order")
    func lifecycle() async throws {
        let delegate = RecordingDelegate()
        let h = Harness(retry: RetryPolicy(maxRetries: 0), delegate: delegate)
        h.serve("a", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("a"), attempts: [.stall(at: 1000), .drop(at: 2000)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        await h.parked(2)
        try await h.downloader.pause("a")
        try await h.downloader.resume("a")
        await h.recorder.state("a", .failed)
        try await h.downloader.cancel("a")
        await h.downloader.shutdown()
        let notifications = delegate.log.filter {
            ["pause", "resume", "interrupted", "fail", "cancel", "complete"].contains($0.split(separator: " ")[0])
        }
        #expect(notifications == ["pause a 1000", "resume a", "fail a connectionLost resume:true", "cancel a"])
        try? FileManager.default.removeItem(at: h.directory)
    }

    @Test("the destination hook decides where the file goes")
    func destinationHook() async throws {
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("fdl-elsewhere-\(UUID().uuidString)/x.bin")
        let delegate = RecordingDelegate(redirect: elsewhere)
        let h = Harness(delegate: delegate)
        let content = h.serve("a", size: 1000)
        let destination = try await h.downloader.start(id: "a", url: h.url("a"))
        #expect(destination == elsewhere.standardizedFileURL)
        await h.recorder.state("a", .completed)
        #expect(h.contents(elsewhere) == content.data)
        try? FileManager.default.removeItem(at: elsewhere.deletingLastPathComponent())
        await h.cleanUp()
    }

    @Test("a status the delegate rejects never reaches the file; the bytes already there stay")
    func statusValidation() async throws {
        let delegate = RecordingDelegate(rejectStatus: 206)
        let h = Harness(delegate: delegate)
        h.serve("a", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("a"), attempts: [.drop(at: 1500)])
        try Data("previous".utf8).write(to: h.file("a"))
        try await h.downloader.start(id: "a", url: h.url("a"))
        await h.recorder.state("a", .interrupted)
        h.clock.advance(by: .seconds(1))
        await h.downloader.refresh()
        let (error, data) = await h.recorder.failure(of: "a")
        #expect(error.code == .badStatus)
        #expect(error.statusCode == 206)
        #expect(data?.bytesOnDisk == 1500)
        #expect(FileValidation.size(h.file("a").path + ".part") == 1500)
        #expect(h.contents(h.file("a")) == Data("previous".utf8))
        await h.cleanUp()
    }

    @Test("a 404 error page is never saved")
    func errorPage() async throws {
        let h = Harness()
        try await h.downloader.start(id: "a", url: h.url("missing"))
        let (error, _) = await h.recorder.failure(of: "a")
        #expect(error.code == .notFound)
        #expect(!error.isRetryable)
        #expect(FileValidation.size(h.file("missing").path + ".part") ?? 0 == 0)
        #expect(!FileManager.default.fileExists(atPath: h.file("missing").path))
        await h.cleanUp()
    }

    @Test("file validation by the delegate: rejected file discarded, destination untouched")
    func fileValidation() async throws {
        let delegate = RecordingDelegate(rejectFiles: true)
        let h = Harness(delegate: delegate)
        h.serve("a", size: 1000)
        try Data("keep me".utf8).write(to: h.file("a"))
        try await h.downloader.start(id: "a", url: h.url("a"))
        let (error, _) = await h.recorder.failure(of: "a")
        #expect(error.code == .validationFailed)
        #expect(h.contents(h.file("a")) == Data("keep me".utf8))
        #expect(!FileManager.default.fileExists(atPath: h.file("a").path + ".part"))
        await h.cleanUp()
    }

    @Test("size and SHA-256 validation")
    func sizeAndDigest() async throws {
        let h = Harness()
        let content = h.serve("good", size: 5000)
        h.serve("short", size: 5000)
        try await h.downloader.start(id: "good", url: h.url("good"), options: DownloadOptions(expectedSize: 5000, sha256: content.sha256.uppercased()))
        try await h.downloader.start(id: "short", url: h.url("short"), options: DownloadOptions(expectedSize: 6000))
        await h.recorder.state("good", .completed)
        let (error, _) = await h.recorder.failure(of: "short")
        #expect(error.code == .validationFailed)
        #expect(!FileManager.default.fileExists(atPath: h.file("short").path))
        await h.cleanUp()
    }

    @Test("auth challenges go to the delegate; a rejection fails without retry")
    func authentication() async throws {
        let good = RecordingDelegate(credential: .password(user: "u", password: "p"))
        let h = Harness(delegate: good)
        h.mock.serve(h.url("a"), MockResource(.seeded(seed: 3, size: 1000),
                                              authentication: [.credential(.password(user: "u", password: "p"))]))
        try await h.downloader.start(id: "a", url: h.url("a"))
        await h.recorder.state("a", .completed)
        #expect(good.log.contains("challenge a"))

        let bad = RecordingDelegate()
        let h2 = Harness(delegate: bad)
        h2.mock.serve(h2.url("a"), MockResource(.seeded(seed: 3, size: 1000),
                                                authentication: [.credential(.password(user: "u", password: "p"))]))
        try await h2.downloader.start(id: "a", url: h2.url("a"))
        let (error, _) = await h2.recorder.failure(of: "a")
        #expect(error.code == .authenticationFailed)
        #expect(h2.mock.requests(for: h2.url("a")).count == 1)
        await h.cleanUp()
        await h2.cleanUp()
    }
}
