public import FileDownload
public import Foundation
import Synchronization

/// A complete, deterministic `Transport` that serves scripted resources from memory: the network
/// of your tests.
///
/// ```swift
/// let clock = ManualClock()
/// let mock = MockTransport(clock: clock)
/// let url = URL(string: "mock://files/big.bin")!
/// mock.serve(url, MockResource(.seeded(seed: 1, size: 1_000_000)))
/// mock.script(url, attempts: [.drop(at: 400_000)])      // first attempt: connection lost
///
/// var transports = TransportRegistry()
/// transports.register(mock, for: "mock")
/// // ... run the downloader, then:
/// #expect(mock.requests(for: url).map(\.offset) == [0, 400_000])
/// #expect(mock.unconsumed().isEmpty)
/// ```
///
/// ## What one attempt does, in order
/// 1. Takes the next scripted ``MockAttempt`` for the URL, if any (applying its content change to
///    the resource, for this and later attempts) and records the request.
/// 2. No resource at the URL: reports a head with status 404 (disposition
///    `ResumeDisposition.resumed(at:)` at the requested offset, so nothing on disk changes); if the
///    writer accepts it, throws `DownloadError.forStatus(_:retryAfter:)` (`DownloadError.Code.notFound`).
/// 3. Asks each challenge of the attempt (or the resource) through
///    `TransferRequest.authenticate(_:)`; see ``MockAuthentication`` for what passes.
/// 4. Decides what happens to the offset, exactly as the `Transport` contract says: offset 0 is a
///    plain start; a validator that is weak or differs from the current one restarts with
///    `RestartReason.validatorChanged`; an ignored range (scripted, or a resource without range
///    support) restarts with `RestartReason.rangeIgnored`; an offset equal to the size is
///    `ResumeDisposition.complete`; an offset beyond it restarts with
///    `RestartReason.rangeMismatch`; otherwise `ResumeDisposition.resumed(at:)`. A ranged request
///    (`TransferRequest.end`) follows the "Ranges" rules of `Transport`: the validator is checked
///    at every offset, an ignored range restarts with `RestartReason.rangeIgnored` (the whole
///    resource follows), a range starting at or past the end throws
///    `DownloadError.Code.rangeNotSatisfiable` (status 416) before any head, and a resumed range
///    delivers the bytes `offset ..< min(end, size)` with status 206.
/// 5. Calls `TransferWriter.begin(_:)` with that disposition, the status (the scripted one, else
///    the resource's, reported as 206 for a partial or complete answer when the resource says 200),
///    the size, the validator, `Retry-After` and file name. If `begin` throws, rethrows. A status
///    outside 2xx that `begin` accepts is treated like 200, except that when there is no body to
///    give, the attempt throws `DownloadError.forStatus(_:retryAfter:)`.
/// 6. Writes the body in chunks of ``MockResource/chunkSize``, waiting ``MockResource/chunkDelay``
///    (and, with `TransferOptions.maxBytesPerSecond`, the time the previous chunk takes at that
///    rate) on the clock between chunks, and before any chunk the writer's
///    `TransferWriter.pacingDelay` (the downloader's overall limit); a scripted fault ends the body
///    at its offset.
///
/// Cancellation is checked before every chunk, while waiting on the clock and while stalled; it
/// throws `CancellationError` and the mock never touches the writer after it returns.
///
/// Every member may be called from any task, also while transfers run.
public final class MockTransport: Transport, Sendable {
    private struct State {
        var resources: [URL: MockResource] = [:]
        var scripts: [URL: [MockAttempt]] = [:]
        var records: [URL: [MockRequestRecord]] = [:]
    }

    private let state = Mutex(State())
    let clock: any Clock<Duration>

    /// Creates a mock with nothing to serve.
    ///
    /// - Parameter clock: where ``MockResource/chunkDelay`` and rate limits are waited: a
    ///   ``ManualClock`` in tests. Defaults to `ContinuousClock`.
    public init(clock: any Clock<Duration> = ContinuousClock()) {
        self.clock = clock
    }

