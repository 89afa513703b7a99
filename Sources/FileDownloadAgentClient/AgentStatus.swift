/// The agent's answer to `GET /v1/health` (see ``DownloadAgentClient/status()``).
public struct AgentStatus: Decodable, Sendable, Hashable {
    /// `ok` while the agent serves.
    public var status: String
    /// The API version it serves (`v1`).
    public var api: String
    /// The sequence number of the last journalled event: a client that lists the downloads and
    /// then follows the events from this number misses nothing in between.
    public var lastEventSequence: Int64
    /// How many event streams are open.
    public var eventStreams: Int
    /// How many downloads the agent knows.
    public var downloads: Int
}
