@testable import FileDownload
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Synchronization
import Testing

/// The attempts part (`Attempt`) without a `Downloader`: one attempt from its inputs to its
/// outcome over `MockTransport`, in a temporary directory.
@Suite("Attempt: one attempt from its inputs to its outcome, without a downloader", .timeLimit(.minutes(1)))
struct AttemptTests {
    static let url = URL(string: "mock://files/a.bin")!

    /// A temporary directory and a mock serving `size` seeded bytes at ``url``.
    struct Fixture {
        let directory: TemporaryDirectory
        let mock = MockTransport()
        let content: MockContent

        init(size: Int64, chunkSize: Int = 16 * 1024, label: String = #function) throws {
            directory = try TemporaryDirectory(label)
            content = .seeded(seed: 7, size: size)
            mock.serve(AttemptTests.url, MockResource(content, chunkSize: chunkSize))
        }

        var destination: URL { directory.file("a.bin") }
        var partPath: String { destination.path + ".part" }

        /// An attempt of ``url`` into `a.bin` (staging `a.bin.part`).
        func attempt(options: DownloadOptions = DownloadOptions(), bytesOnDisk: Int64 = 0, validator: Validator? = nil,
                     expectedLength: Int64? = nil, seam: SegmentSeam? = nil, minimumSegmentSize: Int64 = 4 << 20,
                     delegate: (any DownloaderDelegate)? = nil, handle: AttemptHandle = AttemptHandle(startedAt: .zero)) -> Attempt {
            Attempt(id: "a", url: AttemptTests.url, secretsOrigin: AttemptTests.url.origin, partPath: partPath,
                    destination: destination, options: options, stagingSuffix: ".part", bytesOnDisk: bytesOnDisk,
                    validator: validator, expectedLength: expectedLength, seam: seam,
                    segmentThreshold: seam == nil ? .max : 1, minimumSegmentSize: minimumSegmentSize,
                    downloadsDirectory: directory.path, handle: handle, transport: mock, delegate: delegate)
        }

        func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
    }

    /// The error of a `.failed`, `.invalid` or `.held` outcome, with which of them it was.
    static func error(of outcome: AttemptOutcome) -> (kind: String, error: DownloadError)? {
        switch outcome {
        case .failed(let error): ("failed", error)
        case .invalid(let error): ("invalid", error)
        case .held(let error): ("held", error)
        default: nil
        }
    }

    @Test("a plain attempt writes every byte and moves the file into place, with the announced length checked")
    func plain() async throws {
        let f = try Fixture(size: 200_000)
        defer { f.directory.remove() }
        let outcome = await f.attempt().run()
        guard case .completed(let file, let checks) = outcome else {
            Issue.record("not completed: \(outcome.summary)")
            return
        }
        #expect(file == f.destination)
        #expect(checks.contains(.announcedLength))
        #expect(try Data(contentsOf: f.destination) == f.content.data)
        #expect(!f.exists(f.partPath), "the staging file was moved, not copied")
        #expect(f.mock.requests(for: Self.url).map(\.offset) == [0])
    }

    @Test("a resumed attempt asks from the bytes on disk, under their validator, and completes the same file")
    func resumed() async throws {
        let f = try Fixture(size: 200_000)
        defer { f.directory.remove() }
        try f.content.bytes(in: 0..<70_000).write(to: URL(fileURLWithPath: f.partPath))
        let outcome = await f.attempt(bytesOnDisk: 70_000, validator: f.content.defaultValidator, expectedLength: 200_000).run()
        guard case .completed = outcome else {
            Issue.record("not completed: \(outcome.summary)")
            return
        }
        let requests = f.mock.requests(for: Self.url)
        #expect(requests.map(\.offset) == [70_000])
        #expect(requests.first?.validator == f.content.defaultValidator)
        #expect(requests.first?.bytesDelivered == 130_000, "only the missing bytes were fetched")
        #expect(try Data(contentsOf: f.destination) == f.content.data)
    }

    @Test("a size the server announces other than the expected one fails before the body; nothing at the destination")
    func sizeMismatch() async throws {
        let f = try Fixture(size: 200_000)
        defer { f.directory.remove() }
        let outcome = await f.attempt(options: DownloadOptions(expectedSize: 200_001)).run()
        let failure = Self.error(of: outcome)
        #expect(failure?.kind == "failed")
        #expect(failure?.error.code == .validationFailed)
        #expect(failure?.error.messages.joined().contains("200001 were expected") == true)
        #expect(!f.exists(f.destination.path))
        #expect(f.mock.requests(for: Self.url).first?.bytesDelivered == 0)
    }

    @Test("a connection lost mid-body fails retryable; its bytes stay in staging for the next attempt, nothing at the destination")
    func droppedConnection() async throws {
        let f = try Fixture(size: 200_000)
        defer { f.directory.remove() }
        f.mock.script(Self.url, attempts: [.drop(at: 96 * 1024)])
        let handle = AttemptHandle(startedAt: .zero)
        let outcome = await f.attempt(handle: handle).run()
        let failure = Self.error(of: outcome)
        #expect(failure?.kind == "failed")
        #expect(failure?.error.isRetryable == true)
        #expect(!f.exists(f.destination.path))
        let onDisk: Int64? = handle.currentSink?.fileLength
        #expect(onDisk == 98_304, "the downloader reads what is on disk from the handle")
        #expect(try Data(contentsOf: URL(fileURLWithPath: f.partPath)) == f.content.bytes(in: 0..<(96 * 1024)))
    }

