import Synchronization

/// The download ids whose GIDs were looked up (GID → id), so that a GID that is not itself an id
/// (``Aria2GID``) is found by a scan of the downloads once, not at every call. It holds at most
/// ``capacity`` entries: one more empties it first (a GID looked up again is found by a scan).
final class Aria2GIDCache: Sendable {
    static let capacity = 100_000
    private let ids = Mutex<[String: String]>([:])

    func id(for gid: String) -> String? { ids.withLock { $0[gid] } }

    func remember(_ ids: some Sequence<String>) {
        self.ids.withLock { table in
            for id in ids {
                if table.count >= Self.capacity { table.removeAll(keepingCapacity: true) }
                table[Aria2GID.of(id)] = id
            }
        }
    }
}
