import Foundation
import Logging

/// The attempts part of the ``Downloader``: one attempt of one download, from inputs the actor
/// prepared to an ``AttemptOutcome``. In order: the delegate's request customisation, the staging
/// file and its sink, the transfer (one connection, or several: ``runSegments(options:seam:primary:)``),
/// the head checks (``HeadCheck``), the length, validation (size, SHA-256, the delegate), the
/// delegate's last word and the move into place (`Attempt+Finish.swift`).
///
/// It holds no reference to the downloader: what it needs comes in as values (the download's
/// paths, options, validator, the bytes on disk) and closures (the segment seam, the room check),
/// so it runs, and is tested, without one. The actor makes it (``Downloader/startAttempt(_:)``),
/// runs ``run()`` in a task of its own and books the outcome (``Downloader/attemptEnded(_:handle:outcome:)``).
/// The downloader stops it through its ``handle`` only.
///
/// A class: the attempt's task, its closures and its async frames hold one reference instead of
/// a 400-byte copy each (with a thousand downloads running, that is memory).
final class Attempt: Sendable {
    let id: String
    let url: URL
    let partPath: String
    let destination: URL
    let options: DownloadOptions
    /// With ``DownloadOptions/usesSuggestedFileName``: the name a head suggested first, and the
    /// destinations of the downloader's other downloads in the same directory (taken names).
    let suggestedFileName: String?
    let takenNames: Set<String>
    /// ``DownloaderConfiguration/stagingSuffix``.
    let stagingSuffix: String
    /// The bytes of the staging file the attempt continues after (the transport may not resume:
    /// then it starts from zero).
    let bytesOnDisk: Int64
    let validator: Validator?
    /// The total length known from earlier attempts (``DownloadEntry/expectedLength``).
    let expectedLength: Int64?
    /// The attempt's number (1 for the first), as requests report it.
    let number: Int
    /// The transport's, read once.
    let capabilities: TransportCapabilities
    let synchronize: Bool
    /// Where a finished file is flushed and moved, with the files that finish with it
    /// (``DownloaderConfiguration/completionFlusher``).
    let flusher: CompletionFlusher
    /// Checks a head's announced length against the free space (``RoomCheck``); `nil` checks nothing.
    let roomCheck: RoomCheck?
    /// Whether ``url`` has the origin the secret header fields were given for (the download's
    /// first URL's, `URL.origin`; ``DownloadEntry/originOfSecrets``): only then does the
    /// attempt carry them. Given `secretsOrigin` `nil` (``url`` is the one the secrets came
    /// with), it is, without comparing origins (two `URL.origin`s cost 1 µs of the actor's time).
    let isFirstOrigin: Bool
    /// What the attempt's sinks draw from: the download's rate budget inside the downloader's
    /// overall limit, or the overall limit alone (``Downloader/rateBudget(for:)``); `nil` for a
    /// transport without ``TransportCapabilities/rateLimit``.
    let bandwidth: BandwidthLimiter?
    /// The segments to continue (``DownloadEntry/segments``), when the attempt continues a
    /// download fetched over several connections; empty otherwise.
    let segments: [SegmentCheckpoint]
    /// How the attempt asks for connections beyond the first; `nil` keeps it on one
    /// connection (a transport without ranges, ``DownloadOptions/maxConnections`` 1, a
    /// server that ignored a range before).
    let seam: SegmentSeam?
    /// ``DownloaderConfiguration/segmentThreshold`` and ``DownloaderConfiguration/minimumSegmentSize``.
    let segmentThreshold: Int64
    let minimumSegmentSize: Int64
    /// ``DownloaderConfiguration/downloadsDirectory``'s path: the directories of a destination
    /// below it are entered without following links (``DestinationParents``); empty: none.
    let downloadsDirectory: String
    /// How the downloader stops the attempt, and what it reads of it while it runs (the sink,
    /// the segments).
    let handle: AttemptHandle
    let transport: any Transport
    let delegate: (any DownloaderDelegate)?
    /// Where a best-effort step that failed is told (the server's time not kept on the file).
    let logger: Logger

