import Synchronization

/// A continuation that the first of several racers resumes; later resumes are ignored.
final class OneShot<Value: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<Value, Never>?>(nil)

    /// Suspends until ``resume(_:)`` is called; `start` installs the racers once the waiter is
    /// in place.
    func wait(_ start: () -> Void) async -> Value {
        await withCheckedContinuation { continuation in
            self.continuation.withLock { $0 = continuation }
            start()
        }
    }

    /// Resumes the waiter with `value` if nobody did yet.
    func resume(_ value: Value) {
        let taken = continuation.withLock { stored in
            defer { stored = nil }
            return stored
        }
        taken?.resume(returning: value)
    }
}

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