    @Test("a status the delegate does not accept (none: 2xx only) fails with its code before the body")
    func refusedStatus() async throws {
        let f = try Fixture(size: 10_000)
        defer { f.directory.remove() }
        f.mock.script(Self.url, attempts: [.status(404)])
        let outcome = await f.attempt().run()
        let failure = Self.error(of: outcome)
        #expect(failure?.kind == "failed")
        #expect(failure?.error.code == .notFound)
        #expect(!f.exists(f.destination.path))
    }

    @Test("a file whose SHA-256 differs is invalid: its staging file is removed and nothing is at the destination")
    func checksumMismatch() async throws {
        let f = try Fixture(size: 100_000)
        defer { f.directory.remove() }
        let outcome = await f.attempt(options: DownloadOptions(sha256: String(repeating: "0", count: 64))).run()
        let failure = Self.error(of: outcome)
        #expect(failure?.kind == "invalid")
        #expect(failure?.error.code == .validationFailed)
        #expect(failure?.error.messages.joined().contains("SHA-256") == true)
        #expect(!f.exists(f.destination.path))
        #expect(!f.exists(f.partPath), "the bytes were discarded")
    }

    @Test("the right SHA-256 completes, and the completion says it was checked")
    func checksumMatches() async throws {
        let f = try Fixture(size: 100_000)
        defer { f.directory.remove() }
        let outcome = await f.attempt(options: DownloadOptions(sha256: f.content.sha256.uppercased())).run()
        guard case .completed(_, let checks) = outcome else {
            Issue.record("not completed: \(outcome.summary)")
            return
        }
        #expect(checks.contains(.sha256))
    }

    /// Refuses the move with `error`, or the file with `validates` false.
    final class Refusing: DownloaderDelegate {
        let error: DownloadError?
        let validates: Bool
        init(error: DownloadError? = nil, validates: Bool = true) {
            self.error = error
            self.validates = validates
        }

        func validateFile(at file: URL, id: String) async -> Bool { validates }

        func download(_ id: String, willMoveTo destination: URL) async throws {
            if let error { throw error }
        }
    }

    @Test("a delegate refusing the move holds the file back: whole in staging, nothing at the destination")
    func delegateRefusesMove() async throws {
        let f = try Fixture(size: 100_000)
        defer { f.directory.remove() }
        let refusal = DownloadError(.store, "the lease is not confirmed")
        let outcome = await f.attempt(delegate: Refusing(error: refusal)).run()
        let failure = Self.error(of: outcome)
        #expect(failure?.kind == "held")
        #expect(failure?.error.code == .store)
        #expect(!f.exists(f.destination.path))
        #expect(FileValidation.size(f.partPath) == 100_000)
    }

    @Test("a delegate rejecting the file makes it invalid: nothing kept")
    func delegateRejectsFile() async throws {
        let f = try Fixture(size: 100_000)
        defer { f.directory.remove() }
        let outcome = await f.attempt(delegate: Refusing(validates: false)).run()
        let failure = Self.error(of: outcome)
        #expect(failure?.kind == "invalid")
        #expect(failure?.error.code == .validationFailed)
        #expect(!f.exists(f.destination.path) && !f.exists(f.partPath))
    }

    @Test("an attempt stopped before it runs opens nothing and moves nothing")
    func stoppedBeforeRun() async throws {
        let f = try Fixture(size: 100_000)
        defer { f.directory.remove() }
        let handle = AttemptHandle(startedAt: .zero)
        handle.stop(.pause)
        let outcome = await f.attempt(handle: handle).run()
        guard case .stopped = outcome else {
            Issue.record("not stopped: \(outcome.summary)")
            return
        }
        #expect(!f.exists(f.destination.path) && !f.exists(f.partPath))
        #expect(f.mock.requests(for: Self.url).isEmpty)
    }

    /// A seam that grants up to `slots` connections and counts what it granted, as the
    /// downloader does (``Scheduler/reserveSegment(for:running:own:adaptive:now:)``): a close
    /// with nothing counted (the attempt's own connection, counted until the attempt ends) is
    /// no change.
    final class CountingSeam: Sendable {
        let slots: Int
        let counted = Mutex((open: 0, most: 0))
        init(slots: Int) { self.slots = slots }

        var seam: SegmentSeam {
            SegmentSeam(
                slots: slots,
                reserve: { running in
                    self.counted.withLock { c in
                        guard running < self.slots, 1 + c.open < self.slots else { return nil }
                        c.open += 1
                        c.most = max(c.most, c.open)
                        return self.slots
                    }
                },
                opened: { self.counted.withLock { $0.open += 1 } },
                closed: { self.counted.withLock { $0.open = max(0, $0.open - 1) } },
                failed: { _ in },
                now: { .zero })
        }
    }

    @Test("a segmented attempt over several connections writes the file byte for byte, each connection counted and let go")
    func segmented() async throws {
        let f = try Fixture(size: 1 << 20, chunkSize: 8 * 1024)
        defer { f.directory.remove() }
        let counting = CountingSeam(slots: 4)
        let attempt = f.attempt(seam: counting.seam, minimumSegmentSize: 64 * 1024)
        let outcome = await attempt.run()
        guard case .completed(let file, _) = outcome else {
            Issue.record("not completed: \(outcome.summary)")
            return
        }
        #expect(file == f.destination)
        #expect(try Data(contentsOf: f.destination) == f.content.data)
        let requests = f.mock.requests(for: Self.url)
        #expect(requests.count >= 4, "the file was fetched over several connections")
        #expect(requests.dropFirst().allSatisfy { $0.end != nil && $0.validator == f.content.defaultValidator },
                "every further connection asks for a range of the same version")
        #expect(counting.counted.withLock { $0.most } == 3, "three connections beside the attempt's own")
        #expect(counting.counted.withLock { $0.open } == 0, "every counted connection was let go")
        #expect(attempt.handle.segments.isActive)
    }
}
