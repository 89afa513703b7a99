import FileDownloadTestSupport

/// The second half of the dead-letter retry tests: the refused port is freed, a receiver answers
/// on it, and the test waits until the retried delivery alone is acknowledged.
extension WebhookReceiver {
    /// Frees `refusing` (sets it to nil) and starts a receiver answering 200 on `port`, the port
    /// it held, so that deliveries the agent sends there from now on succeed.
    static func replacing(_ refusing: inout RefusingPort?, port: Int) async throws -> WebhookReceiver {
        refusing = nil
        return try await start(port: port, status: 200)
    }

    /// Waits (up to a minute) until the acknowledged deliveries are exactly the one numbered
    /// `sequence`: an `Idempotency-Key` is INSTANCE-SEQUENCE (docs/agent-api.md).
    func waitUntilOnlyAcknowledged(sequence: String) async throws {
        try await poll("the retried delivery is acknowledged", limit: .seconds(60)) {
            acknowledgedKeys.map { String($0.split(separator: "-").last ?? "") } == [sequence]
        }
    }
}
