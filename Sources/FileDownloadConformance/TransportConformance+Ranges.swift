import FileDownload
import Foundation

extension TransportConformance {
    /// Check 5.
    func rangeInTheMiddle(_ context: ConformanceContext) async throws -> ConformanceResult.Outcome {
        if let reason = rangesNotApplicable { return reason }
        let expected = try original(context)
        let quarter = expected.count / 4, end = 3 * expected.count / 4
        let result = try await attempt("range-middle", fixture.resource, existing: expected.prefix(quarter),
                                       end: Int64(end), validator: context.validator, expectedLength: Int64(expected.count))
        try requireSuccess(result, "the range \(quarter)..<\(end)")
        let head = try requireHead(result)
        try require(head.disposition == .resumed(at: Int64(quarter)),
                    "with the validator of the full download, the range \(quarter)..<\(end) must report resumed(at: \(quarter)), not \(head.disposition)")
        if let length = head.expectedLength {
            try require(length == Int64(expected.count),
                        "the head of a range must announce the resource's length \(expected.count), not \(length)")
        }
        try requireSame(result.file, expected.prefix(end), "the file after the range \(quarter)..<\(end)")
        return .passed
    }

    /// Check 6.
    func rangeReachingTheEnd(_ context: ConformanceContext) async throws -> ConformanceResult.Outcome {
        if let reason = rangesNotApplicable { return reason }
        let expected = try original(context)
        let start = expected.count - expected.count / 8
        for (name, end) in [("range-to-end", expected.count), ("range-beyond-end", expected.count + 4096)] {
            let result = try await attempt(name, fixture.resource, existing: expected.prefix(start), end: Int64(end),
                                           validator: context.validator, expectedLength: Int64(expected.count))
            try requireSuccess(result, "the range \(start)..<\(end) of \(expected.count) bytes")
            let head = try requireHead(result)
            try require(head.disposition == .resumed(at: Int64(start)),
                        "the range \(start)..<\(end) of \(expected.count) bytes must report resumed(at: \(start)), not \(head.disposition)")
            try requireSame(result.file, expected, "the file after the range \(start)..<\(end) of \(expected.count) bytes")
        }
        return .passed
    }

    /// Check 7.
    func rangePastTheEnd(_ context: ConformanceContext) async throws -> ConformanceResult.Outcome {
        if let reason = rangesNotApplicable { return reason }
        let expected = try original(context)
        let existing = expected + Data(count: 100)
        let start = Int64(existing.count)
        let result = try await attempt("range-past-end", fixture.resource, existing: existing, end: start + 1000,
                                       validator: context.validator, expectedLength: Int64(expected.count))
        guard let error = result.downloadError else {
            throw CheckFailure(result.error.map { "a range past the end must throw DownloadError, not \(type(of: $0)): \($0)" }
                ?? "a range starting at \(start) of \(expected.count) bytes must throw rangeNotSatisfiable, but the transfer returned normally (\(result.head.map { "\($0.disposition)" } ?? "no head"))")
        }
        try require(error.code == .rangeNotSatisfiable,
                    "a range starting at \(start) of \(expected.count) bytes must throw rangeNotSatisfiable, not \(error)")
        try require(!error.isRetryable, "a range past the end must not be retryable: \(error)")
        try require(result.head == nil, "a range past the end must report no head, but reported \(result.head!.disposition)")
        try requireSame(result.file, existing, "the file after a range past the end")
        return .passed
    }

    /// Check 8.
    func rangeIgnored(_ context: ConformanceContext) async throws -> ConformanceResult.Outcome {
        if let reason = rangesNotApplicable { return reason }
        guard let url = fixture.rangeIgnoringResource else {
            return .notApplicable("the fixture has no rangeIgnoringResource")
        }
        let expected = try original(context)
        let existing = expected.prefix(expected.count / 4), end = Int64(3 * expected.count / 4)
        let taken = try await attempt("range-ignored", url, existing: existing, end: end,
                                      validator: context.validator, expectedLength: Int64(expected.count))
        try requireSuccess(taken, "a range asked of a server that ignores ranges")
        let head = try requireHead(taken)
        try require(head.disposition == .restarted(.rangeIgnored),
                    "a server that ignores the range must make the transport report restarted(rangeIgnored), not \(head.disposition)")
        try requireSame(taken.file, expected, "the file after a restart from an ignored range")

        let refused = try await attempt("range-ignored-refused", url, existing: existing, end: end, acceptsRestart: false,
                                        validator: context.validator, expectedLength: Int64(expected.count))
        let rethrown = refused.downloadError.map {
            $0.code == ConformanceAttempt.restartRefused.code && $0.messages.contains(ConformanceAttempt.restartRefused.message)
        } ?? false
        try require(rethrown,
                    "when the sink refuses the restart the transfer must rethrow its error, but \(refused.error.map { "it threw \($0)" } ?? "it returned normally")")
        try requireSame(refused.file, existing, "the file of a sink that refused the restart")
        return .passed
    }

    /// Why the range checks do not apply, or `nil` when they do.
    private var rangesNotApplicable: ConformanceResult.Outcome? {
        transport.capabilities.contains(.ranges) ? nil : .notApplicable("the transport does not list .ranges")
    }
}
