public import FileDownload
import Foundation

extension MockTransport {
    /// Performs one scripted attempt; see ``MockTransport`` for the order of events.
    public func transfer(_ request: TransferRequest, into writer: TransferWriter) async throws {
        let (index, resource, script) = beginAttempt(request)
        do {
            try await serve(request, resource: resource, script: script, record: index, into: writer)
            updateRecord(request.url, index) { $0.outcome = .completed }
        } catch {
            let outcome: MockRequestRecord.Outcome = switch error {
            case is CancellationError: .cancelled
            case let error as DownloadError where error.code == .cancelled: .cancelled
            case let error as DownloadError: .failed(error.code)
            default: .failed(.transport)
            }
            updateRecord(request.url, index) { $0.outcome = outcome }
            throw error
        }
    }

    private func serve(
        _ request: TransferRequest, resource: MockResource?, script: MockAttempt?, record index: Int,
        into writer: TransferWriter
    ) async throws {
        let url = request.url
        try Task.checkCancellation()
        if let error = script?.connectionError { throw error }
        guard let resource else {
            let head = TransferHead(disposition: .resumed(at: request.offset), statusCode: 404)
            try writer.begin(head)
            updateRecord(url, index) { $0.head = head }
            throw DownloadError.forStatus(404)!.adding(context: "mock: nothing is served at \(url.redactingPassword)")
        }
        try await authenticate(request, challenges: script?.authentication ?? resource.authentication, record: index)

        let content = resource.content
        let size = content.size
        let current = resource.currentValidator
        let disposition: ResumeDisposition
        if let end = request.end {
            disposition = try rangeDisposition(request, end: end, resource: resource, ignoresRange: script?.ignoreRange == true)
        } else if request.offset == 0 {
            disposition = .resumed(at: 0)
        } else if let sent = request.validator, !sent.isStrong || sent != current {
            disposition = .restarted(.validatorChanged)
        } else if script?.ignoreRange == true || !resource.supportsRanges {
            disposition = .restarted(.rangeIgnored)
        } else if request.offset == size {
            disposition = .complete
        } else if request.offset > size {
            disposition = .restarted(.rangeMismatch)
        } else {
            disposition = .resumed(at: request.offset)
        }
        let start: Int64 = switch disposition {
        case .resumed(let offset): offset
        case .restarted: 0
        case .complete: size
        }
        // A resumed range ends where it was asked to (or at the end of the resource).
        let bodyEnd = request.end.map { disposition == .resumed(at: request.offset) ? min($0, size) : size } ?? size
        let partial = start > 0 || bodyEnd < size
        let status = script?.statusCode ?? (partial && resource.statusCode == 200 ? 206 : resource.statusCode)
        let retryAfter = script?.retryAfter ?? resource.retryAfter
        let head = TransferHead(disposition: disposition, statusCode: status, expectedLength: resource.announcedLength ?? size,
                                validator: current, suggestedFilename: resource.suggestedFilename,
                                retryAfter: retryAfter)
        try writer.begin(head)
        updateRecord(url, index) { $0.head = head }

        let end = min(bodyEnd, max(start, script?.fault?.offset ?? size))
        try await writeBody(of: resource, from: start, to: end, request: request, record: index,
                            delay: script?.chunkDelay ?? resource.chunkDelay, into: writer)

        switch script?.fault {
        case .drop(let offset)?:
            throw DownloadError(.connectionLost, "mock: the connection was dropped at byte \(offset)", isRetryable: true)
        case .stall?:
            // Parked on the transport's clock (a test sees it in `ManualClock.sleeperCount`) for
            // ever: the only way out is cancellation, which throws.
            while true { try await clock.sleep(for: Self.stallInterval, tolerance: nil) }
        case .error(_, let error)?:
            throw error
        case nil:
            if start == size, let error = DownloadError.forStatus(status, retryAfter: retryAfter) {
                throw error
            }
        }
    }

    /// What happens to a ranged request (`TransferRequest.end`), in the order of the `Transport`
    /// contract: a weak or different validator restarts (`validatorChanged`), an ignored range
    /// restarts (`rangeIgnored`), a range starting at or past the end throws
    /// `DownloadError.Code.rangeNotSatisfiable` before any head; otherwise the range is resumed.
    private func rangeDisposition(
        _ request: TransferRequest, end: Int64, resource: MockResource, ignoresRange: Bool
    ) throws -> ResumeDisposition {
        guard end > request.offset else {
            throw DownloadError(.invalidState, "mock: the range \(request.offset)..<\(end) is empty", isRetryable: false)
        }
        if let sent = request.validator, !sent.isStrong || sent != resource.currentValidator {
            return .restarted(.validatorChanged)
        }
        if ignoresRange || !resource.supportsRanges { return .restarted(.rangeIgnored) }
        let size = resource.content.size
        if request.offset >= size {
            throw DownloadError(.rangeNotSatisfiable,
                                "mock: the range from \(request.offset) starts past the end of the \(size) bytes served",
                                isRetryable: false, statusCode: 416)
        }
        return .resumed(at: request.offset)
    }

