
extension Task where Success: Sendable, Failure == any Error {
    /// The task's value, or — after `seconds` — the task cancelled and a failure naming `what`.
    /// The failure comes after `seconds` even when the task ignores its cancellation: nothing
    /// waits for it then (the wait for its value is left to end on its own).
    @discardableResult
    public func value(within seconds: Double, what: String) async throws -> Success {
        let (results, sink) = AsyncStream<Result<Success, any Error>>.makeStream()
        Task<Void, Never> {
            sink.yield(await self.result)
            sink.finish()
        }
        let timer = Task<Void, Never> {
            try? await Task<Never, Never>.sleep(for: .seconds(seconds))
            sink.finish()
        }
        for await result in results {
            timer.cancel()
            return try result.get()
        }
        cancel()
        throw TestFailure("timed out waiting for \(what)")
    }
}
