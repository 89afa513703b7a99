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
