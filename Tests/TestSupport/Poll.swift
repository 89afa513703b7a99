/// Polls `condition` every `interval` until it holds; throws a ``TestFailure`` naming `what`
/// when it still does not after `limit`. For conditions no event announces (a request the
/// server saw, a delegate that was asked).
public func poll(_ what: String, limit: Duration = .seconds(10), interval: Duration = .milliseconds(5),
                 _ condition: () async -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while await !condition() {
        guard ContinuousClock.now < deadline else { throw TestFailure("timed out waiting until \(what)") }
        try await Task.sleep(for: interval)
    }
}