    init(id: String, url: URL, secretsOrigin: String?, partPath: String, destination: URL, options: DownloadOptions,
         suggestedFileName: String? = nil, takenNames: Set<String> = [], stagingSuffix: String,
         bytesOnDisk: Int64 = 0, validator: Validator? = nil, expectedLength: Int64? = nil, number: Int = 1,
         synchronize: Bool = false, flusher: CompletionFlusher = .shared, roomCheck: RoomCheck? = nil,
         bandwidth: BandwidthLimiter? = nil, segments: [SegmentCheckpoint] = [], seam: SegmentSeam? = nil,
         segmentThreshold: Int64 = .max, minimumSegmentSize: Int64 = 4 << 20, downloadsDirectory: String = "",
         handle: AttemptHandle, transport: any Transport, delegate: (any DownloaderDelegate)?,
         logger: Logger = Logger(label: "FileDownload")) {
        self.id = id
        self.url = url
        self.isFirstOrigin = secretsOrigin.map { url.origin == $0 } ?? true
        self.partPath = partPath
        self.destination = destination
        self.options = options
        self.suggestedFileName = suggestedFileName
        self.takenNames = takenNames
        self.stagingSuffix = stagingSuffix
        self.bytesOnDisk = bytesOnDisk
        self.validator = validator
        self.expectedLength = expectedLength
        self.number = number
        self.capabilities = transport.capabilities
        self.synchronize = synchronize
        self.flusher = flusher
        self.roomCheck = roomCheck
        self.bandwidth = bandwidth
        self.segments = segments
        self.seam = seam
        self.segmentThreshold = segmentThreshold
        self.minimumSegmentSize = minimumSegmentSize
        self.downloadsDirectory = downloadsDirectory
        self.handle = handle
        self.transport = transport
        self.delegate = delegate
        self.logger = logger
    }

    /// Whether the downloader stopped the attempt (``AttemptHandle/stop(_:)``).
    var isStopped: Bool { handle.stopReason.withLock { $0 } != nil }

    /// Runs the attempt, away from the actor: options, staging file, transfer, validation, move.
    ///
    /// Three stages in three functions on purpose: an async function's frame lives until it
    /// returns, so keeping the preparation's and the validation's locals out of the function that
    /// waits on the transfer keeps what each of a thousand slow downloads pins small.
    func run() async -> AttemptOutcome {
        let prepared: (TransferSink, TransferRequest)
        var options = self.options.transfer
        if let delegate { options = await delegate.customizeTransfer(options, id: id, url: url) }
        // A mirror of another origin never gets the secrets given for the first URL's.
        if !isFirstOrigin { options.headers.removeAll(where: \.isSensitive) }
        applyRateBudget(&options)
        if let seam, Downloader.segmentsFit(segments, validator: validator, length: expectedLength, partPath: partPath) {
            if isStopped { return .stopped }
            let result = await runSegments(options: options, seam: seam, primary: nil)
            if case .finished(let outcome) = result { return outcome }
            return .failed(DownloadError(.invalidState, "segments ended without an outcome"))
        }
        do {
            guard let ready = try prepare(options: options) else { return .stopped }
            prepared = ready
        } catch {
            if isStopped { return .stopped }
            return .failed(DownloadError.wrapping(error))
        }
        let sink = prepared.0
        do {
            if let seam {
                let result = await runSegments(options: options, seam: seam, primary: prepared)
                switch result {
                case .finished(let outcome): return outcome
                case .single(let error?): throw error
                case .single(nil): break
                }
            } else {
                try await transport.transfer(prepared.1, into: sink)
            }
        } catch {
            sink.seal()  // nothing of this attempt is written from here on
            sink.releaseReservation()
            if isStopped { return .stopped }
            let failure = DownloadError.wrapping(error)
            // Larger than allowed: its bytes are discarded, never retried (DownloadOptions.maxFileSize).
            return failure.code == .maxFileSizeExceeded ? .invalid(failure) : .failed(failure)
        }
        sink.seal()
        let outcome = await finish(sink: sink)
        if case .completed = outcome {} else { sink.releaseReservation() }
        return outcome
    }