    /// Everything: resume, validators, authentication, rate limit, custom headers (recorded),
    /// expected length and ranges.
    public var capabilities: TransportCapabilities {
        [.resume, .validators, .authentication, .rateLimit, .customHeaders, .expectedLength, .ranges]
    }

    // MARK: scripting

    /// Serves `resource` at `url`, replacing whatever was served there. Scripts and records stay.
    public func serve(_ url: URL, _ resource: MockResource) {
        state.withLock { $0.resources[url] = resource }
    }

    /// Stops serving `url`: later attempts get a 404.
    public func remove(_ url: URL) {
        state.withLock { $0.resources[url] = nil }
    }

    /// The resource served at `url` now.
    public func resource(at url: URL) -> MockResource? {
        state.withLock { $0.resources[url] }
    }

    /// The remote file at `url` changes now: new content and validator (`nil`: the content's
    /// default validator). Does nothing when `url` is not served.
    public func changeContent(of url: URL, to content: MockContent, validator: Validator? = nil) {
        state.withLock { s in
            s.resources[url]?.content = content
            s.resources[url]?.validator = validator
        }
    }

    /// Appends `attempts` to the queue of scripted attempts for `url`; each attempt at `url`
    /// consumes the first one left. Attempts beyond the queue are served normally.
    public func script(_ url: URL, attempts: [MockAttempt]) {
        state.withLock { $0.scripts[url, default: []].append(contentsOf: attempts) }
    }

    // MARK: assertions

    /// The attempts made at `url`, oldest first.
    public func requests(for url: URL) -> [MockRequestRecord] {
        state.withLock { $0.records[url] ?? [] }
    }

    /// Every attempt at every URL, by URL then oldest first.
    public var allRequests: [MockRequestRecord] {
        state.withLock { s in
            s.records.keys.sorted { $0.absoluteString < $1.absoluteString }.flatMap { s.records[$0]! }
        }
    }

    /// Body bytes written for `url` over all attempts.
    public func bytesServed(for url: URL) -> Int64 {
        requests(for: url).reduce(0) { $0 + $1.bytesDelivered }
    }

    /// The scripted attempts never used, one line each (`"<url>: <script>"`); empty when every
    /// script was consumed. Assert it is empty at the end of a test, as with NIO's
    /// `EmbeddedChannel.finish()`.
    public func unconsumed() -> [String] {
        state.withLock { s in
            s.scripts.keys.sorted { $0.absoluteString < $1.absoluteString }.flatMap { url in
                s.scripts[url]!.map { "\(url.redactingPassword): \($0)" }
            }
        }
    }

    // MARK: internals for the transfer

    /// Starts an attempt: consumes its script, applies a content change, records the request.
    func beginAttempt(_ request: TransferRequest) -> (index: Int, resource: MockResource?, script: MockAttempt?) {
        state.withLock { s in
            let url = request.url
            var script: MockAttempt?
            if var queue = s.scripts[url], !queue.isEmpty {
                script = queue.removeFirst()
                s.scripts[url] = queue.isEmpty ? nil : queue
            }
            if let script, script.newContent != nil || script.newValidator != nil, s.resources[url] != nil {
                if let content = script.newContent { s.resources[url]!.content = content }
                s.resources[url]!.validator = script.newValidator
            }
            let index = s.records[url]?.count ?? 0
            let record = MockRequestRecord(
                url: url, downloadID: request.downloadID, attempt: index + 1, requestAttempt: request.attempt,
                offset: request.offset, end: request.end, validator: request.validator, headers: request.options.headers,
                challenges: [], credentials: [], head: nil, script: script, bytesDelivered: 0, outcome: .running)
            s.records[url, default: []].append(record)
            return (index, s.resources[url], script)
        }
    }

    /// Changes the record of attempt `index` at `url`.
    func updateRecord(_ url: URL, _ index: Int, _ change: (inout MockRequestRecord) -> Void) {
        state.withLock { change(&$0.records[url]![index]) }
    }
}
