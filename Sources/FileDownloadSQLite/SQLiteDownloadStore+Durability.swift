extension SQLiteDownloadStore {
    /// What a call that returned is guaranteed to survive.
    ///
    /// The store always runs SQLite in WAL mode, where every call is one transaction and a
    /// transaction is either wholly in the file or not at all: no durability level can leave a
    /// half-written record or a damaged database behind.
    public enum Durability: Sendable, Hashable {
        /// `PRAGMA synchronous=NORMAL`: a change survives the process being killed (SIGKILL, a
        /// crash) as soon as the call returns; a power loss or kernel panic may roll back the last
        /// changes (never damage the file). About an order of magnitude more writes per second.
        case processCrash
        /// `PRAGMA synchronous=FULL` (the default): the write-ahead log is `fsync`ed before each
        /// call returns, so a change survives a power loss too.
        case powerLoss
    }
}
