extension DownloadStore {
    /// Remembers nothing: a store that does not implement the memory of connections per host
    /// starts every origin at the downloader's first target, as before.
    public func rememberedConnections() async throws -> [String: Int] { [:] }

    /// Does nothing: see ``rememberedConnections()``.
    public func rememberConnections(_ count: Int, forOrigin origin: String) async throws {}
}
