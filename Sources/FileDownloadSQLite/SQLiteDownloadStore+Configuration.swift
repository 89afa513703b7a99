extension SQLiteDownloadStore {
    /// How a ``SQLiteDownloadStore`` opens its database.
    public struct Configuration: Sendable, Hashable {
        /// What a returned call survives. Default ``Durability/powerLoss``.
        public var durability: Durability
        /// How long a call waits for another connection (another process on the same file) to
        /// release its lock before it fails with `DownloadError(.store, …)`. Default 5 s.
        public var busyTimeout: Duration
        /// How many entries the event journal keeps (``SQLiteDownloadStore/appendToJournal(_:)``):
        /// after an append, the oldest beyond this many are deleted. Default 10,000; at least 1.
        public var journalCapacity: Int

        public init(durability: Durability = .powerLoss, busyTimeout: Duration = .seconds(5),
                    journalCapacity: Int = 10_000) {
            self.durability = durability
            self.busyTimeout = busyTimeout
            self.journalCapacity = max(1, journalCapacity)
        }
    }
}
