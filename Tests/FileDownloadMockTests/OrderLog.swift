import Synchronization

/// Names appended from any task, read back in the order they were appended.
final class OrderLog: Sendable {
    private let names = Mutex<[String]>([])

    func append(_ name: String) { names.withLock { $0.append(name) } }

    var order: [String] { names.withLock { $0 } }
}
