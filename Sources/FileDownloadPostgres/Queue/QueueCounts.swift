/// How many downloads of the shared queue are in each queue state.
public struct QueueCounts: Sendable, Hashable {
    /// Waiting for a worker (never claimed, released, or claimed with a lease that lapsed).
    public var queued: Int
    /// Held by a worker whose lease has not lapsed.
    public var claimed: Int
    /// Downloaded and in place at the destination of the worker that finished it.
    public var completed: Int
    /// Given up (the error is in the record's `errorCode` and `errorMessages`).
    public var failed: Int
    /// Cancelled by an operator or a worker.
    public var cancelled: Int

    /// Creates counts (all zero by default).
    public init(queued: Int = 0, claimed: Int = 0, completed: Int = 0, failed: Int = 0, cancelled: Int = 0) {
        self.queued = queued
        self.claimed = claimed
        self.completed = completed
        self.failed = failed
        self.cancelled = cancelled
    }

    /// Downloads not finished yet (queued or claimed).
    public var unfinished: Int { queued + claimed }
}
