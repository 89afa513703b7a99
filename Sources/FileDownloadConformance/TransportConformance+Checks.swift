import FileDownload
import Foundation
import Synchronization

extension TransportConformance {
    /// Check 1.
    func fullDownload(_ context: ConformanceContext) async throws -> ConformanceResult.Outcome {
        let expected = try await fixture.expectedContent()
        context.original = expected
        try require(expected.count >= 256 * 1024,
                     "the fixture's resource has \(expected.count) bytes; the suite needs at least 256 KiB")
        let result = try await attempt("full", fixture.resource)
        try requireSuccess(result, "a download from offset 0")
        let head = try requireHead(result)
        try require(head.disposition == .resumed(at: 0),
                    "a download from offset 0 must report resumed(at: 0), not \(head.disposition)")
        if let length = head.expectedLength {
            try require(length == Int64(expected.count),
                        "the head announced \(length) bytes but the resource has \(expected.count)")
        }
        if transport.capabilities.contains(.validators) {
            try require(head.validator != nil, "the transport lists .validators but its head carried no validator")
        }
        context.validator = head.validator
        try requireSame(result.file, expected, "the downloaded file")
        return .passed
    }

    /// Check 2.
    func resumeAtHalf(_ context: ConformanceContext) async throws -> ConformanceResult.Outcome {
        let expected = try original(context)
        let half = expected.count / 2
        let result = try await attempt("half", fixture.resource, existing: expected.prefix(half), validator: context.validator,
                                       expectedLength: Int64(expected.count))
        try requireSuccess(result, "a resume at \(half)")
        let head = try requireHead(result)
        if transport.capabilities.contains(.resume) {
            try require(head.disposition == .resumed(at: Int64(half)),
                        "with the validator of the full download, a resume at \(half) must report resumed(at: \(half)), not \(head.disposition)")
        } else {
            try require(head.disposition.isRestart,
                        "the transport does not list .resume, so it must restart, not report \(head.disposition)")
        }
        try requireSame(result.file, expected, "the resumed file")
        return .passed
    }

    /// Check 3.
    func resumeWithWrongValidator(_ context: ConformanceContext) async throws -> ConformanceResult.Outcome {
        guard transport.capabilities.contains(.validators) else {
            return .notApplicable("the transport does not list .validators")
        }
        guard let validator = context.validator else {
            return .notApplicable("the full download reported no validator")
        }
        let expected = try original(context)
        let garbage = Data(expected.prefix(expected.count / 2).map { ~$0 })
        let wrong = validator.mismatching(size: Int64(expected.count))
        let result = try await attempt("wrong-validator", fixture.resource, existing: garbage, validator: wrong)
        try requireSuccess(result, "a resume with the wrong validator \(wrong)")
        let head = try requireHead(result)
        try require(head.disposition.isRestart,
                    "a resume with a validator that does not match (\(wrong), current \(validator)) must restart from zero, not report \(head.disposition)")
        try requireSame(result.file, expected, "the file after a restart")
        return .passed
    }

    /// Check 4.
    func resumeAtFullSize(_ context: ConformanceContext) async throws -> ConformanceResult.Outcome {
        let expected = try original(context)
        let result = try await attempt("full-size", fixture.resource, existing: expected, validator: context.validator,
                                       expectedLength: Int64(expected.count))
        try requireSuccess(result, "a resume at the full size")
        let head = try requireHead(result)
        switch head.disposition {
        case .complete, .resumed(at: Int64(expected.count)):
            break
        case .restarted where !transport.capabilities.contains(.resume):
            break
        default:
            throw CheckFailure("a resume at the full size (\(expected.count)) with the right validator must report complete or an empty resumed body, not \(head.disposition)")
        }
        try requireSame(result.file, expected, "the file after a resume at the full size")
        return .passed
    }

