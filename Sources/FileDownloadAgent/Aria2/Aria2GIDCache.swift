import Synchronization

/// The download ids whose GIDs were looked up (GID → id), so that a GID that is not itself an id
/// (``Aria2GID``) is found by a scan of the downloads once, not at every call.
final class Aria2GIDCache: Sendable {
    private let ids = Mutex<[String: String]>([:])

    func id(for gid: String) -> String? { ids.withLock { $0[gid] } }

    func remember(_ ids: some Sequence<String>) {
        self.ids.withLock { table in
            for id in ids { table[Aria2GID.of(id)] = id }
        }
    }
}
