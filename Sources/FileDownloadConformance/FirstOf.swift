/// The value of `operation`, or `nil` when it takes longer than `limit` on the continuous clock.
///
/// A watchdog, not a measurement. When the limit wins, `operation` keeps running (it may be a
/// transfer that ignores cancellation; it cannot be stopped from here); when the operation wins,
/// the timer is cancelled.
func firstOf<T: Sendable>(_ operation: @escaping @Sendable () async -> T, within limit: Duration) async -> T? {
    let shot = OneShot<T?>()
    var timer: Task<Void, Never>?
    let result = await shot.wait {
        timer = Task {
            try? await Task.sleep(for: limit)
            shot.resume(nil)
        }
        Task { shot.resume(await operation()) }
    }
    timer?.cancel()
    return result
}