    /// Check 9.
    func missingResource() async throws -> ConformanceResult.Outcome {
        let result = try await attempt("missing", fixture.missingResource)
        guard let error = result.downloadError else {
            throw CheckFailure(result.error.map { "a missing resource must throw DownloadError, not \(type(of: $0)): \($0)" }
                ?? "a missing resource must throw, but the transfer returned normally")
        }
        try require(error.code == .notFound, "a missing resource must throw code notFound, not \(error)")
        try require(!error.isRetryable, "a missing resource must not be retryable: \(error)")
        try require(result.file.isEmpty && result.sink.fileLength == 0,
                    "a missing resource must write no body byte, but \(result.file.count) were written")
        return .passed
    }

    /// Check 10.
    func changedResource(_ context: ConformanceContext) async throws -> ConformanceResult.Outcome {
        guard let change = fixture.changeResource else {
            return .notApplicable("the fixture has no changeResource")
        }
        guard let validator = context.validator else {
            return .notApplicable("the full download reported no validator")
        }
        let original = try original(context)
        try await change()
        let changed = try await fixture.expectedContent()
        try require(changed != original, "the fixture's changeResource did not change the expected content")
        let result = try await attempt("changed", fixture.resource, existing: original.prefix(original.count / 2),
                                       validator: validator)
        try requireSuccess(result, "a resume after the remote file changed")
        let head = try requireHead(result)
        try require(head.disposition.isRestart,
                    "after the remote file changed, a resume with the old validator \(validator) must restart, not report \(head.disposition) (that splices old and new bytes)")
        if let now = head.validator {
            try require(now != validator, "after the remote file changed, the head still carried the old validator \(validator)")
        }
        try requireSame(result.file, changed, "the file after the remote file changed")
        return .passed
    }

    /// Check 11.
    func cancellation(_ context: ConformanceContext) async throws -> ConformanceResult.Outcome {
        guard let url = fixture.stallingResource else {
            return .notApplicable("the fixture has no stallingResource")
        }
        let shot = OneShot<CancellationEvent>()
        let (path, sink) = try ConformanceAttempt.prepare("stall", in: fixture.scratchDirectory, existing: Data()) { _ in
            shot.resume(.head)
        }
        let request = TransferRequest(downloadID: "conformance-stall", url: url)
        let transport = self.transport
        var task: Task<TransferEnding, Never>?
        var timer: Task<Void, Never>?
        let event = await shot.wait {
            let transfer = Task { await TransferEnding.of { try await transport.transfer(request, into: sink) } }
            task = transfer
            Task { shot.resume(.ended(await transfer.value)) }
            timer = Task {
                try? await Task.sleep(for: Self.headLimit)
                shot.resume(.timedOut)
            }
        }
        timer?.cancel()
        guard let task else { throw CheckFailure("the transfer task was not started") }
        switch event {
        case .timedOut:
            task.cancel()
            throw CheckFailure("the stalling resource sent no head within \(Self.headLimit)")
        case .ended(let ending):
            throw CheckFailure("the transfer of the stalling resource ended before its head arrived: \(ending)")
        case .head:
            break
        }
        task.cancel()
        guard let ending = await firstOf({ await task.value }, within: cancellationLimit) else {
            throw CheckFailure("the transfer did not end within \(cancellationLimit) of its task being cancelled")
        }
        sink.seal()
        let length = try ConformanceAttempt.contents(of: path).count
        context.cancelled = (sink, path, length)
        try require(ending == .cancelled,
                    "a cancelled transfer must throw CancellationError or DownloadError code cancelled, but it \(ending)")
        return .passed
    }

    /// Check 12.
    func authenticationRejected() async throws -> ConformanceResult.Outcome {
        guard let (url, _) = try authenticationFixture() else { return authenticationNotApplicable }
        let (result, asked) = try await authenticatedAttempt("auth-rejected", url, answer: .reject)
        try require(asked > 0,
                    "the authenticated resource must make the transport ask a credential challenge; none was asked (\(result.error.map { "\($0)" } ?? "it succeeded"))")
        guard let error = result.downloadError else {
            throw CheckFailure("a rejected challenge must throw DownloadError authenticationFailed, but \(result.error.map { "it threw \($0)" } ?? "it returned normally")")
        }
        try require(error.code == .authenticationFailed, "a rejected challenge must throw authenticationFailed, not \(error)")
        try require(!error.isRetryable, "a rejected challenge must not be retryable: \(error)")
        try require(result.file.isEmpty, "a rejected challenge must write no byte, but \(result.file.count) were written")
        return .passed
    }

