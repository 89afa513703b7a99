import Foundation
import Synchronization

/// Bytes a fixture's closures read and change from any task: what an object holds now.
final class LockedData: Sendable {
    private let storage: Mutex<Data>

    init(_ data: Data) { storage = Mutex(data) }

    var value: Data {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
