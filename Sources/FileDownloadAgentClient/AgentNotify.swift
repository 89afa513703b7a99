/// Whom the agent tells when a download completes or fails for good (`"notify"` in the body of
/// `POST /v1/downloads`; `docs/agent-api.md`, "Completions delivered until acknowledged").
///
/// Each one given replaces the agent's default of its kind for this download
/// (`fdl agent --webhook`, `--on-complete`); one left out keeps the default. The agent delivers
/// each `completed` and `failed` event of the download to each of them until it is acknowledged
/// (a 2xx answer; exit status 0), for at most the agent's delivery lifetime.
public struct AgentNotify: Codable, Sendable, Hashable {
    /// An `http://` or `https://` URL the agent POSTs the event's JSON to (an `https://`
    /// server's certificate is verified; redirects are not followed).
    public var webhook: String?
    /// A command line the agent runs with `/bin/sh -c`, the event in its environment
    /// (`FDL_ID`, `FDL_PATH`, `FDL_SIZE`, `FDL_SHA256`, `FDL_STATE`, `FDL_SEQUENCE`, `FDL_ERROR`).
    public var command: String?

    public init(webhook: String? = nil, command: String? = nil) {
        self.webhook = webhook
        self.command = command
    }
}