    /// Check 13.
    func authenticationWithCredential() async throws -> ConformanceResult.Outcome {
        guard let (url, credential) = try authenticationFixture() else { return authenticationNotApplicable }
        let (result, asked) = try await authenticatedAttempt("auth-credential", url, answer: .useCredential(credential))
        try requireSuccess(result, "a download answered with the fixture's credential")
        try require(asked > 0, "the transport got the file without asking for the credential")
        if let content = fixture.authenticatedContent {
            try requireSame(result.file, try await content(), "the authenticated file")
        } else {
            try require(!result.file.isEmpty, "the authenticated download gave an empty file")
            if let length = result.head?.expectedLength {
                try require(Int64(result.file.count) == length,
                            "the authenticated file has \(result.file.count) bytes; the head announced \(length)")
            }
        }
        return .passed
    }

    /// Check 14.
    func nothingWrittenAfterReturn(_ context: ConformanceContext) throws -> ConformanceResult.Outcome {
        guard let cancelled = context.cancelled else {
            return .notApplicable(fixture.stallingResource == nil
                ? "the fixture has no stallingResource" : "the cancellation check did not see the transfer end")
        }
        try require(cancelled.sink.lateWriteAttempts == 0,
                    "the cancelled transfer wrote to its writer \(cancelled.sink.lateWriteAttempts) times after it returned")
        let now = try ConformanceAttempt.contents(of: cancelled.path).count
        try require(now == cancelled.lengthAtReturn,
                    "the cancelled transfer's file grew from \(cancelled.lengthAtReturn) to \(now) bytes after it returned")
        return .passed
    }

    // MARK: helpers

    /// An attempt whose credential challenges are answered with `answer` (trust questions with
    /// default handling); returns it and how many credential challenges were asked.
    private func authenticatedAttempt(
        _ name: String, _ url: URL, answer: AuthDisposition
    ) async throws -> (ConformanceAttempt, Int) {
        let asked = Atomic<Int>(0)
        let result = try await attempt(name, url) { challenge in
            if challenge.kind.isTrustQuestion { return .performDefaultHandling }
            asked.add(1, ordering: .relaxed)
            return answer
        }
        return (result, asked.load(ordering: .relaxed))
    }

    private var authenticationNotApplicable: ConformanceResult.Outcome {
        .notApplicable(fixture.authenticatedResource == nil
            ? "the fixture has no authenticatedResource" : "the transport does not list .authentication")
    }

    private func authenticationFixture() throws -> (URL, Credential)? {
        guard let auth = fixture.authenticatedResource, transport.capabilities.contains(.authentication) else { return nil }
        return (auth.url, auth.credential)
    }

    func original(_ context: ConformanceContext) throws -> Data {
        guard let original = context.original else {
            throw CheckFailure("the fixture's expectedContent could not be read in the first check")
        }
        return original
    }

    func requireSuccess(_ result: ConformanceAttempt, _ what: String) throws {
        if let error = result.error { throw CheckFailure("\(what) failed: \(error)") }
    }

    func requireHead(_ result: ConformanceAttempt) throws -> TransferHead {
        guard let head = result.head else { throw CheckFailure("the transfer returned without reporting a head") }
        return head
    }

    func requireSame(_ actual: Data, _ expected: Data, _ what: String) throws {
        guard actual != expected else { return }
        let firstDifference = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(actual.count, expected.count)
        throw CheckFailure("\(what) has \(actual.count) bytes, expected \(expected.count); the first difference is at byte \(firstDifference)")
    }
}
