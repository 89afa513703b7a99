/// How a segmented attempt ended (``Attempt/runSegments(options:seam:primary:)``).
enum SegmentsResult: Sendable {
    /// The file was not split: the first connection ended on its own, with this error or
    /// none; the attempt goes on as a one-connection attempt.
    case single((any Error)?)
    /// The attempt is over.
    case finished(AttemptOutcome)
}