    /// Staging directory, offset, sink and request of the attempt; `nil` when it was stopped
    /// meanwhile. Synchronous, so its locals live on the thread's stack, not in the task's.
    private func prepare(options: TransferOptions) throws -> (TransferSink, TransferRequest)? {
        try DestinationParents.prepare(directory: DownloadPaths.directory(of: partPath), below: downloadsDirectory)
        var offset = capabilities.contains(.resume) ? bytesOnDisk : 0
        // Never resume without a strong validator from a transport that has them: the remote file
        // could have changed and its bytes would be spliced onto old ones.
        if offset > 0, capabilities.contains(.validators), !(validator?.isStrong ?? false) { offset = 0 }
        // Only a resume looks at the file (a first attempt costs no stat): never past its end.
        if offset > 0 { offset = min(offset, FileValidation.size(ofFileAt: partPath) ?? 0) }
        // An attempt stopped (or abandoned) meanwhile must not open the file another may own now.
        if isStopped { return nil }
        let id = self.id, delegate = self.delegate
        let expectedSize = self.options.expectedSize
        let roomCheck = self.roomCheck, requested = offset
        let sink = try TransferSink(path: partPath, requestedOffset: offset, startsWriteback: synchronize,
                                    pacing: bandwidth) { head in
            try HeadCheck.check(head, id: id, expectedSize: expectedSize, delegate: delegate)
            try roomCheck?.check(head, requestedOffset: requested)
        }
        offset = sink.requestedOffset  // 0 when the staging file could not be continued safely
        sink.limitLength(to: self.options.maxFileSize)
        handle.sink.withLock { $0 = sink }
        if isStopped {
            sink.seal()
            return nil
        }
        let request = TransferRequest(
            downloadID: id, url: url, offset: offset, validator: offset > 0 ? validator : nil,
            expectedLength: offset > 0 ? expectedLength ?? expectedSize : nil, options: options, attempt: number,
            authenticate: authenticator
        )
        return (sink, request)
    }

    /// How the attempt's requests answer challenges: through the delegate, counted in the handle
    /// (the idle timeout does not run meanwhile).
    var authenticator: @Sendable (AuthChallenge) async -> AuthDisposition {
        let handle = self.handle, id = self.id, delegate = self.delegate
        return { challenge in
            handle.challengesInFlight.add(1, ordering: .relaxed)
            defer { handle.challengesInFlight.subtract(1, ordering: .relaxed) }
            return await delegate?.download(id, didReceive: challenge) ?? .performDefaultHandling
        }
    }

    /// Makes the download's rate limit one budget for all its connections: sets the attempt's
    /// budget (``bandwidth``) to `options.maxBytesPerSecond` as the delegate's
    /// ``DownloaderDelegate/customizeTransfer(_:id:url:)`` left it, and takes the limit out of the
    /// options the transport is given, so that a transport never paces each connection by the
    /// whole limit on top (the sinks pace it: ``TransferSink/pacingDelay``). The overall limit and
    /// schedule hold above the budget: the stricter wins. A transport without `.rateLimit` keeps
    /// the option and paces as it can.
    func applyRateBudget(_ options: inout TransferOptions) {
        guard let budget = bandwidth else { return }
        let rate = BandwidthLimiter.normalized(options.maxBytesPerSecond)
        options.maxBytesPerSecond = nil
        if budget.isNested, budget.bytesPerSecond != rate { budget.bytesPerSecond = rate }
    }
}
