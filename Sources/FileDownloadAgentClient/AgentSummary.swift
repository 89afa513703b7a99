/// `GET /v1/summary`: how many downloads the agent holds, and how many are in each state, without
/// listing them.
public struct AgentSummary: Codable, Sendable, Hashable {
    /// Every download the agent knows.
    public var downloads: Int
    /// The number of downloads in each state, by `DownloadState` raw value (`downloading`,
    /// `completed`, ...); states without any are left out.
    public var states: [String: Int]

    public init(downloads: Int, states: [String: Int]) {
        self.downloads = downloads
        self.states = states
    }
}
