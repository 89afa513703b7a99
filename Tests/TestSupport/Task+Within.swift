
extension Task where Success: Sendable, Failure == any Error {
    /// The task's value, or — after `seconds` — the task cancelled and a failure naming `what`.
    @discardableResult
    public func value(within seconds: Double, what: String) async throws -> Success {
        try await withThrowingTaskGroup(of: Success?.self) { group in
            group.addTask { try await self.value }
            group.addTask {
                try await Task<Never, Never>.sleep(for: .seconds(seconds))
                return nil
            }
            defer { group.cancelAll() }
            guard let result = try await group.next(), let value = result else {
                cancel()
                throw TestFailure("timed out waiting for \(what)")
            }
            return value
        }
    }
}