    /// Writes `start..<end` of the resource in chunks, waiting on the clock between chunks.
    private func writeBody(
        of resource: MockResource, from start: Int64, to end: Int64, request: TransferRequest, record index: Int,
        delay: Duration?, into writer: TransferWriter
    ) async throws {
        guard start < end else { return }
        let capacity = Int(min(Int64(resource.chunkSize), end - start))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        let rate = request.options.maxBytesPerSecond.flatMap { $0 > 0 ? $0 : nil }
        var position = start
        var previousChunk = 0
        // Counted here and published to the record (a lock and a URL hash) only before each wait
        // and at the end, not per chunk: whoever reads the record then sees every written byte.
        var unpublished: Int64 = 0
        func publish() {
            guard unpublished > 0 else { return }
            let delivered = unpublished
            updateRecord(request.url, index) { $0.bytesDelivered += delivered }
            unpublished = 0
        }
        defer { publish() }
        while position < end {
            var wait = Duration.zero
            if previousChunk > 0 {
                wait = delay ?? .zero
                if let rate { wait = max(wait, .seconds(Double(previousChunk) / Double(rate))) }
            }
            // The downloader's overall limit, shared with other transfers (zero without one),
            // asked again after every wait: others may have taken the bytes meanwhile.
            while true {
                wait = max(wait, writer.pacingDelay)
                guard wait > .zero else { break }
                publish()
                try await clock.sleep(for: wait, tolerance: nil)
                wait = .zero
            }
            try Task.checkCancellation()
            let count = resource.content.fill(
                UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(min(Int64(capacity), end - position))]),
                at: position)
            try writer.write(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            position += Int64(count)
            previousChunk = count
            unpublished += Int64(count)
        }
    }

    /// Puts every challenge to the request in order; throws when one is not passed.
    private func authenticate(_ request: TransferRequest, challenges: [MockAuthentication], record index: Int) async throws {
        for challenge in challenges {
            var failures = 0
            while true {
                let ask = AuthChallenge(kind: challenge.challenge, url: request.url, previousFailureCount: failures)
                let answer = await request.authenticate(ask)
                try Task.checkCancellation()
                var offered: Credential?
                switch answer {
                case .useCredential(let credential):
                    offered = credential
                case .trust:
                    break   // passes a trust question (below); counts as a wrong answer to a credential one
                case .performDefaultHandling:
                    if let user = request.url.user, let password = request.url.password {
                        offered = .password(user: user, password: password)
                    } else {
                        fallthrough
                    }
                case .reject:
                    updateRecord(request.url, index) { $0.challenges.append(challenge.challenge) }
                    throw Self.rejection(of: challenge.challenge)
                }
                updateRecord(request.url, index) { record in
                    record.challenges.append(challenge.challenge)
                    if let offered { record.credentials.append(offered.description) }
                }
                if case .trust = answer, challenge.accepted == nil { break }
                if let offered, let accepted = challenge.accepted, offered.matches(accepted) { break }
                failures += 1
                if failures >= challenge.maxFailures {
                    throw DownloadError(.authenticationFailed,
                                        "mock: \(failures) wrong answers to \(challenge.challenge)", isRetryable: false)
                }
            }
        }
    }

    /// How long one wait of a stall lasts on the clock before it waits again (a year).
    static var stallInterval: Duration { .seconds(365 * 24 * 3600) }

    /// The error for a rejected challenge, by kind.
    private static func rejection(of kind: AuthChallenge.Kind) -> DownloadError {
        switch kind {
        case .serverTrust(let host, let port, _):
            DownloadError(.tlsFailure, "mock: the server \(host):\(port) was not trusted", isRetryable: false)
        case .unknownHostKey(let host, let port, _, _):
            DownloadError(.hostKeyUnknown, "mock: the host key of \(host):\(port) was not accepted", isRetryable: false)
        default:
            DownloadError(.authenticationFailed, "mock: authentication was rejected (\(kind))", isRetryable: false)
        }
    }
}
