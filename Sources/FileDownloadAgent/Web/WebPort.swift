import Synchronization

/// The port the TCP listener got, known once it listens (0 until then).
final class WebPort: Sendable {
    private let mutex = Mutex(0)

    var value: Int { mutex.withLock { $0 } }

    func set(_ port: Int) { mutex.withLock { $0 = port } }
}
